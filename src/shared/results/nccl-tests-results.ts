// What an nccl-tests run says, read from its text log (nccl-tests-log.ts) or its `-J` JSON
// (nccl-tests-json-in.ts) into one shape: the program, the ranks' devices, and per size the
// out-of-place and in-place halves as nccl-tests printed them. Nothing is recomputed or checked.
import type { Dtype } from '../data/dtypes.js';
import type { Redop } from '../data/reduce.js';
import type { NcclTestsProgram } from './nccl-tests-names.js';

/** Bounds on what is read: an nccl-tests log of a long sweep is some hundred lines. */
export const NCCL_TESTS_LIMITS = {
  /** The file, read at most this far. */
  fileBytes: 64 * 1024 * 1024,
  /** Sizes (results) of one file: two steps each in the record. */
  results: 10_000,
  /** Timed iterations of one half's per-iteration report, and process rows of it. */
  iterations: 100_000,
  processRows: 4096,
  /** A text line; nccl-tests' longest are its device lines (2048 bytes). */
  lineChars: 64 * 1024,
} as const;

export interface NcclTestsHalf {
  /** µs per op (nccl-tests' time; -C: CPU time). */
  timeUs: number;
  algbw: number;
  busbw: number;
  /** #wrong; null where nccl-tests did not check (N/A). */
  wrong: number | null;
  /** -I 1: each iteration's time, µs (the max over process rows), and each process row's. */
  timesUs?: number[];
  processTimesUs?: number[][];
}

export interface NcclTestsRow {
  /** Where the size was read: "line 14" or "$.results[3]". */
  at: string;
  size: number;
  count: number;
  dtype: Dtype;
  /** null: the op does not reduce ("none"). */
  redop: Redop | null;
  /** -1: the op has no root. */
  root: number;
  outOfPlace: NcclTestsHalf | null;
  inPlace: NcclTestsHalf | null;
}

export interface NcclTestsDevice {
  rank: number;
  hostname: string;
  device: number;
  busId: string;
  name: string;
}

export interface NcclTestsResults {
  /** "nccl-tests text log" or "nccl-tests JSON". */
  source: string;
  program: NcclTestsProgram;
  /** nccl-tests' version ("2.19.6"), where the file says. */
  version: string | null;
  /** The NCCL library's version code (22803), where the file says. */
  ncclVersion: number | null;
  /** When it started, as nccl-tests wrote it ("2026-01-05 10:00:00"), where the file says. */
  startTime: string | null;
  devices: NcclTestsDevice[];
  warmup: number | null;
  iters: number | null;
  /** The sizes' step: ×factor or +bytes, where the file says. */
  stepFactor: number | null;
  /** -C 1: times are CPU time. */
  cpuTime: boolean;
  /** NCCL_* settings the run had, where the file lists its environment (JSON). */
  env: Record<string, string>;
  rows: NcclTestsRow[];
}

/** Bad or foreign input, said in one line: the file, where in it, what was expected. */
export class NcclTestsReadError extends Error {}
