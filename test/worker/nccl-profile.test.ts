// The rank's side of the NCCL profiler plug-in (src/worker/nccl-profile.ts) against reads given
// here: a step whose records outgrew the plug-in's ring says so in the rank's log, once.
import { describe, expect, it } from 'vitest';
import type { NativeAddon, NativeOp, NativeTimes, NcclProfilerRead } from '../../src/addon/native-api';
import type { NcclProfileRecord } from '../../src/shared/run/nccl/nccl-records';
import { NcclProfile } from '../../src/worker/nccl-profile';
import { ncclRecord } from '../shared/run/nccl-record';

const COMM = '0000000000000042';

const record = (over: Partial<NcclProfileRecord>): NcclProfileRecord => ncclRecord({ comm: COMM, ...over });

/** An addon whose reads give `reads` in turn, then nothing new (with the last count of records lost). */
function addonReading(reads: Partial<NcclProfilerRead>[]): NativeAddon {
  let dropped = 0;
  return {
    ncclProfilerRead: () => {
      const r = reads.shift() ?? {};
      dropped = r.dropped ?? dropped;
      return { records: [], tuner: [], tunerInterface: 5, recorded: 0, inits: 1, mask: 66, interface: 5, ...r, dropped };
    },
    gpuClock: () => {
      throw new Error('no GPU here');
    },
  } as unknown as NativeAddon;
}

/** One all_reduce call `seq`, on one channel, as the plug-in records it. */
const call = (seq: number, id: number) => [
  record({ id, seq, func: 'AllReduce', algo: 'RING', proto: 'LL', datatype: 'ncclFloat32' }),
  record({ id, seq, point: 'stop', func: 'AllReduce' }),
  record({ kind: 'kernel-ch', id: id + 1, parent: id, channel: 0, gpuNs: 5n }),
  record({ kind: 'kernel-ch', point: 'channel-end', id: id + 1, parent: id, channel: 0, gpuNs: 9n }),
];
/** A step's timed calls, numbered `seqs` by NCCL. */
const timed = (...seqs: number[]): NativeTimes => ({ startNs: seqs.map(() => 0), endNs: seqs.map(() => 1), ncclSeq: seqs });

describe("the rank's NCCL profile", () => {
  it('says in the log, naming the step, when the plug-in lost records to its full ring, and only for records not told before', async () => {
    const lines: string[] = [];
    const addon = addonReading([
      { records: [record({ kind: 'comm', rank: 0, peer: 2 })] },
      { records: call(1, 10) },
      // The step of calls 2 and 3 outgrew the ring: call 3's records were lost.
      { records: call(2, 20), dropped: 7 },
      { records: call(4, 40) },
    ]);
    const profile = NcclProfile.attach(addon, 'clab_profiler.so', 0, 2, 0, (t) => lines.push(t))!;
    expect(profile.comm).toBe(COMM);
    const first = await profile.join('AllReduce', timed(1), [], false, 'all_reduce 8 B');
    expect(first?.info).toMatchObject({ calls: 1, seen: 1, algo: { RING: 1 } });
    expect(lines.filter((l) => l.includes('lost'))).toEqual([]);
    const second = await profile.join('AllReduce', timed(2, 3), [], false, 'all_reduce 1 MiB');
    expect(second?.info).toMatchObject({ calls: 2, seen: 1 });
    await profile.join('AllReduce', timed(4), [], false, 'all_reduce 2 MiB');
    const lost = lines.filter((l) => l.includes('lost'));
    expect(lost).toHaveLength(1);
    expect(lost[0]).toBe(
      "all_reduce 1 MiB: NCCL's profiler plug-in lost 7 records to its full ring while this step ran. " +
        'Of its 2 timed calls, 1 was seen (0 channels without an end), and what NCCL chose is said for those alone. ' +
        'At most about 1 timed iteration keeps every call whole.',
    );
  });
});

describe("the rank's NCCL profile with communicators split off the run's", () => {
  const SPLIT = '00000000000000bb';
  const init = (comm: string) => record({ kind: 'comm', comm, rank: 0, peer: 2 });

  it("joins the run's steps on the run's communicator, and counts a split step's calls on its own: copy engine and kernels", async () => {
    const lines: string[] = [];
    const addon = addonReading([
      { records: [init(COMM), init(SPLIT)] },
      { records: call(1, 10) },
      {
        records: [
          record({ kind: 'ce-coll', id: 30, comm: SPLIT, func: 'AllGather', count: 64, algo: 'CE', proto: 'UC' }),
          record({ kind: 'ce-coll', id: 31, comm: SPLIT, func: 'AllGather', count: 64, algo: 'CE', proto: 'UC' }),
          record({ id: 32, comm: SPLIT, func: 'AllGather', count: 16, algo: 'RING', proto: 'LL', nChannels: 1 }),
        ],
      },
    ]);
    const profile = NcclProfile.attach(addon, 'clab_profiler.so', 0, 2, 0, (t) => lines.push(t), true, 1)!;
    expect(profile.comm).toBe(COMM);
    expect(lines[0]).toContain(`communicator ${COMM}, 1 split off it: ${SPLIT}`);
    expect((await profile.join('AllReduce', timed(1), [], false))?.info).toMatchObject({ calls: 1, seen: 1, algo: { RING: 1 } });
    const op: NativeOp = { op: 'all_gather', dtype: 'float32', count: 16, send: new Float32Array(16), recv: new Float32Array(32) };
    expect(profile.countOn(1, op, 4)).toMatchObject({ calls: 4, seen: 3, copyEngine: 2, algo: { RING: 1 } });
    expect(profile.countOn(2, op, 4)).toBeNull(); // no such communicator
  });
});
