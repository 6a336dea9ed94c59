// A saved run, sent to the page over plain HTTP: the same parameters and checks as `openRun` on
// the API socket, but a run record of 100 000 events arrives in a fraction of the time Chromium
// takes to receive it as one WebSocket message (measured: 0.3 s against 2.5 s for 17 MB). It goes
// packed (shared/run/record/packed-run.ts: the events as binary columns), which the page unpacks and
// checks; a refusal goes as JSON, `{ error }`. The record is read and packed while the server
// goes on answering others (saved-runs.ts).
import type { ServerResponse } from 'node:http';
import { openRunParamsSchema } from '../../shared/run/api/api.js';
import type { LabService } from '../core/service/lab-service.js';

export { RUN_DOWNLOAD_PATH } from '../../shared/run/api/api.js';

export async function sendRun(
  res: ServerResponse,
  service: Pick<LabService, 'openRunPacked'>,
  path: string | null,
  headers: Record<string, string>,
): Promise<void> {
  const params = openRunParamsSchema.safeParse({ path });
  try {
    if (!params.success) throw new Error(`invalid call to openRun: params.path: ${params.error.issues[0].message}`);
    const packed = await service.openRunPacked(params.data);
    res.writeHead(200, {
      ...headers,
      'Content-Type': 'application/octet-stream',
      'Cache-Control': 'no-store',
      'Content-Length': packed.length,
    });
    res.end(packed);
  } catch (e) {
    res.writeHead(400, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(JSON.stringify({ error: (e as Error).message }));
  }
}
