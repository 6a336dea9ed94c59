// The one bridge the renderer gets: `window.lab`, named methods only, never ipcRenderer. Calls are
// validated in the main process (dispatch); the renderer's client validates what comes back.
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';
import type { ApiEvent } from '../shared/run/api/api.js';
import { LAB_CALL_CHANNEL, LAB_EVENT_CHANNEL, LAB_OPEN_RUN_CHANNEL, type IpcReply, type LabBridge } from '../shared/run/api/bridge.js';

const lab: LabBridge<File> = {
  async call(method, params) {
    const reply = (await ipcRenderer.invoke(LAB_CALL_CHANNEL, { method, params })) as IpcReply;
    if (!reply.ok) throw new Error(reply.error);
    return reply.value as never;
  },
  onEvent(listener) {
    const forward = (_: IpcRendererEvent, event: ApiEvent) => listener(event);
    ipcRenderer.on(LAB_EVENT_CHANNEL, forward);
    return () => void ipcRenderer.off(LAB_EVENT_CHANNEL, forward);
  },
  pathForFile: (file) => webUtils.getPathForFile(file),
  async openRunPacked(path) {
    const reply = (await ipcRenderer.invoke(LAB_OPEN_RUN_CHANNEL, { path })) as IpcReply;
    if (!reply.ok) throw new Error(reply.error);
    return reply.value as Uint8Array;
  },
};

contextBridge.exposeInMainWorld('lab', lab);
