// Integration: workers started by a real launcher (Open MPI's mpirun, through --launch), and a
// worker whose rank process is killed. Needs mpirun (CI installs openmpi-bin; as root it needs
// the allow-run-as-root settings below).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runRecordSchema } from '../../../../src/shared/run/record/record';
import { alive, CLAB, endAll, has, launchedAllInOne, pidsMentioning, start, startWorker, tokenFile, waitFor } from './processes';
import { freePort } from '../../../setup/free-port';

const noMpirun = has('mpirun') ? null : 'mpirun (Open MPI) is missing: apt-get install openmpi-bin';
if (noMpirun) console.warn(`skipping the mpirun test: ${noMpirun}`);

afterEach(() => endAll());

describe('ranks from a launcher', () => {
  it.skipIf(noMpirun)('all-in-one on 4 cpu ranks that mpirun started (--launch), each reading its rank from Open MPI', async () => {
    const { dir } = tokenFile();
    const out = join(dir, 'run.json');
    const c = launchedAllInOne(dir, out, 4, 'mpirun --oversubscribe --bind-to none -np 4');
    expect(await c.exited).toBe(0);
    expect(c.err).toMatch(
      /starting the launcher: mpirun --oversubscribe --bind-to none -np 4 \S+clab\.cjs worker --connect 127\.0\.0\.1:\d+ --token-file \S+/,
    );
    expect(c.err).toContain('(Open MPI (OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE, OMPI_COMM_WORLD_LOCAL_RANK); local rank 3');
    const r = runRecordSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
    expect(r.status).toBe('passed');
    expect(r.hosts?.flatMap((h) => h.ranks).sort()).toEqual([0, 1, 2, 3]);
    // The token made for the run is gone with it, and so is every process mpirun started.
    expect(pidsMentioning(dir).filter(alive)).toEqual([]);
  });

  it('workers end their ranks and exit at once when the core is killed mid-run', async () => {
    const { dir, file } = tokenFile();
    const scenario = join(dir, 'long.scenario.json');
    (await import('node:fs')).writeFileSync(
      scenario,
      JSON.stringify({
        version: 1,
        name: 'long',
        world: { ranks: 2 },
        steps: [{ op: 'all_reduce', count: 65536, iters: 100000, timeoutMs: 600000 }],
      }),
    );
    const port = await freePort();
    const c = start('node', [
      CLAB,
      'run',
      scenario,
      '--backend',
      'cpu',
      '--listen',
      String(port),
      '--token-file',
      file,
      '--out',
      join(dir, 'run.json'),
      '-v',
    ]);
    await waitFor(c, 'waiting for 2 ranks', 10_000);
    const w = [0, 1].map((rank) => startWorker(`127.0.0.1:${port}`, file, rank, 2));
    await waitFor(c, /\[Rank 0\] joined the cpu communicator/, 20_000);
    await waitFor(c, /\[Rank 1\] joined the cpu communicator/, 20_000);
    const rankPids = [...c.err.matchAll(/\[Rank \d\] joined the cpu communicator \(2 ranks, pid (\d+)/g)].map((m) => Number(m[1]));
    expect(rankPids).toHaveLength(2);
    const killedAt = Date.now();
    process.kill(c.child.pid!, 'SIGKILL');
    // 3: the worker saw the core go; 1: its rank failed first, as its peer was ended by the other worker.
    for (const code of await Promise.all(w.map((x) => x.exited))) expect([1, 3]).toContain(code);
    expect(Date.now() - killedAt).toBeLessThan(5000);
    // The cause is the socket's word for it (closed, ECONNRESET, EPIPE: which one depends on timing).
    const said = w.map((p) => p.err).join('\n');
    expect(said).toMatch(/lost the core at 127\.0\.0\.1:\d+: [^\n]+; ending the rank/);
    await new Promise((res) => setTimeout(res, 300));
    expect(rankPids.filter(alive)).toEqual([]);
  });

  it("a worker's rank killed mid-run ends the run naming its host, rank and step; every process ends", async () => {
    const { dir, file } = tokenFile();
    const scenario = join(dir, 'long.scenario.json');
    (await import('node:fs')).writeFileSync(
      scenario,
      JSON.stringify({
        version: 1,
        name: 'long',
        world: { ranks: 2 },
        steps: [{ op: 'all_reduce', count: 65536, iters: 100000, timeoutMs: 600000 }],
      }),
    );
    const port = await freePort();
    const c = start(
      'node',
      [CLAB, 'run', scenario, '--backend', 'cpu', '--listen', String(port), '--token-file', file, '--out', join(dir, 'run.json'), '-v'],
      { CLAB_TRACE: '1' }, // the core says when each rank began a step: the kill comes once rank 1 is in step 0
    );
    await waitFor(c, 'waiting for 2 ranks', 10_000);
    const w = [0, 1].map((rank) => startWorker(`127.0.0.1:${port}`, file, rank, 2, ['--host-name', `box${rank}`]));
    await waitFor(c, /\[Rank 1\] joined the cpu communicator \(2 ranks, pid (\d+)/, 20_000);
    await waitFor(c, /rank 1 began step 0/, 20_000);
    const rankPid = Number(/\[Rank 1\] joined the cpu communicator \(2 ranks, pid (\d+)/.exec(c.err)![1]);
    process.kill(rankPid, 'SIGKILL');
    expect(await c.exited).toBe(1);
    expect(c.out).toMatch(/rank 1 on host box1 exited on signal SIGKILL during step 0 \(all_reduce/);
    expect(await w[1].exited).toBe(1);
    await w[0].exited;
    expect(pidsMentioning(dir).filter(alive)).toEqual([]);
  });
});
