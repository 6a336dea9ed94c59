// nccl-tests' `-J` JSON file (version 3) as NVIDIA's source writes it (nccl-tests 2.19, src/util.cu:
// jsonOutputInit, writeDeviceReport, writeResultHeader, writeBenchmarkLine*, writePerIterReport,
// writeResultFooter, writeErrors, jsonOutputFinalize), written here from that source and the
// README's -J and -I options, for checking what the lab writes and what it reads. Strict where
// nccl-tests is: its booleans are the strings "true" and "false", its root a "%6i" string, a NaN
// the string "nan".
import { z } from 'zod';

const double = z.union([z.number(), z.literal('nan')]);
const boolString = z.enum(['true', 'false']);

const half = z
  .object({
    // -C 1 reports CPU time under "cpu_time" instead.
    time: double.optional(),
    cpu_time: double.optional(),
    alg_bw: double,
    bus_bw: double,
    nwrong: double.nullable(),
  })
  .strict()
  .refine((h) => (h.time === undefined) !== (h.cpu_time === undefined), 'expected one of time and cpu_time');

const perIter = z
  .object({
    skipped_iterations: z.number().int().min(0),
    min_us: double,
    max_us: double,
    avg_us: double,
    p50_us: double,
    p95_us: double,
    p99_us: double,
    stdev_us: double,
    cv_pct: double,
    times_us: z.array(double),
    per_process_max_times_us: z.array(z.array(double)).optional(),
  })
  .strict();

export const ncclTestsResultSchema = z
  .object({
    size: z.number().int().min(0),
    count: z.number().int().min(0),
    type: z.string(),
    redop: z.string(),
    root: z.string().regex(/^ *-?\d+$/),
    // writeBenchMarkLineNullBody: null where a half was not run.
    out_of_place: half.nullable(),
    out_of_place_per_iter: perIter.optional(),
    in_place: half.nullable(),
    in_place_per_iter: perIter.optional(),
    actual_iterations: z.number().int(),
    experiment_name: z.string(),
  })
  .strict();

const device = z
  .object({
    rank: z.number().int(),
    group: z.number().int(),
    pid: z.number().int(),
    hostname: z.string(),
    device: z.number().int(),
    device_hex: z.string(),
    device_info: z.string(),
  })
  .strict();

export const ncclTestsFileSchema = z
  .object({
    version: z.literal(3),
    start_time: z.string().regex(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
    args: z.array(z.string()),
    env: z.array(z.string()),
    nccl_version: z.number().int(),
    config: z
      .object({
        nthreads: z.number().int(),
        ngpus: z.number().int(),
        minimum_bytes: z.number().int(),
        maximum_bytes: z.number().int(),
        step_factor: z.number().int().optional(),
        step_bytes: z.number().int().optional(),
        warmup_iters: z.number().int(),
        iterations: z.number().int(),
        aggregated_iterations: z.number().int(),
        validation: z.number().int(),
        graph: z.number().int(),
        blocking_collectives: boolString,
        per_iter_timing: boolString,
        per_iter_skip: z.number().int(),
        parallel_init: boolString,
        devices: z.array(device),
      })
      .strict()
      .refine((c) => (c.step_factor === undefined) !== (c.step_bytes === undefined), 'expected one of step_factor and step_bytes'),
    results: z.array(ncclTestsResultSchema),
    out_of_bounds: z.object({ count: z.number().int(), okay: boolString }).strict(),
    average_bus_bandwidth: z.object({ bandwidth: double, okay: z.union([boolString, z.literal('unchecked')]) }).strict(),
    errors: z.array(z.string()),
    end_time: z.string().regex(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
  })
  .strict();

export type NcclTestsFile = z.infer<typeof ncclTestsFileSchema>;
