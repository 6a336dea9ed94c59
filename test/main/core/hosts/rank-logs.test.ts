// `clab worker --log-dir`: each rank's output kept on its host in a file named by run, host and
// rank (as torchrun's --log-dir), and the run's record saying where. Real workers and ranks on
// the cpu backend; each rank process prints a line of its own (a preload through NODE_OPTIONS,
// which the worker passes on to the rank it forks), so there is output to keep.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runRecordSchema } from '../../../../src/shared/run/record/record';
import { CLAB, endAll, start, startWorker, tokenFile, waitFor } from './processes';
import { freePort } from '../../../setup/free-port';

afterEach(() => endAll());

describe('clab worker --log-dir', () => {
  it("keeps each rank's output in DIR/RUN/HOST.rankN.log, and the record says where", async () => {
    const { dir, file } = tokenFile();
    const preload = join(dir, 'say.cjs');
    // Only the rank processes (worker.cjs) speak: the worker that forks them stays quiet.
    writeFileSync(
      preload,
      "if (/worker\\.cjs$/.test(process.argv[1] ?? '')) process.stdout.write(`rank process ${process.pid} says hello\\n`);\n",
    );
    const out = join(dir, 'run.json');
    const port = await freePort();
    const c = start('node', [
      CLAB,
      'run',
      'scenarios/all-in-one.scenario.json',
      '--backend',
      'cpu',
      '--ranks',
      '2',
      '--listen',
      String(port),
      '--token-file',
      file,
      '--out',
      out,
    ]);
    await waitFor(c, 'waiting for 2 ranks', 10_000);
    const logs = join(dir, 'logs');
    const w = [0, 1].map((rank) =>
      startWorker(`127.0.0.1:${port}`, file, rank, 2, ['--host-name', `box${rank}`, '--log-dir', logs], {
        NODE_OPTIONS: `--require ${preload}`,
      }),
    );
    expect(await c.exited).toBe(0);
    for (const x of w) expect(await x.exited).toBe(0);
    const record = runRecordSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
    const kept = record.hosts!.flatMap((h) => (h.rankLogs ?? []).map((l) => ({ host: h.name, ...l })));
    expect(kept.map((k) => [k.host, k.rank])).toEqual([
      ['box0', 0],
      ['box1', 1],
    ]);
    for (const k of kept) {
      expect(k.path).toBe(join(logs, record.id, `${k.host}.rank${k.rank}.log`));
      expect(statSync(k.path).mode & 0o777).toBe(0o600);
      expect(readFileSync(k.path, 'utf8')).toMatch(/^rank process \d+ says hello$/m);
      expect(w[k.rank].err).toContain(`its output kept in ${k.path}`);
    }
  });

  it('refuses a log folder it cannot write before joining, naming it', async () => {
    const { dir, file } = tokenFile();
    const blocked = join(dir, 'a-file');
    writeFileSync(blocked, '');
    const w = start('node', [
      CLAB,
      'worker',
      '--connect',
      '127.0.0.1:9',
      '--token-file',
      file,
      '--rank',
      '0',
      '--world',
      '1',
      '--log-dir',
      join(blocked, 'logs'),
    ]);
    expect(await w.exited).toBe(2);
    expect(w.err).toMatch(new RegExp(`^clab worker: --log-dir ${join(blocked, 'logs')}: cannot keep the rank's output there: ENOTDIR`));
  });
});
