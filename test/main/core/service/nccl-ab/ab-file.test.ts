// The A/B file: written beside its records' folder with the records named relative to it, read
// back the same, and a bad one refused in one line naming the file, the JSON path and what was
// expected; the runs folder's listing of them.
import { mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { abFileOf, listAbFiles, readAbFile, saveAb } from '../../../../../src/main/core/service/nccl-ab/ab-file';
import { summarizeAb, type AbRun } from '../../../../../src/main/core/service/nccl-ab/summarize';
import { abOrder, type NcclAbSummary } from '../../../../../src/shared/results/nccl-ab';
import { MAX_AB_FILE_BYTES, parseAbText } from '../../../../../src/shared/run/api/nccl-ab-file';
import type { RunRecord } from '../../../../../src/shared/run/record/record';
import { tempDir } from '../../../../setup/temp-dirs';

const dir = tempDir('nccl-ab-file');

/** A record of one all_reduce of 8 B at `us` µs per op, that loaded `version`. */
const record = (us: number, version: string) =>
  ({
    status: 'passed',
    environment: { ncclLibrary: { path: `/lib/${version}/libnccl.so.2`, version, sha256: null, chosenBy: 'option' } },
    steps: [
      {
        index: 0,
        label: 'all_reduce',
        bytes: 8,
        verdict: 'pass',
        action: { kind: 'collective', op: 'all_reduce' },
        origin: { kind: 'step' },
        timing: { min: us, median: us, max: us, mean: us, samples: 10, perOp: us },
      },
    ],
  }) as unknown as RunRecord;

/** An A/B of two repeats whose records went to `folder`. */
function summary(folder: string): NcclAbSummary {
  const runs: AbRun[] = abOrder(2).map(({ repeat, side }) => ({
    repeat,
    side,
    record: record(side === 'A' ? 10 + repeat : 12 + repeat, side === 'A' ? '2.28.3' : '2.30.7'),
    savedTo: join(folder, `${side}${repeat + 1}.run.json`),
  }));
  return summarizeAb({
    scenario: 'small all_reduce',
    scenarioFile: null,
    createdAt: new Date('2026-11-27T12:00:00Z'),
    repeats: 2,
    paths: { A: '/a/libnccl.so.2', B: '/b/libnccl.so.2' },
    runs,
  });
}

describe('the A/B file', () => {
  it('lies beside its records’ folder, names them relative to itself and reads back the same', async () => {
    const folder = join(dir, 'runs', 'ab-1');
    mkdirSync(folder, { recursive: true });
    const file = abFileOf(`${folder}/`);
    expect(file).toBe(join(dir, 'runs', 'ab-1.nccl-ab.json'));
    const saved = saveAb(file, summary(folder));
    expect(saved.turns.map((t) => t.record)).toEqual(['ab-1/A1.run.json', 'ab-1/B1.run.json', 'ab-1/B2.run.json', 'ab-1/A2.run.json']);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ format: 'clab.nccl-ab', version: 1 });
    expect(await readAbFile(file)).toEqual(saved);
    expect(saved.steps[0]).toMatchObject({ aUs: 10.5, bUs: 12.5, verdict: 'slower' });
  });

  it.each([
    ['another format', (a: NcclAbSummary) => Object.assign(a, { format: 'clab.run' }), 'ab.json: format: expected "clab.nccl-ab"'],
    [
      'a ratio that is text',
      (a: NcclAbSummary) => Object.assign(a.steps[0], { ratio: '1.2' }),
      'ab.json: steps.0.ratio: expected number, received string',
    ],
    [
      'more repeats than an A/B holds',
      (a: NcclAbSummary) => Object.assign(a, { repeats: 101 }),
      'ab.json: repeats: Too big: expected number to be <=100',
    ],
    [
      'a side that is neither',
      (a: NcclAbSummary) => Object.assign(a.turns[1], { side: 'C' }),
      'ab.json: turns.1.side: expected one of "A"|"B"',
    ],
    [
      'no libraries',
      (a: NcclAbSummary) => delete (a as Partial<NcclAbSummary>).libraries,
      'ab.json: libraries: expected object, received undefined',
    ],
  ])('is refused with %s, in one line naming the file, the path and what was expected', (_, spoil, message) => {
    const a = good();
    spoil(a);
    expect(() => parseAbText('ab.json', JSON.stringify(a))).toThrow(message);
    try {
      parseAbText('ab.json', JSON.stringify(a));
    } catch (e) {
      expect((e as Error).message).not.toContain('\n');
    }
  });

  it('says where broken JSON breaks', () => {
    expect(() => parseAbText('ab.json', '{"format": "clab.nccl-ab",\n  "version": 1,,}')).toThrow(
      /^ab\.json: its JSON breaks at line 2, column 16/,
    );
  });

  it('refuses a file past its bound before reading it whole', async () => {
    const file = join(dir, 'huge.nccl-ab.json');
    writeFileSync(file, '{}');
    truncateSync(file, MAX_AB_FILE_BYTES + 1);
    await expect(readAbFile(file)).rejects.toThrow(/larger than the 33554432 bytes/);
  });
});

describe('listAbFiles', () => {
  it('lists each A/B of the runs folder from its head, a broken one with why, and nothing else', () => {
    const runs = join(dir, 'listed');
    mkdirSync(join(runs, 'ab-2'), { recursive: true });
    saveAb(join(runs, 'ab-2.nccl-ab.json'), summary(join(runs, 'ab-2')));
    // Named before ab-2, made after it: listed first.
    saveAb(join(runs, 'ab-1.nccl-ab.json'), { ...summary(join(runs, 'ab-1')), createdAt: '2026-11-28T08:00:00.000Z' });
    writeFileSync(join(runs, 'broken.nccl-ab.json'), JSON.stringify({ ...good(), createdAt: 'yesterday' }));
    writeFileSync(join(runs, 'a.run.json'), '{}');
    mkdirSync(join(runs, 'folder.nccl-ab.json'));
    const listed = listAbFiles(runs);
    expect(listed.map((l) => l.path.slice(runs.length + 1))).toEqual(['ab-1.nccl-ab.json', 'ab-2.nccl-ab.json', 'broken.nccl-ab.json']);
    expect(listed.slice(1)).toEqual([
      {
        ok: true,
        path: join(runs, 'ab-2.nccl-ab.json'),
        scenario: 'small all_reduce',
        createdAt: '2026-11-27T12:00:00.000Z',
        repeats: 2,
        libraries: { A: { path: '/a/libnccl.so.2', version: '2.28.3' }, B: { path: '/b/libnccl.so.2', version: '2.30.7' } },
      },
      { ok: false, path: join(runs, 'broken.nccl-ab.json'), problem: 'broken.nccl-ab.json: createdAt: Invalid ISO datetime' },
    ]);
    expect(listAbFiles(join(dir, 'no-such-folder'))).toEqual([]);
  });
});

function good(): NcclAbSummary {
  return JSON.parse(JSON.stringify(summary('/runs/x'))) as NcclAbSummary;
}
