// `npm test` writes only ignored paths: screenshots go through one helper into test-results/,
// which git ignores, and no test names a tracked folder (docs/) as where it writes.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '../..');

function testSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? testSources(join(dir, e.name)) : /\.(ts|cjs|mjs)$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

const sources = testSources(join(ROOT, 'test'))
  .filter((f) => !f.endsWith('test-outputs.test.ts'))
  .map((f) => ({ file: relative(ROOT, f), text: readFileSync(f, 'utf8') }));

describe('what the tests write', () => {
  it('screenshots are taken in one place, the e2e helpers', () => {
    const takers = sources.filter((s) => s.text.includes('page.screenshot(')).map((s) => s.file);
    expect(takers).toEqual(['test/e2e/helpers.ts']);
  });

  it('no test writes under docs/ or another tracked folder by name', () => {
    const writes = /(?:screenshot|writeFileSync|copyFileSync|createWriteStream)\([^;]*['"`](?:docs|scenarios|schemas|src|bench)\//;
    expect(sources.filter((s) => writes.test(s.text)).map((s) => s.file)).toEqual([]);
  });

  it('the screenshots folder is ignored by git', () => {
    const ignored = execFileSync('git', ['check-ignore', 'test-results/screenshots/learn-broadcast.png'], { cwd: ROOT, encoding: 'utf8' });
    expect(ignored.trim()).toBe('test-results/screenshots/learn-broadcast.png');
  });
});
