// LabClient over Electron IPC: the preload's window.lab (named methods only, never ipcRenderer).
import type { ApiEvent, ApiMethod, ApiParams, ApiResult } from '../../../shared/run/api.js';
import type { LabBridge } from '../../../shared/run/bridge.js';
import type { ConnectionState, LabClient } from './lab-client';
import { parseEvent, parseResult } from './validate';

/** The preload's window.lab, when this page runs in the Electron shell. */
export function bridgeOf(scope: object): LabBridge<File> | null {
  const lab = (scope as { lab?: Partial<LabBridge<File>> }).lab;
  return lab && typeof lab.call === 'function' && typeof lab.onEvent === 'function' ? (lab as LabBridge<File>) : null;
}

export class IpcLabClient implements LabClient {
  readonly capabilities = { fileDialogs: true };

  constructor(private readonly bridge: LabBridge<File>) {}

  async call<M extends ApiMethod>(method: M, params: ApiParams<M>): Promise<ApiResult<M>> {
    // The bridge is typed, but what crosses IPC is checked here all the same.
    return parseResult(method, await this.bridge.call(method, params));
  }

  onEvent(listener: (event: ApiEvent) => void): () => void {
    return this.bridge.onEvent((raw: unknown) => {
      const event = parseEvent(raw);
      if (event) listener(event);
    });
  }

  pathForFile(file: File): string | null {
    return typeof this.bridge.pathForFile === 'function' ? this.bridge.pathForFile(file) || null : null;
  }

  onConnection(listener: (state: ConnectionState) => void): () => void {
    listener('open');
    return () => undefined;
  }
}
