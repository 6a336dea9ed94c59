// The one bridge the renderer gets: `window.lab`, named methods only, never ipcRenderer.
import { contextBridge } from 'electron';

const lab = {
  version: 1,
};

export type LabBridge = typeof lab;

contextBridge.exposeInMainWorld('lab', lab);
