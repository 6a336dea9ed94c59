// Deleting a saved run through `clab serve`'s API (the page's token, real WebSocket): only a file
// of the runs folder, named by its file name there; a path that could lead out of it is refused
// before the lab sees it, and again by the lab itself.
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { API_VERSION, deleteRunParamsSchema, wsServerMessageSchema } from '../../../src/shared/run/api/api';
import { LabService } from '../../../src/main/core/service/lab-service';
import { startLabServer, type LabServer } from '../../../src/main/serve/server';
import { syntheticRecord } from '../../../bench/timeline/synthetic-record';

const root = mkdtempSync(join(tmpdir(), 'clab-delete-run-'));
const runsDir = join(root, 'runs');
mkdirSync(runsDir);
const rendererDir = join(root, 'renderer');
mkdirSync(rendererDir);
writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>lab</title>');
/** A record beside the runs folder: what `../` would reach. */
const outside = join(root, 'outside.run.json');

const service = new LabService({ runsDir });
let server: LabServer;
let ws: WebSocket;
beforeAll(async () => {
  server = await startLabServer(service, { port: 0, rendererDir });
  ws = new WebSocket(`ws://127.0.0.1:${server.port}/api?token=${server.token}`, { origin: server.origin });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
});
afterAll(async () => {
  ws.close();
  await service.dispose();
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

const record = (name: string) => JSON.stringify(syntheticRecord({ ranks: 2, rounds: 1, warmup: 0, iters: 1, name }));

let nextId = 1;
function call(method: string, params: unknown): Promise<{ ok: boolean; value?: unknown; error?: string }> {
  const id = nextId++;
  return new Promise((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const frame = wsServerMessageSchema.parse(JSON.parse(data.toString()));
      if (frame.type !== 'result' || frame.id !== id) return;
      ws.off('message', onMessage);
      resolve(frame);
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify({ type: 'call', v: API_VERSION, id, call: { method, params } }));
  });
}

describe('deleteRun', () => {
  it('removes a saved run from the runs folder and from the listing', async () => {
    writeFileSync(join(runsDir, 'gone.run.json'), record('gone'));
    writeFileSync(join(runsDir, 'kept.run.json'), record('kept'));
    expect((await service.listRuns()).map((r) => r.name).sort()).toEqual(['gone', 'kept']);
    expect(await call('deleteRun', { file: 'gone.run.json' })).toMatchObject({
      ok: true,
      value: { deleted: join(runsDir, 'gone.run.json') },
    });
    expect(existsSync(join(runsDir, 'gone.run.json'))).toBe(false);
    expect((await service.listRuns()).map((r) => r.name)).toEqual(['kept']);
  });

  it('refuses a request with ../ (or any folder) before the lab sees it, and deletes nothing', async () => {
    writeFileSync(outside, record('outside'));
    for (const file of [
      '../outside.run.json',
      `${runsDir}/../outside.run.json`,
      '..\\outside.run.json',
      outside,
      '..',
      '.hidden.run.json',
    ]) {
      const answer = await call('deleteRun', { file });
      expect(answer.ok, file).toBe(false);
      expect(answer.error, file).toMatch(
        /^invalid call to deleteRun: params\.file: expected the file name of a saved run in the runs folder/,
      );
    }
    expect(existsSync(outside)).toBe(true);
  });

  it('is refused by the lab itself when called without the API schema', async () => {
    await expect(service.deleteRun({ file: '../outside.run.json' })).rejects.toThrow(
      /deleteRun: "\.\.\/outside\.run\.json" is not the file name of a saved run .*nothing was deleted/,
    );
    expect(existsSync(outside)).toBe(true);
  });

  it('never follows a link in the runs folder, nor removes a folder, nor a file that is not there', async () => {
    symlinkSync(outside, join(runsDir, 'link.run.json'));
    mkdirSync(join(runsDir, 'folder.run.json'));
    expect((await call('deleteRun', { file: 'link.run.json' })).error).toMatch(
      /link\.run\.json is not a regular file; nothing was deleted/,
    );
    expect((await call('deleteRun', { file: 'folder.run.json' })).error).toMatch(/folder\.run\.json is not a regular file/);
    expect((await call('deleteRun', { file: 'never.run.json' })).error).toMatch(/never\.run\.json is not in the runs folder/);
    expect(existsSync(outside)).toBe(true);
    expect(existsSync(join(runsDir, 'link.run.json'))).toBe(true);
  });

  it("checks a run's file name: one name in the runs folder ending in .run.json", () => {
    const ok = (file: string) => deleteRunParamsSchema.safeParse({ file }).success;
    expect(ok('all-in-one-2026-11-25T00-00-00.run.json')).toBe(true);
    expect(ok('a..b.run.json')).toBe(true);
    expect(ok('a/b.run.json')).toBe(false);
    expect(ok('a\\b.run.json')).toBe(false);
    expect(ok('a.scenario.json')).toBe(false);
    expect(ok('a.run.json\0.txt')).toBe(false);
    expect(ok('')).toBe(false);
  });
});
