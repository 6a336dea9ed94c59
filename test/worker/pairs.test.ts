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
const times = (n: number): NativeTimes => ({ startNs: Array.from({ length: n }, (_, i) => i * 1000), endNs: Array.from({ length: n }, (_, i) => i * 1000 + 500) });

function steps(): (PlanStep & { action: PairAction })[] {
  const scenario = scenarioSchema.parse({ version: 1, name: 'p', world: { ranks: 2 }, defaults: { iters: 2 }, steps: [{ op: 'pairs', bytes: 64, timeoutMs: TIMEOUT_MS }] });
  return compilePlan(scenario).steps as (PlanStep & { action: PairAction })[];
}

/** A stand-in addon for rank 0: commInit and enqueue behave as `how` says; what happened is logged. */
function standIn(how: { init: 'ok' | 'hang'; enqueue: 'ok' | 'hang-until-abort' }) {
  const log: string[] = [];
  let made = 0;
  const comm = (): NativeComm => {
    const id = ++made;
    let abort: ((e: Error) => void) | null = null;
    return {
      rank: 0, world: 2, makesData: false,
      enqueue: (_s, op, repeat = 1) => {
        log.push(`enqueue ${op.op} on comm ${id}`);
        if (how.enqueue === 'ok') return Promise.resolve(times(repeat));
        return new Promise((_, reject) => { abort = reject; });
      },
      prestage: async () => times(0),
      drain: async () => times(0),
      abort: (reason) => {
        log.push(`abort comm ${id}`);
        abort?.(Object.assign(new Error(`communicator aborted: ${reason}`), { code: 'CLAB_ABORTED' }));
      },
      destroy: () => log.push(`destroy comm ${id}`),
    };
  };
  const addon = {
    createUniqueId: () => 'id',
    commInit: () => { log.push('commInit'); return how.init === 'ok' ? Promise.resolve(comm()) : never<NativeComm>(); },
    peerCopy: async ({ iters }: { iters: number }) => { log.push('peerCopy'); return { ...times(iters), checked: 64, wrong: 0, how: 'memcpy between two host buffers' }; },
  } as unknown as NativeAddon;
  const host: PairHost = { rank: 0, backend: 'cpu', addon, deviceOf: (r) => r, sendPairId: () => log.push('sent id'), pairId: never };
  return { runner: new PairRunner(host), log };
}

describe('the pair runner', () => {
  it('measures a pair on a communicator of its own, joined at the unit\'s first step and left at its last', async () => {
    const { runner, log } = standIn({ init: 'ok', enqueue: 'ok' });
    const [bandwidth, latency, copy] = steps();
    expect((await runner.run(bandwidth)).error).toBeUndefined();
    expect((await runner.run(latency)).error).toBeUndefined();
    const copied = await runner.run(copy);
    expect(copied.note).toBe('memcpy between two host buffers');
    // No warm-up asked: one timed enqueue each for bandwidth and latency.
    // Both ranks meet in a barrier on the pair's communicator before leaving it; the copy comes after.
    expect(log).toEqual(['sent id', 'commInit', 'enqueue send on comm 1', 'enqueue send on comm 1', 'enqueue barrier on comm 1', 'destroy comm 1', 'peerCopy']);
  });

  it('gives up on a communicator that never comes up, at the pair\'s timeout', async () => {
    const { runner } = standIn({ init: 'hang', enqueue: 'ok' });
    const t0 = Date.now();
    const out = await runner.run(steps()[0]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(out.error).toMatchObject({ code: 'CLAB_PAIR_TIMEOUT' });
    expect(out.error!.message).toContain(`communicator did not come up within the pair's timeout of ${TIMEOUT_MS} ms`);
  });

  it('aborts the pair\'s communicator when a call never returns, then skips its other measurements but still copies', async () => {
    const { runner, log } = standIn({ init: 'ok', enqueue: 'hang-until-abort' });
    const [bandwidth, latency, copy] = steps();
    const out = await runner.run(bandwidth);
    expect(out.error).toMatchObject({ code: 'CLAB_PAIR_TIMEOUT' });
    expect(log).toContain('abort comm 1');
    expect((await runner.run(latency)).error).toMatchObject({ code: 'CLAB_PAIR_DOWN' });
    // The unit closed at the latency step: no barrier on an aborted communicator, just left.
    expect(log.slice(-1)).toEqual(['destroy comm 1']);
    expect(log).not.toContain('enqueue barrier on comm 1');
    expect((await runner.run(copy)).error).toBeUndefined();
    expect(log.at(-1)).toBe('peerCopy');
    // The next pair joins a fresh communicator.
    const next = steps()[3];
    expect(next.action).toMatchObject({ from: 1, to: 0, opens: true });
  });
});
