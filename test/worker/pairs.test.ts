// The pair runner with a stand-in addon whose calls can be made to hang: a pair's own timeout ends
// a communicator that never comes up and a call that never returns (aborting the pair's
// communicator), the pair's later steps are not measured but its plain copy is, and every
// communicator the pair joined is left when its unit closes.
import { describe, expect, it } from 'vitest';
import { compilePlan } from '../../src/shared/plan/compile';
import type { PairAction, PlanStep } from '../../src/shared/plan/types';
import { scenarioSchema } from '../../src/shared/scenario/schema';
import { PairRunner, type PairHost } from '../../src/worker/pairs';
import type { NativeAddon, NativeComm, NativeTimes } from '../../src/addon/native-api';

const TIMEOUT_MS = 200;
const never = <T>() => new Promise<T>(() => undefined);
const times = (n: number): NativeTimes => ({
  startNs: Array.from({ length: n }, (_, i) => i * 1000),
  endNs: Array.from({ length: n }, (_, i) => i * 1000 + 500),
});

function steps(warmup = 0): (PlanStep & { action: PairAction })[] {
  const scenario = scenarioSchema.parse({
    version: 1,
    name: 'p',
    world: { ranks: 2 },
    defaults: { iters: 2, warmup },
    steps: [{ op: 'pairs', bytes: 64, timeoutMs: TIMEOUT_MS }],
  });
  return compilePlan(scenario).steps as (PlanStep & { action: PairAction })[];
}

/**
 * A stand-in addon for rank 0: commInit, enqueue and closing a communicator behave as `how` says
 * (a close that is slow ends after CLOSE_MS); what happened is logged.
 */
const CLOSE_MS = 50;
function standIn(how: { init: 'ok' | 'hang'; enqueue: 'ok' | 'hang-until-abort' | 'warm-up-only'; close?: 'ok' | 'slow' | 'fail' }) {
  const log: string[] = [];
  let made = 0;
  const comm = (): NativeComm => {
    const id = ++made;
    let abort: ((e: Error) => void) | null = null;
    return {
      rank: 0,
      world: 2,
      makesData: false,
      launchesGraphs: false,
      enqueue: (_s, op, repeat = 1, _opts?: unknown) => {
        log.push(`enqueue ${op.op} on comm ${id}`);
        // warm-up-only: the untimed warm-up (no options) moves its data; the timed loop never ends.
        if (how.enqueue === 'ok' || (how.enqueue === 'warm-up-only' && _opts === undefined)) return Promise.resolve(times(repeat));
        return new Promise((_, reject) => {
          abort = reject;
        });
      },
      prestage: async () => times(0),
      drain: async () => times(0),
      abort: (reason) => {
        log.push(`abort comm ${id}`);
        abort?.(Object.assign(new Error(`communicator aborted: ${reason}`), { code: 'CLAB_ABORTED' }));
      },
      destroy: () => log.push(`destroy comm ${id}`),
      destroyAsync: async () => {
        log.push(`close comm ${id}`);
        if (how.close === 'fail') throw new Error('ncclCommDestroy failed');
        if (how.close === 'slow') await new Promise((resolve) => setTimeout(resolve, CLOSE_MS));
        log.push(`closed comm ${id}`);
      },
    };
  };
  const addon = {
    createUniqueId: () => 'id',
    commInit: () => {
      log.push('commInit');
      return how.init === 'ok' ? Promise.resolve(comm()) : never<NativeComm>();
    },
    peerCopy: async ({ iters }: { iters: number }) => {
      log.push('peerCopy');
      return { ...times(iters), checked: 64, wrong: 0, how: 'memcpy between two host buffers' };
    },
  } as unknown as NativeAddon;
  const lines: string[] = [];
  const host: PairHost = {
    rank: 0,
    backend: 'cpu',
    addon,
    deviceOf: (r) => r,
    sendPairId: () => log.push('sent id'),
    pairId: async () => {
      log.push('got id');
      return 'id';
    },
    log: (text) => lines.push(text),
  };
  return { runner: new PairRunner(host), log, lines };
}

describe('the pair runner', () => {
  it("measures a pair on a communicator of its own, joined at the unit's first step and left at its last", async () => {
    const { runner, log } = standIn({ init: 'ok', enqueue: 'ok' });
    const [bandwidth, latency, copy] = steps();
    expect((await runner.run(bandwidth)).error).toBeUndefined();
    expect((await runner.run(latency)).error).toBeUndefined();
    const copied = await runner.run(copy);
    expect(copied.note).toBe('memcpy between two host buffers');
    // No warm-up asked: one timed enqueue each for bandwidth and latency.
    // Both ranks meet in a barrier on the pair's communicator before leaving it; the copy comes after.
    expect(log).toEqual([
      'sent id',
      'commInit',
      'enqueue send on comm 1',
      'enqueue send on comm 1',
      'enqueue barrier on comm 1',
      'close comm 1',
      'closed comm 1',
      'peerCopy',
    ]);
  });

  it("gives up on a communicator that never comes up, at the pair's timeout", async () => {
    const { runner } = standIn({ init: 'hang', enqueue: 'ok' });
    const t0 = Date.now();
    const out = await runner.run(steps()[0]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(out.error).toMatchObject({ code: 'CLAB_PAIR_TIMEOUT' });
    expect(out.error!.message).toContain(`communicator did not come up within the pair's timeout of ${TIMEOUT_MS} ms`);
  });

  it('tells a pair slower than its timeout (its warm-up moved data) from one that moved none', async () => {
    const slow = await standIn({ init: 'ok', enqueue: 'warm-up-only' }).runner.run(steps(1)[0]);
    expect(slow.error).toMatchObject({ code: 'CLAB_PAIR_SLOW' });
    expect(slow.error!.message).toMatch(
      /the pair moved data \(its 1 warm-up iteration finished in \d+ ms\) but its 2 timed iterations did not finish within its timeout of 200 ms on rank 0: too slow for the timeout, not hung$/,
    );
    const hung = await standIn({ init: 'ok', enqueue: 'hang-until-abort' }).runner.run(steps(1)[0]);
    expect(hung.error).toMatchObject({ code: 'CLAB_PAIR_TIMEOUT' });
    expect(hung.error!.message).toMatch(
      /within its timeout of 200 ms on rank 0: no data moved \(not even its 1 warm-up iteration finished\)$/,
    );
  });

  it("aborts the pair's communicator when a call never returns, then skips its other measurements but still copies", async () => {
    const { runner, log } = standIn({ init: 'ok', enqueue: 'hang-until-abort' });
    const [bandwidth, latency, copy] = steps();
    const out = await runner.run(bandwidth);
    expect(out.error).toMatchObject({ code: 'CLAB_PAIR_TIMEOUT' });
    expect(log).toContain('abort comm 1');
    expect((await runner.run(latency)).error).toMatchObject({ code: 'CLAB_PAIR_DOWN' });
    // The unit closed at the latency step: no barrier on an aborted communicator, just left.
    expect(log.slice(-2)).toEqual(['close comm 1', 'closed comm 1']);
    expect(log).not.toContain('enqueue barrier on comm 1');
    expect((await runner.run(copy)).error).toBeUndefined();
    expect(log.at(-1)).toBe('peerCopy');
    // The next pair joins a fresh communicator.
    const next = steps()[3];
    expect(next.action).toMatchObject({ from: 1, to: 0, opens: true });
  });

  it("joins the next pair while the last one's communicator closes, and measures only once it is closed", async () => {
    const { runner, log } = standIn({ init: 'ok', enqueue: 'ok', close: 'slow' });
    const all = steps();
    const [bandwidth, latency, copy, nextBandwidth, nextLatency] = all;
    for (const step of [bandwidth, latency]) expect((await runner.run(step)).error).toBeUndefined();
    expect(log.at(-1)).toBe('close comm 1'); // the unit closed; its communicator is still closing
    // The copy goes through no communicator: it does not wait.
    expect((await runner.run(copy)).error).toBeUndefined();
    expect(log.slice(-2)).toEqual(['close comm 1', 'peerCopy']);
    // 1→0: rank 0 joins with the id rank 1 made.
    for (const step of [nextBandwidth, nextLatency]) expect((await runner.run(step)).error).toBeUndefined();
    const lastClose = log.lastIndexOf('close comm 2');
    expect(lastClose).toBeGreaterThan(0);
    expect(log.at(-1)).toBe('close comm 2');
    // Joined while the first closed; measured once it had.
    expect(log.slice(log.indexOf('peerCopy') + 1, lastClose)).toEqual([
      'got id',
      'commInit',
      'closed comm 1',
      'enqueue recv on comm 2',
      'enqueue recv on comm 2',
      'enqueue barrier on comm 2',
    ]);
    await runner.closed();
    expect(log.at(-1)).toBe('closed comm 2');
  });

  it("says in the rank's log when a communicator fails to close, and goes on", async () => {
    const { runner, log, lines } = standIn({ init: 'ok', enqueue: 'ok', close: 'fail' });
    const [bandwidth, latency, copy] = steps();
    for (const step of [bandwidth, latency, copy]) expect((await runner.run(step)).error).toBeUndefined();
    await runner.closed();
    expect(log).toContain('peerCopy');
    expect(lines).toEqual(["rank 0: closing a pair's communicator failed: ncclCommDestroy failed"]);
  });
});
