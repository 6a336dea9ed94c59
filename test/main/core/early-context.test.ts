// The rank's early CUDA context: native/preload/early_context.cc's library, preloaded into a rank
// forked for nccl (bin/early-context.cjs) by both doors alike (bin/early-ranks.cjs and the core's
// workers.ts). No GPU here: the library's thread finds no driver and ends; what is checked is that
// the rank gets it, starts as ever with it, and passes it on to nothing it starts.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { forkedRanks } from '../../../src/main/core/run/workers';
import { offerEarlyRanks, type EarlyRanks } from '../../../src/main/core/run/early-ranks';
import { tempDir } from '../../setup/temp-dirs';

const require = createRequire(import.meta.url);
const { earlyContextLibrary, withEarlyContext } = require('../../../bin/early-context.cjs') as {
  earlyContextLibrary(addon: string | null): string | null;
  withEarlyContext(env: NodeJS.ProcessEnv, library: string | null, platform?: string): NodeJS.ProcessEnv;
};
const { startEarlyRanks } = require('../../../bin/early-ranks.cjs') as {
  startEarlyRanks(argv: string[], entry: string, env?: NodeJS.ProcessEnv): EarlyRanks | null;
};

const addon = resolve('build/native/Release/clab_native.node');
const library = resolve('build/native/Release/clab_early_context.so');
const dir = tempDir('early-context');

afterEach(() => vi.unstubAllEnvs());

describe("the early context's place in a rank's environment", () => {
  it('is first in LD_PRELOAD of a rank named its GPU on Linux, the rest kept; nowhere else', () => {
    const onGpu = { PATH: '/bin', CLAB_EARLY_DEVICE: '1' };
    expect(withEarlyContext(onGpu, '/lab/x.so', 'linux')).toEqual({ ...onGpu, LD_PRELOAD: '/lab/x.so' });
    expect(withEarlyContext({ ...onGpu, LD_PRELOAD: '/u/mine.so' }, '/lab/x.so', 'linux').LD_PRELOAD).toBe('/lab/x.so:/u/mine.so');
    expect(withEarlyContext({ PATH: '/bin' }, '/lab/x.so', 'linux')).toEqual({ PATH: '/bin' }); // cpu ranks
    expect(withEarlyContext(onGpu, null, 'linux')).toEqual(onGpu); // not built
    expect(withEarlyContext(onGpu, '/lab/x.so', 'darwin')).toEqual(onGpu);
    expect(withEarlyContext({ ...onGpu, CLAB_EARLY_CONTEXT: '0' }, '/lab/x.so', 'linux').LD_PRELOAD).toBeUndefined();
  });

  it('is the library beside the addon, where it was built', () => {
    expect(existsSync(library)).toBe(true);
    expect(earlyContextLibrary(addon)).toBe(library);
    expect(earlyContextLibrary(join(dir, 'clab_native.node'))).toBeNull();
    expect(earlyContextLibrary(null)).toBeNull();
  });
});

describe('the early context library', () => {
  const envOf = (preload: string) => {
    const env: NodeJS.ProcessEnv = { ...process.env, CLAB_EARLY_DEVICE: '0', LD_PRELOAD: preload };
    return env;
  };
  const script = join(dir, 'child.cjs');
  writeFileSync(
    script,
    [
      "const { spawnSync } = require('node:child_process');",
      "const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.env.LD_PRELOAD))'], { encoding: 'utf8' });",
      'process.stdout.write(JSON.stringify({ own: process.env.LD_PRELOAD ?? null, child: child.stdout }));',
    ].join('\n'),
  );

  it('takes itself out of LD_PRELOAD as the process starts, keeping what else it named, so no child inherits it', () => {
    const other = '/lib/x86_64-linux-gnu/libm.so.6';
    for (const [preload, own] of [
      [library, null],
      [`${library}:${other}`, other],
      [`${other} ${library}`, other],
    ] as const) {
      const r = spawnSync(process.execPath, [script], { encoding: 'utf8', env: envOf(existsSync(other) ? preload : library) });
      expect(r.status).toBe(0);
      const seen = JSON.parse(r.stdout) as { own: string | null; child: string };
      const want = existsSync(other) ? own : null;
      expect(seen).toEqual({ own: want, child: String(want ?? 'undefined') });
    }
  });
});

describe('ranks forked with it by both doors', () => {
  it('get the same LD_PRELOAD from bin/early-ranks.cjs and the core, so the core adopts the early ones', async () => {
    // Both find the addon alike (CLAB_NATIVE_ADDON here: the stand-in entry sits in no dist/).
    vi.stubEnv('CLAB_NATIVE_ADDON', addon);
    const entry = resolve('test/fixtures/workers/leaving-rank.cjs');
    const file = join(dir, 'two.json');
    writeFileSync(file, JSON.stringify({ version: 1, name: 'two', world: { ranks: 2 }, steps: [] }));
    const early = startEarlyRanks(['node', 'bin/clab.cjs', 'run', file, '--backend', 'nccl'], entry, process.env);
    expect(early).not.toBeNull();
    expect(early!.envs.map((e) => e.LD_PRELOAD)).toEqual([library, library]);
    const pids = early!.children.map((c) => c.pid);
    // What each was started with, as the system keeps it (the library took itself out of its copy).
    const environ = readFileSync(`/proc/${pids[0]}/environ`, 'latin1').split('\0');
    expect(environ).toContain(`LD_PRELOAD=${library}`);
    offerEarlyRanks(early!);
    const exits: number[] = [];
    const source = forkedRanks(entry, 2, [0, 1]);
    const handlers = {
      message: () => undefined,
      output: () => undefined,
      invalid: () => undefined,
      exit: (r: number) => void exits.push(r),
    };
    const set = await source.open(handlers, { runId: 'early-context', env: process.env });
    expect(set.links.map((l) => l.pid)).toEqual(pids); // adopted: the same processes
    for (const l of set.links) l.kill();
    for (let i = 0; i < 100 && exits.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    expect(exits.sort()).toEqual([0, 1]);
  });
});
