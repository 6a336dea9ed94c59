// Chooses the door: the preload's window.lab in Electron, else a WebSocket to `clab serve`.
import { IpcLabClient, bridgeOf } from './ipc-client';
import type { LabClient } from './lab-client';
import { WebSocketLabClient, apiSocketUrl } from './ws-client';

export type { ConnectionState, LabCapabilities, LabClient } from './lab-client';
export { LabClientProvider, useLabClient } from './context';

export function createLabClient(): LabClient {
  const bridge = bridgeOf(window);
  if (bridge) return new IpcLabClient(bridge);
  return new WebSocketLabClient(apiSocketUrl(window.location, window.sessionStorage, window.history));
}
