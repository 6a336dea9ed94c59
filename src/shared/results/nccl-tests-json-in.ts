// An nccl-tests `-J` JSON file (version 3, nccl-tests 2.19: src/util.cu), read into the shape a
// text log is read into: what the import needs is checked with its JSON path, keys nccl-tests may
// add later are let be.
import { z } from 'zod';
import { REDOPS, type Redop } from '../data/reduce.js';
import { dtypeOfNcclTests, NCCL_TESTS_NO_REDOP, NCCL_TESTS_PROGRAMS, type NcclTestsProgram } from './nccl-tests-names.js';
import { NCCL_TESTS_LIMITS, NcclTestsReadError, type NcclTestsHalf, type NcclTestsResults } from './nccl-tests-results.js';

const L = NCCL_TESTS_LIMITS;
const figure = z.number().finite();
const count = z
  .number()
  .int()
  .min(0)
  .max(2 ** 53);

const halfSchema = z.object({
  time: figure.optional(),
  cpu_time: figure.optional(),
  alg_bw: figure,
  bus_bw: figure,
  nwrong: figure.nullable(),
});

const perIterSchema = z.object({
  times_us: z.array(figure).max(L.iterations),
  per_process_max_times_us: z.array(z.array(figure).max(L.iterations)).max(L.processRows).optional(),
});

const resultSchema = z.object({
  size: count,
  count,
  type: z.string().max(32),
  redop: z.string().max(32),
  root: z.string().regex(/^ *-?\d{1,6}$/, 'expected a rank or -1, as "%6i"'),
  out_of_place: halfSchema.nullable(),
  out_of_place_per_iter: perIterSchema.optional(),
  in_place: halfSchema.nullable().optional(),
  in_place_per_iter: perIterSchema.optional(),
});

const fileSchema = z.object({
  version: z.literal(3, 'expected nccl-tests JSON file version 3 (nccl-tests 2.17 and later)'),
  start_time: z.string().max(64).optional(),
  args: z.array(z.string().max(4096)).min(1).max(1000),
  env: z.array(z.string().max(L.lineChars)).max(100_000).optional(),
  nccl_version: z.number().int().optional(),
  config: z.object({
    step_factor: z.number().int().optional(),
    warmup_iters: z.number().int().min(0),
    iterations: z.number().int().min(0),
    devices: z
      .array(
        z.object({
          rank: z.number().int().min(0),
          hostname: z.string().max(1024),
          device: z.number().int(),
          device_hex: z.string().max(128),
          device_info: z.string().max(1024),
        }),
      )
      .min(1)
      .max(L.processRows),
  }),
  results: z.array(resultSchema).min(1, 'expected at least one result').max(L.results),
});

const pathOf = (path: PropertyKey[]): string => `$${path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}`;

/** Reads nccl-tests' `-J` JSON (already parsed); throws NcclTestsReadError naming `file`, the JSON path and what was expected. */
export function readNcclTestsJson(file: string, json: unknown): NcclTestsResults {
  const fail = (path: PropertyKey[], message: string): never => {
    throw new NcclTestsReadError(`${file}: ${pathOf(path)}: ${message}`);
  };
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    fail(first.path, first.message);
  }
  const doc = parsed.data!;
  const name = doc.args[0].replace(/^.*[/\\]/, '');
  if (!Object.hasOwn(NCCL_TESTS_PROGRAMS, name))
    fail(
      ['args', 0],
      `expected one of nccl-tests' programs the lab's sweeps run (${Object.keys(NCCL_TESTS_PROGRAMS).join(', ')}), not ${JSON.stringify(name)}`,
    );
  const devices = doc.config.devices.map((d, i) => {
    if (d.rank !== i) fail(['config', 'devices', i, 'rank'], `expected rank ${i}`);
    return { rank: d.rank, hostname: d.hostname, device: d.device, busId: d.device_hex, name: d.device_info };
  });
  let cpuTime = false;
  const half = (h: z.infer<typeof halfSchema> | null | undefined, iter: z.infer<typeof perIterSchema> | undefined, path: PropertyKey[]) => {
    if (!h) return null;
    const time = h.time ?? h.cpu_time;
    if (time === undefined) fail(path, 'expected "time" (or "cpu_time")');
    cpuTime ||= h.time === undefined;
    const out: NcclTestsHalf = { timeUs: time!, algbw: h.alg_bw, busbw: h.bus_bw, wrong: h.nwrong };
    if (iter && iter.times_us.length > 0) {
      out.timesUs = iter.times_us;
      if (iter.per_process_max_times_us) out.processTimesUs = iter.per_process_max_times_us;
    }
    return out;
  };
  const rows = doc.results.map((r, i) => {
    const at: PropertyKey[] = ['results', i];
    const dtype = dtypeOfNcclTests(r.type);
    if (!dtype)
      fail(
        [...at, 'type'],
        `expected an element type nccl-tests names (float, half, bfloat16, double, int8, …), not ${JSON.stringify(r.type)}`,
      );
    if (r.redop !== NCCL_TESTS_NO_REDOP && !(REDOPS as readonly string[]).includes(r.redop))
      fail([...at, 'redop'], `expected a reduction op the lab has (${REDOPS.join(', ')}) or none, not ${JSON.stringify(r.redop)}`);
    if (!r.out_of_place && !r.in_place) fail(at, 'expected an out_of_place or in_place half');
    return {
      at: pathOf(at),
      size: r.size,
      count: r.count,
      dtype: dtype!,
      redop: r.redop === NCCL_TESTS_NO_REDOP ? null : (r.redop as Redop),
      root: Number(r.root.trim()),
      outOfPlace: half(r.out_of_place, r.out_of_place_per_iter, [...at, 'out_of_place']),
      inPlace: half(r.in_place, r.in_place_per_iter, [...at, 'in_place']),
    };
  });
  // NCCL's settings from the environment nccl-tests listed ("NCCL_ALGO=Ring").
  const env = Object.fromEntries(
    (doc.env ?? []).flatMap((e) => {
      const m = /^(NCCL_[A-Z0-9_]{1,64})=(.{0,1024})$/s.exec(e);
      return m ? [[m[1], m[2]]] : [];
    }),
  );
  return {
    source: 'nccl-tests JSON',
    program: name as NcclTestsProgram,
    version: null,
    ncclVersion: doc.nccl_version ?? null,
    startTime: doc.start_time ?? null,
    devices,
    warmup: doc.config.warmup_iters,
    iters: doc.config.iterations,
    stepFactor: doc.config.step_factor ?? null,
    cpuTime,
    env,
    rows,
  };
}
