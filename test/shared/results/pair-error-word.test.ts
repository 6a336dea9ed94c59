import { describe, expect, it } from 'vitest';
import { pairErrorWord } from '../../../src/shared/results/pairs';

describe("a failed pair's word in the matrices", () => {
  it('is HANG when no data moved, SLOW when data moved too slowly, down when not measured, else ERR', () => {
    expect(['CLAB_PAIR_TIMEOUT', 'CLAB_PAIR_SLOW', 'CLAB_PAIR_DOWN', 'CLAB_INJECTED_ERROR', undefined].map(pairErrorWord)).toEqual([
      'HANG',
      'SLOW',
      'down',
      'ERR',
      'ERR',
    ]);
  });
});
