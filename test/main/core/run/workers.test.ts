// A rank process as the core sees it: its messages, then its exit. A rank that finished exits
// with code 0, and the core hears of the exit only after every message the rank sent.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveWorkerEntry } from '../../../../src/main/core/ground/paths';
import { forkWorker } from '../../../../src/main/core/run/workers';
import { compilePlan } from '../../../../src/shared/plan/compile';
import { PROTOCOL_VERSION, type WorkerToCore } from '../../../../src/shared/run/rank/protocol';
import { scenarioSchema } from '../../../../src/shared/scenario/schema';

describe('a rank process', () => {
  it('that finished its plan waits to be told to leave, then exits with code 0, reported after its done message', async () => {
    const plan = compilePlan(
      scenarioSchema.parse({ version: 1, name: 'one', world: { ranks: 1 }, steps: [{ op: 'all_reduce', count: 3 }] }),
    );
    const seen: string[] = [];
    let exited = false;
    const exit = await new Promise<{ code: number | null; signal: string | null }>((done, fail) => {
      const link = forkWorker(
        resolveWorkerEntry(`${process.cwd()}/dist`),
        0,
        {
          message: (_, m: WorkerToCore) => {
            seen.push(m.type);
            // Still there a while after its done (it holds its communicator), gone once told to leave.
            if (m.type === 'done') {
              setTimeout(() => {
                seen.push(exited ? 'exited before leave' : 'leave');
                link.send({ type: 'leave', v: PROTOCOL_VERSION });
              }, 300);
            }
          },
          output: () => undefined,
          exit: (_, code, signal) => {
            exited = true;
            done({ code, signal });
          },
          invalid: (_, e) => fail(e),
        },
        process.env,
      );
      link.send({ type: 'start', v: PROTOCOL_VERSION, runId: 'test', rank: 0, backend: 'cpu', plan });
    });
    expect(exit).toEqual({ code: 0, signal: null });
    expect(seen.slice(-2)).toEqual(['done', 'leave']);
    expect(seen).toContain('step-end');
  });

  it.each(['0', '1'])('sends its failed message after the output it wrote before it (lingering: %s)', async (linger) => {
    const plan = compilePlan(
      scenarioSchema.parse({ version: 1, name: 'two', world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 3 }] }),
    );
    const seen: string[] = [];
    await new Promise<void>((done, fail) => {
      const link = forkWorker(
        path.resolve('test/fixtures/workers/nccl-failing-rank.cjs'),
        1,
        {
          message: (_, m: WorkerToCore) => {
            seen.push(m.type);
            if (m.type === 'failed') link.send({ type: 'abort', v: PROTOCOL_VERSION, reason: 'test' });
          },
          output: (_, line) => {
            if (line.includes('NCCL WARN')) seen.push('warn');
          },
          exit: () => done(),
          invalid: (_, e) => fail(e),
        },
        { ...process.env, CLAB_TEST_PROTOCOL_VERSION: String(PROTOCOL_VERSION), CLAB_TEST_LINGER: linger },
      );
      link.send({ type: 'start', v: PROTOCOL_VERSION, runId: 'test', rank: 1, backend: 'cpu', plan });
    });
    // What came before the WARN lines may come in either order; the failed message comes after them all.
    expect(seen.filter((s) => s === 'warn')).toHaveLength(7);
    expect(seen.at(-1)).toBe('failed');
  });
});
