// The core removes what a killed rank left in /dev/shm by the pid in the names: that rank's, and
// no other process's.
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { isCpuSegment, removeCpuSegmentsOf } from '../../src/addon/cpu-segments';

const made: string[] = [];
afterEach(() => {
  for (const file of made.splice(0)) rmSync(file, { force: true });
});

/**
 * A file named as a segment `pid` made. The pids are live but one (a createUniqueId elsewhere
 * sweeps the names of dead makers; that one lives only between two lines here).
 */
function segmentOf(pid: number | string, hex: string): string {
  const file = `/dev/shm/clab-${pid}-${hex}`;
  writeFileSync(file, '');
  made.push(file);
  return file;
}

describe('cpu segments by their maker', () => {
  it('removes every segment of one pid, and none of a pid that starts with the same digits', () => {
    const mine = [segmentOf(process.pid, '00aa'), segmentOf(process.pid, '00bb')];
    const others = [segmentOf(process.ppid, '00cc'), segmentOf(`${process.pid}7`, '00dd'), segmentOf(process.pid, 'not-hex')];
    removeCpuSegmentsOf(process.pid);
    expect(mine.filter(existsSync)).toEqual([]);
    expect(others.filter(existsSync)).toEqual(others);
  });

  it('knows a cpu id from an nccl one', () => {
    expect(isCpuSegment('/clab-123-0123456789abcdef')).toBe(true);
    expect(isCpuSegment('AAECAwQFBgcICQoLDA0ODw==')).toBe(false);
  });
});
