// bin/code-cache.cjs: the CLI's and the rank's bundles loaded as require() loads them, with V8's
// code cache of their last start. Each case loads a small bundle in a fresh node process, as
// bin/clab.cjs does, and reads back what the loader did and what the module saw.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../setup/temp-dirs';

const LOADER = resolve('bin/code-cache.cjs');
const BUNDLE = `'use strict';
const { join } = require('node:path');
exports.answer = 6 * 7;
exports.dirname = __dirname;
exports.filename = __filename;
exports.sameModule = require.cache[__filename] === module;
exports.joined = join('a', 'b');
exports.thisIsExports = this === exports;
${Array.from({ length: 200 }, (_, i) => `function f${i}(x) { return x * ${i} + ${i}; }`).join('\n')}
exports.sum = [${Array.from({ length: 200 }, (_, i) => `f${i}(1)`).join(', ')}].reduce((a, b) => a + b, 0);
`;

/** Loads `file` through the loader in a fresh node; what it exported and the cache's outcome. */
function load(file: string, env: Record<string, string> = {}) {
  const script = `const c = require(${JSON.stringify(LOADER)});
    const m = c.requireWithCodeCache(${JSON.stringify(file)}, module);
    process.stdout.write(JSON.stringify({ outcome: c.lastOutcome(), ...m }));`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20_000, env: { ...process.env, ...env } });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as {
    outcome: string;
    answer: number;
    dirname: string;
    filename: string;
    sameModule: boolean;
    joined: string;
    thisIsExports: boolean;
    sum: number;
  };
}

const caches = (dir: string) => (existsSync(join(dir, '.code-cache')) ? readdirSync(join(dir, '.code-cache')).sort() : []);

describe('the code cache of a bundle', () => {
  it('is written by the first start and read by the next, the module the same as require() makes', () => {
    const dir = tempDir('code-cache');
    const file = join(dir, 'bundle.cjs');
    writeFileSync(file, BUNDLE);
    const first = load(file);
    expect(first).toEqual({
      outcome: 'absent',
      answer: 42,
      dirname: dir,
      filename: file,
      sameModule: true,
      joined: join('a', 'b'),
      thisIsExports: true,
      sum: 39800,
    });
    const written = caches(dir);
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(
      new RegExp(`^bundle\\.cjs\\.${process.versions.v8.replace(/\./g, '\\.')}\\.${process.arch}\\.[0-9a-f]{24}\\.v8$`),
    );
    expect(load(file)).toEqual({ ...first, outcome: 'accepted' });
    expect(caches(dir)).toEqual(written);
  });

  it('of a rebuilt bundle is made anew, and the old one goes', () => {
    const dir = tempDir('code-cache');
    const file = join(dir, 'bundle.cjs');
    writeFileSync(file, BUNDLE);
    load(file);
    const old = caches(dir);
    writeFileSync(file, `${BUNDLE}exports.answer = 43;\n`);
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    expect(load(file)).toMatchObject({ outcome: 'absent', answer: 43 });
    const now = caches(dir);
    expect(now).toHaveLength(1);
    expect(now).not.toEqual(old);
    expect(load(file)).toMatchObject({ outcome: 'accepted', answer: 43 });
  });

  it('of other bytes of the same size and time of change is not read (a copy or a package keeps both)', () => {
    const dir = tempDir('code-cache');
    const file = join(dir, 'bundle.cjs');
    const when = new Date('2026-01-01T00:00:00Z');
    writeFileSync(file, BUNDLE);
    utimesSync(file, when, when);
    expect(load(file)).toMatchObject({ outcome: 'absent', answer: 42 });
    writeFileSync(file, BUNDLE.replace('6 * 7', '6 * 8'));
    utimesSync(file, when, when);
    expect(load(file)).toMatchObject({ outcome: 'absent', answer: 48 });
    expect(load(file)).toMatchObject({ outcome: 'accepted', answer: 48 });
  });

  it('that V8 refuses (damaged) is compiled as usual and written again', () => {
    const dir = tempDir('code-cache');
    const file = join(dir, 'bundle.cjs');
    writeFileSync(file, BUNDLE);
    load(file);
    const [name] = caches(dir);
    writeFileSync(join(dir, '.code-cache', name!), Buffer.alloc(4096, 7));
    expect(load(file)).toMatchObject({ outcome: 'rejected', answer: 42, sum: 39800 });
    expect(load(file)).toMatchObject({ outcome: 'accepted', answer: 42 });
  });

  it('is none where its folder cannot be made, and the bundle loads all the same', () => {
    const dir = tempDir('code-cache');
    const file = join(dir, 'bundle.cjs');
    writeFileSync(file, BUNDLE);
    writeFileSync(join(dir, '.code-cache'), 'a file where the folder would be');
    expect(load(file)).toMatchObject({ outcome: 'absent', answer: 42 });
    expect(load(file)).toMatchObject({ outcome: 'absent', answer: 42 });
    expect(readdirSync(dir).sort()).toEqual(['.code-cache', 'bundle.cjs']);
  });

  it('is neither read nor written with CLAB_CODE_CACHE=0', () => {
    const dir = tempDir('code-cache');
    const file = join(dir, 'bundle.cjs');
    writeFileSync(file, BUNDLE);
    expect(load(file, { CLAB_CODE_CACHE: '0' })).toMatchObject({ outcome: 'off', answer: 42, sameModule: true });
    expect(caches(dir)).toEqual([]);
  });

  it('resolves an import() in the bundle as require() would', () => {
    const dir = tempDir('code-cache');
    const file = join(dir, 'dynamic.cjs');
    writeFileSync(file, "exports.kind = import('node:path').then((m) => typeof m.join);\n");
    const script = `const c = require(${JSON.stringify(LOADER)});
      c.requireWithCodeCache(${JSON.stringify(file)}, module).kind.then((k) => console.log(k));`;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20_000 });
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe('function');
  });

  it("lets a bundle's error through, and no half-loaded module stays behind", () => {
    const dir = tempDir('code-cache');
    const file = join(dir, 'broken.cjs');
    writeFileSync(file, "exports.a = 1;\nthrow new Error('broken at load');\n");
    const script = `const c = require(${JSON.stringify(LOADER)});
      try { c.requireWithCodeCache(${JSON.stringify(file)}, module); } catch (e) { console.log(e.message, ${JSON.stringify(file)} in require.cache); }`;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20_000 });
    expect(r.stdout.trim()).toBe('broken at load false');
  });
});

// The rank's bundle: dist/worker.cjs loads dist/worker-main.cjs through the loader, and a rank writes
// its cache once its steps are done (it ends by a native exit, which runs no exit handler). A copy of
// the two bundles inside the package (where the rank finds the addon), run by the core's own forks.
describe("the rank's code cache", () => {
  const made: string[] = [];
  afterAll(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('is written by a run on cpu ranks and read by the next', () => {
    mkdirSync('build', { recursive: true });
    const dir = mkdtempSync(join(resolve('build'), 'code-cache-test-'));
    made.push(dir);
    for (const f of ['worker.cjs', 'worker-main.cjs']) copyFileSync(join('dist', f), join(dir, f));
    const out = join(tempDir('code-cache-run'), 'run.run.json');
    const run = () =>
      spawnSync(process.execPath, ['bin/clab.cjs', 'run', 'scenarios/explicit-values.scenario.json', '--backend', 'cpu', '--out', out], {
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, CLAB_WORKER_ENTRY: join(dir, 'worker.cjs'), CLAB_EARLY_RANKS: '0' },
      });
    const first = run();
    expect(first.status, first.stderr).toBe(0);
    const written = caches(dir);
    expect(written).toEqual([expect.stringMatching(/^worker-main\.cjs\..+\.v8$/)]);
    const cache = join(dir, '.code-cache', written[0]!);
    const madeAt = statSync(cache).mtimeMs;
    const second = run();
    expect(second.status, second.stderr).toBe(0);
    // Read, not written again: a rank writes only where it read none.
    expect(caches(dir)).toEqual(written);
    expect(statSync(cache).mtimeMs).toBe(madeAt);
  });
});
