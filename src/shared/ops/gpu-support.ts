// What NCCL refuses on some GPUs, said before it is asked, so that a learner reads why and not
// only NCCL's ncclInvalidArgument.
import { REDUCING_NATIVE_OPS } from './index.js';

/** A compute capability as NCCL compares it (major × 10 + minor: 9.0 → 90), written "9.0". */
export const formatComputeCapability = (cc: number): string => `${Math.floor(cc / 10)}.${cc % 10}`;

/** NCCL reduces float8 only where every GPU of the communicator is of compute capability 9.0 or later. */
export const FLOAT8_REDUCTION_MIN_CC = 90;

const FLOAT8 = new Set(['float8_e4m3', 'float8_e5m2']);

interface OpLike {
  op: string;
  dtype?: string;
  ops?: OpLike[];
}

/**
 * Why NCCL would refuse `op` (a native op, or a group of them) on a GPU of compute capability
 * `cc`, or null when it would not. Gathers, broadcast, scatter, all_to_all and send/recv move
 * float8 bytes on any GPU; only reductions need sm_90.
 */
export function gpuRefusal(op: OpLike, cc: number | undefined, where: string): string | null {
  if (cc === undefined || cc < 0 || cc >= FLOAT8_REDUCTION_MIN_CC) return null;
  if (op.op === 'group') {
    for (const inner of op.ops ?? []) {
      const why = gpuRefusal(inner, cc, where);
      if (why) return why;
    }
    return null;
  }
  if (!REDUCING_NATIVE_OPS.has(op.op) || !FLOAT8.has(op.dtype ?? '')) return null;
  return (
    `${op.op} of ${op.dtype} needs GPUs of compute capability ${formatComputeCapability(FLOAT8_REDUCTION_MIN_CC)} or later ` +
    `(NCCL reduces float8 only there), and ${where} is ${formatComputeCapability(cc)}; ` +
    'expected float16 or bfloat16 for this step, or the cpu backend (gathers, broadcast, scatter, all_to_all and send/recv take float8 on any GPU)'
  );
}
