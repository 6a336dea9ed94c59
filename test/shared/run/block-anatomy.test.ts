// A record saved before overlapped variants said where their block went beside the multiply reads
// with it, from its own steps and events: the stored 2 × H200 overlap record (docs/records).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseRecordText } from '../../../src/shared/run/record/record-text';
import { withBlockAnatomy } from '../../../src/shared/run/record/aggregate';
import type { RunRecord } from '../../../src/shared/run/record/record';

const FILE = 'docs/records/overlap-gpu-variants-h200x2.run.json';

describe('an older record with overlapped variants', () => {
  const text = readFileSync(FILE, 'utf8');
  const stored = JSON.parse(text) as RunRecord;

  it('was saved without the anatomy (the premise of this test)', () => {
    expect(stored.compares[0].variants.some((v) => 'computeStartUs' in v)).toBe(false);
  });

  it('reads with when each overlapped multiply began and how long the block went on after it, the rest unchanged', () => {
    const parsed = parseRecordText(text);
    if (!parsed.ok) throw new Error(parsed.problem);
    const [c] = parsed.record.compares;
    const byName = new Map(c.variants.map((v) => [v.name, v]));
    // The copy engine's block (739 µs, ×1.04 the ideal): its GEMM began 23.6 µs in and ended it.
    expect(byName.get('overlap on, copy engine')!.computeStartUs).toBeCloseTo(23.6, 1);
    expect(byName.get('overlap on, copy engine')!.afterComputeUs).toBe(0);
    // NCCL on 4 CTAs: the transfer outlasted the GEMM by some 445 µs.
    expect(byName.get('overlap on, NCCL on 4 CTAs')!.afterComputeUs).toBeCloseTo(444.9, 1);
    for (const name of ['overlap off', 'overlap off, copy engine', 'overlap on, NCCL zero-SM'])
      expect(byName.get(name)).not.toHaveProperty('computeStartUs');
    // Nothing measured changes: without the two new fields, the compare is the stored one.
    const strip = ({ computeStartUs: _a, afterComputeUs: _b, ...v }: (typeof c.variants)[number]) => v;
    expect({ ...c, variants: c.variants.map(strip) }).toEqual(stored.compares[0]);
  });

  it('leaves a record that has them, or has no events, as it is', () => {
    const parsed = parseRecordText(text);
    if (!parsed.ok) throw new Error(parsed.problem);
    expect(withBlockAnatomy(parsed.record)).toBe(parsed.record);
    const noEvents = { ...stored, events: [] };
    expect(withBlockAnatomy(noEvents)).toBe(noEvents);
  });
});
