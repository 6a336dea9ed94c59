// A rank forked for nccl begins making its CUDA context before its plan comes (CLAB_EARLY_DEVICE,
// worker/early-device.ts). Where that fails, the rank says so only if the run is on nccl and names
// it (here, without CUDA, it always fails): a cpu run forked with the variable runs as before.
import { describe, expect, it } from 'vitest';
import { resolveWorkerEntry } from '../../src/main/core/ground/paths';
import { forkWorker } from '../../src/main/core/run/workers';
import { compilePlan } from '../../src/shared/plan/compile';
import { PROTOCOL_VERSION, type WorkerToCore } from '../../src/shared/run/rank/protocol';
import { scenarioSchema } from '../../src/shared/scenario/schema';
import { earlyDeviceIndex } from '../../src/worker/early-device';
import { loadAddon } from '../../src/addon/addon';

const plan = (ranks: number) =>
  compilePlan(scenarioSchema.parse({ version: 1, name: 'early', world: { ranks }, steps: [{ op: 'all_reduce', count: 3 }] }));

/**
 * Rank `rank` forked with CLAB_EARLY_DEVICE=0 and started on `backend` (rank 1 of two gets the
 * communicator's id as the core would relay it, and then awaits its device): its messages until it exits.
 */
function runRank(backend: 'cpu' | 'nccl', rank: number): Promise<WorkerToCore[]> {
  const seen: WorkerToCore[] = [];
  return new Promise((done, fail) => {
    const link = forkWorker(
      resolveWorkerEntry(`${process.cwd()}/dist`),
      rank,
      {
        message: (_, m) => {
          seen.push(m);
          if (m.type === 'done') link.send({ type: 'leave', v: PROTOCOL_VERSION });
        },
        output: () => undefined,
        exit: () => done(seen),
        invalid: (_, e) => fail(e),
      },
      { ...process.env, CLAB_EARLY_DEVICE: '0' },
    );
    link.send({ type: 'start', v: PROTOCOL_VERSION, runId: 'early', rank, backend, plan: plan(rank + 1) });
    if (rank > 0) link.send({ type: 'comm-id', v: PROTOCOL_VERSION, id: Buffer.alloc(128).toString('base64') });
  });
}

describe('the CUDA context begun at the rank process start', () => {
  it('is named by a GPU index alone', () => {
    expect(earlyDeviceIndex('3')).toBe(3);
    for (const bad of [undefined, '', '-1', '1.5', 'x', '12345']) expect(earlyDeviceIndex(bad)).toBeNull();
  });

  it('does not stand in the way of a cpu run when it fails', async () => {
    const seen = await runRank('cpu', 0);
    expect(seen.map((m) => m.type)).toContain('step-end');
    expect(seen.at(-1)?.type).toBe('done');
  }, 30_000);

  // Where nccl can run, the context is made and the rank fails later, at its (made-up) communicator.
  it.skipIf(loadAddon().backends().nccl.available)(
    'fails an nccl rank as making the context there would, naming the rank, while it starts',
    async () => {
      const seen = await runRank('nccl', 1);
      const failed = seen.find((m) => m.type === 'failed');
      expect(failed).toMatchObject({ rank: 1, step: null });
      expect(failed && 'message' in failed ? failed.message : '').toMatch(/CUDA/i);
    },
    30_000,
  );
});
