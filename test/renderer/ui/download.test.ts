import { describe, expect, it } from 'vitest';
import { fileStem } from '../../../src/renderer/src/ui/download.js';

describe('download file names', () => {
  it('keep a scenario name readable and safe on every system', () => {
    expect(fileStem('All-in-one collectives')).toBe('All-in-one-collectives');
    expect(fileStem('all_reduce: 8 B … 64 MiB / 2 ranks')).toBe('all_reduce-8-B-64-MiB-2-ranks');
    expect(fileStem('../etc/passwd')).toBe('etc-passwd');
  });

  it('fall back to "run" where nothing is left', () => {
    expect(fileStem('  ')).toBe('run');
    expect(fileStem('…')).toBe('run');
  });
});
