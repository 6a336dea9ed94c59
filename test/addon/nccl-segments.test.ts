// NCCL's shared-memory segments lose their names only when NCCL destroys its communicator, which a
// rank that is done, or killed, never does (src/addon/nccl-segments.ts): their names are read from
// a process's memory map (NCCL's only, those still named, each once) and removed.
import { existsSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ncclSegmentsMapped, ncclSegmentsOf, removeNcclSegments } from '../../src/addon/nccl-segments';

const maps = [
  '7f1a2b000000-7f1a2b200000 rw-s 00000000 00:1a 123 /dev/shm/nccl-3NWTVJ',
  '7f1a2b200000-7f1a2b400000 rw-s 00000000 00:1a 123 /dev/shm/nccl-3NWTVJ',
  '7f1a2c000000-7f1a2c100000 rw-s 00000000 00:1a 124 /dev/shm/nccl-QBd11z (deleted)',
  '7f1a2d000000-7f1a2d100000 rw-s 00000000 00:1a 125 /dev/shm/clab-1234-00ff',
  '7f1a2e000000-7f1a2e100000 rw-s 00000000 00:1a 126 /dev/shm/nccl-toolongname',
  '7f1a2f000000-7f1a2f100000 r-xp 00000000 08:01 127 /usr/lib/x86_64-linux-gnu/libnccl.so.2',
  '7f1a30000000-7f1a30100000 rw-s 00000000 00:1a 128 /dev/shm/nccl-a1B2c3   ',
  '7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]',
  '',
].join('\n');

describe("NCCL's shared-memory segments", () => {
  it("are named from a memory map: NCCL's, still named, each once", () => {
    expect(ncclSegmentsMapped(maps)).toEqual(['/dev/shm/nccl-3NWTVJ', '/dev/shm/nccl-a1B2c3']);
    expect(ncclSegmentsMapped('')).toEqual([]);
  });

  it("are read from a process's map under /proc, and none where it cannot be read", () => {
    const read: string[] = [];
    expect(ncclSegmentsOf(4242, (p) => (read.push(p), maps))).toEqual(['/dev/shm/nccl-3NWTVJ', '/dev/shm/nccl-a1B2c3']);
    expect(read).toEqual(['/proc/4242/maps']);
    expect(
      ncclSegmentsOf('self', () => {
        throw new Error('ENOENT');
      }),
    ).toEqual([]);
    // This test process maps none of NCCL's.
    expect(ncclSegmentsOf('self')).toEqual([]);
  });

  it('are removed one by one, past one another rank removed first, and never a name of another shape', () => {
    const removed: string[] = [];
    const count = removeNcclSegments(['/dev/shm/nccl-3NWTVJ', '/dev/shm/nccl-a1B2c3', '/dev/shm/clab-1-ff', '/etc/passwd'], (path) => {
      if (path.endsWith('3NWTVJ')) throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
      removed.push(path);
    });
    expect(removed).toEqual(['/dev/shm/nccl-a1B2c3']);
    expect(count).toBe(1);
  });

  it.runIf(existsSync('/dev/shm'))('are removed from /dev/shm for real', () => {
    const name = `/dev/shm/nccl-${randomBytes(3).toString('hex')}`;
    writeFileSync(name, 'x');
    expect(removeNcclSegments(ncclSegmentsMapped(`7f00-7f01 rw-s 00000000 00:1a 1 ${name}\n`))).toBe(1);
    expect(existsSync(name)).toBe(false);
  });
});
