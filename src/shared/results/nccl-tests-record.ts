// nccl-tests results read from a file (nccl-tests-results.ts) as a run record of the imported
// kind (run/record/imported.ts): a plan of one sweep per half (out-of-place, then in-place) whose
// steps are the file's sizes, each step's time, algbw, busbw and #wrong as nccl-tests printed
// them. No rank results (the lab checked no values), no events, and a scenario that would run the
// same sweep here, so the two can be run side by side and compared.
import { formatBytes } from '../data/units.js';
import { COLLECTIVE_DESCRIPTORS } from '../ops/index.js';
import type { Plan, PlanAction, PlanStep } from '../plan/types.js';
import { LIMITS } from '../scenario/limits.js';
import { ncclVersionText } from '../run/nccl/comm-settings.js';
import { RECORD_FORMAT, RECORD_VERSION, runRecordSchema, type RunRecord, type StepRecord } from '../run/record/record.js';
import { NCCL_TESTS_PROGRAMS } from './nccl-tests-names.js';
import { NcclTestsReadError, type NcclTestsHalf, type NcclTestsResults, type NcclTestsRow } from './nccl-tests-results.js';

export interface ImportOptions {
  /** The file as named to `clab import` (its base name goes in the record). */
  file: string;
  id: string;
  /** Now, ISO 8601. */
  importedAt: string;
}

const HALVES = [
  { key: 'outOfPlace', inPlace: false, name: 'out-of-place' },
  { key: 'inPlace', inPlace: true, name: 'in-place' },
] as const;

/** The action that measures a row's size in the lab: nccl-tests' count per rank is the lab op's count (nccl-tests-names.ts). */
function actionOf(r: NcclTestsResults, row: NcclTestsRow, inPlace: boolean, world: number): PlanAction {
  const op = NCCL_TESTS_PROGRAMS[r.program];
  const data = { kind: 'rank' } as const;
  if (op === 'sendrecv')
    return {
      kind: 'group',
      items: Array.from({ length: world }, (_, p) => ({
        kind: 'p2p',
        from: p,
        to: (p + 1) % world,
        dtype: row.dtype,
        count: row.count,
        data,
      })),
    };
  return {
    kind: 'collective',
    op,
    dtype: row.dtype,
    redop: row.redop ?? 'sum',
    root: Math.max(0, row.root),
    count: row.count,
    inPlace,
    data,
  };
}

function stepRecord(planStep: PlanStep, half: NcclTestsHalf, bytes: number): StepRecord {
  const times = half.timesUs;
  const sorted = times ? [...times].sort((a, b) => a - b) : null;
  const pick = (q: number) => sorted![Math.min(sorted!.length - 1, Math.floor(q * sorted!.length))];
  const timing = sorted
    ? {
        min: sorted[0],
        median: pick(0.5),
        max: sorted[sorted.length - 1],
        p99: pick(0.99),
        mean: sorted.reduce((s, t) => s + t, 0) / sorted.length,
        samples: sorted.length,
        perOp: half.timeUs,
      }
    : // nccl-tests printed one figure: the time per op over its timed loop.
      { min: half.timeUs, median: half.timeUs, max: half.timeUs, p99: half.timeUs, mean: half.timeUs, samples: 1, perOp: half.timeUs };
  return {
    index: planStep.index,
    path: planStep.path,
    label: planStep.label,
    origin: planStep.origin,
    action: planStep.action,
    verdict: half.wrong ? 'fail' : 'none',
    wrong: half.wrong ?? 0,
    ranks: [],
    timing,
    bytes,
    algbw: half.algbw,
    busbw: half.busbw,
    flops: null,
  };
}

/** A scenario that runs the same sweep in the lab: the file's sizes, type, op, root and iterations. */
function scenarioOf(r: NcclTestsResults, name: string, world: number, halves: boolean[]) {
  const first = r.rows[0];
  const sizes = r.rows.map((x) => x.size);
  const minBytes = Math.max(1, Math.min(...sizes));
  const op = NCCL_TESTS_PROGRAMS[r.program];
  return {
    version: 1,
    name,
    description: `Read in from ${r.source} by clab import; running this scenario measures the same sweep here.`,
    world: { ranks: world },
    backend: 'nccl',
    defaults: {
      dtype: first.dtype,
      ...(r.warmup !== null ? { warmup: r.warmup } : {}),
      ...(r.iters ? { iters: Math.min(r.iters, LIMITS.iters) } : {}),
    },
    steps: halves.map((inPlace) => ({
      op: 'sweep',
      collective: op,
      minBytes,
      maxBytes: Math.max(minBytes, ...sizes),
      ...(r.stepFactor && r.stepFactor >= 2 ? { factor: Math.min(r.stepFactor, 1024) } : {}),
      ...(first.redop ? { redop: first.redop } : {}),
      ...(first.root > 0 ? { root: first.root } : {}),
      ...(op !== 'sendrecv' ? { inPlace } : {}),
    })),
  };
}

/** The record of what `r` says; throws NcclTestsReadError naming the file where the lab cannot hold it. */
export function importedRecord(r: NcclTestsResults, o: ImportOptions): RunRecord {
  const world = r.devices.length;
  const fileName = o.file.replace(/^.*[/\\]/, '');
  if (world > LIMITS.ranks) throw new NcclTestsReadError(`${o.file}: ${world} ranks ran; a lab record holds at most ${LIMITS.ranks}`);
  const op = NCCL_TESTS_PROGRAMS[r.program];
  // An op the lab runs out of place only keeps nccl-tests' out-of-place half: a lab run has no other to set beside it.
  const outOfPlaceOnly = op !== 'sendrecv' && COLLECTIVE_DESCRIPTORS[op].inPlace === null;
  // The half the lab runs by default comes first: a lab sweep of the op, named as the lab names it,
  // is matched by `clab compare` (label, op, size, occurrence) with the same half here.
  const inPlaceFirst = op !== 'sendrecv' && COLLECTIVE_DESCRIPTORS[op].inPlace?.byDefault === true;
  const present = (inPlaceFirst ? [...HALVES].reverse() : HALVES).filter(
    (h) => (!h.inPlace || !outOfPlaceOnly) && r.rows.some((row) => row[h.key] !== null),
  );
  if (present.length === 0)
    throw new NcclTestsReadError(`${o.file}: expected an out-of-place half of some size: the lab runs ${op} out of place only`);
  const notes = [
    'Measured elsewhere and read in: the lab checked no values and has no timeline of it; times, algbw, busbw and #wrong are as the file says.',
    ...(r.cpuTime ? ['Times are CPU time (nccl-tests -C 1), not the GPU time of a timed loop.'] : []),
    ...(outOfPlaceOnly && r.rows.some((row) => row.inPlace !== null)
      ? [`nccl-tests' in-place figures are left out: the lab runs ${op} out of place only.`]
      : []),
    ...(new Set(r.rows.map((x) => `${x.dtype}|${x.redop}|${x.root}`)).size > 1
      ? ['The file holds several types, ops or roots; each size keeps its own, and the sweep is named by the first.']
      : []),
  ];
  const sweeps: Plan['sweeps'] = present.map((_, index) => ({
    index,
    path: fileName,
    label: `${op} sweep`,
    op,
    dtype: r.rows[0].dtype,
    redop: r.rows[0].redop ?? 'sum',
    root: Math.max(0, r.rows[0].root),
  }));
  const steps: PlanStep[] = [];
  const records: StepRecord[] = [];
  for (const [sweep, h] of present.entries()) {
    for (const row of r.rows) {
      const half = row[h.key];
      if (!half) continue;
      const planStep: PlanStep = {
        index: steps.length,
        path: `${row.at} (${h.name})`,
        label: `${op} sweep ${formatBytes(row.size)}`,
        origin: { kind: 'sweep', sweep, size: row.size },
        action: actionOf(r, row, h.inPlace, world),
        warmup: Math.min(r.warmup ?? 0, LIMITS.warmup),
        iters: Math.max(1, Math.min(half.timesUs?.length ?? r.iters ?? 1, LIMITS.iters)),
        // Never run: the lab's default step timeout, for a plan that reads like any other.
        timeoutMs: 60_000,
        async: false,
        asyncId: null,
        stream: 0,
      };
      steps.push(planStep);
      records.push(stepRecord(planStep, half, row.size));
    }
  }
  const devices = r.devices.map((d) => d.device);
  const host = r.devices[0].hostname;
  const hosts = [...new Set(r.devices.map((d) => d.hostname))];
  const gpus = r.devices
    .filter((d) => d.hostname === host && d.device >= 0)
    .map((d) => ({ index: d.device, name: d.name, memoryBytes: 0, busId: d.busId }));
  const wrong = records.some((s) => s.wrong > 0);
  const startedAt =
    r.startTime && /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(r.startTime) ? `${r.startTime.replace(' ', 'T')}.000Z` : o.importedAt;
  const name = `${r.program} on ${hosts.length > 1 ? `${hosts.length} hosts` : host}, ${world} rank${world === 1 ? '' : 's'} (imported)`;
  return runRecordSchema.parse({
    format: RECORD_FORMAT,
    version: RECORD_VERSION,
    id: o.id,
    createdAt: startedAt,
    finishedAt: null,
    scenarioFile: null,
    scenario: scenarioOf(
      r,
      name,
      world,
      present.map((h) => h.inPlace),
    ),
    plan: { world, devices: devices.every((d) => d >= 0) ? devices : null, streams: ['default'], steps, sweeps, pairs: [], compares: [] },
    world,
    environment: {
      host,
      platform: 'unknown',
      cpus: 0,
      cpuModel: '',
      memoryBytes: 0,
      node: '',
      backend: 'nccl',
      backendNote: `imported from ${r.source} ${fileName}${hosts.length > 1 ? ` (hosts ${hosts.join(', ')})` : ''}`,
      gpus: [...new Map(gpus.map((g) => [g.index, g])).values()],
      versions: {
        ...(r.version ? { 'nccl-tests': r.version } : {}),
        ...(r.ncclVersion ? { nccl: ncclVersionText(r.ncclVersion) } : {}),
      },
      env: r.env,
    },
    status: wrong ? 'failed' : 'passed',
    error: null,
    steps: records,
    compares: [],
    logs: [],
    events: [],
    imported: { source: r.source, file: fileName, program: r.program, version: r.version, importedAt: o.importedAt, notes },
  });
}
