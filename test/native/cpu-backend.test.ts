// The cpu backend of the native addon with real rank processes (rank-harness.cjs): every
// collective, p2p, groups, streams, gemm, abort, dead ranks and /dev/shm hygiene.
// Needs the addon built: npx cmake-js compile --directory native --out build/native
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DTYPES, tensorView, type Dtype } from '../../src/shared/data/dtypes';
import { reducer, REDOPS, type Redop } from '../../src/shared/data/reduce';
import type { NativeComm } from '../../src/addon/native-api';
import {
  addon,
  checkCall,
  cpuCommInit,
  createdIds,
  createId,
  inputTensor,
  mismatches,
  RankProc,
  runCalls,
  shmExists,
  Team,
  testHooks,
  type Call,
  type OpResult,
} from './ranks';

const SMALL = { slot: 1024, mailbox: 512 }; // forces many chunks with little data
const procs: RankProc[] = [];
const spawn = (n: number) => {
  const list = Array.from({ length: n }, () => new RankProc());
  procs.push(...list);
  return list;
};
let pool: RankProc[] = []; // 8 long-lived rank processes; teams use the first `world` of them

beforeAll(() => {
  pool = spawn(8);
});

afterAll(async () => {
  for (const p of procs) p.kill();
  await Promise.all(procs.map((p) => p.exit));
  for (const id of createdIds) fs.rmSync('/dev/shm' + id, { force: true });
  expect(createdIds.filter(shmExists)).toEqual([]);
});

const failed = (r: OpResult) => (r.ok ? null : r);
const expectRejected = (r: OpResult, code: string, rank: number) => {
  expect(r.ok).toBe(false);
  if (!r.ok) {
    expect(r.code).toBe(code);
    expect(r.rank).toBe(rank);
  }
  return r as Extract<OpResult, { ok: false }>;
};

describe('addon surface', () => {
  it('reports the cpu backend as always available', () => {
    expect(addon.backends().cpu).toEqual({ available: true });
  });

  it('takes the backend and every argument in one object, and says which one is wrong', async () => {
    const thrown = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return [(e as { code?: string }).code, (e as Error).message];
      }
      return ['no error', ''];
    };
    expect(thrown(() => addon.createUniqueId({ backend: 'cpu', world: 0 }))[0]).toBe('CLAB_INVALID_ARGUMENT');
    expect(thrown(() => addon.createUniqueId({ backend: 'cpu', world: 2.5 }))[0]).toBe('CLAB_INVALID_ARGUMENT');
    expect(thrown(() => addon.createUniqueId({ backend: 'gloo' as never, world: 2 }))).toEqual([
      'CLAB_INVALID_ARGUMENT',
      "backend must be 'cpu' or 'nccl' (got 'gloo')",
    ]);
    expect(thrown(() => (addon.createUniqueId as unknown as (w: number) => string)(2))).toEqual([
      'CLAB_INVALID_ARGUMENT',
      'createUniqueId takes one options object (got 2)',
    ]);
    await expect(addon.prepareDevice({ backend: 'cpu', device: -1, rank: 0 })).resolves.toBeUndefined();
  });

  it('validates ids, ranks and worlds; a rank that leaves before the others attached takes the name with it', async () => {
    const rejected = async (p: Promise<unknown>) =>
      p.then(
        () => ['no error', '', -1],
        (e) => [e.code, e.message, e.rank ?? -1],
      );
    const id = createId(2);
    expect(id).toMatch(new RegExp(`^/clab-${process.pid}-[0-9a-f]{16}$`));
    expect(shmExists(id)).toBe(true);
    expect(await rejected(cpuCommInit(id, 0, 3))).toEqual([
      'CLAB_INVALID_ARGUMENT',
      "world 3 does not match the communicator's world 2 (as passed to createUniqueId)",
      0,
    ]);
    expect((await rejected(cpuCommInit(id, 2, 2)))[0]).toBe('CLAB_INVALID_ARGUMENT');
    expect((await rejected(cpuCommInit('/clab-0-0000000000000000', 0, 2)))[1]).toMatch(/no cpu communicator named/);
    expect((await rejected(cpuCommInit('../etc/passwd', 0, 2)))[0]).toBe('CLAB_INVALID_ARGUMENT');
    const c = await cpuCommInit(id, 0, 2);
    expect([c.rank, c.world]).toEqual([0, 2]);
    expect((await rejected(cpuCommInit(id, 0, 2)))[1]).toMatch(/rank 0 is already attached/);
    c.destroy();
    c.destroy(); // idempotent
    expect(shmExists(id)).toBe(false); // rank 1 never attached: destroy() unlinked the name
  });

  it('destroyAsync() closes the communicator off the JS thread: settles once it is gone, and later calls are refused', async () => {
    const id = createId(2);
    const c = await cpuCommInit(id, 0, 2);
    const closing = c.destroyAsync();
    const refused = await c.enqueue(0, { op: 'barrier' }).then(
      () => null,
      (e) => e as Error & { code: string },
    );
    expect([refused?.code, refused?.message]).toEqual(['CLAB_ABORTED', 'enqueue after destroy(): the communicator is gone']);
    await expect(closing).resolves.toBeUndefined();
    expect(shmExists(id)).toBe(false); // rank 1 never attached: the close unlinked the name
    await expect(c.destroyAsync()).resolves.toBeUndefined(); // idempotent
    c.destroy();
  });

  it('fails with plain Errors that carry code and, where there is one, the rank: nothing more', async () => {
    const caught = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e as Error;
      }
      return null;
    };
    const bad = caught(() => addon.createUniqueId({ backend: 'cpu', world: 0 }));
    expect(bad).toBeInstanceOf(Error);
    expect(Object.keys(bad!)).toEqual(['code']); // no rank: createUniqueId names none on cpu
    const c = await cpuCommInit(createId(2), 1, 2);
    const rejected = (await c
      .enqueue(0, { op: 'broadcast', dtype: 'float32', root: 5, count: 1, send: new Float32Array(1), recv: new Float32Array(1) })
      .then(
        () => null,
        (e) => e,
      )) as Error & { code: string; rank: number };
    expect(rejected).toBeInstanceOf(Error);
    expect(Object.keys(rejected).sort()).toEqual(['code', 'rank']);
    expect([rejected.code, rejected.rank, rejected.message]).toEqual([
      'CLAB_INVALID_ARGUMENT',
      1,
      'op.root 5 is out of range for world 2 (0..1)',
    ]);
    c.abort('stopped by the test');
    const aborted = (await c.enqueue(0, { op: 'barrier' }).then(
      () => null,
      (e) => e,
    )) as Error & { code: string; rank: number };
    expect(Object.keys(aborted).sort()).toEqual(['code', 'rank']);
    expect([aborted.code, aborted.rank]).toEqual(['CLAB_ABORTED', 1]);
    expect(aborted.message).toBe('communicator aborted by rank 1: stopped by the test');
    c.destroy();
  });

  it('rejects bad ops with CLAB_INVALID_ARGUMENT naming the field', async () => {
    const id = createId(2);
    const c = await cpuCommInit(id, 0, 2);
    const f32 = (n: number) => new Float32Array(n);
    const reject = async (op: unknown, stream = 0, repeat?: number, options?: unknown) => {
      const err = (await c.enqueue(stream, op as never, repeat, options as never).then(
        () => null,
        (e) => e,
      )) as { code: string; rank: number; message: string };
      expect(err).not.toBeNull();
      expect(err.code).toBe('CLAB_INVALID_ARGUMENT');
      expect(err.rank).toBe(0);
      return err.message;
    };
    expect(await reject({ op: 'all_gather', dtype: 'float32', count: 3, send: f32(3), recv: f32(2) })).toBe(
      'op.recv holds 8 bytes but all_gather needs 24 (count 3 × world 2 × 4 bytes)',
    );
    expect(await reject({ op: 'all_reduce', dtype: 'float32', redop: 'sum', count: 4, send: f32(3), recv: f32(4) })).toBe(
      'op.send holds 12 bytes but all_reduce needs 16 (count 4 × 4 bytes)',
    );
    expect(await reject({ op: 'all_reduce', dtype: 'float8', redop: 'sum', count: 1, send: f32(1), recv: f32(1) })).toMatch(
      /^op\.dtype: unknown dtype 'float8'/,
    );
    expect(await reject({ op: 'all_reduce', dtype: 'float32', redop: 'mean', count: 1, send: f32(1), recv: f32(1) })).toMatch(
      /^op\.redop: unknown redop 'mean'/,
    );
    expect(await reject({ op: 'broadcast', dtype: 'float32', root: 2, count: 1, send: f32(1), recv: f32(1) })).toBe(
      'op.root 2 is out of range for world 2 (0..1)',
    );
    expect(await reject({ op: 'send', dtype: 'float32', peer: -1, count: 1, send: f32(1) })).toMatch(/^op\.peer -1 is out of range/);
    expect(await reject({ op: 'all_reduce', dtype: 'float32', redop: 'sum', count: -1, send: f32(1), recv: f32(1) })).toMatch(
      /^op\.count must be between 0/,
    );
    expect(await reject({ op: 'all_reduce', dtype: 'float32', redop: 'sum', count: 1.5, send: f32(2), recv: f32(2) })).toMatch(
      /^op\.count must be an integer/,
    );
    expect(await reject({ op: 'all_reduce', dtype: 'float32', redop: 'sum', count: 1, send: [1], recv: f32(1) })).toMatch(
      /^op\.send must be an ArrayBufferView/,
    );
    expect(await reject({ op: 'alltoall', count: 1 })).toMatch(/^op\.op: unknown op 'alltoall'/);
    expect(await reject({ op: 'barrier' }, 8)).toMatch(/^stream must be between 0 and 7/);
    expect(await reject({ op: 'barrier' }, 0, 0)).toMatch(/^repeat must be between 1/);
    expect(await reject({ op: 'barrier' }, 0, 2, 'loop')).toBe("options must be an object (got 'loop')");
    expect(await reject({ op: 'barrier' }, 0, 2, { loop: 1 })).toBe('options.loop must be a boolean (got 1)');
    expect(await reject({ op: 'group', ops: [{ op: 'barrier' }, { op: 'recv', dtype: 'int4', peer: 1, count: 1, recv: f32(1) }] })).toMatch(
      /^op\.ops\[1\]\.dtype: unknown dtype/,
    );
    expect(await reject({ op: 'gemm', dtype: 'int8', m: 2, n: 2, k: 2 })).toMatch(/gemm/);
    const buf = new Uint8Array(64);
    expect(
      await reject({ op: 'all_reduce', dtype: 'float32', redop: 'sum', count: 4, send: buf.subarray(0, 16), recv: buf.subarray(4, 20) }),
    ).toMatch(/overlap but not in the in-place layout/);
    c.destroy();
    const after = (await c.enqueue(0, { op: 'barrier' }).then(
      () => null,
      (e) => e,
    )) as { code: string } | null;
    expect(after?.code).toBe('CLAB_ABORTED');
  });

  it('runs world-1 collectives in-process and two ranks of one process without blocking the JS thread', async () => {
    const c1 = await cpuCommInit(createId(1), 0, 1);
    const x = new Float32Array([1.5, -2, 3]);
    const y = new Float32Array(3);
    const t = await c1.enqueue(3, { op: 'all_reduce', dtype: 'float32', redop: 'avg', count: 3, send: x, recv: y }, 2);
    expect(Array.from(y)).toEqual([1.5, -2, 3]);
    expect(t.startNs.length).toBe(2);
    const hr = Number(process.hrtime.bigint());
    expect(Math.abs(hr - t.endNs[1])).toBeLessThan(10e9); // same clock as process.hrtime
    // The cpu backend's per-repetition clock readings cost nothing: it runs no extra loop.
    const looped = await c1.enqueue(0, { op: 'all_reduce', dtype: 'float32', redop: 'sum', count: 3, send: x, recv: y }, 3, { loop: true });
    expect(looped.startNs.length).toBe(3);
    expect(looped.loopStartNs).toBeUndefined();
    c1.destroy();

    const id = createId(2, SMALL);
    const comms: NativeComm[] = await Promise.all([cpuCommInit(id, 0, 2), cpuCommInit(id, 1, 2)]);
    expect(shmExists(id)).toBe(false); // the last rank to attach unlinks the name
    const n = 3000;
    const ins = [0, 1].map((r) => new Float64Array(n).map((_, i) => i * 0.5 + r));
    const outs = [new Float64Array(n), new Float64Array(n)];
    await Promise.all(
      comms.map((c, r) => c.enqueue(0, { op: 'all_reduce', dtype: 'float64', redop: 'sum', count: n, send: ins[r], recv: outs[r] })),
    );
    for (const out of outs) expect(out.every((v, i) => v === i + 1)).toBe(true);
    comms.forEach((c) => c.destroy());
  });
});

describe('collectives across processes', () => {
  for (const world of [2, 3, 4]) {
    it(`all_reduce: every dtype × redop, in-place and not, world ${world}`, async () => {
      const team = await Team.create(pool.slice(0, world), SMALL);
      const calls: Call[] = [];
      let salt = 0;
      for (const dtype of DTYPES)
        for (const redop of REDOPS)
          for (const inPlace of [false, true])
            calls.push({ op: 'all_reduce', dtype, redop, count: 1500 + world * 7, inPlace, salt: salt++ });
      expect(await runCalls(team, calls)).toEqual([]);
      await team.destroy();
    });
  }

  for (const world of [2, 3, 4]) {
    it(`broadcast, reduce, all_gather, reduce_scatter, all_to_all, gather, scatter: world ${world}`, async () => {
      const team = await Team.create(pool.slice(0, world), SMALL);
      const calls: Call[] = [];
      const dtypes: Dtype[] = ['float32', 'bfloat16', 'int64', 'uint8'];
      const redops: Redop[] = ['sum', 'avg', 'max', 'prod'];
      let salt = 0;
      dtypes.forEach((dtype, d) => {
        for (const inPlace of [false, true]) {
          const root = (d + (inPlace ? 1 : 0)) % world;
          const redop = redops[(d + salt) % redops.length];
          const base = { dtype, inPlace, count: 700 + d * 3 };
          calls.push({ ...base, op: 'broadcast', root, count: 1500, salt: salt++ });
          calls.push({ ...base, op: 'reduce', root, redop, salt: salt++ });
          calls.push({ ...base, op: 'all_gather', salt: salt++ });
          calls.push({ ...base, op: 'reduce_scatter', redop, salt: salt++ });
          calls.push({ ...base, op: 'all_to_all', salt: salt++ });
          calls.push({ ...base, op: 'gather', root, salt: salt++ });
          calls.push({ ...base, op: 'scatter', root, salt: salt++ });
        }
      });
      expect(await runCalls(team, calls)).toEqual([]);
      await team.destroy();
    });
  }

  it('8 ranks on 2 cores make progress (sleeping waits): all_reduce ×3, reduce_scatter, all_to_all, group ring', async () => {
    const team = await Team.create(pool.slice(0, 8), SMALL);
    const calls: Call[] = [
      { op: 'all_reduce', dtype: 'float16', redop: 'sum', count: 2001, inPlace: true, salt: 1 },
      { op: 'reduce_scatter', dtype: 'int32', redop: 'max', count: 257, inPlace: false, salt: 2 },
      { op: 'all_to_all', dtype: 'float64', count: 65, inPlace: true, salt: 3 },
    ];
    expect(await runCalls(team, calls)).toEqual([]);
    const n = 1000;
    const replies = await team.runAll((r) => ({
      buffers: { s: inputTensor('float32', n, r, 7).bytes, r: new Uint8Array(n * 4), x: inputTensor('float32', 3000, 0, 8).bytes },
      items: [
        {
          stream: 5,
          repeat: 3,
          op: { op: 'all_reduce', dtype: 'float32', redop: 'max', count: 3000, send: { buf: 'x' }, recv: { buf: 'x' } },
        },
        {
          stream: 5,
          op: {
            op: 'group',
            ops: [
              { op: 'send', dtype: 'float32', peer: (r + 1) % 8, count: n, send: { buf: 's' } },
              { op: 'recv', dtype: 'float32', peer: (r + 7) % 8, count: n, recv: { buf: 'r' } },
            ],
          },
        },
      ],
    }));
    const x = inputTensor('float32', 3000, 0, 8);
    replies.forEach((reply, r) => {
      expect(reply.results.map(failed)).toEqual([null, null]);
      expect(mismatches(tensorView('float32', reply.buffers.x), (i) => x.get(i), 3000, 'max')).toEqual([]);
      const want = inputTensor('float32', n, (r + 7) % 8, 7);
      expect(mismatches(tensorView('float32', reply.buffers.r), (i) => want.get(i), n, `ring rank ${r}`)).toEqual([]);
    });
    await team.destroy();
  });

  it('large all_reduce/all_gather with the default chunk size (world 3)', async () => {
    const team = await Team.create(pool.slice(0, 3));
    const calls: Call[] = [
      { op: 'all_reduce', dtype: 'float32', redop: 'sum', count: 700_001, inPlace: false, salt: 1 },
      { op: 'all_reduce', dtype: 'bfloat16', redop: 'avg', count: 400_003, inPlace: true, salt: 2 },
      { op: 'all_gather', dtype: 'float32', count: 150_001, inPlace: true, salt: 3 },
    ];
    expect(await runCalls(team, calls)).toEqual([]);
    await team.destroy();
  });

  it('float16/bfloat16 round every step: Inf, NaN and subnormals', async () => {
    const team = await Team.create(pool.slice(0, 3), SMALL);
    for (const dtype of ['float16', 'bfloat16'] as const) {
      const values = [
        [65504, 1e-7, 6e-8, NaN, -0, 3.0e38, 1],
        [65504, 2e-7, 6e-8, 1, -0, 3.0e38, -Infinity],
        [-65504, 1e-7, -5.96e-8, 2, 0, 3.0e38, Infinity],
      ];
      const n = values[0].length;
      for (const redop of ['sum', 'max', 'prod'] as const) {
        const replies = await team.runAll((r) => {
          const send = tensorView(dtype, new Uint8Array(n * 2));
          values[r].forEach((v, i) => send.set(i, v));
          return {
            buffers: { s: send.bytes, r: new Uint8Array(n * 2) },
            items: [{ op: { op: 'all_reduce', dtype, redop, count: n, send: { buf: 's' }, recv: { buf: 'r' } } }],
          };
        });
        const stored = values.map((row) => {
          const t = tensorView(dtype, new Uint8Array(n * 2));
          row.forEach((v, i) => t.set(i, v));
          return t;
        });
        const red = reducer(dtype, redop);
        for (const reply of replies)
          expect(mismatches(tensorView(dtype, reply.buffers.r), (i) => red(stored.map((t) => t.get(i))), n, `${dtype} ${redop}`)).toEqual(
            [],
          );
      }
    }
    await team.destroy();
  });

  it('rejects mismatched collectives on every rank', async () => {
    const team = await Team.create(pool.slice(0, 2));
    const replies = await team.runAll((r) => ({
      buffers: { x: new Uint8Array(16) },
      items: [
        {
          op:
            r === 0
              ? { op: 'all_reduce', dtype: 'float32', redop: 'sum', count: 4, send: { buf: 'x' }, recv: { buf: 'x' } }
              : { op: 'broadcast', dtype: 'float32', root: 0, count: 4, send: { buf: 'x' }, recv: { buf: 'x' } },
        },
      ],
    }));
    replies.forEach((reply, r) => {
      const e = expectRejected(reply.results[0], 'CLAB_INVALID_ARGUMENT', r);
      expect(e.message).toBe(
        'collective mismatch: rank 0 called all_reduce(float32, sum, count 4) as its collective #1 but rank 1 called broadcast(float32, root 0, count 4) as its #1',
      );
    });
    const later = await team.run(1, { items: [{ op: { op: 'barrier' } }] });
    expect(expectRejected(later.results[0], 'CLAB_ABORTED', 1).message).toMatch(/collective mismatch/);
    await team.destroy();
  });
});

describe('point-to-point', () => {
  it('send/recv larger than the mailbox, several messages in order', async () => {
    const team = await Team.create(pool.slice(0, 2)); // default mailbox: 1 MiB
    const sizes = [786_437, 3, 262_144]; // float32 elements: 3 MiB + 20 bytes, 12 bytes, 1 MiB
    const replies = await team.runAll((r) => {
      const buffers: Record<string, Uint8Array> = {};
      const items = sizes.map((n, k) => {
        buffers[`m${k}`] = r === 0 ? inputTensor('float32', n, 0, k).bytes : new Uint8Array(n * 4);
        return {
          op:
            r === 0
              ? { op: 'send', dtype: 'float32', peer: 1, count: n, send: { buf: `m${k}` } }
              : { op: 'recv', dtype: 'float32', peer: 0, count: n, recv: { buf: `m${k}`, as: 'dataview' as const } },
        };
      });
      return { buffers, items };
    });
    expect(
      replies
        .flatMap((x) => x.results)
        .map(failed)
        .filter(Boolean),
    ).toEqual([]);
    sizes.forEach((n, k) => {
      const want = inputTensor('float32', n, 0, k);
      expect(mismatches(tensorView('float32', replies[1].buffers[`m${k}`]), (i) => want.get(i), n, `message ${k}`)).toEqual([]);
    });
    await team.destroy();
  });

  for (const [world, env, n] of [
    [3, SMALL, 5001],
    [4, SMALL, 2049],
    [2, {}, 655_360],
  ] as const) {
    it(`group ring: every rank sends to r+1 and receives from r-1 (world ${world}, ${n * 4} bytes, mailbox ${'mailbox' in env ? env.mailbox : 'default'})`, async () => {
      const team = await Team.create(pool.slice(0, world), env);
      const replies = await team.runAll((r) => ({
        buffers: { s: inputTensor('float32', n, r, 9).bytes, r: new Uint8Array(n * 4) },
        items: [
          {
            op: {
              op: 'group',
              ops: [
                { op: 'send', dtype: 'float32', peer: (r + 1) % world, count: n, send: { buf: 's' } },
                { op: 'recv', dtype: 'float32', peer: (r + world - 1) % world, count: n, recv: { buf: 'r' } },
              ],
            },
          },
        ],
      }));
      replies.forEach((reply, r) => {
        expect(failed(reply.results[0])).toBeNull();
        const want = inputTensor('float32', n, (r + world - 1) % world, 9);
        expect(mismatches(tensorView('float32', reply.buffers.r), (i) => want.get(i), n, `rank ${r}`)).toEqual([]);
      });
      await team.destroy();
    });
  }

  it('a group runs its collectives, then its p2p ops', async () => {
    const team = await Team.create(pool.slice(0, 2), SMALL);
    const call: Call = { op: 'all_reduce', dtype: 'int32', redop: 'sum', count: 999, inPlace: false, salt: 4 };
    const replies = await team.runAll((r) => ({
      buffers: {
        c0_s: inputTensor('int32', 999, r, 4).bytes,
        c0_r: new Uint8Array(999 * 4),
        p: inputTensor('int8', 3000, r, 5).bytes,
        q: new Uint8Array(3000),
      },
      items: [
        {
          op: {
            op: 'group',
            ops: [
              { op: 'recv', dtype: 'int8', peer: 1 - r, count: 3000, recv: { buf: 'q' } },
              { op: 'all_reduce', dtype: 'int32', redop: 'sum', count: 999, send: { buf: 'c0_s' }, recv: { buf: 'c0_r' } },
              { op: 'send', dtype: 'int8', peer: 1 - r, count: 3000, send: { buf: 'p' } },
            ],
          },
        },
      ],
    }));
    replies.forEach((reply, r) => {
      expect(failed(reply.results[0])).toBeNull();
      expect(checkCall(call, r, 2, reply, 'c0_')).toEqual([]);
      const want = inputTensor('int8', 3000, 1 - r, 5);
      expect(mismatches(tensorView('int8', reply.buffers.q), (i) => want.get(i), 3000, `rank ${r}`)).toEqual([]);
    });
    await team.destroy();
  });

  it('a recv that does not match the send size is rejected', async () => {
    const team = await Team.create(pool.slice(0, 2));
    const replies = await team.runAll((r) => ({
      buffers: { x: new Uint8Array(32) },
      items: [
        {
          op:
            r === 0
              ? { op: 'send', dtype: 'float32', peer: 1, count: 8, send: { buf: 'x' } }
              : { op: 'recv', dtype: 'float32', peer: 0, count: 4, recv: { buf: 'x' } },
        },
      ],
    }));
    expect(replies[0].results[0].ok).toBe(true);
    expect(expectRejected(replies[1].results[0], 'CLAB_INVALID_ARGUMENT', 1).message).toMatch(
      /recv from rank 0 expects 16 bytes but rank 0 sent 32 bytes/,
    );
    await team.destroy();
  });
});

describe('streams, barrier and gemm', () => {
  it('barrier waits for every rank', async () => {
    const team = await Team.create(pool.slice(0, 3));
    const replies = await team.runAll((r) => ({ delayMs: r === 0 ? 300 : 0, items: [{ op: { op: 'barrier' } }] }));
    const times = replies.map((x) => (x.results[0].ok ? x.results[0].times : null));
    expect(times.every(Boolean)).toBe(true);
    const lastArrival = Math.max(...times.map((t) => t!.startNs[0]));
    for (const t of times) expect(t!.endNs[0]).toBeGreaterThanOrEqual(lastArrival);
    await team.destroy();
  });

  it('gemm computes C = A·B with the documented operands', () => {
    const m = 12,
      n = 7,
      k = 300; // more rows than A's 7 distinct ones, B's 5
    const A = (i: number, p: number) => ((i + p) % 7) - 3;
    const B = (p: number, j: number) => ((p * j) % 5) - 2;
    const C = (i: number, j: number) => {
      let s = 0;
      for (let p = 0; p < k; p++) s += A(i, p) * B(p, j);
      return s;
    };
    for (const dtype of ['float32', 'float64'] as const) {
      const c = tensorView(dtype, testHooks.gemmResult(dtype, m, n, k));
      expect(mismatches(c, (x) => C(Math.floor(x / n), x % n), m * n, dtype)).toEqual([]);
    }
    for (const dtype of ['float16', 'bfloat16'] as const) {
      // k = 8: |C| <= 48, exact in both
      const c = tensorView(dtype, testHooks.gemmResult(dtype, 3, 4, 8));
      const C8 = (i: number, j: number) => {
        let s = 0;
        for (let p = 0; p < 8; p++) s += A(i, p) * B(p, j);
        return s;
      };
      expect(mismatches(c, (x) => C8(Math.floor(x / 4), x % 4), 12, dtype)).toEqual([]);
    }
  });

  it('collectives on different streams enter communication in enqueue order on every rank (20 runs)', async () => {
    // An async broadcast on stream 1 and an all_reduce on stream 2, then both awaited: each rank's
    // two stream threads race for the communicator; it must take them in the order they were enqueued.
    const team = await Team.create(pool.slice(0, 3));
    const n = 4096;
    const problems: string[] = [];
    for (let run = 0; run < 20; run++) {
      const replies = await team.runAll((r) => ({
        buffers: { b: inputTensor('int32', n, r, run).bytes, x: inputTensor('int32', n, r, run + 1).bytes },
        items: [
          { stream: 1, op: { op: 'broadcast', dtype: 'int32', root: 0, count: n, send: { buf: 'b' }, recv: { buf: 'b' } } },
          { stream: 2, op: { op: 'all_reduce', dtype: 'int32', redop: 'sum', count: n, send: { buf: 'x' }, recv: { buf: 'x' } } },
        ],
      }));
      replies.forEach((reply, rank) =>
        reply.results.forEach((res, k) => {
          if (!res.ok) problems.push(`run ${run} rank ${rank} item ${k}: ${res.code} ${res.message}`);
        }),
      );
      const sum = reducer('int32', 'sum');
      const root = inputTensor('int32', n, 0, run);
      const summed = [0, 1, 2].map((q) => inputTensor('int32', n, q, run + 1));
      for (const [rank, reply] of replies.entries()) {
        problems.push(...mismatches(tensorView('int32', reply.buffers.b), (i) => root.get(i), n, `run ${run} broadcast rank ${rank}`));
        problems.push(
          ...mismatches(
            tensorView('int32', reply.buffers.x),
            (i) => sum(summed.map((t) => t.get(i))),
            n,
            `run ${run} all_reduce rank ${rank}`,
          ),
        );
      }
      if (problems.length) break;
    }
    expect(problems).toEqual([]);
    await team.destroy();
  });

  it('ops on one stream run in order; gemm on another stream overlaps a collective', async () => {
    // Rank 1 runs four gemms on stream 0 before its all_reduces, so rank 0's first all_reduce waits
    // for it that long. Rank 0 enqueues its gemm, on stream 1, after its all_reduces: it must
    // start meanwhile (were the streams one queue, it would start only after the third all_reduce).
    const team = await Team.create(pool.slice(0, 2));
    const n = 1 << 20;
    const allReduces = () =>
      [0, 1, 2].map(() => ({
        stream: 0,
        op: { op: 'all_reduce', dtype: 'float32', redop: 'sum', count: n, send: { buf: 's' }, recv: { buf: 'r' } },
      }));
    const gemm = (stream: number, repeat: number) => ({ stream, repeat, op: { op: 'gemm', dtype: 'float32', m: 384, n: 384, k: 384 } });
    const replies = await team.runAll((r) => ({
      buffers: { s: inputTensor('float32', n, r, 0).bytes, r: new Uint8Array(n * 4) },
      items: r === 0 ? [...allReduces(), gemm(1, 2)] : [gemm(0, 4), ...allReduces()],
    }));
    for (const [rank, reply] of replies.entries()) {
      const times = reply.results.map((x) => (x.ok ? x.times : null));
      const g = rank === 0 ? times[3] : times[0];
      const ars = rank === 0 ? times.slice(0, 3) : times.slice(1);
      expect(g && ars.every(Boolean)).toBeTruthy();
      for (let i = 0; i + 1 < ars.length; i++) expect(ars[i + 1]!.startNs[0]).toBeGreaterThanOrEqual(ars[i]!.endNs[0]);
      for (let i = 0; i + 1 < g!.startNs.length; i++) expect(g!.startNs[i + 1]).toBeGreaterThanOrEqual(g!.endNs[i]);
      if (rank === 1)
        expect(ars[0]!.startNs[0]).toBeGreaterThanOrEqual(g!.endNs[3]); // one stream: in order
      else expect(g!.startNs[0]).toBeLessThan(ars[0]!.endNs[0]); // another stream: alongside the waiting all_reduce
    }
    await team.destroy();
  });
});

describe('abort, dead ranks, teardown', () => {
  it("abort on one rank rejects the others' pending ops with CLAB_ABORTED within 1 s", async () => {
    const team = await Team.create(pool.slice(0, 3));
    const op = { op: 'all_reduce', dtype: 'float32', redop: 'sum', count: 4, send: { buf: 'x' }, recv: { buf: 'x' } };
    const pending = [1, 2].map((r) =>
      team.run(r, { buffers: { x: new Uint8Array(16) }, items: [{ op }, { stream: 2, op: { op: 'barrier' } }] }),
    );
    const { atNs } = await team.abort(0, 'test abort reason', 300);
    const replies = await Promise.all(pending);
    replies.forEach((reply, i) => {
      for (const res of reply.results) {
        const e = expectRejected(res, 'CLAB_ABORTED', i + 1);
        expect(e.message).toBe('communicator aborted by rank 0: test abort reason');
        expect(e.atNs - atNs).toBeLessThan(1e9);
      }
    });
    const later = await team.run(0, { items: [{ op: { op: 'barrier' } }] });
    expectRejected(later.results[0], 'CLAB_ABORTED', 0);
    await team.destroy();
  });

  it('destroy() with an op still running aborts it instead of hanging', async () => {
    const team = await Team.create(pool.slice(0, 2));
    const reply = await team.run(0, {
      buffers: { x: new Uint8Array(4) },
      destroyAfterMs: 200,
      items: [{ op: { op: 'recv', dtype: 'int32', peer: 1, count: 1, recv: { buf: 'x' } } }],
    });
    expect(expectRejected(reply.results[0], 'CLAB_ABORTED', 0).message).toMatch(
      /destroy\(\) was called with 1 operation\(s\) still running on rank 0/,
    );
    await team.destroy();
  });

  it('waiting on a rank that destroyed its communicator fails instead of hanging', async () => {
    const team = await Team.create(pool.slice(0, 2));
    await team.procs[0].call({ type: 'destroy', key: team.id });
    const reply = await team.run(1, { items: [{ op: { op: 'barrier' } }] });
    expect(expectRejected(reply.results[0], 'CLAB_ABORTED', 1).message).toBe(
      'rank 0 destroyed its communicator while rank 1 was waiting for it in barrier',
    );
    await team.destroy();
  });

  it('a rank killed with SIGKILL fails its peers, and what it created goes with the next createUniqueId', async () => {
    const [a, b] = spawn(2);
    const team = await Team.create([a, b]);
    expect(shmExists(team.id)).toBe(false); // both attached: already unlinked
    // `a` creates a communicator and attaches to it alone (a run killed before its other ranks started).
    const { id: lone } = await a.call<{ id: string }>({ type: 'create', world: 2 });
    await a.call({ type: 'init', key: lone, id: lone, rank: 0, world: 2 });
    expect(lone).toMatch(new RegExp(`^/clab-${a.proc.pid}-`));
    expect(shmExists(lone)).toBe(true);
    const pending = team.run(1, {
      buffers: { x: new Uint8Array(8) },
      items: [{ op: { op: 'all_reduce', dtype: 'int64', redop: 'sum', count: 1, send: { buf: 'x' }, recv: { buf: 'x' } } }],
    });
    await new Promise((r) => setTimeout(r, 100));
    const killedAt = Number(process.hrtime.bigint());
    a.kill('SIGKILL');
    expect((await a.exit).signal).toBe('SIGKILL');
    const reply = await pending;
    const e = expectRejected(reply.results[0], 'CLAB_ABORTED', 1);
    expect(e.message).toMatch(/communicator aborted by rank 0: its process \(pid \d+\) exited without destroy\(\)/);
    expect(e.atNs - killedAt).toBeLessThan(1e9);
    expect(shmExists(lone)).toBe(true); // nobody left to unlink it ...
    const next = createId(1);
    expect(shmExists(lone)).toBe(false); // ... until a later run creates its own
    expect(shmExists(next)).toBe(true);
  });

  it('a rank process exits by itself after destroy(), and when idle without it', async () => {
    const [x, y] = spawn(2);
    const team = await Team.create([x, y]);
    await team.runAll(() => ({ items: [{ op: { op: 'barrier' } }] }));
    await x.call({ type: 'destroy', key: team.id });
    const exits = [x, y].map((p) => Promise.race([p.exit, new Promise((r) => setTimeout(() => r('still running'), 5000))]));
    await Promise.all([x, y].map((p) => p.call({ type: 'exit' })));
    expect(await Promise.all(exits)).toEqual([
      { code: 0, signal: null },
      { code: 0, signal: null },
    ]);
  });
});
