// The docs stay a map: docs/ARCHITECTURE.md short enough to read in ten minutes, one figures table
// in the README (the history lives in docs/MEASUREMENT.md), and every path or link they write
// standing in the tree, so that a file moved or split shows here rather than to a reader.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchors, backtickPaths, isFiguresTable, localLinks, slug, tables } from './doc-paths';

const ROOT = join(__dirname, '../..');
const ARCHITECTURE_MAX_LINES = 300;
const README_FIGURE_ROWS_MAX = 10;

function folderReadmes(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : folderReadmes(path);
    return e.name === 'README.md' ? [path] : [];
  });
}

const docs = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  ...['src', 'native', 'bench'].flatMap(folderReadmes),
].map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }));

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

describe('the docs', () => {
  it('docs/ARCHITECTURE.md is a map of at most 300 lines', () => {
    const lines = read('docs/ARCHITECTURE.md').split('\n').length;
    expect(lines).toBeLessThanOrEqual(ARCHITECTURE_MAX_LINES);
  });

  it('the README keeps one short figures table', () => {
    const figures = tables(read('README.md')).filter(isFiguresTable);
    expect(figures).toHaveLength(1);
    expect(figures[0].rows).toBeGreaterThan(0);
    expect(figures[0].rows).toBeLessThanOrEqual(README_FIGURE_ROWS_MAX);
  });

  it('reads the folder READMEs that hold the details', () => {
    const files = docs.map((d) => d.file);
    for (const f of ['src/main/core/hosts/README.md', 'src/shared/run/record/README.md', 'native/README.md']) {
      expect(files).toContain(f);
    }
  });

  it('every path written in backticks exists in the tree', () => {
    const missing = docs.flatMap(({ file, text }) =>
      backtickPaths(text).flatMap((p) => (existsSync(join(ROOT, p)) ? [] : [`${file}: ${p}`])),
    );
    expect(missing).toEqual([]);
  });

  it('every link to a file of the repository, and to a heading in it, resolves', () => {
    const broken = docs.flatMap(({ file, text }) =>
      localLinks(text).flatMap(({ target, anchor }) => {
        const path = target === '' ? file : relative(ROOT, join(ROOT, dirname(file), target));
        if (!existsSync(join(ROOT, path))) return [`${file}: ${target}`];
        if (anchor === undefined || !path.endsWith('.md')) return [];
        return anchors(read(path)).has(anchor) ? [] : [`${file}: ${target}#${anchor}`];
      }),
    );
    expect(broken).toEqual([]);
  });
});

describe('what the docs tests read', () => {
  it('finds paths in code spans, commands included, and passes over placeholders and fences', () => {
    const text = [
      'See `src/main/core/run/` and `REPEATS=3 bash bench/gpu/sweep.sh`, (`test/docs/docs.test.ts`).',
      'Not `src/main/core/<room>/X.ts`, `src/main/core/{a,b}/`, `npm test` or `runs/x.run.json`.',
      '```',
      'error: src/shared/export/gone.ts',
      '`src/in/a/fence.ts`',
      '```',
    ].join('\n');
    expect(backtickPaths(text)).toEqual(['src/main/core/run/', 'bench/gpu/sweep.sh', 'test/docs/docs.test.ts']);
  });

  it('finds a path that does not exist', () => {
    const missing = backtickPaths('`src/main/core/run.ts` moved').filter((p) => !existsSync(join(ROOT, p)));
    expect(missing).toEqual(['src/main/core/run.ts']);
  });

  it('gives headings the anchors GitHub gives them', () => {
    expect(slug('Graph-launched beside nccl-tests `-G` (graph.sh)')).toBe('graph-launched-beside-nccl-tests--g-graphsh');
    expect(slug('3. The α-β model on cpu ranks (model.sh)')).toBe('3-the-α-β-model-on-cpu-ranks-modelsh');
    expect([...anchors('# A\n## Figures\n### Figures\n')]).toEqual(['a', 'figures', 'figures-1']);
  });

  it('reads links to files and anchors, not web addresses', () => {
    const text = '[a](docs/APP.md) [b](#figures) [c](https://example.com/x) [d](../bench/gpu/README.md#overlap-overlapsh)';
    expect(localLinks(text)).toEqual([
      { target: 'docs/APP.md', anchor: undefined },
      { target: '', anchor: 'figures' },
      { target: '../bench/gpu/README.md', anchor: 'overlap-overlapsh' },
    ]);
  });

  it('counts figures tables apart from other tables', () => {
    const text = [
      '| what | figure |',
      '|---|---|',
      '| a | 1 |',
      '| b | 2 |',
      '',
      '| folder | may import |',
      '| --- | --- |',
      '| x | y |',
    ].join('\n');
    expect(tables(text)).toEqual([
      { header: ['what', 'figure'], rows: 2 },
      { header: ['folder', 'may import'], rows: 1 },
    ]);
    expect(tables(text).filter(isFiguresTable)).toHaveLength(1);
  });
});
