// Reductions exactly as the backends evaluate them: acc = x0, then acc = op(acc, xp) in rank
// order, each step rounded to the element type (half types via float32), integers wrapping.
import { DTYPE_INFO, type Dtype, type Scalar } from './dtypes.js';

export const REDOPS = ['sum', 'prod', 'min', 'max', 'avg'] as const;
export type Redop = (typeof REDOPS)[number];

type Binary = (a: Scalar, b: Scalar) => Scalar;

function binaryFor(dtype: Dtype, redop: Exclude<Redop, 'avg'>): Binary {
  if (dtype === 'int64') {
    const w = (x: bigint) => BigInt.asIntN(64, x);
    switch (redop) {
      case 'sum': return (a, b) => w((a as bigint) + (b as bigint));
      case 'prod': return (a, b) => w((a as bigint) * (b as bigint));
      case 'min': return (a, b) => ((a as bigint) < (b as bigint) ? a : b);
      case 'max': return (a, b) => ((a as bigint) > (b as bigint) ? a : b);
    }
  }
  const cast = DTYPE_INFO[dtype].cast as (x: number) => number;
  switch (redop) {
    case 'sum': return (a, b) => cast((a as number) + (b as number));
    case 'prod':
      // int32 products exceed 2^53; Math.imul wraps exactly like the native unsigned multiply.
      return dtype === 'int32' ? (a, b) => Math.imul(a as number, b as number) : (a, b) => cast((a as number) * (b as number));
    case 'min': return (a, b) => ((a as number) < (b as number) ? a : b);
    case 'max': return (a, b) => ((a as number) > (b as number) ? a : b);
  }
}

/** Reduces one element's values (index = rank) the way every backend does. */
export function reducer(dtype: Dtype, redop: Redop): (values: Scalar[]) => Scalar {
  const op = binaryFor(dtype, redop === 'avg' ? 'sum' : redop);
  const fold = (values: Scalar[]) => values.reduce((acc, v) => op(acc, v));
  if (redop !== 'avg') return fold;
  if (dtype === 'int64') return (values) => (fold(values) as bigint) / BigInt(values.length);
  const cast = DTYPE_INFO[dtype].cast as (x: number) => number;
  if (!DTYPE_INFO[dtype].float) return (values) => Math.trunc((fold(values) as number) / values.length);
  return (values) => cast((fold(values) as number) / values.length);
}
