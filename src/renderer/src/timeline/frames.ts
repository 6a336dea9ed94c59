// Bench instrumentation: the last frames' draw durations, kept on `window.__clabTimelineFrames`
// for bench/timeline to read (a push per frame; nothing else reads it).

export interface FrameRecord {
  /** performance.now() when the frame's drawing began. */
  at: number;
  /** Milliseconds spent drawing it (lanes, axis, arrows, overview). */
  ms: number;
  /** Rectangles drawn. */
  slices: number;
}

declare global {
  interface Window {
    __clabTimelineFrames?: FrameRecord[];
  }
}

const KEEP = 1000;

export function recordFrame(frame: FrameRecord): void {
  const frames = (window.__clabTimelineFrames ??= []);
  frames.push(frame);
  if (frames.length > KEEP) frames.splice(0, frames.length - KEEP);
}
