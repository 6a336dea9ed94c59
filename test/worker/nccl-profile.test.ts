// The rank's side of the NCCL profiler plug-in (src/worker/nccl-profile.ts) against reads given
// here: a step whose records outgrew the plug-in's ring says so in the rank's log, once; and the
// plug-ins are named to NCCL only where the scenario asks to see inside it, or the environment says.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { NativeAddon, NativeOp, NativeTimes, NcclProfilerRead } from '../../src/addon/native-api';
import { stepTag, type NcclProfileRecord } from '../../src/shared/run/nccl/nccl-records';
import { INSIDE_NCCL_FORCED_OFF, INSIDE_NCCL_NOT_ASKED } from '../../src/shared/run/nccl/inside-nccl';
import { chooseProfiler, NcclProfile, PROFILER_LIBRARY, stepNccl } from '../../src/worker/nccl-profile';
import { tempDir } from '../setup/temp-dirs';
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

describe("a step's calls told by their tag (profiler v7, NCCL 2.31)", () => {
  /** Call `seq` of step `step`, carrying the step's tag as NCCL hands it back. */
  const tagged = (seq: number, id: number, step: number) =>
    call(seq, id).map((r) => (r.point === 'stop' || r.kind === 'kernel-ch' ? r : { ...r, userTag: stepTag(step) }));

  it('joins a call to the step its tag names where the numbers say otherwise, and names the step on its slices', async () => {
    const addon = addonReading([
      { records: [record({ kind: 'comm', rank: 0, peer: 2 })] },
      // Numbered 1 and 2, but NCCL says call 1 is step 4's and call 2 step 3's.
      { records: [...tagged(1, 10, 4), ...tagged(2, 20, 3)] },
    ]);
    const profile = NcclProfile.attach(addon, 'clab_profiler.so', 0, 2, 0, () => undefined)!;
    const op: NativeOp = {
      op: 'all_reduce',
      dtype: 'float32',
      count: 2,
      redop: 'sum',
      send: new Float32Array(2),
      recv: new Float32Array(2),
    };
    const at = { rank: 0, stream: 0, label: 'all_reduce 8 B', bytes: 8, slices: false };
    const three = await stepNccl(profile, op, timed(1), [], { ...at, step: 3 });
    expect(three?.info).toMatchObject({ calls: 1, seen: 0, elsewhere: { '4': 1 } });
    // Call 1 stayed in the pool for step 4, which finds it by its tag.
    const four = await stepNccl(profile, op, timed(1), [], { ...at, step: 4 });
    expect(four?.info).toMatchObject({ calls: 1, seen: 1, tagged: 1, algo: { RING: 1 } });
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

describe("which ranks load the lab's NCCL plug-ins", () => {
  const dir = tempDir('nccl-plugins');
  const addon = join(dir, 'clab_native.node');
  const library = join(dir, PROFILER_LIBRARY);
  writeFileSync(library, '');
  /** The choice for a scenario that asks (or not) in environment `env`, and what it left there for NCCL. */
  const choose = (asked: boolean, env: NodeJS.ProcessEnv = {}) => {
    const choice = chooseProfiler(addon, asked, env);
    return { ...choice, profiler: env.NCCL_PROFILER_PLUGIN, tuner: env.NCCL_TUNER_PLUGIN };
  };

  it('loads none where the scenario does not ask, and says how to ask', () => {
    expect(choose(false)).toEqual({ library: null, why: INSIDE_NCCL_NOT_ASKED, profiler: undefined, tuner: undefined });
    expect(INSIDE_NCCL_NOT_ASKED).toContain('"insideNccl": true');
  });

  it('names the profiler and the tuner to NCCL where the scenario asks', () => {
    expect(choose(true)).toEqual({ library, why: null, profiler: library, tuner: library });
  });

  it('lets CLAB_NCCL_PROFILER=1 load them and =0 keep them out, whatever the scenario says', () => {
    expect(choose(false, { CLAB_NCCL_PROFILER: '1' })).toEqual({ library, why: null, profiler: library, tuner: library });
    expect(choose(true, { CLAB_NCCL_PROFILER: '0' })).toEqual({
      library: null,
      why: INSIDE_NCCL_FORCED_OFF,
      profiler: undefined,
      tuner: undefined,
    });
  });

  it('leaves it to the scenario where CLAB_NCCL_PROFILER is neither 0 nor 1, and says it was ignored', () => {
    expect(choose(true, { CLAB_NCCL_PROFILER: 'yes' }).library).toBe(library);
    expect(choose(false, { CLAB_NCCL_PROFILER: 'yes' }).why).toBe(
      `${INSIDE_NCCL_NOT_ASKED} (CLAB_NCCL_PROFILER="yes" is neither 0 nor 1: ignored)`,
    );
  });

  it("keeps the user's own plug-ins where the scenario asks", () => {
    const own = choose(true, { NCCL_PROFILER_PLUGIN: '/opt/theirs.so', NCCL_TUNER_PLUGIN: '/opt/tuner.so' });
    expect(own).toMatchObject({ library: null, profiler: '/opt/theirs.so', tuner: '/opt/tuner.so' });
    expect(own.why).toMatch(/NCCL_PROFILER_PLUGIN is set \(\/opt\/theirs\.so\)/);
    expect(choose(true, { NCCL_TUNER_PLUGIN: '/opt/tuner.so' })).toMatchObject({ library, profiler: library, tuner: '/opt/tuner.so' });
    expect(choose(true, { CLAB_NCCL_TUNER: '0' })).toMatchObject({ library, profiler: library, tuner: undefined });
  });
});
