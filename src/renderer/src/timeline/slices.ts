// One lane's slices in typed arrays, sorted by start, so that drawing a window is a binary search
// and a loop. Arrays grow by doubling: a live run appends the events of each step as it ends.

/** One slice of the model: its lane (index into model.lanes) and its index in that lane. */
export interface SliceRef {
  lane: number;
  slice: number;
}

export interface LaneSlices {
  count: number;
  /** Nanoseconds from the timeline's origin. */
  start: Float64Array;
  end: Float64Array;
  /** Largest end among slices 0..i: never decreases, so the first slice reaching a time is a binary search away even where slices overlap. */
  endMax: Float64Array;
  op: Uint8Array;
  phase: Uint8Array;
  step: Int32Array;
  /** Index of the slice's event in the source's events. */
  event: Uint32Array;
}

export function emptySlices(capacity = 16): LaneSlices {
  return {
    count: 0,
    start: new Float64Array(capacity),
    end: new Float64Array(capacity),
    endMax: new Float64Array(capacity),
    op: new Uint8Array(capacity),
    phase: new Uint8Array(capacity),
    step: new Int32Array(capacity),
    event: new Uint32Array(capacity),
  };
}

function grow<T extends Float64Array | Uint8Array | Int32Array | Uint32Array>(array: T, capacity: number): T {
  const next = new (array.constructor as new (n: number) => T)(capacity);
  next.set(array);
  return next;
}

export function pushSlice(s: LaneSlices, start: number, end: number, op: number, phase: number, step: number, event: number): void {
  if (s.count === s.start.length) {
    const capacity = s.count * 2;
    s.start = grow(s.start, capacity);
    s.end = grow(s.end, capacity);
    s.endMax = grow(s.endMax, capacity);
    s.op = grow(s.op, capacity);
    s.phase = grow(s.phase, capacity);
    s.step = grow(s.step, capacity);
    s.event = grow(s.event, capacity);
  }
  const i = s.count++;
  s.start[i] = start;
  s.end[i] = end;
  s.endMax[i] = i > 0 ? Math.max(s.endMax[i - 1], end) : end;
  s.op[i] = op;
  s.phase[i] = phase;
  s.step[i] = step;
  s.event[i] = event;
}

/** Restores start order after appends from index `from` on; nothing to do when they came in order. */
export function sortFrom(s: LaneSlices, from: number): void {
  let sorted = true;
  for (let i = Math.max(1, from); i < s.count && sorted; i++) sorted = s.start[i - 1] <= s.start[i];
  if (sorted) return;
  const order = Array.from({ length: s.count }, (_, i) => i).sort((a, b) => s.start[a] - s.start[b] || a - b);
  for (const key of ['start', 'end', 'op', 'phase', 'step', 'event'] as const) {
    const copy = s[key].slice(0, s.count);
    for (let i = 0; i < s.count; i++) s[key][i] = copy[order[i]];
  }
  for (let i = 0; i < s.count; i++) s.endMax[i] = i > 0 ? Math.max(s.endMax[i - 1], s.end[i]) : s.end[i];
}

/** Moves every slice by `deltaNs` (the origin moved). */
export function shiftSlices(s: LaneSlices, deltaNs: number): void {
  for (let i = 0; i < s.count; i++) {
    s.start[i] += deltaNs;
    s.end[i] += deltaNs;
    s.endMax[i] += deltaNs;
  }
}

/** First slice that ends at or after `t`: no slice before it can be visible from `t` on. */
export function firstEndingFrom(s: LaneSlices, t: number): number {
  let lo = 0;
  let hi = s.count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (s.endMax[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The slice under time `t`, within `toleranceNs` so that a slice thinner than a pixel can be
 * pointed at; -1 if none. The innermost wins (a step inside its compare block), then the nearest.
 */
export function sliceAt(s: LaneSlices, t: number, toleranceNs: number): number {
  let best = -1;
  let bestScore = Infinity;
  for (let i = firstEndingFrom(s, t - toleranceNs); i < s.count && s.start[i] <= t + toleranceNs; i++) {
    if (s.end[i] < t - toleranceNs) continue;
    const distance = Math.max(0, s.start[i] - t, t - s.end[i]);
    const score = Math.max(s.end[i] - s.start[i], toleranceNs) + distance;
    if (score < bestScore) {
      bestScore = score;
      best = i;
    }
  }
  return best;
}

/** Number of slices that start at or before `t` (so the last of them is that minus one). */
export function countStartingBy(s: LaneSlices, t: number): number {
  let lo = 0;
  let hi = s.count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (s.start[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The slice under `t`, or else the one whose nearer edge is closest to it; -1 in an empty lane. */
export function nearestSlice(s: LaneSlices, t: number): number {
  const under = sliceAt(s, t, 0);
  if (under >= 0 || s.count === 0) return under;
  const after = countStartingBy(s, t);
  if (after === 0) return 0;
  if (after === s.count) return s.count - 1;
  return t - s.end[after - 1] <= s.start[after] - t ? after - 1 : after;
}
