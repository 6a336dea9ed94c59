// The visible window of time and how zoom and pan move it. Times are ns from the origin.

export interface Viewport {
  start: number;
  end: number;
}

/** Nothing narrower than this can be told apart from the clock's own jitter. */
export const MIN_SPAN_NS = 100;

/** The whole run with a small margin, so the first and last slices do not touch the edges. */
export function fitAll(totalNs: number): Viewport {
  const span = Math.max(totalNs, MIN_SPAN_NS);
  return { start: -span * 0.01, end: span * 1.01 };
}

/** Keeps the window at least MIN_SPAN_NS wide and within the run (with the fit margin). */
export function clampViewport(v: Viewport, totalNs: number): Viewport {
  const bounds = fitAll(totalNs);
  const span = Math.min(Math.max(v.end - v.start, MIN_SPAN_NS), bounds.end - bounds.start);
  const start = Math.min(Math.max(v.start, bounds.start), bounds.end - span);
  return { start, end: start + span };
}

/** Zooms by `factor` (< 1 zooms in) keeping time `at` under the same pixel. */
export function zoomAround(v: Viewport, at: number, factor: number, totalNs: number): Viewport {
  return clampViewport({ start: at - (at - v.start) * factor, end: at + (v.end - at) * factor }, totalNs);
}

export function panBy(v: Viewport, deltaNs: number, totalNs: number): Viewport {
  return clampViewport({ start: v.start + deltaNs, end: v.end + deltaNs }, totalNs);
}

/** The same span, centred on `at` (a click in the overview). */
export function centreOn(v: Viewport, at: number, totalNs: number): Viewport {
  const half = (v.end - v.start) / 2;
  return clampViewport({ start: at - half, end: at + half }, totalNs);
}

/** Wheel or key zoom: each 100 px of wheel scrolls the span by about a quarter. */
export const wheelZoomFactor = (deltaY: number): number => Math.exp(deltaY * 0.0025);
