// LabClient over a WebSocket to `clab serve` (/api). Every inbound frame is validated with the
// contract's wire schema and every result with its method's schema. When the connection drops,
// calls in flight fail, new calls wait, and it reconnects with a growing delay. A saved run is
// fetched over HTTP instead (RUN_DOWNLOAD_PATH), packed: large records arrive much sooner that way.
import {
  API_VERSION,
  RUN_DOWNLOAD_PATH,
  wsServerMessageSchema,
  type ApiEvent,
  type ApiMethod,
  type ApiParams,
  type ApiResult,
} from '../../../shared/run/api/api.js';
import type { ConnectionState, LabClient } from './lab-client';
import { parsePackedRun, parseResult } from './validate';

const TOKEN_KEY = 'clab.token';
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 15_000;

/**
 * The socket address for this page. The token comes from ?token= (then kept in sessionStorage and
 * taken out of the address bar) or from sessionStorage; without one the server's cookie decides.
 */
export function apiSocketUrl(location: Location, storage: Storage, history: History): string {
  const params = new URLSearchParams(location.search);
  const fromUrl = params.get('token');
  if (fromUrl) {
    storage.setItem(TOKEN_KEY, fromUrl);
    params.delete('token');
    const rest = params.toString();
    history.replaceState(history.state, '', `${location.pathname}${rest ? `?${rest}` : ''}${location.hash}`);
  }
  const token = fromUrl ?? storage.getItem(TOKEN_KEY);
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${location.host}/api${token ? `?token=${encodeURIComponent(token)}` : ''}`;
}

interface Pending {
  method: ApiMethod;
  resolve: (value: never) => void;
  reject: (error: Error) => void;
}

export class WebSocketLabClient implements LabClient {
  readonly capabilities = { fileDialogs: false };
  private socket: WebSocket | null = null;
  private state: ConnectionState = 'connecting';
  private nextId = 1;
  private retryMs = FIRST_RETRY_MS;
  private readonly pending = new Map<number, Pending>();
  private readonly waiting: string[] = [];
  private readonly listeners = new Set<(event: ApiEvent) => void>();
  private readonly connectionListeners = new Set<(state: ConnectionState) => void>();

  constructor(private readonly url: string) {
    this.connect();
  }

  call<M extends ApiMethod>(method: M, params: ApiParams<M>): Promise<ApiResult<M>> {
    if (method === 'openRun') return this.openRunOverHttp(params as ApiParams<'openRun'>) as Promise<ApiResult<M>>;
    const id = this.nextId++;
    const frame = JSON.stringify({ type: 'call', v: API_VERSION, id, call: { method, params } });
    return new Promise<ApiResult<M>>((resolve, reject) => {
      this.pending.set(id, { method, resolve: resolve as (value: never) => void, reject });
      // A socket that is closing (its close event still to come) takes no frame: it waits for the next one.
      if (this.state === 'open' && this.socket?.readyState === WebSocket.OPEN) this.socket.send(frame);
      else this.waiting.push(frame);
    });
  }

  /** A saved run over HTTP (see RUN_DOWNLOAD_PATH), packed, checked on receipt like every answer. */
  private async openRunOverHttp({ path }: ApiParams<'openRun'>): Promise<ApiResult<'openRun'>> {
    const response = await fetch(`${RUN_DOWNLOAD_PATH}?path=${encodeURIComponent(path)}`, {
      credentials: 'same-origin',
      cache: 'no-store',
    });
    if (!response.ok) {
      const body = (await response.json().catch(() => null)) as { error?: unknown } | null;
      throw new Error(typeof body?.error === 'string' ? body.error : `the lab answered ${response.status}`);
    }
    return parsePackedRun(new Uint8Array(await response.arrayBuffer()));
  }

  onEvent(listener: (event: ApiEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  pathForFile(): string | null {
    return null;
  }

  onConnection(listener: (state: ConnectionState) => void): () => void {
    this.connectionListeners.add(listener);
    listener(this.state);
    return () => this.connectionListeners.delete(listener);
  }

  private setState(state: ConnectionState): void {
    this.state = state;
    for (const listener of this.connectionListeners) listener(state);
  }

  private connect(): void {
    this.setState('connecting');
    const socket = new WebSocket(this.url);
    this.socket = socket;
    socket.onopen = () => {
      this.retryMs = FIRST_RETRY_MS;
      this.setState('open');
      for (const frame of this.waiting.splice(0)) socket.send(frame);
    };
    socket.onmessage = (message) => this.receive(message.data);
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.setState('closed');
      // Frames already sent will never be answered; those still waiting go after reconnecting.
      const unsent = new Set(this.waiting.map((frame) => (JSON.parse(frame) as { id: number }).id));
      for (const [id, call] of this.pending) {
        if (unsent.has(id)) continue;
        this.pending.delete(id);
        call.reject(new Error(`the connection to the lab closed before ${call.method} answered`));
      }
      const delay = this.retryMs * (0.75 + Math.random() / 2);
      this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
      setTimeout(() => this.connect(), delay);
    };
  }

  private receive(data: unknown): void {
    let json: unknown;
    try {
      json = JSON.parse(String(data));
    } catch {
      console.error('ignored a frame from the lab that is not JSON');
      return;
    }
    const parsed = wsServerMessageSchema.safeParse(json);
    if (!parsed.success) {
      console.error('ignored an invalid frame from the lab', parsed.error.issues[0]);
      return;
    }
    const message = parsed.data;
    if (message.type === 'event') {
      for (const listener of this.listeners) listener(message.event);
      return;
    }
    const call = this.pending.get(message.id);
    if (!call) return;
    this.pending.delete(message.id);
    if (!message.ok) {
      call.reject(new Error(message.error));
      return;
    }
    try {
      call.resolve(parseResult(call.method, message.value) as never);
    } catch (e) {
      call.reject(e as Error);
    }
  }
}
