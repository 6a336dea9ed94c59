// The main side of window.lab: a call is served only when it comes from the lab window's top
// frame showing the lab's own page, and only after dispatch() has checked it against the API.
import { openRunParamsSchema } from '../../shared/run/api/api.js';
import type { IpcReply } from '../../shared/run/api/bridge.js';
import { dispatch } from '../core/service/dispatch.js';
import type { LabHandlers, LabService } from '../core/service/lab-service.js';

/** What an IPC event says about where it came from (IpcMainInvokeEvent's sender and senderFrame). */
export interface CallSource {
  sender: unknown;
  senderFrame: { url: string; parent: unknown } | null;
}

/**
 * `rendererUrl` is the page the window loads: the file URL of out/renderer/index.html, or the
 * dev server's address under `electron-vite dev`.
 */
export function isFromLabWindow(source: CallSource, labContents: unknown, rendererUrl: string): boolean {
  const frame = source.senderFrame;
  if (labContents === undefined || source.sender !== labContents || !frame || frame.parent !== null) return false;
  let url: URL;
  try {
    url = new URL(frame.url);
  } catch {
    return false;
  }
  const expected = new URL(rendererUrl);
  return expected.protocol === 'file:' ? url.protocol === 'file:' && url.pathname === expected.pathname : url.origin === expected.origin;
}

const REFUSED: IpcReply = { ok: false, error: 'refused: the call did not come from the lab window' };

export async function answerCall(service: LabHandlers, trusted: boolean, raw: unknown): Promise<IpcReply> {
  if (!trusted) return REFUSED;
  try {
    return { ok: true, value: await dispatch(service, raw) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

/** openRun on the run channel (LAB_OPEN_RUN_CHANNEL): the same parameters and checks, the record packed (its bytes the reply's value). */
export async function answerOpenRun(service: Pick<LabService, 'openRunPacked'>, trusted: boolean, raw: unknown): Promise<IpcReply> {
  if (!trusted) return REFUSED;
  const params = openRunParamsSchema.safeParse(raw);
  if (!params.success) {
    const issue = params.error.issues[0];
    return { ok: false, error: `invalid call to openRun: ${['params', ...issue.path.map(String)].join('.')}: ${issue.message}` };
  }
  try {
    return { ok: true, value: await service.openRunPacked(params.data) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}
