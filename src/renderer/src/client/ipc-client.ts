// LabClient over Electron IPC: the preload's window.lab (named methods only, never ipcRenderer). A
// saved run comes on its own channel, packed, as `clab serve` sends it to a browser.
import type { ApiEvent, ApiMethod, ApiParams, ApiResult } from '../../../shared/run/api/api.js';
import type { LabBridge } from '../../../shared/run/api/bridge.js';
import type { ConnectionState, LabClient } from './lab-client';
import { parseEvent, parsePackedRun, parseResult } from './validate';

/** The preload's window.lab, when this page runs in the Electron shell. */
export function bridgeOf(scope: object): LabBridge<File> | null {
  const lab = (scope as { lab?: Partial<LabBridge<File>> }).lab;
  return lab && typeof lab.call === 'function' && typeof lab.onEvent === 'function' && typeof lab.openRunPacked === 'function'
    ? (lab as LabBridge<File>)
    : null;
}

export class IpcLabClient implements LabClient {
  readonly capabilities = { fileDialogs: true };

  constructor(private readonly bridge: LabBridge<File>) {}

  async call<M extends ApiMethod>(method: M, params: ApiParams<M>): Promise<ApiResult<M>> {
    // A saved run comes packed, as from `clab serve` (its events as binary columns), and is checked as it is unpacked.
    if (method === 'openRun') return parsePackedRun(await this.packedRun(params as ApiParams<'openRun'>)) as ApiResult<M>;
    // The bridge is typed, but what crosses IPC is checked here all the same.
    return parseResult(method, await this.bridge.call(method, params));
  }

  private async packedRun({ path }: ApiParams<'openRun'>): Promise<Uint8Array<ArrayBuffer>> {
    const packed: unknown = await this.bridge.openRunPacked(path);
    if (!ArrayBuffer.isView(packed)) throw new Error('the lab sent an invalid result for openRun: expected the packed run (bytes)');
    // Its bytes in a buffer of their own (the view may be into a larger one, or from the preload's world).
    return new Uint8Array(packed.buffer, packed.byteOffset, packed.byteLength).slice();
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
