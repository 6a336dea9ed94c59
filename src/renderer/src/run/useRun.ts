// One run at a time from this window: start, stop, follow its events, keep its log. Events that
// arrive before startRun answers are held until the run's id is known.
import { useCallback, useReducer, useRef } from 'react';
import type { ApiEvent, FileProblemInfo, RunRequest } from '../../../shared/run/api/api.js';
import type { Plan } from '../../../shared/plan/types.js';
import type { TimelineEvent } from '../../../shared/run/rank/protocol.js';
import type { RunRecord, StepRecord } from '../../../shared/run/record/record.js';
import type { LabClient } from '../client';
import type { LogEntry } from '../ui/view';
import { logEntry, stepEntries } from './log';

export type RunPhase =
  | { kind: 'idle' }
  | { kind: 'starting' }
  | { kind: 'refused'; problems: FileProblemInfo[] }
  | { kind: 'not-started'; message: string }
  | { kind: 'running'; runId: string; stopping: boolean }
  | { kind: 'ended'; record: RunRecord; savedTo: string | null };

/**
 * What the run has produced so far, for the live timeline. The arrays only grow (appended in place
 * as steps end, so a long run does not copy them per step); `version` changes with every append.
 */
export interface LiveRun {
  runId: string;
  plan: Plan;
  steps: StepRecord[];
  events: TimelineEvent[];
  version: number;
}

/** paused: the step a run in step mode waits before (null: not waiting). */
export interface RunState {
  phase: RunPhase;
  done: number;
  total: number;
  log: LogEntry[];
  live: LiveRun | null;
  paused: number | null;
}

/** Beyond this many lines the oldest go: a long sweep must not slow the page down. */
const MAX_LOG = 5000;

type Action =
  | { type: 'starting' }
  | { type: 'started'; runId: string; live: LiveRun }
  | { type: 'refused'; problems: FileProblemInfo[] }
  | { type: 'not-started'; message: string }
  | { type: 'stopping' }
  | { type: 'forget-refusal' }
  | { type: 'caught-up'; done: number; total: number; paused?: number | null }
  | { type: 'resuming' }
  | { type: 'event'; event: ApiEvent };

const append = (log: LogEntry[], entries: LogEntry[]) => {
  const next = log.concat(entries);
  return next.length > MAX_LOG ? next.slice(next.length - MAX_LOG) : next;
};
const nextId = (log: LogEntry[]) => (log.length ? log[log.length - 1].id + 1 : 0);
const missedEntry = (id: number): LogEntry => ({
  id,
  tone: 'info',
  text: '[lab] the connection to the lab was lost for a while: lines from then are missing here; the run record keeps every result',
});

function reduce(state: RunState, action: Action): RunState {
  switch (action.type) {
    case 'starting':
      return { phase: { kind: 'starting' }, done: 0, total: 0, log: [], live: null, paused: null };
    case 'started':
      return {
        ...state,
        phase: { kind: 'running', runId: action.runId, stopping: false },
        live: action.live,
        total: action.live.plan.steps.length,
      };
    case 'refused':
      return { ...state, phase: { kind: 'refused', problems: action.problems } };
    case 'not-started':
      return { ...state, phase: { kind: 'not-started', message: action.message } };
    case 'forget-refusal':
      return state.phase.kind === 'refused' || state.phase.kind === 'not-started' ? { ...state, phase: { kind: 'idle' } } : state;
    case 'caught-up':
      return state.phase.kind === 'running'
        ? {
            ...state,
            done: action.done,
            total: action.total,
            paused: action.paused ?? null,
            log: append(state.log, [missedEntry(nextId(state.log))]),
          }
        : state;
    case 'resuming':
      return { ...state, paused: null };
    case 'stopping':
      return state.phase.kind === 'running' ? { ...state, phase: { ...state.phase, stopping: true } } : state;
    case 'event': {
      const e = action.event;
      if (e.type === 'run-paused') return { ...state, paused: e.step };
      if (e.type === 'run-log') return { ...state, log: append(state.log, [logEntry(e.line, nextId(state.log))]) };
      if (e.type === 'run-step') {
        // follow() has appended the step and its events to the live arrays already.
        const live = state.live?.runId === e.runId ? state.live : null;
        return {
          ...state,
          done: e.done,
          total: e.total,
          log: append(state.log, stepEntries(e.step, nextId(state.log))),
          live: live && { ...live, version: live.version + 1 },
        };
      }
      // The core logs the failure itself; the status above the log says it once more.
      if (e.type === 'run-end') {
        const total = e.record.plan.steps.length;
        return {
          ...state,
          phase: { kind: 'ended', record: e.record, savedTo: e.savedTo },
          done: Math.min(e.record.steps.length, total),
          total,
          paused: null,
        };
      }
      return state;
    }
  }
}

export interface RunControl {
  state: RunState;
  busy: boolean;
  start(request: RunRequest): Promise<void>;
  stop(): Promise<void>;
  /** Step mode: runs the step the run waits before. */
  next(): Promise<void>;
  /** Feed every lab event here; those of other runs are ignored. */
  handleEvent(event: ApiEvent): void;
  /** Another scenario is open: why the last one was refused no longer applies. */
  forgetRefusal(): void;
  /** After the connection came back: asks the lab where the run stands (events may have been missed). */
  catchUp(): Promise<void>;
}

export function useRun(client: LabClient, onEnd: (record: RunRecord, savedTo: string | null) => void): RunControl {
  const [state, dispatch] = useReducer(reduce, { phase: { kind: 'idle' }, done: 0, total: 0, log: [], live: null, paused: null });
  const runId = useRef<string | null>(null);
  const liveRun = useRef<LiveRun | null>(null);
  const held = useRef<ApiEvent[] | null>(null);
  const busy = state.phase.kind === 'starting' || state.phase.kind === 'running';
  const busyRef = useRef(busy);
  busyRef.current = busy;
  const onEndRef = useRef(onEnd);
  onEndRef.current = onEnd;

  const follow = useCallback((event: ApiEvent) => {
    if (!('runId' in event) || event.runId !== runId.current) return;
    const live = liveRun.current;
    if (event.type === 'run-step' && live?.runId === event.runId) {
      live.steps.push(event.step);
      for (const e of event.events) live.events.push(e);
    }
    dispatch({ type: 'event', event });
    if (event.type === 'run-end') {
      runId.current = null;
      onEndRef.current(event.record, event.savedTo);
    }
  }, []);

  const handleEvent = useCallback(
    (event: ApiEvent) => {
      if (held.current && 'runId' in event) held.current.push(event);
      else follow(event);
    },
    [follow],
  );

  const start = useCallback(
    async (request: RunRequest) => {
      if (busyRef.current) return;
      busyRef.current = true;
      dispatch({ type: 'starting' });
      held.current = [];
      try {
        const result = await client.call('startRun', request);
        if (result.ok) {
          runId.current = result.runId;
          liveRun.current = { runId: result.runId, plan: result.plan, steps: [], events: [], version: 0 };
          dispatch({ type: 'started', runId: result.runId, live: liveRun.current });
        } else {
          dispatch({ type: 'refused', problems: result.problems });
        }
      } catch (e) {
        dispatch({ type: 'not-started', message: (e as Error).message });
      } finally {
        const early = held.current ?? [];
        held.current = null;
        for (const event of early) follow(event);
      }
    },
    [client, follow],
  );

  /** Asks the lab something about the current run (Stop, Next), showing `pending` meanwhile. */
  const callOnRun = useCallback(
    async (method: 'stopRun' | 'nextStep', pending: 'stopping' | 'resuming') => {
      const id = runId.current;
      if (!id) return;
      dispatch({ type: pending });
      try {
        await client.call(method, { runId: id });
      } catch (e) {
        console.warn(`${method} failed:`, (e as Error).message);
      }
    },
    [client],
  );

  const stop = useCallback(() => callOnRun('stopRun', 'stopping'), [callOnRun]);
  const next = useCallback(() => callOnRun('nextStep', 'resuming'), [callOnRun]);

  const forgetRefusal = useCallback(() => dispatch({ type: 'forget-refusal' }), []);

  const catchUp = useCallback(async () => {
    const id = runId.current;
    if (!id) return;
    let status;
    try {
      status = await client.call('runStatus', { runId: id });
    } catch (e) {
      return void console.warn('runStatus failed:', (e as Error).message);
    }
    if (runId.current !== id) return; // its run-end arrived meanwhile
    if (status.state === 'running') dispatch({ type: 'caught-up', done: status.done, total: status.total, paused: status.paused });
    else if (status.state === 'ended') {
      dispatch({ type: 'caught-up', done: status.record.steps.length, total: status.record.plan.steps.length });
      follow({ type: 'run-end', runId: id, record: status.record, savedTo: status.savedTo });
    } else {
      runId.current = null;
      dispatch({
        type: 'not-started',
        message: 'the lab no longer knows this run (was it restarted?); a record it saved is under Saved runs',
      });
    }
  }, [client, follow]);

  return { state, busy, start, stop, next, handleEvent, forgetRefusal, catchUp };
}
