// Element types: sizes, how values are stored, and the rounding each type applies, so that
// host-side expected values are computed exactly as the backends compute them.

export const DTYPES = [
  'float32',
  'float64',
  'float16',
  'bfloat16',
  'float8_e4m3',
  'float8_e5m2',
  'int8',
  'uint8',
  'int32',
  'uint32',
  'int64',
  'uint64',
] as const;
export type Dtype = (typeof DTYPES)[number];

/** A value as a learner reads it: a number, or a bigint for int64 and uint64. */
export type Scalar = number | bigint;

export interface DtypeInfo {
  name: Dtype;
  bytes: number;
  float: boolean;
  /** Rounds/wraps a mathematical value to what this type can hold. */
  cast(x: number): Scalar;
  /** Its storage as a typed array (the half and 8-bit floats: their bit patterns). */
  array: RawArrayType;
}

// float16 and bfloat16 conversion with round-to-nearest-even, matching the native kernels.
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

export function float32ToBfloat16Bits(x: number): number {
  f32[0] = x;
  const bits = u32[0];
  if ((bits & 0x7f800000) === 0x7f800000 && (bits & 0x007fffff) !== 0) return ((bits >>> 16) | 0x0040) & 0xffff;
  const rounded = bits + 0x7fff + ((bits >>> 16) & 1);
  return (rounded >>> 16) & 0xffff;
}

export function bfloat16BitsToFloat32(h: number): number {
  u32[0] = (h & 0xffff) << 16;
  return f32[0];
}

export function float32ToFloat16Bits(x: number): number {
  f32[0] = x;
  const bits = u32[0];
  const sign = (bits >>> 16) & 0x8000;
  const exp = (bits >>> 23) & 0xff;
  let mant = bits & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rem > halfway || (rem === halfway && half & 1)) half++;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && half & 1)) half++;
  return sign | half;
}

export function float16BitsToFloat32(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/**
 * The two 8-bit float formats NCCL carries (ncclFloat8e4m3, ncclFloat8e5m2), as CUDA converts to
 * them (__nv_cvt_*_to_fp8 with __NV_SATFINITE): round to nearest even, anything beyond the largest
 * finite value (Inf included) becomes that value, NaN becomes 0x7f. e4m3 has no infinities.
 */
export type Float8Format = 'float8_e4m3' | 'float8_e5m2';
const FP8 = {
  float8_e4m3: { mant: 3, bias: 7, maxCode: 0x7e },
  float8_e5m2: { mant: 2, bias: 15, maxCode: 0x7b },
} as const;

/** Ties go to the even neighbour (the hardware's rounding), for x >= 0. */
function roundHalfEven(x: number): number {
  const r = Math.floor(x);
  const d = x - r;
  return d > 0.5 || (d === 0.5 && r % 2 === 1) ? r + 1 : r;
}

/** float32 value -> fp8 bits. */
export function float32ToFloat8Bits(format: Float8Format, x: number): number {
  const { mant, bias, maxCode } = FP8[format];
  if (Number.isNaN(x)) return 0x7f;
  f32[0] = x;
  const sign = (u32[0] >>> 24) & 0x80;
  const a = Math.abs(f32[0]);
  const exp = ((u32[0] >>> 23) & 0xff) - 127;
  if (a === 0 || exp < -bias - mant - 1) return sign; // below half the smallest subnormal
  const e = Math.max(exp, 1 - bias); // subnormals share the smallest normal's quantum
  const n = roundHalfEven(a / 2 ** (e - mant));
  const code = exp < 1 - bias ? n : ((e + bias) << mant) + n - (1 << mant);
  return sign | Math.min(code, maxCode);
}

const fp8Tables = new Map<Float8Format, Float32Array>();

/** The 256 values of a format (NaN codes decode to NaN). */
export function float8Table(format: Float8Format): Float32Array {
  let t = fp8Tables.get(format);
  if (!t) {
    const { mant, bias } = FP8[format];
    const expMax = format === 'float8_e4m3' ? 15 : 31;
    t = Float32Array.from({ length: 256 }, (_, code) => {
      const s = code & 0x80 ? -1 : 1;
      const e = (code & 0x7f) >> mant;
      const m = code & ((1 << mant) - 1);
      if (format === 'float8_e4m3' && e === expMax && m === (1 << mant) - 1) return NaN;
      if (format === 'float8_e5m2' && e === expMax) return m ? NaN : s * Infinity;
      return e === 0 ? s * m * 2 ** (1 - bias - mant) : s * (1 + m / (1 << mant)) * 2 ** (e - bias);
    });
    fp8Tables.set(format, t);
  }
  return t;
}

const wrapInt =
  (bits: number, signed: boolean) =>
  (x: number): number => {
    const t = Math.trunc(x);
    if (!Number.isFinite(t)) return 0;
    const m = 2 ** bits;
    let r = ((t % m) + m) % m;
    if (signed && r >= m / 2) r -= m;
    return r;
  };

/** A type's typed array over raw bytes (half and 8-bit floats: their bit patterns). */
type RawArrayType = { new (buffer: ArrayBufferLike, byteOffset: number, length: number): RawArray; BYTES_PER_ELEMENT: number };

function float8Info(name: Float8Format): DtypeInfo {
  let table: Float32Array | undefined;
  return {
    name,
    bytes: 1,
    float: true,
    cast: (x) => (table ??= float8Table(name))[float32ToFloat8Bits(name, Math.fround(x))],
    array: Uint8Array,
  };
}
const integerInfo = (name: Dtype, array: RawArrayType, signed: boolean): DtypeInfo => ({
  name,
  bytes: array.BYTES_PER_ELEMENT,
  float: false,
  cast: wrapInt(8 * array.BYTES_PER_ELEMENT, signed),
  array,
});
const finiteTrunc = (x: number) => BigInt(Math.trunc(Number.isFinite(x) ? x : 0));

export const DTYPE_INFO: Record<Dtype, DtypeInfo> = {
  float32: { name: 'float32', bytes: 4, float: true, cast: (x) => Math.fround(x), array: Float32Array },
  float64: { name: 'float64', bytes: 8, float: true, cast: (x) => x, array: Float64Array },
  float16: {
    name: 'float16',
    bytes: 2,
    float: true,
    cast: (x) => float16BitsToFloat32(float32ToFloat16Bits(Math.fround(x))),
    array: Uint16Array,
  },
  bfloat16: {
    name: 'bfloat16',
    bytes: 2,
    float: true,
    cast: (x) => bfloat16BitsToFloat32(float32ToBfloat16Bits(Math.fround(x))),
    array: Uint16Array,
  },
  float8_e4m3: float8Info('float8_e4m3'),
  float8_e5m2: float8Info('float8_e5m2'),
  int8: integerInfo('int8', Int8Array, true),
  uint8: integerInfo('uint8', Uint8Array, false),
  int32: integerInfo('int32', Int32Array, true),
  uint32: integerInfo('uint32', Uint32Array, false),
  int64: { name: 'int64', bytes: 8, float: false, cast: (x) => BigInt.asIntN(64, finiteTrunc(x)), array: BigInt64Array },
  uint64: { name: 'uint64', bytes: 8, float: false, cast: (x) => BigInt.asUintN(64, finiteTrunc(x)), array: BigUint64Array },
};

/** The types whose values are bigints. */
export const isBigIntDtype = (d: Dtype): d is 'int64' | 'uint64' => d === 'int64' || d === 'uint64';

/** A typed view over raw bytes that reads and writes decoded values. */
export type RawArray =
  Float32Array | Float64Array | Uint16Array | Int8Array | Uint8Array | Int32Array | Uint32Array | BigInt64Array | BigUint64Array;

export interface Tensor {
  dtype: Dtype;
  length: number;
  bytes: Uint8Array;
  /** The storage as its own typed array (half types as their 16-bit patterns), for bulk loops. */
  raw: RawArray;
  get(i: number): Scalar;
  set(i: number, v: Scalar): void;
}

type Access = Pick<Tensor, 'get' | 'set'>;
function float8Access(format: Float8Format): (a: Uint8Array) => Access {
  return (a) => {
    const table = float8Table(format);
    return { get: (i) => table[a[i]], set: (i, v) => void (a[i] = float32ToFloat8Bits(format, Math.fround(Number(v)))) };
  };
}
/**
 * Each type's element access over its typed array, a closure of its own per type: a check that
 * decodes a large output calls these per element, and one closure shared by every array kind goes
 * megamorphic on V8 (slower by a few times in a quick side-by-side, see the commit).
 */
const ACCESS: Record<Dtype, (raw: never) => Access> = {
  float32: (a: Float32Array) => ({ get: (i) => a[i], set: (i, v) => void (a[i] = Number(v)) }),
  float64: (a: Float64Array) => ({ get: (i) => a[i], set: (i, v) => void (a[i] = Number(v)) }),
  int8: (a: Int8Array) => ({ get: (i) => a[i], set: (i, v) => void (a[i] = Number(v)) }),
  uint8: (a: Uint8Array) => ({ get: (i) => a[i], set: (i, v) => void (a[i] = Number(v)) }),
  int32: (a: Int32Array) => ({ get: (i) => a[i], set: (i, v) => void (a[i] = Number(v)) }),
  uint32: (a: Uint32Array) => ({ get: (i) => a[i], set: (i, v) => void (a[i] = Number(v)) }),
  int64: (a: BigInt64Array) => ({ get: (i) => a[i], set: (i, v) => void (a[i] = BigInt(v)) }),
  uint64: (a: BigUint64Array) => ({ get: (i) => a[i], set: (i, v) => void (a[i] = BigInt(v)) }),
  float16: (a: Uint16Array) => ({ get: (i) => float16BitsToFloat32(a[i]), set: (i, v) => void (a[i] = float32ToFloat16Bits(Number(v))) }),
  bfloat16: (a: Uint16Array) => ({
    get: (i) => bfloat16BitsToFloat32(a[i]),
    set: (i, v) => void (a[i] = float32ToBfloat16Bits(Number(v))),
  }),
  float8_e4m3: float8Access('float8_e4m3'),
  float8_e5m2: float8Access('float8_e5m2'),
};

export function tensorView(dtype: Dtype, bytes: Uint8Array): Tensor {
  const { array } = DTYPE_INFO[dtype];
  const length = Math.floor(bytes.byteLength / array.BYTES_PER_ELEMENT);
  const raw = new array(bytes.buffer, bytes.byteOffset, length);
  return { dtype, length, bytes, raw, ...ACCESS[dtype](raw as never) };
}

/** A view of `count` elements of `t` starting at element `offset` (shares memory). */
export function sliceTensor(t: Tensor, offset: number, count: number): Tensor {
  const b = DTYPE_INFO[t.dtype].bytes;
  return tensorView(t.dtype, t.bytes.subarray(offset * b, (offset + count) * b));
}

/** The tensors one after the other, in a new tensor. */
export function concatTensors(dtype: Dtype, parts: Tensor[]): Tensor {
  const out = allocTensor(
    dtype,
    parts.reduce((s, p) => s + p.length, 0),
  );
  let at = 0;
  for (const p of parts) {
    out.bytes.set(p.bytes, at);
    at += p.bytes.byteLength;
  }
  return out;
}

/** Allocates a zeroed tensor of `count` elements on its own aligned buffer. */
export function allocTensor(dtype: Dtype, count: number): Tensor {
  const bytes = count * DTYPE_INFO[dtype].bytes;
  try {
    return tensorView(dtype, new Uint8Array(new ArrayBuffer(bytes)));
  } catch (e) {
    throw Object.assign(new Error(`cannot allocate ${bytes} bytes of host memory for ${count} × ${dtype} (${(e as Error).message})`), {
      code: 'CLAB_OUT_OF_MEMORY',
    });
  }
}
