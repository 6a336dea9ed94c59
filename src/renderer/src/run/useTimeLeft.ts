// Elapsed time and what is left of the run, from the steps as they arrive (the shared RunClock,
// which the CLI's progress bar uses too). Ticks once a second while the run goes, so elapsed time
// moves between steps.
import { useEffect, useRef, useState } from 'react';
import { planWork, RunClock, type TimeLeft } from '../../../shared/results/time-left.js';
import type { LiveRun, RunState } from './useRun';

interface Followed {
  runId: string;
  clock: RunClock;
  seen: number;
}

export function useTimeLeft(state: RunState): TimeLeft | null {
  const { live, phase } = state;
  const running = phase.kind === 'running';
  const followed = useRef<Followed | null>(null);
  const [now, setNow] = useState(() => Date.now());

  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [running]);

  if (!live || !running) return null;
  const f = follow(followed, live);
  return f.clock.estimate(Math.max(now, Date.now()));
}

/** Hands the clock the live run's steps it has not seen; a new run starts a new clock. */
function follow(followed: { current: Followed | null }, live: LiveRun): Followed {
  const at = Date.now();
  if (followed.current?.runId !== live.runId)
    followed.current = { runId: live.runId, clock: new RunClock(planWork(live.plan), at), seen: 0 };
  const f = followed.current;
  if (live.steps.length > f.seen) {
    f.clock.stepsEnded(
      live.steps.slice(f.seen).map((s) => s.index),
      at,
    );
    f.seen = live.steps.length;
  }
  return f;
}
