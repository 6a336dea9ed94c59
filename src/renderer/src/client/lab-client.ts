// The one interface every view uses to reach the lab. Two implementations: Electron IPC through
// the preload's window.lab, and a WebSocket to `clab serve`. No view knows which one it has.
import type { LabApi } from '../../../shared/run/api/api.js';

export interface LabCapabilities {
  /** Native open/save dialogs and opening files by path (Electron); a browser downloads and uploads instead. */
  readonly fileDialogs: boolean;
}

export type ConnectionState = 'connecting' | 'open' | 'closed';

export interface LabClient extends LabApi {
  readonly capabilities: LabCapabilities;
  /** The path of a dropped file, where the door opens files by path (Electron); null in a browser. */
  pathForFile(file: File): string | null;
  /** Connection changes; called at once with the current state. */
  onConnection(listener: (state: ConnectionState) => void): () => void;
}
