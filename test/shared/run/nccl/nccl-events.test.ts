import { describe, expect, it } from 'vitest';
import { ncclRecord } from '../nccl-record';
import { NcclEventPool } from '../../../../src/shared/run/nccl/nccl-event-pool';
import {
  communicatorOf,
  joinedCommunicators,
  predictionTable,
  stepTag,
  taggedStep,
  type NcclProfileRecord,
  type NcclTunerRecord,
} from '../../../../src/shared/run/nccl/nccl-records';
import { describeChoice, mergeStepInfos, shortChoice } from '../../../../src/shared/run/nccl/nccl-step-info';
import { countedStep, joinStep, kernelSpanNs } from '../../../../src/shared/run/nccl/nccl-step-join';

const COMM = '00000000000000aa';
const G = 1_764_000_000_000_000_000n;
let nextId = 1;

const rec = (r: Partial<NcclProfileRecord>): NcclProfileRecord => ncclRecord({ comm: COMM, ...r });

/** The records of one call: its Coll start and stop, and per channel a start and an end (gpu times relative to G, ns). */
function call(seq: number, opts: { func?: string; algo?: string; proto?: string; channels?: [number, number][]; comm?: string } = {}) {
  const id = nextId++;
  const channels = opts.channels ?? [[0, 1000]];
  const coll = rec({
    id,
    seq,
    func: opts.func ?? 'AllReduce',
    algo: opts.algo ?? 'RING',
    proto: opts.proto ?? 'LL',
    nChannels: channels.length,
    comm: opts.comm ?? COMM,
    hostNs: 5_000 + seq,
  });
  const chStarts: NcclProfileRecord[] = [];
  const chEnds: NcclProfileRecord[] = [];
  channels.forEach(([s, e], c) => {
    const chId = nextId++;
    chStarts.push(rec({ kind: 'kernel-ch', id: chId, parent: id, channel: c, gpuNs: s < 0 ? 0n : G + BigInt(s), comm: coll.comm }));
    chEnds.push(rec({ kind: 'kernel-ch', point: 'channel-end', id: chId, gpuNs: e < 0 ? 0n : G + BigInt(e), comm: coll.comm }));
  });
  return { coll, stop: rec({ point: 'stop', id, hostNs: 6_000 + seq, comm: coll.comm }), chStarts, chEnds };
}
const all = (c: ReturnType<typeof call>) => [c.coll, c.stop, ...c.chStarts, ...c.chEnds];

describe('the NCCL event join', () => {
  it('finds the communicator this rank joined last from the init records', () => {
    const records = [
      rec({ kind: 'comm', comm: 'a1', rank: 0, peer: 2 }),
      rec({ kind: 'comm', comm: 'b2', rank: 1, peer: 2 }),
      rec({ kind: 'comm', comm: 'c3', rank: 0, peer: 2 }),
    ];
    expect(communicatorOf(records, 0, 2)).toBe('c3');
    expect(communicatorOf(records, 1, 2)).toBe('b2');
    expect(communicatorOf(records, 0, 4)).toBeNull();
  });

  it('joins calls by communicator, function and sequence number: the same number of another function or communicator is another call', () => {
    const pool = new NcclEventPool();
    const mine = call(4);
    const otherFunc = call(4, { func: 'Broadcast', algo: 'TREE' });
    const otherComm = call(4, { comm: 'bb', algo: 'NVLS' });
    pool.add([...all(otherFunc), ...all(otherComm), ...all(mine)]);
    const [c] = pool.take(COMM, 'AllReduce', [4]);
    expect(c?.algo).toBe('RING');
    expect(pool.find(COMM, 'Broadcast', 4)?.algo).toBe('TREE');
    expect(pool.find('bb', 'AllReduce', 4)?.algo).toBe('NVLS');
    expect(pool.find(COMM, 'AllReduce', 4)).toBeUndefined(); // taken
  });

  it('attaches channels that arrive before their collective, and ends that arrive before their channel', () => {
    const pool = new NcclEventPool();
    const c = call(0, {
      channels: [
        [100, 900],
        [120, 1100],
      ],
    });
    pool.add([c.chEnds[1], c.chStarts[0]]); // a later read's order: proxy thread first
    expect(pool.complete(COMM, 'AllReduce', [0])).toBe(false);
    pool.add([c.coll, c.chStarts[1], c.chEnds[0], c.stop]);
    expect(pool.complete(COMM, 'AllReduce', [0])).toBe(true);
    const [coll] = pool.take(COMM, 'AllReduce', [0]);
    expect(coll!.channels.map((ch) => [ch.channel, ch.startGpuNs! - G, ch.endGpuNs! - G])).toEqual([
      [0, 100n, 900n],
      [1, 120n, 1100n],
    ]);
    expect(coll!.stopNs).toBe(6_000);
  });

  it('takes the real end of a call from its channels, not from the Coll stop (which only means enqueued)', () => {
    const c = call(1, {
      channels: [
        [200, 5_200],
        [150, 4_000],
        [300, 6_150],
      ],
    });
    const pool = new NcclEventPool();
    pool.add(all(c));
    const span = kernelSpanNs(pool.find(COMM, 'AllReduce', 1)!);
    expect([span!.start - G, span!.end - G]).toEqual([150n, 6_150n]);
  });

  it('counts a channel whose end never came, and one stamped zero, without timing them', () => {
    const c = call(2, {
      channels: [
        [0, 1_000],
        [10, 2_000],
        [-1, -1],
      ],
    });
    const pool = new NcclEventPool();
    pool.add([c.coll, c.stop, ...c.chStarts, c.chEnds[0], c.chEnds[2]]); // channel 1's end is missing
    expect(pool.complete(COMM, 'AllReduce', [2])).toBe(false);
    const { info } = joinStep(pool.take(COMM, 'AllReduce', [2]), 1, null);
    expect(info.missingEnds).toBe(1);
    expect(info.zeroTimes).toBe(1);
    expect(info.kernelUs).toEqual([1]);
  });

  it('counts the kernels profiler v7 names for the calls, and the symmetric ones among them, over ranks too', () => {
    const sym = [call(30), call(31)];
    const plain = call(32);
    for (const c of sym) Object.assign(c.coll, { kernel: 'AllReduce_AGxLL_R', symmetric: true });
    plain.coll.kernel = 'AllReduce_Sum_f32_RING_LL';
    const pool = new NcclEventPool();
    pool.add([...sym.flatMap(all), ...all(plain)]);
    const { info } = joinStep(pool.take(COMM, 'AllReduce', [30, 31, 32]), 3, null);
    expect(info.kernel).toEqual({ AllReduce_AGxLL_R: 2, AllReduce_Sum_f32_RING_LL: 1 });
    expect(info.symmetric).toBe(2);
    const merged = mergeStepInfos([info, info]);
    expect(merged?.kernel).toEqual({ AllReduce_AGxLL_R: 4, AllReduce_Sum_f32_RING_LL: 2 });
    expect(merged?.symmetric).toBe(4);
    // Before v7 no call names its kernel: neither field.
    const old = new NcclEventPool();
    old.add(all(call(40)));
    const before = joinStep(old.take(COMM, 'AllReduce', [40]), 1, null).info;
    expect(before).not.toHaveProperty('kernel');
    expect(before).not.toHaveProperty('symmetric');
  });

  it('gives a call to the step its tag names (profiler v7), over the step its number joined it to, and counts the tagged ones', () => {
    expect([stepTag(0), stepTag(6), taggedStep(7), taggedStep(0), taggedStep(undefined)]).toEqual([1, 7, 6, null, null]);
    const mine = [call(50, { channels: [[0, 2_000]] }), call(52, { channels: [[0, 3_000]] })];
    const other = call(51, { channels: [[0, 9_000]] });
    const untagged = call(53, { channels: [[0, 4_000]] });
    for (const c of mine) c.coll.userTag = stepTag(2);
    other.coll.userTag = stepTag(5);
    const pool = new NcclEventPool();
    pool.add([...mine, other, untagged].flatMap(all));
    expect(pool.find(COMM, 'AllReduce', 50)?.tag).toBe(3);
    expect(pool.find(COMM, 'AllReduce', 53)).not.toHaveProperty('tag');
    const clock = { gpuNs: G, hostNs: 1_000_000, errorNs: 0 };
    const tag = stepTag(2);
    const { info, slices } = joinStep(pool.take(COMM, 'AllReduce', [50, 51, 52, 53], tag), 4, clock, 16, undefined, tag);
    // Call 51 is the step at index 5's by its tag: neither seen nor timed here, and left in the pool for that step.
    expect(info).toMatchObject({ calls: 4, seen: 3, tagged: 2, elsewhere: { '5': 1 }, kernelUs: [2, 3, 4] });
    expect(slices.map((x) => [x.iteration, x.step])).toEqual([
      [0, 2],
      [2, 2],
      [3, undefined],
    ]);
    expect(pool.find(COMM, 'AllReduce', 51)?.tag).toBe(6);
    expect(pool.size).toBe(1);
    // Ranks add up; a join without the step's tag (as before) takes every call its numbers name.
    const merged = mergeStepInfos([info, info]);
    expect(merged).toMatchObject({ tagged: 4, elsewhere: { '5': 2 } });
    const { info: byNumber, slices: named } = joinStep(pool.take(COMM, 'AllReduce', [51]), 1, clock);
    expect(byNumber).toMatchObject({ seen: 1, tagged: 1 });
    expect(named.map((x) => x.step)).toEqual([5]);
    // Untagged calls (before v7, or sent plain): neither field.
    const old = new NcclEventPool();
    old.add(all(call(60)));
    const before = joinStep(old.take(COMM, 'AllReduce', [60], tag), 1, null, 16, undefined, tag).info;
    expect(before).not.toHaveProperty('tagged');
    expect(before).not.toHaveProperty('elsewhere');
    expect(mergeStepInfos([before])).not.toHaveProperty('tagged');
  });

  it('says which calls it never saw, and counts the loop calls but times only the timed iterations', () => {
    const loop = [call(10), call(11)];
    const timed = [call(12, { channels: [[0, 3_000]] }), call(13, { channels: [[0, 4_000]] })];
    const pool = new NcclEventPool();
    pool.add([...loop, ...timed].flatMap(all));
    const calls = pool.take(COMM, 'AllReduce', [10, 11, 12, 13, 14]);
    const { info } = joinStep(calls, 3, null);
    expect(info.calls).toBe(5);
    expect(info.seen).toBe(4);
    expect(info.kernelUs).toEqual([3, 4]); // the third timed iteration (14) was never seen
    expect(info.algo).toEqual({ RING: 4 });
  });

  it('puts channel slices on the host clock by the calibration, per timed iteration, capped', () => {
    const pool = new NcclEventPool();
    const calls = [
      call(20, {
        channels: [
          [1_000, 2_000],
          [1_100, 2_500],
        ],
      }),
      call(21, {
        channels: [
          [5_000, 6_000],
          [5_000, 6_000],
        ],
      }),
    ];
    pool.add(calls.flatMap(all));
    const clock = { gpuNs: G, hostNs: 1_000_000, errorNs: 800 };
    const { slices, info } = joinStep(pool.take(COMM, 'AllReduce', [20, 21]), 2, clock, 1);
    expect(slices).toEqual([
      { iteration: 0, channel: 0, algo: 'RING', proto: 'LL', startNs: 1_001_000, endNs: 1_002_000 },
      { iteration: 0, channel: 1, algo: 'RING', proto: 'LL', startNs: 1_001_100, endNs: 1_002_500 },
    ]);
    expect(info.clockErrorNs).toBe(800);
  });

  it('says "varied" with the counts where iterations differ, and merges ranks by adding counts', () => {
    const pool = new NcclEventPool();
    pool.add([call(30, { algo: 'TREE' }), call(31), call(32)].flatMap(all));
    const { info } = joinStep(pool.take(COMM, 'AllReduce', [30, 31, 32]), 3, null);
    expect(describeChoice(info.algo)).toBe('varied (RING×2, TREE×1)');
    expect(describeChoice(info.proto)).toBe('LL');
    expect(describeChoice({})).toBe('');
    const merged = mergeStepInfos([info, info]);
    expect(merged?.algo).toEqual({ RING: 4, TREE: 2 });
    expect(merged?.calls).toBe(6);
    expect(merged?.kernelMedianUs).toBe(1);
    expect(mergeStepInfos([])).toBeNull();
  });

  it('holds at most its limit of collectives, the oldest going first', () => {
    const pool = new NcclEventPool(3);
    pool.add([40, 41, 42, 43, 44].map((s) => call(s)).flatMap(all));
    expect(pool.size).toBe(3);
    expect(pool.find(COMM, 'AllReduce', 41)).toBeUndefined();
    expect(pool.find(COMM, 'AllReduce', 44)).toBeDefined();
  });
});

describe("NCCL's prediction beside the join", () => {
  const table = (ringLl: number): number[][] => [
    [12, 20, 30],
    [ringLl, 15, 25],
    [-1, -1, -1],
    [-1, -1, -1],
    [-1, -1, -1],
    [-1, -1, -1],
    [-1, -1, -1],
  ];
  const tuned = (hostNs: number, ringLl: number, comm = COMM): NcclTunerRecord => ({
    comm,
    hostNs,
    func: 'AllReduce',
    bytes: 4096,
    pipeOps: 1,
    costUs: table(ringLl),
  });

  it("names the table's cells by algorithm and protocol, leaving out what NCCL ruled out", () => {
    expect(predictionTable(tuned(0, 9))).toEqual({
      'TREE/LL': 12,
      'TREE/LL128': 20,
      'TREE/SIMPLE': 30,
      'RING/LL': 9,
      'RING/LL128': 15,
      'RING/SIMPLE': 25,
    });
  });

  it("takes for a call the tuner's last table of its function and communicator before it", () => {
    const pool = new NcclEventPool();
    const c = call(50); // Coll start at host 5050
    pool.addTuner([tuned(5000, 7), tuned(5040, 8), tuned(5060, 99), tuned(5045, 1, 'other')]);
    pool.add(all(c));
    expect(pool.prediction(pool.find(COMM, 'AllReduce', 50)!)?.costUs[1][0]).toBe(8);
    const { info } = joinStep(pool.take(COMM, 'AllReduce', [50]), 1, null, 16, (x) => pool.prediction(x));
    expect(info.predicted).toEqual({ bytes: 4096, us: predictionTable(tuned(0, 8)) });
    const merged = mergeStepInfos([info]);
    expect(merged?.predictedChosenUs).toBe(8); // RING/LL, what NCCL chose
    expect(shortChoice(merged!)).toBe('RING LL 1ch');
  });

  it("keeps only its limit of the tuner's tables per function and communicator, the oldest going first", () => {
    const pool = new NcclEventPool(2);
    const c = call(50); // Coll start at host 5050
    pool.addTuner([tuned(5000, 7), tuned(5010, 8), tuned(5020, 9)]);
    pool.add(all(c));
    expect(pool.prediction(pool.find(COMM, 'AllReduce', 50)!)?.costUs[1][0]).toBe(9);
    const early = { ...pool.find(COMM, 'AllReduce', 50)!, startNs: 5005 };
    expect(pool.prediction(early)).toBeUndefined();
  });

  it("gives no time for NCCL's choice where the choice varied", () => {
    const pool = new NcclEventPool();
    pool.addTuner([tuned(0, 8)]);
    pool.add([call(60), call(61, { algo: 'TREE' })].flatMap(all));
    const { info } = joinStep(pool.take(COMM, 'AllReduce', [60, 61]), 2, null, 16, (x) => pool.prediction(x));
    expect(mergeStepInfos([info])?.predictedChosenUs).toBeNull();
  });
});

describe('sends and receives, which NCCL does not number', () => {
  const p2p = (func: string, peer: number, id: number, point: NcclProfileRecord['point'] = 'start') =>
    rec({ kind: 'p2p', point, id, func: point === 'start' ? func : '', peer: point === 'start' ? peer : 0, count: 256, nChannels: 2 });

  it('numbers them per communicator, direction and peer in the order NCCL started them, as the addon numbers its calls', () => {
    const pool = new NcclEventPool();
    pool.add([p2p('Send', 1, 900), p2p('Recv', 1, 901), p2p('Send', 2, 902), p2p('Send', 1, 903), p2p('Send', 1, 903, 'stop')]);
    const [first, second] = pool.take(COMM, 'Send:1', [0, 1]);
    expect([first?.id, second?.id]).toEqual([900, 903]);
    expect(second?.stopNs).toBe(0);
    expect(pool.find(COMM, 'Recv:1', 0)?.id).toBe(901);
    expect(pool.find(COMM, 'Send:2', 0)?.id).toBe(902);
  });

  it("joins a send's kernel channels and calls its algorithm P2P", () => {
    const pool = new NcclEventPool();
    pool.add([
      p2p('Send', 1, 910),
      rec({ kind: 'kernel-ch', id: 911, parent: 910, channel: 0, gpuNs: G + 100n }),
      rec({ kind: 'kernel-ch', point: 'channel-end', id: 911, gpuNs: G + 2_100n }),
    ]);
    const { info } = joinStep(pool.take(COMM, 'Send:1', [0]), 1, null);
    expect(info).toMatchObject({ seen: 1, algo: { P2P: 1 }, nChannels: { '2': 1 }, kernelUs: [2] });
  });

  it("keeps a send's tag (profiler v7) and gives it to the step the tag names", () => {
    const pool = new NcclEventPool();
    pool.add([
      { ...p2p('Send', 1, 920), userTag: stepTag(3) },
      { ...p2p('Send', 1, 921), userTag: stepTag(4) },
    ]);
    expect(pool.find(COMM, 'Send:1', 0)?.tag).toBe(4);
    const { info } = joinStep(pool.take(COMM, 'Send:1', [0, 1], stepTag(3)), 2, null, 16, undefined, stepTag(3));
    expect(info).toMatchObject({ calls: 2, seen: 1, tagged: 1, elsewhere: { '4': 1 } });
    expect(pool.find(COMM, 'Send:1', 1)?.id).toBe(921);
  });
});

describe("NCCL's proxy operations, where the network carries the data", () => {
  /** A proxy operation's start (child of `parent`) and its stop with the sums the plug-in made of its steps. */
  const proxy = (
    id: number,
    parent: number,
    o: { channel?: number; send?: boolean; stop?: boolean; first?: number; last?: number } = {},
  ) => [
    rec({
      kind: 'proxy-op',
      id,
      parent,
      channel: o.channel ?? 0,
      peer: 1,
      isSend: o.send ?? true,
      steps: 8,
      chunk: 1 << 19,
      hostNs: 10_000,
    }),
    ...(o.stop === false
      ? []
      : [
          rec({
            kind: 'proxy-op',
            point: 'stop',
            id,
            hostNs: 90_000,
            steps: 8,
            count: 4 << 20,
            firstStepNs: o.first ?? 20_000,
            lastStepNs: o.last ?? 80_000,
            waitNs: [10_000, 5_000, 40_000, 0],
          }),
        ]),
  ];

  it('attaches operations to their call, also those read before it, and waits for every one to stop', () => {
    const c = call(40, { channels: [[0, 1000]] });
    const pool = new NcclEventPool();
    const id = nextId++;
    pool.add([...proxy(id, c.coll.id, { stop: false }), ...all(c)]);
    expect(pool.complete(COMM, 'AllReduce', [40])).toBe(false);
    pool.add(proxy(id, c.coll.id).slice(1));
    expect(pool.complete(COMM, 'AllReduce', [40])).toBe(true);
    const [taken] = pool.take(COMM, 'AllReduce', [40]);
    expect(taken?.proxyOps).toHaveLength(1);
    expect(taken?.proxyOps[0]).toMatchObject({ channel: 0, peer: 1, isSend: true, plannedSteps: 8, steps: 8, bytes: 4 << 20 });
  });

  it("sums a step's operations and their steps' waits, and gives each timed iteration's operations as host-clock slices", () => {
    const calls = [41, 42].map((seq) => call(seq, { channels: [[0, 1000]] }));
    const pool = new NcclEventPool();
    for (const c of calls) pool.add([...all(c), ...proxy(nextId++, c.coll.id), ...proxy(nextId++, c.coll.id, { channel: 1, send: false })]);
    const { info, proxies } = joinStep(pool.take(COMM, 'AllReduce', [41, 42]), 1, null);
    // The timed call (the last) counts and is drawn; the one before it (a loop's) is only taken.
    expect(info.proxy).toEqual({ ops: 2, steps: 16, bytes: 8 << 20, waitUs: { gpu: 20, peer: 10, network: 80, flush: 0 } });
    expect(proxies.map((p) => [p.iteration, p.channel, p.isSend, p.startNs, p.endNs])).toEqual([
      [0, 0, true, 20_000, 80_000],
      [0, 1, false, 20_000, 80_000],
    ]);
    expect(mergeStepInfos([info, info])?.proxy).toMatchObject({ ops: 4, steps: 32 });
  });

  it('draws an operation whose steps never ran from its own start to its stop', () => {
    const c = call(43);
    const pool = new NcclEventPool();
    pool.add([...all(c), ...proxy(nextId++, c.coll.id, { first: 0, last: 0 })]);
    const { proxies } = joinStep(pool.take(COMM, 'AllReduce', [43]), 1, null);
    expect(proxies.map((p) => [p.startNs, p.endNs])).toEqual([[10_000, 90_000]]);
  });
});

describe('a step on a communicator of its own, whose calls NCCL does not number', () => {
  const SPLIT = '00000000000000bb';
  const ce = (id: number, func = 'AllGather', comm = SPLIT) =>
    rec({ kind: 'ce-coll', id, comm, func, count: 4096, datatype: 'ncclInt8', algo: 'CE', proto: 'MC' });

  it("finds the run's communicator before those split off it as it was joined, not the last one joined", () => {
    const records = [
      rec({ kind: 'comm', comm: 'run', rank: 0, peer: 2 }),
      rec({ kind: 'comm', comm: 'other', rank: 1, peer: 2 }),
      rec({ kind: 'comm', comm: 's1', rank: 0, peer: 2 }),
      rec({ kind: 'comm', comm: 's2', rank: 0, peer: 2 }),
    ];
    expect(joinedCommunicators(records, 0, 2, 2)).toEqual({ run: 'run', splits: ['s1', 's2'] });
    expect(joinedCommunicators(records, 0, 2, 0)).toEqual({ run: 's2', splits: [] });
    expect(joinedCommunicators(records, 0, 2, 3)).toBeNull();
  });

  it('keeps only its limit of copy-engine calls per communicator, the oldest going first', () => {
    const pool = new NcclEventPool(2);
    pool.add([ce(1), ce(2), ce(3), ce(4, 'AllGather', COMM)]);
    expect(pool.takeCalls(SPLIT, 'AllGather', 4096).copyEngine.map((r) => r.id)).toEqual([2, 3]);
    expect(pool.takeCalls(COMM, 'AllGather', 4096).copyEngine.map((r) => r.id)).toEqual([4]);
  });

  it("counts every call of the step's function there: on copy engines, and kernels of its size by algorithm, leaving line-ups out", () => {
    const pool = new NcclEventPool();
    const kernel = (id: number, count: number, func = 'AllGather', comm = SPLIT) =>
      rec({ id, comm, func, count, algo: 'RING', proto: 'SIMPLE', nChannels: 2 });
    pool.add([
      ce(1),
      ce(2),
      kernel(3, 1024),
      kernel(4, 1, 'AllReduce'), // the lab's one-float line-up
      kernel(5, 1024, 'AllGather', COMM), // the run's communicator: another step's
      ce(6, 'AllGather', COMM),
      ce(7, 'AlltoAll'),
    ]);
    const taken = pool.takeCalls(SPLIT, 'AllGather', 1024);
    expect(taken.copyEngine.map((r) => r.id)).toEqual([1, 2]);
    expect(taken.kernels.map((c) => c.id)).toEqual([3]);
    expect(countedStep(taken, 5)).toEqual({
      calls: 5,
      seen: 3,
      algo: { RING: 1 },
      proto: { SIMPLE: 1 },
      nChannels: { '2': 1 },
      copyEngine: 2,
      missingEnds: 0,
      zeroTimes: 0,
    });
    // Taken out: a second count finds none of them, and the other communicator's and function's stay.
    expect(countedStep(pool.takeCalls(SPLIT, 'AllGather', 1024), 0)).toMatchObject({ calls: 0, seen: 0, copyEngine: 0 });
    expect(pool.takeCalls(COMM, 'AllGather', 1024).copyEngine.map((r) => r.id)).toEqual([6]);
    expect(pool.takeCalls(SPLIT, 'AlltoAll', 1024).copyEngine.map((r) => r.id)).toEqual([7]);
  });

  it('adds the copy-engine calls of ranks up, and leaves the count out where no rank counted so', () => {
    const base = { calls: 3, seen: 3, algo: {}, proto: {}, nChannels: {}, missingEnds: 0, zeroTimes: 0 };
    expect(
      mergeStepInfos([
        { ...base, copyEngine: 3 },
        { ...base, copyEngine: 2 },
      ])?.copyEngine,
    ).toBe(5);
    expect(mergeStepInfos([base, base])?.copyEngine).toBeUndefined();
  });
});
