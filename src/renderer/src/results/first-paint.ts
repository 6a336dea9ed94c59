// A long run's Results draw in two goes: first what fills the screen (the first rows of each table,
// the first steps' lines), then, from the frame after that is shown, the rest up to the usual
// bounds. Opening a run of a thousand steps then shows its results without waiting for the layout
// of rows below the fold, and a view left at once (for the Timeline) never lays them out.
import { useEffect, useState } from 'react';

/** Rows of a table, and steps of the per-rank lines, drawn in the first go: more than a screenful, and all of a short run's. */
export const FIRST_PAINT_STEPS = 50;

/** False while `shown` is first drawn; true from the task after the frame that shows it. */
export function useAfterFirstPaint(shown: unknown): boolean {
  const [painted, setPainted] = useState<unknown>(null);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(() => setPainted(shown), 0);
    });
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [shown]);
  return painted === shown;
}
