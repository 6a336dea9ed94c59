// A synthetic but valid run record for measuring the timeline: rounds of an async all_reduce on
// "comm" overlapped with a matmul on "compute", a ring of sends in a group and one send/recv on
// "default", each with fill and verify on the host. Seeded, so every run draws the same record.
import type { PlanStep } from '../../src/shared/plan/types';
import type { TimelineEvent } from '../../src/shared/run/rank/protocol';
import { runRecordSchema, type RunRecord, type StepRecord } from '../../src/shared/run/record/record';

export interface SyntheticOptions {
  ranks: number;
  /** Each round adds four steps; see eventsPerRound. */
  rounds: number;
  warmup: number;
  iters: number;
  seed?: number;
  name?: string;
}

const STREAMS = ['default', 'comm', 'compute'];
const US = 1_000;
const BYTES = 4 * 1024 * 1024;
/** Room before a step for the fills of up to two steps issued together (5 µs each, 1 µs apart). */
const FILL_SLOT = 6 * US;
const FILL_SLOTS = 2;

/** Events of one round: three steps on every rank, one on two ranks, each fill + warm-up + timed + verify. */
export const eventsPerRound = (o: Pick<SyntheticOptions, 'ranks' | 'warmup' | 'iters'>): number =>
  (3 * o.ranks + 2) * (o.warmup + o.iters + 2);

/** Rounds that give at least `events` events. */
export const roundsFor = (events: number, o: Pick<SyntheticOptions, 'ranks' | 'warmup' | 'iters'>): number =>
  Math.ceil(events / eventsPerRound(o));

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const data = { kind: 'arange' as const, start: 1 };
const send = (from: number, to: number) => ({ kind: 'p2p' as const, from, to, dtype: 'float32' as const, count: BYTES / 4, data });

function stats(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { min: sorted[0], median: at(0.5), max: sorted[sorted.length - 1], p99: at(0.99), mean, samples: values.length };
}

export function syntheticRecord(o: SyntheticOptions): RunRecord {
  const random = mulberry32(o.seed ?? 1);
  const steps: PlanStep[] = [];
  const records: StepRecord[] = [];
  const events: TimelineEvent[] = [];
  const start = 1_000_000_000;
  const all = Array.from({ length: o.ranks }, (_, r) => r);

  /**
   * Runs one step on `ranks` from `at`, iterations of about `baseUs`, after filling its buffers on
   * the host in the `fillSlot`-th of the FILL_SLOTS slots before `at` (steps issued together fill
   * in turn: a host thread does one thing at a time); returns when the last rank has verified.
   */
  const runStep = (step: PlanStep, ranks: number[], at: number, baseUs: number, bytes: number, fillSlot = FILL_SLOTS - 1): number => {
    steps.push(step);
    let done = at;
    const results = ranks.map((rank) => {
      const fillStart = at - (FILL_SLOTS - fillSlot) * FILL_SLOT;
      events.push({
        rank,
        stream: step.stream,
        step: step.index,
        name: `${step.label} (fill)`,
        phase: 'fill',
        startNs: fillStart,
        endNs: fillStart + 5 * US,
        bytes: 0,
      });
      let t = at + random() * 2 * US;
      const timesUs: number[] = [];
      for (let i = 0; i < o.warmup + o.iters; i++) {
        const d = baseUs * US * (1 + 0.2 * random());
        const phase = i < o.warmup ? 'warmup' : 'timed';
        events.push({ rank, stream: step.stream, step: step.index, name: step.label, phase, startNs: t, endNs: t + d, bytes });
        if (phase === 'timed') timesUs.push(d / US);
        t += d + US;
      }
      events.push({
        rank,
        stream: step.stream,
        step: step.index,
        name: `${step.label} (verify)`,
        phase: 'verify',
        startNs: t,
        endNs: t + 3 * US,
        bytes: 0,
      });
      done = Math.max(done, t + 3 * US);
      return {
        step: step.index,
        rank,
        verdict: 'pass' as const,
        checked: bytes / 4,
        wrong: 0,
        mismatches: [],
        output: null,
        input: null,
        timesUs,
        note: null,
      };
    });
    const timing = stats(results.flatMap((r) => r.timesUs));
    const algbw = bytes > 0 ? bytes / (timing.mean * 1e3) : null;
    records.push({
      index: step.index,
      path: step.path,
      label: step.label,
      origin: step.origin,
      action: step.action,
      verdict: 'pass',
      wrong: 0,
      ranks: results,
      timing,
      bytes,
      algbw,
      busbw: algbw === null ? null : algbw * (step.action.kind === 'collective' ? (2 * (o.ranks - 1)) / o.ranks : 1),
      flops: null,
    });
    return done;
  };
  const planStep = (label: string, stream: number, action: PlanStep['action'], async = false): PlanStep => ({
    index: steps.length,
    path: `steps[${steps.length % 4}]`,
    label,
    origin: { kind: 'step' },
    action,
    warmup: o.warmup,
    iters: o.iters,
    timeoutMs: 60_000,
    async,
    asyncId: async ? 'ar' : null,
    stream,
  });

  const gap = FILL_SLOTS * FILL_SLOT + US;
  let at = start + gap;
  for (let round = 0; round < o.rounds; round++) {
    const allReduce = planStep(
      'all_reduce',
      1,
      {
        kind: 'collective',
        op: 'all_reduce',
        dtype: 'float32',
        redop: 'sum',
        root: 0,
        count: BYTES / 4,
        inPlace: true,
        data,
      },
      true,
    );
    const a = runStep(allReduce, all, at, 20, BYTES, 0);
    const b = runStep(planStep('matmul', 2, { kind: 'compute', dtype: 'float16', m: 512, n: 512, k: 512, ranks: null }), all, at, 30, 0, 1);
    at = Math.max(a, b) + gap;
    const ring = planStep('ring exchange', 0, { kind: 'group', items: all.map((r) => send(r, (r + 1) % o.ranks)) });
    at = runStep(ring, all, at, 15, BYTES) + gap;
    const from = round % o.ranks;
    const to = (from + 1) % o.ranks;
    at = runStep(planStep(`send/recv ${from}→${to}`, 0, send(from, to)), [from, to], at, 8, BYTES) + gap;
  }

  return runRecordSchema.parse({
    format: 'clab.run',
    version: 1,
    id: `synthetic-${o.ranks}x${o.rounds}`,
    createdAt: new Date(0).toISOString(),
    finishedAt: new Date(0).toISOString(),
    scenarioFile: null,
    scenario: { name: o.name ?? 'synthetic timeline' },
    plan: { world: o.ranks, devices: null, streams: STREAMS, steps, sweeps: [], pairs: [], compares: [] },
    world: o.ranks,
    environment: {
      host: 'synthetic',
      platform: 'linux',
      cpus: 2,
      cpuModel: 'synthetic',
      memoryBytes: 0,
      node: process.version,
      backend: 'cpu',
      backendNote: null,
      gpus: [],
      versions: {},
      env: {},
    },
    status: 'passed',
    error: null,
    steps: records,
    compares: [],
    logs: [],
    events: events.sort((x, y) => x.endNs - y.endNs),
  });
}
