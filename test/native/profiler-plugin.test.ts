// The NCCL profiler plug-in (native/profiler/, clab_profiler.so) without a GPU: the test-only
// module plays NCCL's calls against it (init, startEvent, recordEventState, stopEvent, finalize)
// through the table NCCL looks up, and the addon reads what it kept, as a rank does.
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NcclEventPool } from '../../src/shared/run/nccl/nccl-event-pool';
import { joinStep } from '../../src/shared/run/nccl/nccl-step-join';
import { stepTag } from '../../src/shared/run/nccl/nccl-records';
import { addon, BUILD_DIR } from './ranks';

const LIBRARY = path.join(BUILD_DIR, 'clab_profiler.so');
const hooks = createRequire(import.meta.url)(path.join(BUILD_DIR, 'clab_test_hooks.node')) as {
  profilerPlay(library: string, symbol: string, calls: object[]): number[];
  tunerPlay(library: string, calls: object[]): (number[] | number)[];
};
const COLL = 2,
  P2P = 4,
  PROXY_OP = 8,
  PROXY_STEP = 16,
  KERNEL_CH = 64,
  CE_COLL = 4096;
const KERNEL_CH_STOP = 22;
const T0 = 1_764_000_000_000_000_000n; // %globaltimer counts from the epoch

/** NCCL's calls for one all_reduce of `seq` with `channels` kernel channels, each `us` long. */
function allReduce(context: string, seq: number, channels: number, us: number, zeroChannel = -1): object[] {
  const coll = `coll${seq}`;
  const calls: object[] = [
    {
      call: 'start',
      context,
      handle: coll,
      type: 'coll',
      rank: 0,
      seq,
      func: 'AllReduce',
      count: 1 << 20,
      datatype: 'ncclFloat32',
      root: 0,
      nChannels: channels,
      nWarps: 16,
      algo: 'RING',
      proto: 'SIMPLE',
    },
    { call: 'stop', handle: coll },
  ];
  for (let c = 0; c < channels; c++) {
    const start = T0 + BigInt(seq * 100_000 + c * 10);
    const zero = c === zeroChannel;
    calls.push({ call: 'start', context, handle: `${coll}ch${c}`, type: 'kernel-ch', parent: coll, channel: c, pTimer: zero ? 0n : start });
    calls.push({ call: 'state', handle: `${coll}ch${c}`, state: KERNEL_CH_STOP, pTimer: zero ? 0n : start + BigInt(us * 1000) });
    calls.push({ call: 'stop', handle: `${coll}ch${c}` });
  }
  return calls;
}

describe('the NCCL profiler plug-in', () => {
  it('exports the v5 and v6 tables and sets the mask of Coll, P2p and KernelCh (and CeColl through v6), proxy events only when asked', () => {
    addon.ncclProfilerRead({ library: LIBRARY });
    const masks = hooks.profilerPlay(LIBRARY, 'ncclProfiler_v5', [{ call: 'init', context: 'a', comm: 0xabcn, rank: 1, nRanks: 2 }]);
    expect(masks).toEqual([COLL | P2P | KERNEL_CH]);
    process.env.CLAB_NCCL_PROXY_EVENTS = '1';
    try {
      const withProxy = hooks.profilerPlay(LIBRARY, 'ncclProfiler_v6', [{ call: 'init', context: 'b', comm: 0xabdn, rank: 0, nRanks: 2 }]);
      expect(withProxy).toEqual([COLL | P2P | KERNEL_CH | PROXY_OP | PROXY_STEP | CE_COLL]);
    } finally {
      delete process.env.CLAB_NCCL_PROXY_EVENTS;
    }
    const read = addon.ncclProfilerRead({ library: LIBRARY });
    expect(read.interface).toBe(6);
    expect(read.records.map((r) => [r.kind, r.comm, r.rank, r.peer])).toEqual([
      ['comm', '0000000000000abc', 1, 2],
      ['comm', '0000000000000abd', 0, 2],
    ]);
  });

  it("takes NCCL 2.31's calls through ncclProfiler_v7 and keeps the kernel each collective ran on, which only v7's descriptor names", () => {
    addon.ncclProfilerRead({ library: LIBRARY });
    // The same collective through v6 and v7. The harness fills v7's members both times: NCCL 2.29 and
    // 2.30's descriptor ends before them, and the plug-in must not read them there.
    const symmetric = (context: string, seq: number) => ({
      ...(allReduce(context, seq, 0, 0)[0] as object),
      kernelVariant: 'AllReduce_AGxLL_R',
      isSymColl: true,
    });
    const v6 = hooks.profilerPlay(LIBRARY, 'ncclProfiler_v6', [
      { call: 'init', context: 'v6', comm: 0x6n, rank: 0, nRanks: 2 },
      symmetric('v6', 1),
    ]);
    const v7 = hooks.profilerPlay(LIBRARY, 'ncclProfiler_v7', [
      { call: 'init', context: 'v7', comm: 0x7n, rank: 0, nRanks: 2 },
      symmetric('v7', 2),
      { ...(allReduce('v7', 3, 0, 0)[0] as object), kernelVariant: 'AllReduce_Sum_f32_RING_SIMPLE' },
    ]);
    // v7 asks for what v6 does.
    expect(v7).toEqual(v6);
    const read = addon.ncclProfilerRead({ library: LIBRARY });
    expect(read.interface).toBe(7);
    const colls = read.records.filter((r) => r.kind === 'coll');
    expect(colls.map((r) => [r.comm, r.seq, r.kernel, r.symmetric])).toEqual([
      ['0000000000000006', 1, undefined, undefined],
      ['0000000000000007', 2, 'AllReduce_AGxLL_R', true],
      ['0000000000000007', 3, 'AllReduce_Sum_f32_RING_SIMPLE', undefined],
    ]);
  });

  it("keeps the tag each call was made with (v7's userTag: the step's), and the join gives a call to the step its tag names", () => {
    addon.ncclProfilerRead({ library: LIBRARY });
    // NCCL's calls of the step at index 4 (tag 5), one of the step at index 8 (tag 9), one untagged.
    const tagged = (calls: object[], userTag: bigint) => [{ ...(calls[0] as object), userTag }, ...calls.slice(1)];
    const send = (context: string, userTag: bigint) => ({
      call: 'start',
      context,
      handle: `send${context}`,
      type: 'p2p',
      func: 'Send',
      count: 64,
      datatype: 'ncclInt8',
      peer: 1,
      nChannels: 1,
      userTag,
    });
    const copyEngine = (context: string, userTag: bigint) => ({
      call: 'start',
      context,
      handle: `ce${context}`,
      type: 'ce-coll',
      seq: 1,
      func: 'AllGather',
      count: 4096,
      datatype: 'ncclInt8',
      syncStrategy: 'UC',
      userTag,
    });
    // Through v6 the harness fills the tag too: NCCL 2.29 and 2.30's descriptors end before it.
    hooks.profilerPlay(LIBRARY, 'ncclProfiler_v6', [
      { call: 'init', context: 'g6', comm: 0x66n, rank: 0, nRanks: 2 },
      ...tagged(allReduce('g6', 1, 1, 5), 5n),
      send('g6', 5n),
      copyEngine('g6', 5n),
    ]);
    hooks.profilerPlay(LIBRARY, 'ncclProfiler_v7', [
      { call: 'init', context: 'g7', comm: 0x77n, rank: 0, nRanks: 2 },
      ...tagged(allReduce('g7', 2, 2, 20), 5n),
      ...tagged(allReduce('g7', 3, 1, 30), 9n),
      ...allReduce('g7', 4, 1, 40),
      send('g7', 5n),
      copyEngine('g7', 5n),
    ]);
    const { records } = addon.ncclProfilerRead({ library: LIBRARY });
    const starts = records
      .filter((r) => r.point === 'start' && r.kind !== 'kernel-ch' && r.kind !== 'comm')
      .map((r) => [r.comm.slice(-2), r.kind, r.userTag]);
    expect(starts).toEqual([
      ['66', 'coll', undefined],
      ['66', 'p2p', undefined],
      ['66', 'ce-coll', undefined],
      ['77', 'coll', 5],
      ['77', 'coll', 9],
      ['77', 'coll', undefined],
      ['77', 'p2p', 5],
      ['77', 'ce-coll', 5],
    ]);

    const pool = new NcclEventPool();
    pool.add(records);
    const comm = '0000000000000077';
    expect(pool.find(comm, 'Send:1', 0)?.tag).toBe(stepTag(4));
    const clock = { gpuNs: T0, hostNs: 1_000_000, errorNs: 0 };
    // The numbers give the step at index 4 calls 2, 3 and 4; call 3's tag says it is the step at index 8's.
    const tag = stepTag(4);
    const { info, slices } = joinStep(pool.take(comm, 'AllReduce', [2, 3, 4], tag), 3, clock, 16, undefined, tag);
    expect(info).toMatchObject({ calls: 3, seen: 2, tagged: 1, elsewhere: { '8': 1 }, kernelUs: [20.01, 40] });
    expect(slices.map((x) => [x.iteration, x.channel, x.step])).toEqual([
      [0, 0, 4],
      [0, 1, 4],
      [2, 0, undefined],
    ]);
    // Left in the pool for the step it names, whose join takes it.
    const other = joinStep(pool.take(comm, 'AllReduce', [3], stepTag(8)), 1, clock, 16, undefined, stepTag(8));
    expect(other.info).toMatchObject({ seen: 1, tagged: 1 });
    expect(other.info.elsewhere).toBeUndefined();
    expect(other.slices.map((x) => x.step)).toEqual([8]);
    expect(pool.find(comm, 'AllReduce', 3)).toBeUndefined();
  });

  it("keeps each collective NCCL ran on copy engines (v6's CeColl) at its start: function, count, root, datatype and sync, with no handle", () => {
    addon.ncclProfilerRead({ library: LIBRARY });
    const masks = hooks.profilerPlay(LIBRARY, 'ncclProfiler_v6', [
      { call: 'init', context: 'e', comm: 0xcen, rank: 1, nRanks: 4 },
      {
        call: 'start',
        context: 'e',
        handle: 'ce',
        type: 'ce-coll',
        rank: 1,
        seq: 9,
        func: 'AllGather',
        count: 4096,
        root: 0,
        datatype: 'ncclInt8',
        syncStrategy: 'MC',
      },
      { call: 'start', context: 'e', handle: 'other', type: 'group' },
    ]);
    expect(masks).toEqual([COLL | P2P | KERNEL_CH | CE_COLL]);
    const { records } = addon.ncclProfilerRead({ library: LIBRARY });
    expect(records.filter((r) => r.kind !== 'comm')).toEqual([
      expect.objectContaining({
        kind: 'ce-coll',
        point: 'start',
        comm: '00000000000000ce',
        rank: 1,
        seq: 9,
        func: 'AllGather',
        count: 4096,
        peer: 0,
        datatype: 'ncclInt8',
        algo: 'CE',
        proto: 'MC',
      }),
    ]);
    // NCCL 2.28 takes v5, which knows no copy-engine event: not asked for there.
    expect(hooks.profilerPlay(LIBRARY, 'ncclProfiler_v5', [{ call: 'init', context: 'f', comm: 0xcfn, rank: 0, nRanks: 4 }])).toEqual([
      COLL | P2P | KERNEL_CH,
    ]);
    addon.ncclProfilerRead({ library: LIBRARY });
  });

  it('asks for proxy events where the network carries the data (more than one node) unless told not to, and for none with CLAB_NCCL_EVENTS=0', () => {
    const init = (context: string, nNodes: number) =>
      hooks.profilerPlay(LIBRARY, 'ncclProfiler_v5', [{ call: 'init', context, comm: 0x5n, rank: 0, nRanks: 2, nNodes }]);
    expect(init('n1', 1)).toEqual([COLL | P2P | KERNEL_CH]);
    expect(init('n2', 2)).toEqual([COLL | P2P | KERNEL_CH | PROXY_OP | PROXY_STEP]);
    const withEnv = <T>(name: string, value: string, f: () => T) => {
      process.env[name] = value;
      try {
        return f();
      } finally {
        delete process.env[name];
      }
    };
    expect(withEnv('CLAB_NCCL_PROXY_EVENTS', '0', () => init('n3', 2))).toEqual([COLL | P2P | KERNEL_CH]);
    expect(withEnv('CLAB_NCCL_KERNEL_EVENTS', '0', () => init('n4', 1))).toEqual([COLL | P2P]);
    expect(withEnv('CLAB_NCCL_EVENTS', '0', () => init('n5', 2))).toEqual([0]);
    addon.ncclProfilerRead({ library: LIBRARY });
  });

  it('adds each proxy step into its operation: the steps that ran, their bytes, their span, and their time per state', () => {
    addon.ncclProfilerRead({ library: LIBRARY });
    const step = (n: number, states: [number, number][]) => [
      { call: 'start', context: 'x', handle: `step${n}`, type: 'proxy-step', parent: 'op', step: n },
      ...states.flatMap(([state, us]) => [
        { call: 'state', handle: `step${n}`, state, transSize: 1 << 19 },
        { call: 'sleep', us },
      ]),
      { call: 'stop', handle: `step${n}` },
    ];
    // A send's step: waits for the GPU (8), then for the network (9).
    const SEND_GPU_WAIT = 8,
      SEND_WAIT = 9;
    hooks.profilerPlay(LIBRARY, 'ncclProfiler_v5', [
      { call: 'init', context: 'x', comm: 0x42n, rank: 0, nRanks: 2, nNodes: 2 },
      ...allReduce('x', 1, 1, 10),
      {
        call: 'start',
        context: 'x',
        handle: 'op',
        type: 'proxy-op',
        parent: 'coll1',
        channel: 3,
        peer: 1,
        nSteps: 2,
        chunk: 1 << 19,
        isSend: true,
      },
      ...step(0, [
        [SEND_GPU_WAIT, 1000],
        [SEND_WAIT, 20000],
      ]),
      ...step(1, [
        [SEND_GPU_WAIT, 1000],
        [SEND_WAIT, 20000],
      ]),
      { call: 'stop', handle: 'op' },
    ]);
    const { records, dropped } = addon.ncclProfilerRead({ library: LIBRARY });
    expect(dropped).toBe(0);
    expect(records.some((r) => r.kind === 'proxy-step')).toBe(false);
    const start = records.find((r) => r.kind === 'proxy-op' && r.point === 'start')!;
    const stop = records.find((r) => r.kind === 'proxy-op' && r.point === 'stop')!;
    expect(start).toMatchObject({ channel: 3, peer: 1, isSend: true, steps: 2, chunk: 1 << 19 });
    expect(stop).toMatchObject({ id: start.id, steps: 2, count: 2 << 19 });
    const [gpu, peer, network, flush] = stop.waitNs!;
    // Each step slept 1 ms waiting for the GPU and 20 ms on the network (sleeps last at least that long).
    expect(gpu).toBeGreaterThanOrEqual(2e6);
    expect(network).toBeGreaterThanOrEqual(40e6);
    expect(network).toBeGreaterThan(gpu);
    expect([peer, flush]).toEqual([0, 0]);
    expect(stop.lastStepNs! - stop.firstStepNs!).toBeGreaterThanOrEqual(42e6);
    expect(stop.firstStepNs!).toBeGreaterThanOrEqual(start.hostNs);

    const pool = new NcclEventPool();
    pool.add(records);
    expect(pool.complete('0000000000000042', 'AllReduce', [1])).toBe(true);
    const { info, proxies } = joinStep(pool.take('0000000000000042', 'AllReduce', [1]), 1, null);
    expect(info.proxy).toMatchObject({ ops: 1, steps: 2, bytes: 1 << 20 });
    expect(proxies).toHaveLength(1);
    expect(proxies[0]).toMatchObject({ channel: 3, peer: 1, isSend: true, startNs: stop.firstStepNs, endNs: stop.lastStepNs });
  });

  it("pauses every event in the mask NCCL reads per operation, and the tuner's records, and resumes them (the addon does so around a timed loop)", () => {
    addon.ncclProfilerRead({ library: LIBRARY });
    const table = [[1, 2, 3]];
    const masks = hooks.profilerPlay(LIBRARY, 'ncclProfiler_v5', [
      { call: 'init', context: 'k', comm: 0x77n, rank: 0, nRanks: 2 },
      { call: 'pause', paused: true },
    ]);
    hooks.tunerPlay(LIBRARY, [
      { call: 'init', context: 'p', comm: 0x77n },
      { call: 'coll', context: 'p', collType: 4, bytes: 8, table },
    ]);
    const resumed = hooks.profilerPlay(LIBRARY, 'ncclProfiler_v5', [{ call: 'pause', paused: false }]);
    hooks.tunerPlay(LIBRARY, [{ call: 'coll', context: 'p', collType: 4, bytes: 16, table }]);
    expect([...masks, ...resumed]).toEqual([COLL | P2P | KERNEL_CH, 0, COLL | P2P | KERNEL_CH]);
    expect(addon.ncclProfilerRead({ library: LIBRARY }).tuner.map((t) => t.bytes)).toEqual([16]);
  });

  it('keeps a collective with its channels, their GPU times exact, and the addon reads each record once', () => {
    addon.ncclProfilerRead({ library: LIBRARY });
    hooks.profilerPlay(LIBRARY, 'ncclProfiler_v5', [
      { call: 'init', context: 'c', comm: 0x1234n, rank: 0, nRanks: 2 },
      ...allReduce('c', 7, 2, 25),
      { call: 'start', context: 'c', handle: 'send', type: 'p2p', func: 'Send', count: 64, datatype: 'ncclInt8', peer: 1, nChannels: 1 },
      { call: 'stop', handle: 'send' },
      { call: 'start', context: 'c', handle: 'group', type: 'group' },
      { call: 'finalize', context: 'c' },
    ]);
    const { records, dropped } = addon.ncclProfilerRead({ library: LIBRARY });
    expect(dropped).toBe(0);
    const coll = records.find((r) => r.kind === 'coll' && r.point === 'start')!;
    expect(coll).toMatchObject({
      comm: '0000000000001234',
      seq: 7,
      func: 'AllReduce',
      count: 1 << 20,
      datatype: 'ncclFloat32',
      nChannels: 2,
      nWarps: 16,
      algo: 'RING',
      proto: 'SIMPLE',
    });
    const channels = records.filter((r) => r.kind === 'kernel-ch' && r.point === 'start');
    expect(channels.map((r) => [r.parent, r.channel, r.gpuNs])).toEqual([
      [coll.id, 0, T0 + 700_000n],
      [coll.id, 1, T0 + 700_010n],
    ]);
    const ends = records.filter((r) => r.point === 'channel-end');
    expect(ends.map((r) => r.gpuNs - T0)).toEqual([725_000n, 725_010n]);
    // A channel's stop adds nothing to its start and its end: not kept.
    expect(records.filter((r) => r.kind === 'kernel-ch').map((r) => r.point)).toEqual(['start', 'channel-end', 'start', 'channel-end']);
    expect(records.filter((r) => r.kind === 'p2p').map((r) => [r.point, r.func, r.peer])).toEqual([
      ['start', 'Send', 1],
      ['stop', '', 0],
    ]);
    expect(records.some((r) => r.kind === ('group' as string))).toBe(false);
    expect(addon.ncclProfilerRead({ library: LIBRARY }).records).toEqual([]);

    const pool = new NcclEventPool();
    pool.add(records);
    expect(pool.complete('0000000000001234', 'AllReduce', [7])).toBe(true);
    const { info } = joinStep(pool.take('0000000000001234', 'AllReduce', [7]), 1, null);
    expect(info).toMatchObject({ calls: 1, seen: 1, algo: { RING: 1 }, proto: { SIMPLE: 1 }, nChannels: { '2': 1 }, kernelUs: [25.01] });
  });

  it('counts a channel NCCL stamped with zero (NCCL #1961) rather than timing it', () => {
    addon.ncclProfilerRead({ library: LIBRARY });
    hooks.profilerPlay(LIBRARY, 'ncclProfiler_v5', [
      { call: 'init', context: 'd', comm: 0x99n, rank: 0, nRanks: 2 },
      ...allReduce('d', 3, 4, 10, 2),
    ]);
    const pool = new NcclEventPool();
    pool.add(addon.ncclProfilerRead({ library: LIBRARY }).records);
    const { info } = joinStep(pool.take('0000000000000099', 'AllReduce', [3]), 1, null);
    expect(info.zeroTimes).toBe(1);
    expect(info.kernelUs).toEqual([10.03]);
  });

  it("records NCCL's cost table per call through ncclTunerPlugin_v5 and leaves it as it was", () => {
    addon.ncclProfilerRead({ library: LIBRARY });
    const table = [
      [10.5, 20, -1],
      [8.25, 16, 30],
      [-1, -1, -1],
      [-1, -1, -1],
      [-1, -1, -1],
      [-1, -1, -1],
      [-1, -1, -1],
    ];
    const after = hooks.tunerPlay(LIBRARY, [
      { call: 'init', context: 't', comm: 0x5an },
      { call: 'coll', context: 't', collType: 4, bytes: 1 << 20, table },
      { call: 'finalize', context: 't' },
    ]);
    expect(after).toEqual([table.flat()]);
    const read = addon.ncclProfilerRead({ library: LIBRARY });
    expect(read.tunerInterface).toBe(5);
    expect(read.tuner).toHaveLength(1);
    expect(read.tuner[0]).toMatchObject({ comm: '000000000000005a', func: 'AllReduce', bytes: 1 << 20, pipeOps: 1, costUs: table });
  });

  it("records a call's table once while NCCL hands the communicator the same call again, and again when anything in it changes", () => {
    addon.ncclProfilerRead({ library: LIBRARY });
    const table = [
      [10.5, 20, -1],
      [8.25, 16, 30],
    ];
    const other = [
      [10.5, 20, -1],
      [8.25, 16, 31],
    ];
    const coll = (context: string, over: object = {}) => ({ call: 'coll', context, collType: 4, bytes: 1024, table, ...over });
    hooks.tunerPlay(LIBRARY, [
      { call: 'init', context: 'a', comm: 0xa1n },
      { call: 'init', context: 'b', comm: 0xb2n },
      coll('a'),
      coll('a'), // the same call again: already recorded
      coll('b'), // another communicator: its own first call
      coll('a'),
      coll('a', { bytes: 2048 }), // another size
      coll('a'), // back to the first size: the record before it is 2048's
      coll('a', { collType: 2 }), // another function
      coll('a', { collType: 2, table: other }), // the same call with another table
      coll('a', { collType: 2, table: other }),
    ]);
    const read = addon.ncclProfilerRead({ library: LIBRARY });
    expect(read.tuner.map((t) => [t.comm.slice(-2), t.func, t.bytes, t.costUs[1][2]])).toEqual([
      ['a1', 'AllReduce', 1024, 30],
      ['b2', 'AllReduce', 1024, 30],
      ['a1', 'AllReduce', 2048, 30],
      ['a1', 'AllReduce', 1024, 30],
      ['a1', 'AllGather', 1024, 30],
      ['a1', 'AllGather', 1024, 31],
    ]);
  });

  it("takes NCCL 2.30's calls through ncclTunerPlugin_v6 as v5's, and leaves the chunk size NCCL computed as it was", () => {
    addon.ncclProfilerRead({ library: LIBRARY });
    const table = [
      [10.5, 20, -1],
      [8.25, 16, 30],
    ];
    const coll = { call: 'coll', context: 's', collType: 4, bytes: 1 << 20, table };
    const after = hooks.tunerPlay(LIBRARY, [
      { call: 'init', context: 's', comm: 0x6an, version: 6 },
      coll,
      coll, // the same call again: already recorded
      { call: 'chunk', context: 's', collType: 4, bytes: 1 << 20, algo: 1, proto: 2, nChannels: 24, chunkSize: 131072 },
      { call: 'finalize', context: 's' },
    ]);
    expect(after).toEqual([table.flat(), table.flat(), 131072]);
    const read = addon.ncclProfilerRead({ library: LIBRARY });
    expect(read.tunerInterface).toBe(6);
    expect(read.tuner.map((t) => [t.comm, t.func, t.bytes, t.costUs])).toEqual([['000000000000006a', 'AllReduce', 1 << 20, table]]);
  });

  it('takes the calls of an NCCL that looks up ncclTunerPlugin_v7 as v6’s, the chunk size left as NCCL computed it', () => {
    addon.ncclProfilerRead({ library: LIBRARY });
    const table = [[4, 8, 16]];
    const coll = { call: 'coll', context: 'seven', collType: 4, bytes: 4096, table };
    const after = hooks.tunerPlay(LIBRARY, [
      { call: 'init', context: 'seven', comm: 0x7an, version: 7 },
      coll,
      { call: 'chunk', context: 'seven', collType: 4, bytes: 4096, algo: 1, proto: 0, nChannels: 2, chunkSize: 65536 },
      { call: 'finalize', context: 'seven' },
    ]);
    expect(after).toEqual([table.flat(), 65536]);
    const read = addon.ncclProfilerRead({ library: LIBRARY });
    expect(read.tunerInterface).toBe(7);
    expect(read.tuner.map((t) => [t.comm, t.func, t.bytes, t.costUs])).toEqual([['000000000000007a', 'AllReduce', 4096, table]]);
  });

  it('records every call through the v4 interface, whose records name no communicator to tell repeats apart by', () => {
    addon.ncclProfilerRead({ library: LIBRARY });
    const table = [[1, 2, 3]];
    const coll = (context: string) => ({ call: 'coll', context, collType: 4, bytes: 64, table });
    hooks.tunerPlay(LIBRARY, [
      { call: 'init', context: 'x', version: 4 },
      { call: 'init', context: 'y', version: 4 },
      coll('x'),
      coll('x'),
      coll('y'),
      coll('x'),
    ]);
    const read = addon.ncclProfilerRead({ library: LIBRARY });
    expect(read.tuner.map((t) => t.comm)).toEqual(Array(4).fill('0000000000000000'));
  });

  it('refuses a library that is not the plug-in, saying why', () => {
    expect(() => addon.ncclProfilerRead({ library: path.join(BUILD_DIR, 'nothing-here.so') })).toThrow(/cannot be read/);
  });
});
