// What the Electron preload gives the renderer as `window.lab`, and the two IPC channels behind
// it. The browser door offers the same LabApi over a WebSocket instead.
import type { LabApi } from './api.js';

/** ipcRenderer.invoke: one API call, answered by an IpcReply. */
export const LAB_CALL_CHANNEL = 'lab:call';
/** webContents.send: one ApiEvent. */
export const LAB_EVENT_CHANNEL = 'lab:event';
/** ipcRenderer.invoke: openRun's record, packed (shared/run/record/packed-run.ts), answered by an IpcReply whose value is its bytes. */
export const LAB_OPEN_RUN_CHANNEL = 'lab:open-run';

/** A call's outcome as it crosses IPC: an error travels as its message, not as a rethrown Error with Electron's prefix. */
export type IpcReply = { ok: true; value: unknown } | { ok: false; error: string };

/** `DroppedFile` is the DOM's File where the bridge lives (preload, renderer); shared code knows no DOM. */
export interface LabBridge<DroppedFile> extends LabApi {
  /** The file system path of a file dropped on the window (Electron's webUtils.getPathForFile). */
  pathForFile(file: DroppedFile): string;
  /** openRun as the page reads it: the record packed (its events as binary columns), for the page to unpack and check. */
  openRunPacked(path: string): Promise<Uint8Array>;
}
