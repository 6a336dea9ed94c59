// The run request the panel's Run sends, and what is wrong with its "Ranks from a launcher" fields.
import { LISTEN_ADDRESS, type RunRequest } from '../../../shared/run/api/api.js';

/** The run panel's backend choice (useRunSettings.ts holds it). */
type BackendChoice = RunRequest['backend'];

/** The "Ranks from a launcher" section as typed (off: the ranks are forked here). */
export interface RemoteFields {
  enabled: boolean;
  /** "[HOST:]PORT": loopback unless a host is named. */
  listen: string;
  /** A launcher to start here, e.g. "mpirun -np 4 -H a,b" (empty: none; the start lines go to the Log). */
  launch: string;
  /** A token file the workers can read (empty: the core makes one for the run). */
  tokenFile: string;
}

export const DEFAULT_LISTEN = '127.0.0.1:7777';

export const REMOTE_OFF: RemoteFields = { enabled: false, listen: DEFAULT_LISTEN, launch: '', tokenFile: '' };

/** Why `listen` cannot be listened on, or null when it is a [HOST:]PORT the lab accepts. */
export function listenProblem(listen: string): string | null {
  const text = listen.trim();
  if (!text) return 'Enter a port, or HOST:PORT (e.g. 127.0.0.1:7777).';
  if (!LISTEN_ADDRESS.test(text)) return 'Expected [HOST:]PORT: a port, or a host name or address, a colon and a port (IPv6 in brackets).';
  const port = Number(/(\d+)$/.exec(text)![1]);
  if (port > 65535) return 'The port must be from 0 to 65535.';
  return null;
}

/** Why Run cannot send these fields (null: it can, or the section is off). */
export function remoteProblem(remote: RemoteFields): string | null {
  return remote.enabled ? listenProblem(remote.listen) : null;
}

/** `RunRequest.remote` for these fields: absent when the section is off; empty optional fields are left out. */
export function remoteRequest(remote: RemoteFields): RunRequest['remote'] {
  if (!remote.enabled) return undefined;
  const launch = remote.launch.trim();
  const tokenFile = remote.tokenFile.trim();
  return {
    listen: remote.listen.trim(),
    ...(launch ? { launch } : {}),
    ...(tokenFile ? { tokenFile } : {}),
  };
}

export interface PanelChoices {
  backend: BackendChoice;
  ranks: number | null;
  stepMode: boolean;
  remote: RemoteFields;
  /** The NCCL library field as typed (empty or absent: the lab's default NCCL). */
  nccl?: string;
}

/** What Run sends for `text` (from `file`, null if unsaved) with the panel's choices. */
export function buildRunRequest(text: string, file: string | null, choices: PanelChoices): RunRequest {
  const request: RunRequest = { text, file, backend: choices.backend, ranks: choices.ranks, stepMode: choices.stepMode };
  const remote = remoteRequest(choices.remote);
  if (remote) request.remote = remote;
  // Ranks on cpu load no NCCL: a path left in the field is not sent (nor checked) then.
  const nccl = choices.backend === 'cpu' ? '' : (choices.nccl ?? '').trim();
  if (nccl) request.nccl = nccl;
  return request;
}
