// Which pages hear a run's events: the page that started the run, and any page that asked where
// it stands while it went (runStatus: a page back after a reconnect does). A page follows only its
// own run (renderer useRun), and a run's steps and record come to a megabyte and more: sent to
// every page connected, 6 runs ending before 200 pages had `clab serve` write 2.4 GB and answer
// requests after up to 13.7 s (bench/cpu/serve-load.ts).
import type { WebSocket } from 'ws';
import type { ApiCall, ApiEvent, ApiResult } from '../../shared/run/api/api.js';

const NOBODY: ReadonlySet<WebSocket> = new Set();

/** The run that `call`, answered with `value`, makes its page follow: the one it started, or one it asked about that still goes. */
export function runFollowed(call: ApiCall, value: unknown): string | null {
  if (call.method === 'startRun') {
    const started = value as ApiResult<'startRun'>;
    return started.ok ? started.runId : null;
  }
  if (call.method === 'runStatus') return (value as ApiResult<'runStatus'>).state === 'running' ? call.params.runId : null;
  return null;
}

export class RunAudience {
  private readonly followers = new Map<string, Set<WebSocket>>();

  follow(runId: string, page: WebSocket): void {
    const pages = this.followers.get(runId) ?? new Set();
    pages.add(page);
    this.followers.set(runId, pages);
  }

  /** A page that closed follows nothing any more. */
  leave(page: WebSocket): void {
    for (const [runId, pages] of this.followers) {
      pages.delete(page);
      if (pages.size === 0) this.followers.delete(runId);
    }
  }

  /** Who hears `event`: a run's followers, or every page for what is not about one run. Past a run's end, nobody follows it. */
  pagesFor(event: ApiEvent, everyPage: Iterable<WebSocket>): Iterable<WebSocket> {
    if (!('runId' in event)) return everyPage;
    const pages = this.followers.get(event.runId) ?? NOBODY;
    if (event.type === 'run-end') this.followers.delete(event.runId);
    return pages;
  }
}
