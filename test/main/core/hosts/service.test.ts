// The lab service (Electron, `clab serve`) with ranks from a launcher: the API's startRun takes
// `remote`, checked by its schema; the start lines reach the window as run-log lines.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { LabService } from '../../../../src/main/core/service/lab-service';
import { apiCallSchema } from '../../../../src/shared/run/api/api';
import type { ApiEvent } from '../../../../src/shared/run/api/api';
import { endAll, startWorker, tokenFile } from './processes';
import { freePort } from '../../../setup/free-port';

const runsDir = mkdtempSync(join(tmpdir(), 'clab-service-hosts-'));
const service = new LabService({ runsDir });
afterEach(() => endAll());
afterAll(() => {
  service.dispose();
  rmSync(runsDir, { recursive: true, force: true });
});

describe('startRun with ranks from a launcher', () => {
  it('checks the remote options: [HOST:]PORT, a join timeout in bounds', () => {
    const call = (remote: object) =>
      apiCallSchema.safeParse({ method: 'startRun', params: { text: '{}', file: null, backend: 'cpu', ranks: 2, remote } }).success;
    expect(call({ listen: '7777' })).toBe(true);
    expect(call({ listen: '10.0.0.1:7777', launch: 'mpirun -np 2', joinTimeoutMs: 60_000 })).toBe(true);
    expect(call({ listen: 'a:b:c' })).toBe(false);
    expect(call({ listen: '7777', joinTimeoutMs: 10 })).toBe(false);
    expect(call({ listen: '7777', launch: '' })).toBe(false);
    expect(call({ listen: '7777', shell: 'rm -rf /' })).toBe(false);
  });

  it('runs all-in-one on 2 workers that joined, the start lines and joins in its log', async () => {
    const { file } = tokenFile();
    const port = await freePort();
    const events: ApiEvent[] = [];
    let runId = '';
    const ended = new Promise<Extract<ApiEvent, { type: 'run-end' }>>((resolve) =>
      service.onEvent((e) => {
        if (!('runId' in e) || e.runId !== runId) return;
        events.push(e);
        if (e.type === 'run-end') resolve(e);
      }),
    );
    const started = await service.startRun({
      text: readFileSync('scenarios/all-in-one.scenario.json', 'utf8'),
      file: null,
      backend: 'cpu',
      ranks: 2,
      remote: { listen: `127.0.0.1:${port}`, tokenFile: file, joinTimeoutMs: 30_000 },
    });
    expect(started.ok).toBe(true);
    runId = started.ok ? started.runId : '';
    for (const rank of [0, 1]) startWorker(`127.0.0.1:${port}`, file, rank, 2);
    const end = await ended;
    expect(end.record.status).toBe('passed');
    expect(end.record.hosts?.[0].ranks).toEqual([0, 1]);
    const log = events.flatMap((e) => (e.type === 'run-log' ? [e.line.text] : []));
    expect(log).toContain(`waiting for 2 ranks at 127.0.0.1:${port} (this host only; token in ${file}; join timeout 30 s)`);
    expect(log.some((l) => /^ {2}mpirun -np 2 \S+ worker --connect 127\.0\.0\.1:\d+ --token-file /.test(l))).toBe(true);
    expect(log.filter((l) => /^rank \d joined from host /.test(l))).toHaveLength(2);
  });
});
