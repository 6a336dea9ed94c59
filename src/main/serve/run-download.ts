// A saved run, sent to the page over plain HTTP: the same parameters and checks as `openRun` on
// the API socket, but a run record of 100 000 events (17 MB of JSON) arrives in a fraction of the
// time Chromium takes to receive it as one WebSocket message (measured: 0.3 s against 2.5 s). Its
// events go in their compact form (shared/run/compact-events.ts), columns instead of an object
// each, which the page decodes and checks.
import type { ServerResponse } from 'node:http';
import { openRunParamsSchema } from '../../shared/run/api.js';
import type { LabService } from '../core/lab-service.js';

export { RUN_DOWNLOAD_PATH } from '../../shared/run/api.js';

export function sendRun(
  res: ServerResponse,
  service: Pick<LabService, 'openRunCompact'>,
  path: string | null,
  headers: Record<string, string>,
): void {
  const json = { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' };
  const params = openRunParamsSchema.safeParse({ path });
  try {
    if (!params.success) throw new Error(`invalid call to openRun: params.path: ${params.error.issues[0].message}`);
    const text = service.openRunCompact(params.data);
    res.writeHead(200, json);
    res.end(text);
  } catch (e) {
    res.writeHead(400, json);
    res.end(JSON.stringify({ error: (e as Error).message }));
  }
}
