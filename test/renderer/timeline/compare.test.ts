import { describe, expect, it } from 'vitest';
import { compareRepeats, defaultChoice, loadCompare } from '../../../src/renderer/src/timeline/compare';
import type { StepOrigin } from '../../../src/shared/plan/types';
import { compute, event, send, source, type StepSpec } from './fixtures';

const origin = (variant: string, repeat: number): StepOrigin => ({ kind: 'compare', compare: 0, variant, repeat });

/** One compare, variants "off" and "on", a warm-up repeat and one timed repeat; 4 steps per variant. */
function overlapSource() {
  const steps: StepSpec[] = [];
  for (const repeat of [-1, 0]) {
    for (const variant of ['off', 'on']) {
      const o = origin(variant, repeat);
      steps.push(
        { action: { kind: 'block-begin', compare: 0, variant, repeat }, origin: o },
        { action: send(0, 1), origin: o, stream: variant === 'off' ? 1 : 2, label: 'receive' },
        { action: compute(), origin: o, stream: 1, label: 'matmul' },
        { action: { kind: 'block-end', compare: 0, variant, repeat }, origin: o },
      );
    }
  }
  // Repeat 0: "off" (steps 8..11) runs from 10 000, serialised; "on" (12..15) from 50 000, overlapped.
  const events = [
    event(1, 9, 'fill', 9_000, 9_900, 1),
    event(1, 11, 'block', 10_000, 13_000),
    event(1, 9, 'timed', 10_000, 11_000, 1),
    event(1, 10, 'timed', 11_000, 13_000, 1),
    event(1, 15, 'block', 50_100, 52_100),
    event(1, 13, 'timed', 50_100, 51_100, 2),
    event(1, 14, 'timed', 50_100, 52_100, 1),
    event(0, 15, 'block', 50_000, 51_000),
    event(0, 13, 'timed', 50_000, 51_000, 2),
    event(1, 1, 'timed', 0, 1_000, 1),
  ];
  return source(steps, events, {
    streams: ['default', 'compute', 'comm'],
    compares: [{ index: 0, path: 'steps[1]', label: 'overlap', variants: ['off', 'on'], repeat: 1 }],
  });
}

describe('compare blocks side by side', () => {
  it('lists the repeats, warm-up first, and starts on the first timed one', () => {
    const src = overlapSource();
    expect(compareRepeats(src, 0)).toEqual([-1, 0]);
    expect(defaultChoice(src)).toEqual({ compare: 0, repeat: 0 });
    expect(defaultChoice(source([{ action: compute() }], []))).toBeNull();
  });

  it('stacks each variant as a group of lanes headed by its longest block, its events re-based to its own block start', () => {
    const model = loadCompare(overlapSource(), { compare: 0, repeat: 0 });
    expect(model.lanes.map((l) => `${l.group} | ${l.name}`)).toEqual([
      'off · 3 µs | rank 1 · default',
      'off · 3 µs | rank 1 · compute',
      'on · 2 µs | rank 0 · default',
      'on · 2 µs | rank 0 · comm',
      'on · 2 µs | rank 1 · default',
      'on · 2 µs | rank 1 · compute',
      'on · 2 µs | rank 1 · comm',
    ]);
    const starts = (lane: number) => Array.from(model.lanes[lane].slices.start.subarray(0, model.lanes[lane].slices.count));
    // "off": receive then matmul on one stream; "on": both at once on two streams, from rank 0's block start.
    expect(starts(1)).toEqual([0, 1_000]);
    expect(starts(5)).toEqual([100]);
    expect(starts(6)).toEqual([100]);
    expect(starts(3)).toEqual([0]);
  });

  it('leaves out the host work and the other repeats', () => {
    const model = loadCompare(overlapSource(), { compare: 0, repeat: 0 });
    const total = model.lanes.reduce((n, l) => n + l.slices.count, 0);
    expect(total).toBe(8);
  });
});
