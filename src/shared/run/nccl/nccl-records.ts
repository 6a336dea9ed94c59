// The records of NCCL's profiler and tuner as the addon reads them from the lab's plug-ins
// (native/profiler/), the calls they are assembled into, and NCCL's names for the lab's collectives.
// NCCL numbers the calls of each collective type per communicator (`seqNumber`); a call's kernel
// channels (KernelCh, children of the Coll) carry the GPU's %globaltimer at their start and end.

/** One record as the addon reads it from the plug-in (native/profiler/profile_record.h). */
export interface NcclProfileRecord {
  /** ce-coll: a collective NCCL ran on copy engines (algo "CE", proto its synchronisation, "MC" or "UC"). */
  kind: 'comm' | 'coll' | 'p2p' | 'kernel-ch' | 'proxy-op' | 'proxy-step' | 'ce-coll';
  /** channel-end: a kernel channel's end as the GPU timed it (gpuNs); state: another state (`state`). */
  point: 'start' | 'stop' | 'channel-end' | 'state';
  id: number;
  parent: number;
  /** NCCL's hash of the communicator, as hex. */
  comm: string;
  hostNs: number;
  gpuNs: bigint;
  seq: number;
  count: number;
  /** comm: the rank in it; coll: the caller's rank. */
  rank: number;
  /** coll: root; p2p, proxy-op: the peer; comm: the number of ranks. */
  peer: number;
  steps: number;
  chunk: number;
  channel: number;
  nChannels: number;
  nWarps: number;
  isSend: boolean;
  state: number;
  func: string;
  datatype: string;
  algo: string;
  proto: string;
  /** coll through profiler v7 (NCCL 2.31): the kernel NCCL launched, and true where it is a symmetric one. */
  kernel?: string;
  symmetric?: boolean;
  /**
   * coll, p2p, ce-coll through profiler v7 (NCCL 2.31): the tag the call was made with
   * (ncclCollConfig_t.userProfilerTag; the lab's name the step: stepTag); absent where none (0).
   */
  userTag?: number;
  /** proxy-op stop: its steps' first start and last stop (host clock), and their time per wait (ns, PROXY_WAITS' order). */
  firstStepNs?: number;
  lastStepNs?: number;
  waitNs?: number[];
}

/** Where a proxy step's time goes (the plug-in sums NCCL's ProxyStep states per ProxyOp), in the record's order. */
export const PROXY_WAITS = ['gpu', 'peer', 'network', 'flush'] as const;
export type ProxyWait = (typeof PROXY_WAITS)[number];

/**
 * One operation of NCCL's proxy thread (where the network carries the data): one channel's send to
 * or receive from one peer for a call, in steps of `chunk` bytes, on the host clock.
 */
export interface NcclProxyOp {
  channel: number;
  peer: number;
  isSend: boolean;
  /** The steps NCCL planned, and those that ran (known at its stop). */
  plannedSteps: number;
  steps: number;
  chunk: number;
  bytes: number;
  startNs: number;
  /** When NCCL stopped it; null: not (yet) seen. */
  stopNs: number | null;
  /** Its steps' first start and last stop; 0 where none ran. */
  firstStepNs: number;
  lastStepNs: number;
  /** Its steps' time waiting for the GPU, the peer's credit, the network, a receive's flush (ns, summed). */
  waitNs: number[];
}

/**
 * One call of the lab's pass-through tuner: NCCL's predicted time (µs) per algorithm × protocol for
 * a collective it is about to enqueue (rows TUNER_ALGORITHMS, columns TUNER_PROTOCOLS; -1: ruled out).
 */
export interface NcclTunerRecord {
  /** NCCL's hash of the communicator ("0000000000000000" where NCCL's tuner interface gives none: v4). */
  comm: string;
  hostNs: number;
  func: string;
  bytes: number;
  pipeOps: number;
  costUs: number[][];
}

/** NCCL 2.28's order of algorithms and protocols in its cost table, in the names its profiler uses. */
export const TUNER_ALGORITHMS = ['TREE', 'RING', 'COLLNET_DIRECT', 'COLLNET_CHAIN', 'NVLS', 'NVLS_TREE', 'PAT'];
export const TUNER_PROTOCOLS = ['LL', 'LL128', 'SIMPLE'];

/** A cost table as "ALGO/PROTO" → µs, leaving out what NCCL ruled out. */
export function predictionTable(t: NcclTunerRecord): Record<string, number> {
  const out: Record<string, number> = {};
  t.costUs.forEach((row, a) =>
    row.forEach((us, p) => {
      if (us >= 0 && TUNER_ALGORITHMS[a] && TUNER_PROTOCOLS[p]) out[`${TUNER_ALGORITHMS[a]}/${TUNER_PROTOCOLS[p]}`] = us;
    }),
  );
  return out;
}

/**
 * The tag a step's NCCL calls carry to NCCL's profiler (NCCL 2.31's ncclCollConfig_t.userProfilerTag,
 * handed back as profiler v7's userTag): the step's index + 1, so that 0 stays "untagged". NCCL keeps
 * the tags with the most significant bit of its 64 set; the lab's stay below 2^53.
 */
export const stepTag = (index: number): number => index + 1;

/** The index of the step a tag names (stepTag), or null for none (absent, 0, or none of the lab's). */
export const taggedStep = (tag: number | undefined): number | null =>
  tag !== undefined && Number.isSafeInteger(tag) && tag > 0 ? tag - 1 : null;

/** The function a send or recv is kept under: NCCL's name and the peer ("Send:1"). */
export const p2pFunc = (func: string, peer: number) => `${func}:${peer}`;

/** NCCL's name of each native collective that has a sequence number (a barrier is a one-element all_reduce). */
export const NCCL_FUNC: Readonly<Record<string, string>> = {
  all_reduce: 'AllReduce',
  barrier: 'AllReduce',
  broadcast: 'Broadcast',
  reduce: 'Reduce',
  all_gather: 'AllGather',
  reduce_scatter: 'ReduceScatter',
};

/**
 * NCCL's name of each native collective's calls, as its profiler events and INFO lines give them
 * (ncclFuncToString): NCCL_FUNC's, and those NCCL does not number.
 */
export const NCCL_CALL_NAME: Readonly<Record<string, string>> = {
  ...NCCL_FUNC,
  all_to_all: 'AlltoAll',
  gather: 'Gather',
  scatter: 'Scatter',
};

export interface NcclChannel {
  channel: number;
  /** %globaltimer at the channel kernel's start and end; null: stamped zero (NCCL #1961), or no end yet. */
  startGpuNs: bigint | null;
  endGpuNs: bigint | null;
  /** Whether NCCL recorded the channel's end. */
  ended: boolean;
}

export interface NcclColl {
  id: number;
  comm: string;
  seq: number;
  func: string;
  count: number;
  datatype: string;
  algo: string;
  proto: string;
  nChannels: number;
  nWarps: number;
  /** Profiler v7 (NCCL 2.31): the kernel NCCL launched, and true where it is a symmetric one. */
  kernel?: string;
  symmetric?: boolean;
  /** Profiler v7 (NCCL 2.31): the tag the call was made with, where it had one (userTag). */
  tag?: number;
  /** Host clock at the call (start) and when NCCL had enqueued it (stop; null: not seen). */
  startNs: number;
  stopNs: number | null;
  channels: NcclChannel[];
  /** Its proxy operations (where the network carries the data). */
  proxyOps: NcclProxyOp[];
}

/**
 * The communicator this rank joined last, from the plug-in's init records: its hash, or null where
 * none matches (the plug-in was not loaded, or NCCL did not initialise it).
 */
export function communicatorOf(records: NcclProfileRecord[], rank: number, world: number): string | null {
  return joinedCommunicators(records, rank, world, 0)?.run ?? null;
}

/**
 * The run's communicator and the `splits` split off it as it was joined (made right after it, in
 * order), from the plug-in's init records: this rank's last `splits` + 1 inits; null where there are
 * fewer (NCCL did not load the plug-in).
 */
export function joinedCommunicators(
  records: NcclProfileRecord[],
  rank: number,
  world: number,
  splits: number,
): { run: string; splits: string[] } | null {
  const inits = records.filter((r) => r.kind === 'comm' && r.rank === rank && r.peer === world).map((r) => r.comm);
  if (inits.length < splits + 1) return null;
  const ours = inits.slice(inits.length - splits - 1);
  return { run: ours[0], splits: ours.slice(1) };
}
