// Helpers for the native tests: real rank processes (rank-harness.cjs) driven over IPC, and the
// buffers/expected values of collective calls computed with the lab's own reference semantics
// (src/shared/data/reduce.ts, src/shared/data/dtypes.ts).
import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { allocTensor, DTYPE_INFO, tensorView, type Dtype, type Scalar, type Tensor } from '../../src/shared/data/dtypes';
import { reducer, type Redop } from '../../src/shared/data/reduce';
import { withProfilerRecords, type RawAddon } from '../../src/addon/profile-records';
import type { EnqueueOptions } from '../../src/addon/native-api';
import { expect } from 'vitest';

/** Where the addon and the modules built beside it are: CLAB_NATIVE_ADDON's folder (a build of one's own), else build/native's. */
export const BUILD_DIR = process.env.CLAB_NATIVE_ADDON
  ? path.dirname(path.resolve(process.env.CLAB_NATIVE_ADDON))
  : path.resolve('build/native/Release');
export const ADDON_PATH = path.join(BUILD_DIR, 'clab_native.node');
const HARNESS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'rank-harness.cjs');

export const addon = withProfilerRecords(createRequire(import.meta.url)(ADDON_PATH) as RawAddon);
/** The test-only module built beside the addon (native/binding/test_hooks.cc), never part of it. */
export const testHooks = createRequire(import.meta.url)(path.join(BUILD_DIR, 'clab_test_hooks.node')) as {
  gemmResult(dtype: string, m: number, n: number, k: number): Uint8Array;
};
/** Joins a cpu communicator in this process. */
export const cpuCommInit = (id: string, rank: number, world: number) => addon.commInit({ backend: 'cpu', id, rank, world, device: -1 });

/** Every id this test process created, so that afterAll can check /dev/shm. */
export const createdIds: string[] = [];

export function createId(world: number, env: { slot?: number; mailbox?: number } = {}): string {
  const saved = [process.env.CLAB_CPU_SLOT_BYTES, process.env.CLAB_CPU_MAILBOX_BYTES];
  if (env.slot) process.env.CLAB_CPU_SLOT_BYTES = String(env.slot);
  if (env.mailbox) process.env.CLAB_CPU_MAILBOX_BYTES = String(env.mailbox);
  try {
    const id = addon.createUniqueId({ backend: 'cpu', world });
    createdIds.push(id);
    return id;
  } finally {
    if (saved[0] === undefined) delete process.env.CLAB_CPU_SLOT_BYTES;
    else process.env.CLAB_CPU_SLOT_BYTES = saved[0];
    if (saved[1] === undefined) delete process.env.CLAB_CPU_MAILBOX_BYTES;
    else process.env.CLAB_CPU_MAILBOX_BYTES = saved[1];
  }
}

export const shmExists = (id: string) => fs.existsSync('/dev/shm' + id);

/**
 * An enqueue() option as the binding takes it, on a communicator of one cpu rank: an all_reduce of
 * two repetitions with `option` set to `good` runs (the cpu backend takes the option and ignores it;
 * one rank's sum leaves its data as it was), and each of `bad` is refused as an invalid argument
 * whose message matches `refusal`. The rank's segment is gone afterwards.
 */
export async function expectEnqueueOption(option: string, good: unknown, bad: unknown[], refusal: RegExp): Promise<void> {
  const id = createId(1);
  const c = await cpuCommInit(id, 0, 1);
  try {
    const send = new Float32Array([1, 2]);
    const recv = new Float32Array(2);
    const op = { op: 'all_reduce', dtype: 'float32', count: 2, redop: 'sum', send, recv } as const;
    const options = (v: unknown) => ({ [option]: v }) as EnqueueOptions;
    await expect(c.enqueue(0, op, 2, options(good))).resolves.toMatchObject({ startNs: [expect.any(Number), expect.any(Number)] });
    expect([...recv]).toEqual([1, 2]);
    for (const v of bad)
      await expect(c.enqueue(0, op, 1, options(v))).rejects.toMatchObject({
        code: 'CLAB_INVALID_ARGUMENT',
        message: expect.stringMatching(refusal),
      });
  } finally {
    c.destroy();
  }
  expect(shmExists(id)).toBe(false);
}

// ---- rank processes -------------------------------------------------------------------------

export interface BufRef {
  buf: string;
  offset?: number;
  bytes?: number;
  as?: 'dataview' | 'float64';
}
export type OpSpec = Record<string, unknown>;
export interface Item {
  stream?: number;
  repeat?: number;
  op: OpSpec;
}
export type OpResult =
  { ok: true; times: { startNs: number[]; endNs: number[] } } | { ok: false; code: string; rank: number; message: string; atNs: number };
export interface RunReply {
  results: OpResult[];
  buffers: Record<string, Uint8Array>;
}
export interface RunRequest {
  buffers?: Record<string, Uint8Array>;
  items: Item[];
  delayMs?: number;
  destroyAfterMs?: number;
}

interface Reply {
  seq: number;
  ok: boolean;
  error?: { message: string; code?: string; rank?: number };
}

export class RankProc {
  readonly proc: ChildProcess;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private seq = 0;
  private waiting = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  private ready: Promise<Reply>;

  constructor() {
    this.proc = fork(HARNESS, [], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.ready = new Promise((resolve, reject) => this.waiting.set(0, { resolve, reject }));
    this.proc.on('message', (m: Reply) => {
      const w = this.waiting.get(m.seq);
      this.waiting.delete(m.seq);
      if (!w) return;
      if (m.ok) w.resolve(m);
      else w.reject(Object.assign(new Error(m.error?.message), m.error));
    });
    this.exit = new Promise((resolve) =>
      this.proc.on('exit', (code, signal) => {
        for (const w of this.waiting.values()) w.reject(new Error(`rank process exited (${code ?? signal})`));
        this.waiting.clear();
        resolve({ code, signal });
      }),
    );
  }

  async call<T = Record<string, never>>(msg: Record<string, unknown>): Promise<T> {
    await this.ready;
    const seq = ++this.seq;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(seq, { resolve: (r) => resolve(r as unknown as T), reject });
      this.proc.send({ ...msg, seq });
    });
  }

  kill(signal: NodeJS.Signals = 'SIGKILL') {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill(signal);
  }
}

/** A communicator over some rank processes (a process may belong to several teams). */
export class Team {
  constructor(
    readonly procs: RankProc[],
    readonly id: string,
  ) {}
  get world() {
    return this.procs.length;
  }

  static async create(procs: RankProc[], env: { slot?: number; mailbox?: number } = {}): Promise<Team> {
    const id = createId(procs.length, env);
    await Promise.all(procs.map((p, rank) => p.call({ type: 'init', key: id, id, rank, world: procs.length })));
    return new Team(procs, id);
  }

  async run(rank: number, req: RunRequest): Promise<RunReply> {
    const reply = await this.procs[rank].call<RunReply>({ type: 'run', key: this.id, ...req });
    // IPC hands back views at arbitrary offsets: copy them so that typed views are aligned.
    const buffers = Object.fromEntries(Object.entries(reply.buffers).map(([k, v]) => [k, new Uint8Array(v)]));
    return { results: reply.results, buffers };
  }

  runAll(perRank: (rank: number) => RunRequest): Promise<RunReply[]> {
    return Promise.all(this.procs.map((_, r) => this.run(r, perRank(r))));
  }

  abort(rank: number, reason: string, delayMs = 0): Promise<{ atNs: number }> {
    return this.procs[rank].call({ type: 'abort', key: this.id, reason, delayMs });
  }

  destroy(): Promise<unknown> {
    return Promise.all(this.procs.map((p) => p.call({ type: 'destroy', key: this.id }).catch(() => undefined)));
  }
}

// ---- data -------------------------------------------------------------------------------------

/** Input element i of `rank` (salted per call): fractions for floats, wrapping ranges for ints. */
export function inputValue(dtype: Dtype, rank: number, i: number, salt: number): Scalar {
  const k = i * 7 + rank * 13 + salt;
  switch (dtype) {
    case 'int8':
      return ((i * 37 + rank * 59 + salt) % 256) - 128;
    case 'uint8':
      return (i * 37 + rank * 59 + salt) % 256;
    case 'int32':
      return Math.imul(i + 1 + salt, 0x9e3779b1) ^ Math.imul(rank + 1, 40503);
    // Large values (sums saturate at e4m3's 448) and subnormal ones, so both rounding paths run.
    case 'float8_e4m3':
    case 'float8_e5m2':
      return ((k % 41) - 20) * (k % 3 === 0 ? 0.003 : 23.1);
    case 'uint32':
      return (Math.imul(i + 1 + salt, 0x9e3779b1) ^ Math.imul(rank + 1, 40503)) >>> 0;
    case 'int64':
      return BigInt.asIntN(64, BigInt(i + 1 + salt) * 0x9e3779b97f4a7c15n + BigInt(rank) * 0x1234567n);
    case 'uint64':
      return BigInt.asUintN(64, BigInt(i + 1 + salt) * 0x9e3779b97f4a7c15n + BigInt(rank) * 0x1234567n);
    default:
      return ((k % 19) - 9) * 0.1 + rank * 0.013;
  }
}

export function inputTensor(dtype: Dtype, count: number, rank: number, salt: number): Tensor {
  const t = allocTensor(dtype, count);
  for (let i = 0; i < count; i++) t.set(i, inputValue(dtype, rank, i, salt));
  return t;
}

export const same = (a: Scalar, b: Scalar) =>
  a === b || (typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b));

/** Compares `count` elements; returns a readable list of the first mismatches ([] when equal). */
export function mismatches(actual: Tensor, expected: (i: number) => Scalar, count = actual.length, label = ''): string[] {
  const out: string[] = [];
  if (actual.length < count) return [`${label}: output holds ${actual.length} elements, expected ${count}`];
  for (let i = 0; i < count && out.length < 5; i++) {
    const want = expected(i);
    const got = actual.get(i);
    if (!same(want, got)) out.push(`${label}[${i}]: expected ${String(want)}, got ${String(got)}`);
  }
  return out;
}

// ---- collective calls ---------------------------------------------------------------------------

export interface Call {
  op: string;
  dtype: Dtype;
  redop?: Redop;
  root?: number;
  count: number;
  inPlace: boolean;
  salt: number;
}

const W_SEND = new Set(['reduce_scatter', 'all_to_all', 'scatter']);
const W_RECV = new Set(['all_gather', 'all_to_all', 'gather']);
const ROOTED_RECV = new Set(['reduce', 'gather']);
const ROOTED_SEND = new Set(['broadcast', 'scatter']);
const SAME = new Set(['all_reduce', 'broadcast', 'reduce', 'all_to_all']);

export const sendCount = (c: Call, world: number) => c.count * (W_SEND.has(c.op) ? world : 1);
export const recvCount = (c: Call, world: number) => c.count * (W_RECV.has(c.op) ? world : 1);

/** One rank's buffers and op for a call; `out` says where its output lands (null: none here). */
export function buildCall(c: Call, rank: number, world: number, prefix: string) {
  const e = DTYPE_INFO[c.dtype].bytes;
  const root = c.root ?? 0;
  const input = inputTensor(c.dtype, sendCount(c, world), rank, c.salt).bytes;
  const poisoned = (n: number) => new Uint8Array(n * e).fill(0xff);
  const buffers: Record<string, Uint8Array> = {};
  let send: BufRef | null;
  let recv: BufRef | null;
  const recvUsed = !ROOTED_RECV.has(c.op) || rank === root;
  const sendUsed = !ROOTED_SEND.has(c.op) || rank === root;
  const s = `${prefix}s`,
    r = `${prefix}r`;
  if (c.inPlace && SAME.has(c.op)) {
    buffers[s] = input;
    send = recv = { buf: s };
  } else if (c.inPlace && (c.op === 'all_gather' || (c.op === 'gather' && rank === root))) {
    buffers[r] = poisoned(c.count * world);
    buffers[r].set(input, rank * c.count * e);
    send = { buf: r, offset: rank * c.count * e, bytes: c.count * e };
    recv = { buf: r };
  } else if (c.inPlace && (c.op === 'reduce_scatter' || (c.op === 'scatter' && rank === root))) {
    buffers[s] = input;
    send = { buf: s };
    recv = { buf: s, offset: rank * c.count * e, bytes: c.count * e };
  } else {
    buffers[s] = input;
    buffers[r] = poisoned(recvCount(c, world));
    send = sendUsed ? { buf: s } : null;
    recv = recvUsed ? { buf: r } : null;
  }
  const op: OpSpec = { op: c.op, dtype: c.dtype, count: c.count, send, recv };
  if (c.redop) op.redop = c.redop;
  if (c.root !== undefined) op.root = c.root;
  const out = recvUsed && recv ? recv : null;
  return { buffers, op, out, outCount: recvCount(c, world) };
}

/** The value recv[i] of `rank` must hold, from every rank's input. */
export function expectedOf(c: Call, rank: number, world: number): (i: number) => Scalar {
  const inputs = Array.from({ length: world }, (_, r) => inputTensor(c.dtype, sendCount(c, world), r, c.salt));
  const red = reducer(c.dtype, c.redop ?? 'sum');
  const root = c.root ?? 0;
  const n = c.count;
  switch (c.op) {
    case 'all_reduce':
    case 'reduce':
      return (i) => red(inputs.map((t) => t.get(i)));
    case 'broadcast':
      return (i) => inputs[root].get(i);
    case 'all_gather':
    case 'gather':
      return (i) => inputs[Math.floor(i / n)].get(i % n);
    case 'reduce_scatter':
      return (i) => red(inputs.map((t) => t.get(rank * n + i)));
    case 'all_to_all':
      return (i) => inputs[Math.floor(i / n)].get(rank * n + (i % n));
    case 'scatter':
      return (i) => inputs[root].get(rank * n + i);
    default:
      throw new Error(`no expectation for ${c.op}`);
  }
}

/** Checks a rank's output of call `c` in a run reply; returns mismatch lines. */
export function checkCall(c: Call, rank: number, world: number, reply: RunReply, prefix: string): string[] {
  const built = buildCall(c, rank, world, prefix);
  if (!built.out) return [];
  const ref = built.out;
  const bytes = reply.buffers[ref.buf];
  const e = DTYPE_INFO[c.dtype].bytes;
  const view = tensorView(c.dtype, bytes.subarray(ref.offset ?? 0, (ref.offset ?? 0) + built.outCount * e));
  const label = `${c.op} ${c.dtype} ${c.redop ?? ''} ${c.inPlace ? 'in-place' : 'out-of-place'} rank ${rank}/${world}`;
  return mismatches(view, expectedOf(c, rank, world), built.outCount, label);
}

/** Runs calls on a team as one batch per rank (all enqueued on stream 0 in order) and checks them. */
export async function runCalls(team: Team, calls: Call[]): Promise<string[]> {
  const world = team.world;
  const replies = await team.runAll((rank) => {
    const buffers: Record<string, Uint8Array> = {};
    const items = calls.map((c, k) => {
      const b = buildCall(c, rank, world, `c${k}_`);
      Object.assign(buffers, b.buffers);
      return { op: b.op };
    });
    return { buffers, items };
  });
  const problems: string[] = [];
  replies.forEach((reply, rank) => {
    reply.results.forEach((res, k) => {
      if (!res.ok) problems.push(`call ${k} on rank ${rank} failed: ${res.code} ${res.message}`);
    });
    calls.forEach((c, k) => problems.push(...checkCall(c, rank, world, reply, `c${k}_`)));
  });
  return problems;
}
