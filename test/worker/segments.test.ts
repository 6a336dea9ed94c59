// A rank that created the cpu backend's segment and ends before every rank attached (its core
// killed during start-up, or a signal) removes the segment's name itself: nothing is left in
// /dev/shm for the next run to sweep.
import { fork } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { compilePlan } from '../../src/shared/plan/compile';
import { PROTOCOL_VERSION } from '../../src/shared/run/rank/protocol';
import { scenarioSchema } from '../../src/shared/scenario/schema';

const plan = compilePlan(scenarioSchema.parse({ version: 1, name: 'two', world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 4 }] }));

const made: string[] = [];
afterEach(() => {
  for (const id of made.splice(0)) rmSync(`/dev/shm${id}`, { force: true });
});

/** Rank 0 of a two-rank run whose rank 1 never comes; resolves with it and its segment's id once it has made one. */
async function rankZeroAlone() {
  const child = fork('dist/worker.cjs', [], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'], env: { ...process.env, CLAB_RANK: '0' } });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const id = await new Promise<string>((resolve, reject) => {
    child.on('message', (m: { type: string; id?: string }) => {
      if (m.type === 'unique-id') resolve(m.id!);
    });
    child.on('exit', () => reject(new Error('rank 0 exited before making its id')));
    child.send({ type: 'start', v: PROTOCOL_VERSION, runId: 'segments', rank: 0, backend: 'cpu', plan });
  });
  made.push(id);
  return { child, id, exited };
}

describe('a rank that created a segment and ends early', () => {
  it('removes it when its core goes away during start-up', async () => {
    const { child, id, exited } = await rankZeroAlone();
    expect(existsSync(`/dev/shm${id}`)).toBe(true);
    child.disconnect();
    await exited;
    expect(existsSync(`/dev/shm${id}`)).toBe(false);
  }, 20_000);

  it('removes it on SIGTERM and SIGINT, and still ends by that signal', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const { child, id, exited } = await rankZeroAlone();
      expect(existsSync(`/dev/shm${id}`)).toBe(true);
      child.kill(signal);
      await exited;
      expect(child.signalCode).toBe(signal);
      expect(existsSync(`/dev/shm${id}`)).toBe(false);
    }
  }, 20_000);
});
