// The words nccl-tests (NVIDIA/nccl-tests, 2.19) prints for what the lab calls by its own names:
// its programs (one per collective), element types and reduction ops, both ways. Shared by the
// `-J` JSON export and the import of its logs and JSON, so that one table says how they map.
import type { Dtype } from '../data/dtypes.js';

/** The lab's dtype as nccl-tests names it (src/common.cu's test_typenames). */
export const NCCL_TESTS_TYPES: Readonly<Record<Dtype, string>> = {
  float32: 'float',
  float64: 'double',
  float16: 'half',
  bfloat16: 'bfloat16',
  float8_e4m3: 'f8e4m3',
  float8_e5m2: 'f8e5m2',
  int8: 'int8',
  uint8: 'uint8',
  int32: 'int32',
  uint32: 'uint32',
  int64: 'int64',
  uint64: 'uint64',
};

/** nccl-tests' redop names are the lab's (sum, prod, max, min, avg); an op that does not reduce prints "none". */
export const NCCL_TESTS_NO_REDOP = 'none';

/**
 * The sweep op a program measures, each nccl-tests program by the lab op whose count means what
 * nccl-tests' count column means (elements per rank: all_gather's contribution, reduce_scatter's
 * output, all_to_all's per peer), so that both sizes agree.
 */
export const NCCL_TESTS_PROGRAMS = {
  all_reduce_perf: 'all_reduce',
  all_gather_perf: 'all_gather_into_tensor',
  reduce_scatter_perf: 'reduce_scatter',
  broadcast_perf: 'broadcast',
  reduce_perf: 'reduce',
  alltoall_perf: 'all_to_all',
  gather_perf: 'gather',
  scatter_perf: 'scatter',
  sendrecv_perf: 'sendrecv',
} as const;

export type NcclTestsProgram = keyof typeof NCCL_TESTS_PROGRAMS;

/** The program that measures a lab sweep's op (its list-valued twin's too); null for one nccl-tests has none of (a one-pair send). */
export function ncclTestsProgramOf(op: string): NcclTestsProgram | null {
  const base = op.replace(/_(into_tensor|tensor|single)$/, '');
  const found = (Object.keys(NCCL_TESTS_PROGRAMS) as NcclTestsProgram[]).find(
    (p) => NCCL_TESTS_PROGRAMS[p].replace(/_(into_tensor|tensor|single)$/, '') === base,
  );
  return found ?? null;
}

/** The lab dtype nccl-tests' type name stands for; null where it names none (e.g. "char" of a pre-2.12 NCCL build). */
export function dtypeOfNcclTests(type: string): Dtype | null {
  const found = (Object.keys(NCCL_TESTS_TYPES) as Dtype[]).find((d) => NCCL_TESTS_TYPES[d] === type);
  return found ?? null;
}

/** nccl-tests' root column: "%6i" of the root, -1 where the op has none. */
export const ncclTestsRoot = (root: number): string => String(root).padStart(6, ' ');
