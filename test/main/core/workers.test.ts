// A rank process as the core sees it: its messages, then its exit. A rank that finished exits
// with code 0, and the core hears of the exit only after every message the rank sent.
import { describe, expect, it } from 'vitest';
import { resolveWorkerEntry } from '../../../src/main/core/paths';
import { forkWorker } from '../../../src/main/core/workers';
import { compilePlan } from '../../../src/shared/plan/compile';
import { PROTOCOL_VERSION, type WorkerToCore } from '../../../src/shared/protocol';
import { scenarioSchema } from '../../../src/shared/scenario/schema';

describe('a rank process', () => {
  it('that finished its plan exits with code 0, reported after its done message', async () => {
    const plan = compilePlan(scenarioSchema.parse({ version: 1, name: 'one', world: { ranks: 1 }, steps: [{ op: 'all_reduce', count: 3 }] }));
    const seen: string[] = [];
    const exit = await new Promise<{ code: number | null; signal: string | null }>((done, fail) => {
      const link = forkWorker(resolveWorkerEntry(`${process.cwd()}/dist`), 0, {
        message: (_, m: WorkerToCore) => seen.push(m.type),
        output: () => undefined,
        exit: (_, code, signal) => done({ code, signal }),
        invalid: (_, e) => fail(e),
      }, process.env);
      link.send({ type: 'start', v: PROTOCOL_VERSION, runId: 'test', rank: 0, backend: 'cpu', plan });
    });
    expect(exit).toEqual({ code: 0, signal: null });
    expect(seen.at(-1)).toBe('done');
    expect(seen).toContain('step-end');
  });
});
