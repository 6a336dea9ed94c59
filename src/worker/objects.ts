// Object collectives as torch does them: serialise, exchange the sizes, pad to the largest,
// move the bytes with a tensor collective, deserialise. Each repetition is timed as a whole.
import { OBJECT_DESCRIPTORS, objectOfRank, type Json } from '../shared/ops/index.js';
import type { PlanAction, PlanStep } from '../shared/plan/types.js';
import type { NativeComm, NativeOp, NativeTimes } from '../addon/native-api.js';

type ObjectAction = Extract<PlanAction, { kind: 'object' }>;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** JSON with sorted keys, so equal values compare equal as text. */
export function canonicalJson(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

export function objectOf(action: ObjectAction): (rank: number) => Json {
  return (rank) => objectOfRank(action.objects as Json[] | null, rank);
}

const int64s = (values: number[]) => new BigInt64Array(values.map((v) => BigInt(v)));

/** One run of the object collective; returns what this rank holds afterwards. */
async function runOnce(
  a: ObjectAction,
  comm: Pick<NativeComm, 'enqueue'>,
  stream: number,
  rank: number,
  world: number,
): Promise<Json | undefined> {
  const run = (op: NativeOp) => comm.enqueue(stream, op, 1);
  const bytesOf = (r: number) => encoder.encode(JSON.stringify(objectOf(a)(r)));
  const parse = (b: Uint8Array, length: number) => JSON.parse(decoder.decode(b.subarray(0, length))) as Json;
  const u8 = { dtype: 'uint8' } as const;
  const i64 = { dtype: 'int64' } as const;

  switch (a.op) {
    case 'broadcast_object': {
      const mine = rank === a.root ? bytesOf(rank) : new Uint8Array(0);
      const size = int64s([mine.length]);
      await run({ op: 'broadcast', ...i64, root: a.root, count: 1, send: size, recv: size });
      const buf = new Uint8Array(Number(size[0]));
      buf.set(mine);
      await run({ op: 'broadcast', ...u8, root: a.root, count: buf.length, send: buf, recv: buf });
      return parse(buf, buf.length);
    }
    case 'all_gather_object':
    case 'gather_object': {
      const mine = bytesOf(rank);
      const sizes = new BigInt64Array(world);
      await run({ op: 'all_gather', ...i64, count: 1, send: int64s([mine.length]), recv: sizes });
      const max = Math.max(...Array.from(sizes, Number));
      const padded = new Uint8Array(max);
      padded.set(mine);
      const gathered = a.op === 'all_gather_object' || rank === a.root ? new Uint8Array(max * world) : new Uint8Array(0);
      if (a.op === 'all_gather_object') await run({ op: 'all_gather', ...u8, count: max, send: padded, recv: gathered });
      else await run({ op: 'gather', ...u8, root: a.root, count: max, send: padded, recv: gathered });
      if (!gathered.length) return undefined;
      return Array.from({ length: world }, (_, p) => parse(gathered.subarray(p * max), Number(sizes[p])));
    }
    case 'scatter_object': {
      const parts = rank === a.root ? Array.from({ length: world }, (_, p) => bytesOf(p)) : [];
      const maxBuf = int64s([Math.max(0, ...parts.map((p) => p.length))]);
      await run({ op: 'broadcast', ...i64, root: a.root, count: 1, send: maxBuf, recv: maxBuf });
      const max = Number(maxBuf[0]);
      const sizes = new BigInt64Array(1);
      await run({ op: 'scatter', ...i64, root: a.root, count: 1, send: int64s(parts.map((p) => p.length)), recv: sizes });
      const send = new Uint8Array(rank === a.root ? max * world : 0);
      parts.forEach((p, i) => send.set(p, i * max));
      const recv = new Uint8Array(max);
      await run({ op: 'scatter', ...u8, root: a.root, count: max, send, recv });
      return parse(recv, Number(sizes[0]));
    }
  }
}

export async function runObjectCollective(step: PlanStep, a: ObjectAction, comm: Pick<NativeComm, 'enqueue'>, rank: number, world: number) {
  const runs = step.warmup + step.iters;
  const times: NativeTimes = { startNs: [], endNs: [] };
  let result: Json | undefined;
  for (let i = 0; i < runs; i++) {
    const start = Number(process.hrtime.bigint());
    result = await runOnce(a, comm, step.stream, rank, world);
    if (i >= step.warmup) {
      times.startNs.push(start);
      times.endNs.push(Number(process.hrtime.bigint()));
    }
  }
  const expected = OBJECT_DESCRIPTORS[a.op].expected(objectOf(a), world, rank, a.root);
  const checks =
    expected === undefined
      ? []
      : [
          {
            check:
              canonicalJson(result ?? null) === canonicalJson(expected)
                ? { checked: 1, wrong: 0, mismatches: [] }
                : {
                    checked: 1,
                    wrong: 1,
                    mismatches: [{ index: 0, expected: JSON.stringify(expected), actual: JSON.stringify(result ?? null) }],
                  },
            preview: JSON.stringify(result ?? null),
          },
        ];
  const events = times.startNs.map((startNs, i) => ({
    rank,
    stream: step.stream,
    step: step.index,
    name: step.label,
    phase: 'timed' as const,
    startNs,
    endNs: times.endNs[i],
    bytes: 0,
  }));
  return { checks: () => checks, timed: times, events, note: null };
}
