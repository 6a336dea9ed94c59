// A joined worker's link as the run sees it: one rank that behaves as a forked rank does
// (workers.ts). Its messages come onto the core's clock; its output lines are relayed as they are
// (the record and every terminal line make controls visible).
import type { Hello } from '../../../shared/run/hosts/hosts.js';
import type { CoreToWorker, TimelineEvent, WorkerToCore } from '../../../shared/run/rank/protocol.js';
import type { CoreLinkMessage, WorkerLinkMessage } from '../../../shared/run/hosts/hosts.js';
import type { HostRecord } from '../../../shared/run/record/record.js';
import type { WorkerHandlers, WorkerLink } from '../run/workers.js';
import type { FramedLink } from './link.js';

/** After `kill`, how long a worker gets to say how its rank ended before its link is closed. */
const KILL_GRACE_MS = 2000;

export interface JoinedWorker {
  hello: Hello;
  link: FramedLink<WorkerLinkMessage, CoreLinkMessage>;
  clock: HostRecord['clock'];
}

/** Remote times onto the core's clock: t on the worker's host is t − offset here. */
function shifted(m: WorkerToCore, offsetNs: number): WorkerToCore {
  if (!offsetNs) return m;
  const shift = (e: TimelineEvent): TimelineEvent => ({ ...e, startNs: e.startNs - offsetNs, endNs: e.endNs - offsetNs });
  switch (m.type) {
    case 'step-end':
      return { ...m, events: m.events.map(shift) };
    case 'step-begin':
    case 'log':
      return { ...m, atNs: m.atNs - offsetNs };
    default:
      return m;
  }
}

/** Each run's plan as JSON, made once: every rank's `start` carries the same plan (1024 ranks: 0.3 s saved). */
const planJson = new WeakMap<object, string>();

/** `{type: 'm', m: start}` as JSON, with the plan's JSON made once per plan rather than once per rank. */
export function startJson(start: Extract<CoreToWorker, { type: 'start' }>): string {
  let plan = planJson.get(start.plan);
  if (plan === undefined) {
    plan = JSON.stringify(start.plan);
    planJson.set(start.plan, plan);
  }
  const { plan: _plan, ...rest } = start;
  return `{"type":"m","m":${JSON.stringify(rest).slice(0, -1)},"plan":${plan}}}`;
}

export function remoteLink(j: JoinedWorker, handlers: WorkerHandlers): WorkerLink {
  const rank = j.hello.rank;
  let exited = false;
  let killTimer: NodeJS.Timeout | undefined;
  const exit = (code: number | null, signal: string | null, lost?: string) => {
    if (exited) return;
    exited = true;
    clearTimeout(killTimer);
    handlers.exit(rank, code, signal as NodeJS.Signals | null, lost);
  };
  j.link.listen(
    (m) => {
      if (exited) return;
      switch (m.type) {
        case 'm':
          return handlers.message(rank, shifted(m.m, j.clock.offsetNs));
        case 'out':
          return handlers.output(rank, m.line);
        case 'invalid':
          return handlers.invalid(rank, new Error(m.message));
        case 'exit':
          exit(m.code, m.signal);
          return j.link.end();
        case 'refused':
          return exit(null, null, `its worker gave up: ${m.reason}`);
        default:
          return handlers.invalid(rank, new Error(`unexpected ${m.type} from rank ${rank}'s worker`));
      }
    },
    (cause) => exit(null, null, cause ?? 'the link was closed'),
  );
  return {
    rank,
    pid: j.hello.pid,
    get exited() {
      return exited;
    },
    send: (message) => (message.type === 'start' ? j.link.sendJson(startJson(message)) : j.link.send({ type: 'm', m: message })),
    kill() {
      if (exited) return;
      j.link.send({ type: 'kill' });
      killTimer = setTimeout(() => j.link.close('killed; its worker did not say how its rank ended'), KILL_GRACE_MS);
    },
  };
}
