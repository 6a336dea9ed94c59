// Loops the GPU spent waiting for the host. nccl times a step's iterations as one loop between a
// single CUDA event pair (nccl-tests' way) and then once more with events around each iteration.
// Where the loop took much longer than its iterations one by one and about as long as the host took
// to issue its calls, the GPU sat idle between them: the loop measured the host (a page fault
// stalled behind another thread unmapping memory, a preempted thread), not the op. Such a step's
// bandwidth comes from a disturbed loop and says so.
import type { RankStepResult } from './protocol.js';

/** A loop is called stalled when it outlasted its iterations by this share of their sum… */
const EXCESS_SHARE = 0.25;
/** …and by at least this long (issuing a call takes a few µs; tiny ops are bound by it legitimately). */
const EXCESS_MIN_US = 100;
/** …and the host was still issuing for at least this share of the loop. */
const ISSUE_SHARE = 0.8;

/** A stalled loop: its rank, the loop against its iterations, and the host thread's figures as the rank gave them (loopHost). */
export interface LoopStall extends NonNullable<RankStepResult['loopHost']> {
  rank: number;
  /** The calls in the loop (its timed iterations). */
  calls: number;
  loopUs: number;
  /** The same iterations timed one by one, summed. */
  iterationsUs: number;
}

/** The rank's loop, if it waited for the host (see the thresholds above); null otherwise. */
export function loopStall(r: Pick<RankStepResult, 'rank' | 'loopUs' | 'loopHost' | 'timesUs'>): LoopStall | null {
  if (r.loopUs === undefined || !r.loopHost || r.timesUs.length === 0) return null;
  const iterationsUs = r.timesUs.reduce((a, b) => a + b, 0);
  const excess = r.loopUs - iterationsUs;
  if (excess < EXCESS_MIN_US || excess < EXCESS_SHARE * iterationsUs) return null;
  if (r.loopHost.issueUs < ISSUE_SHARE * r.loopUs) return null;
  const { issueUs, faults, blocked, preempted } = r.loopHost;
  return { rank: r.rank, calls: r.timesUs.length, loopUs: r.loopUs, iterationsUs, issueUs, faults, blocked, preempted };
}

/** Every rank of a step whose loop waited for the host. */
export function loopStalls(ranks: readonly RankStepResult[]): LoopStall[] {
  return ranks.map(loopStall).filter((s): s is LoopStall => s !== null);
}

const us = (x: number) => (x >= 1000 ? `${(x / 1000).toFixed(2)} ms` : `${x.toFixed(1)} µs`);

/** One sentence on a stalled loop, for step details and the sweep table's notes. */
export function describeLoopStall(s: LoopStall): string {
  const why = [
    s.faults ? `${s.faults} page fault${s.faults === 1 ? '' : 's'}` : '',
    s.blocked ? `blocked ${s.blocked} time${s.blocked === 1 ? '' : 's'}` : '',
    s.preempted ? `preempted ${s.preempted} time${s.preempted === 1 ? '' : 's'}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return (
    `rank ${s.rank}'s loop waited for the host: issuing its ${s.calls} calls took ${us(s.issueUs)} of the loop's ${us(s.loopUs)}` +
    ` (the same iterations took ${us(s.iterationsUs)} one by one${why ? `; while issuing, the thread took ${why}` : ''}), so time and bandwidth from this loop measure the host`
  );
}
