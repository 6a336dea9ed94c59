// What one lane draws over a window: each slice at least a pixel wide as its own rectangle, and
// runs of thinner neighbours (same op and phase, less than a pixel apart) merged into one; a thin
// slice of another op or phase that ends inside the run's last pixel column cannot be seen apart
// from it and joins it too. So 100 000 events cost about one rectangle per pixel column at most.
import { firstEndingFrom, type LaneSlices } from './slices';

/** Below this width (px) a slice is merged with its thin neighbours. */
export const MERGE_BELOW_PX = 1;

/**
 * Receives a rectangle: the slice it shows (the first of a merged run), its left and right edge in
 * px from the window's start, how many slices it stands for, and the last of them (the slices
 * first..last it stands for are those of that range that reach into the window).
 */
export type DrawRun = (slice: number, x0: number, x1: number, merged: number, last: number) => void;

/** Calls `draw` for each rectangle of the window [t0, t1]; returns how many slices the window shows. */
export function laneRuns(s: LaneSlices, t0: number, t1: number, pxPerNs: number, draw: DrawRun): number {
  let shown = 0;
  let run = -1;
  let runX0 = 0;
  let runX1 = 0;
  let runCount = 0;
  let runLast = -1;
  const flush = () => {
    if (run >= 0) draw(run, runX0, Math.max(runX1, runX0 + MERGE_BELOW_PX), runCount, runLast);
    run = -1;
  };
  for (let i = firstEndingFrom(s, t0); i < s.count && s.start[i] <= t1; i++) {
    if (s.end[i] < t0) continue;
    shown++;
    const x0 = (s.start[i] - t0) * pxPerNs;
    const x1 = (s.end[i] - t0) * pxPerNs;
    if (x1 - x0 >= MERGE_BELOW_PX) {
      flush();
      draw(i, x0, x1, 1, i);
    } else if (run >= 0 && s.op[i] === s.op[run] && s.phase[i] === s.phase[run] && x0 <= runX1 + MERGE_BELOW_PX) {
      runX1 = Math.max(runX1, x1);
      runCount++;
      runLast = i;
    } else if (run >= 0 && x1 <= Math.floor(runX1) + 1) {
      runCount++;
      runLast = i;
    } else {
      flush();
      run = i;
      runX0 = x0;
      runX1 = x1;
      runCount = 1;
      runLast = i;
    }
  }
  flush();
  return shown;
}
