// The Chrome Trace Event Format's events as the lab writes them (chrome-trace.ts): metadata, complete
// slices, flow arrows, counters and the landing marks, and the file around them.
import type { TimelineEvent } from '../run/rank/protocol.js';
import type { StepRecord } from '../run/record/record.js';

interface TraceEventBase {
  name: string;
  pid: number;
  tid: number;
  /** Microseconds from the run start. */
  ts: number;
}

export interface MetadataEvent {
  name: 'process_name' | 'process_sort_index' | 'thread_name' | 'thread_sort_index';
  ph: 'M';
  pid: number;
  tid: number;
  args: { name: string } | { sort_index: number };
}

export interface CompleteEvent extends TraceEventBase {
  ph: 'X';
  cat: TimelineEvent['phase'];
  dur: number;
  args: {
    step: number;
    op: string;
    label: string;
    bytes: number;
    iteration: number;
    algbw: number | null;
    busbw: number | null;
    verdict: StepRecord['verdict'] | null;
    /** A pairs step: the link, NCCL's transport, the share of the link's peak, and why the pair failed. */
    pair?: { link: string | null; transport: string | null; how: string | null; peakShare: number | null; error: string | null };
    /** An NCCL channel's kernel (the profiler plug-in's): the channel, its call's algorithm and protocol. */
    nccl?: { channel: number; algo: string; proto: string };
    /** A proxy operation of NCCL's (where the network carries the data): channel, peer, direction, steps and their time per wait (µs). */
    proxy?: { channel: number; peer: number; send: boolean; steps: number; waitUs: Record<string, number> };
    /** A loop slice whose rank's host held it up (loop-host.ts): what that host thread did, and the sentence the app shows. */
    hostStall?: { issueUs: number; loopUs: number; iterationsUs: number; faults: number; blocked: number; preempted: number; note: string };
  };
}

export interface FlowEvent extends TraceEventBase {
  ph: 's' | 'f';
  cat: string;
  id: number;
  /** "e": the arrow ends on the slice enclosing ts rather than the next one to start. */
  bp?: 'e';
}

export interface CounterEvent extends TraceEventBase {
  ph: 'C';
  args: Record<string, number>;
}

/**
 * Where an arrow lands inside a receive that was posted before its send began: the end of a flow
 * needs a slice (or this mark) that starts at its time for Chrome DevTools to bind it.
 */
export interface LandingEvent extends TraceEventBase {
  ph: 'i';
  /** Thread-scoped. */
  s: 't';
  cat: string;
  args: { step: number; from: number };
}

type TimedEvent = CompleteEvent | FlowEvent | CounterEvent | LandingEvent;
export type TraceEvent = MetadataEvent | TimedEvent;

export interface ChromeTrace {
  traceEvents: TraceEvent[];
  displayTimeUnit: 'ns' | 'ms';
  otherData: Record<string, unknown>;
}
