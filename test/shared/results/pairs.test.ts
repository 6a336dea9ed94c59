// Pairs steps read as matrices, older records too: the stored 2 × H200 pairs record (docs/records)
// measured latency with a pairs step of its own, of 8 B, before steps named their measure.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pairsMatrix } from '../../../src/shared/export/format';
import { formatBytes } from '../../../src/shared/data/units';
import { pairsView } from '../../../src/shared/results/pairs';
import { parseRecordText } from '../../../src/shared/run/record/record-text';

const FILE = 'docs/records/p2p-pairs-h200x2.run.json';

describe('an older GPU pairs record', () => {
  const parsed = parseRecordText(readFileSync(FILE, 'utf8'));
  if (!parsed.ok) throw new Error(parsed.problem);
  const record = parsed.record;

  it('names no measure in its steps (the premise of this test)', () => {
    expect(record.steps.every((s) => s.origin.kind !== 'pairs' || s.origin.measure === undefined)).toBe(true);
    expect(record.plan.pairs.map((p) => p.bytes)).toEqual([8388608, 8388608, 8]);
  });

  it('reads its 8 B pairs step as the latency matrix, in µs', () => {
    const [matrix] = pairsView(record, 2, formatBytes).matrices;
    expect(matrix.measure).toBe('latency');
    expect(matrix.unit).toBe('µs');
    const cell = matrix.rows[0][1];
    if (cell.kind !== 'measured') throw new Error(`0→1 is ${cell.kind}`);
    // 8 B at 0.00082 GB/s: 9.7 µs an op.
    expect(cell.value).toBeCloseTo(8 / 0.0008234510628179938 / 1000, 1);
    expect(pairsMatrix(record, 2)).toContain('# latency, 8 B (µs)');
  });

  it('reads its other pairs steps as bandwidth, in GB/s', () => {
    for (const pairs of [0, 1]) {
      const [matrix] = pairsView(record, pairs, formatBytes).matrices;
      expect(matrix.measure).toBe('bandwidth');
      expect(matrix.unit).toBe('GB/s');
    }
  });
});
