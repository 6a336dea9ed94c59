// Where a run's wall time went, from the asking to the saved record: start (the core's own
// preparations, then the rank processes coming up), backend init (each communicator the ranks
// joined), steps (and within them rank 0's timed loops, warm-up, fill and check, and the
// per-iteration pass) and save, the rest said as such. Read from the record's events, the ranks'
// "joined the … communicator" log lines and the core's time marks (time-marks.ts); a record
// without some of them (an older one) gives what it can and says what is unknown.
import { formatDuration } from '../../data/units.js';
import type { TimelineEvent } from '../rank/protocol.js';
import type { LogLine } from './record.js';
import type { TimeMarks } from './time-marks.js';

export type TimePartName = 'start' | 'init' | 'steps' | 'save' | 'other';

export interface TimeItem {
  name: string;
  /** Nanoseconds; null where the record cannot tell. */
  ns: number | null;
}

export interface TimePart extends TimeItem {
  name: TimePartName;
  /** What the part is made of, where the record tells (not always all of it; init's also lists the communicators made within the steps). */
  detail: TimeItem[];
}

export interface TimeToAnswer {
  /** From the asking to the answer (the record saved, or `endNs`); null where the record has no marks. */
  wallNs: number | null;
  /** start, init, steps, save, other: in the order they happen; known parts add up to the wall. */
  parts: TimePart[];
  /** What could not be told, in words ("start, save and wall: …"). */
  unknown: string[];
}

/** What the breakdown reads of a record (RunRecord has all of it). */
export interface TimedRecord {
  events: readonly TimelineEvent[];
  logs: readonly LogLine[];
  timeMarks?: TimeMarks;
}

/**
 * A rank's line at joining its run-wide communicator (worker/main.ts), or at being ready without
 * one: how long the joining took and how long after the rank's process started it ended.
 */
const JOINED =
  /^(?:joined the (\S+) communicator|ready on the (\S+) backend without a run-wide communicator)\b.*\) in (\d+) ms, (\d+) ms after the process started/;

interface Join {
  rank: number;
  communicator: string;
  /** When the rank's process started (its line says how long before the join ended). */
  processStartNs: number;
  startNs: number;
  endNs: number;
}

const MS = 1e6;

/** A rank's line at joining a compare variant's communicator, made within the steps (worker/variant-comms.ts). */
const VARIANT_JOINED = /^compare variant (.+): a communicator of its own with .*, joined in (\d+) ms$/;

/** Each compare variant's communicator made within the steps: the longest any rank took to join it. */
export function variantJoins(logs: readonly LogLine[]): TimeItem[] {
  const longest = new Map<string, number>();
  for (const l of logs) {
    const m = l.rank === null ? null : VARIANT_JOINED.exec(l.text);
    if (m) longest.set(m[1], Math.max(longest.get(m[1]) ?? 0, Number(m[2]) * MS));
  }
  return [...longest].map(([variant, ns]) => ({ name: `variant ${variant} communicator (in steps)`, ns }));
}

/** Each rank's join of the run-wide communicator, as its line says (ms, so to a millisecond). */
export function communicatorJoins(logs: readonly LogLine[]): Join[] {
  const joins: Join[] = [];
  const seen = new Set<number>();
  for (const l of logs) {
    if (l.rank === null || seen.has(l.rank)) continue;
    const m = JOINED.exec(l.text);
    if (!m) continue;
    seen.add(l.rank);
    const communicator = m[1] ? `${m[1]} communicator` : `${m[2]} backend (no run-wide communicator)`;
    joins.push({
      rank: l.rank,
      communicator,
      processStartNs: l.atNs - Number(m[4]) * MS,
      startNs: l.atNs - Number(m[3]) * MS,
      endNs: l.atNs,
    });
  }
  return joins;
}

const FILL_CHECK: ReadonlySet<TimelineEvent['phase']> = new Set(['fill', 'verify', 'data-fill', 'data-check', 'check']);

/**
 * Rank 0's time in the steps' phases: the timed loops (a loop timed as a whole where the backend
 * ran one, else the timed iterations), the warm-up, making and checking data, and the
 * per-iteration pass (the timed iterations run again to time each, where a loop was timed whole;
 * none where their events were read inside the loop, within its span).
 */
function stepPhases(events: readonly TimelineEvent[]): TimeItem[] {
  const byStep = new Map<number, { loops: TimelineEvent[]; timed: TimelineEvent[] }>();
  let warmup = 0;
  let fillCheck = 0;
  for (const e of events) {
    if (e.rank !== 0) continue;
    const ns = Math.max(0, e.endNs - e.startNs);
    if (e.phase === 'warmup') warmup += ns;
    else if (FILL_CHECK.has(e.phase)) fillCheck += ns;
    else if (e.phase === 'loop' || e.phase === 'timed') {
      let s = byStep.get(e.step);
      if (!s) byStep.set(e.step, (s = { loops: [], timed: [] }));
      (e.phase === 'loop' ? s.loops : s.timed).push(e);
    }
  }
  const spanNs = (e: TimelineEvent): number => Math.max(0, e.endNs - e.startNs);
  let loops = 0;
  let perIteration = 0;
  for (const { loops: stepLoops, timed } of byStep.values()) {
    if (stepLoops.length === 0) {
      for (const e of timed) loops += spanNs(e);
      continue;
    }
    for (const loop of stepLoops) loops += spanNs(loop);
    // A step has a loop or two (its variants'): checking each iteration against them stays linear.
    const inLoop = (e: TimelineEvent): boolean => stepLoops.some((l) => e.startNs >= l.startNs && e.endNs <= l.endNs);
    for (const e of timed) if (!inLoop(e)) perIteration += spanNs(e);
  }
  return [
    { name: 'timed loops', ns: loops },
    { name: 'warm-up', ns: warmup },
    { name: 'fill/check', ns: fillCheck },
    { name: 'per-iteration pass', ns: perIteration },
  ];
}

const span = (from: number | null, to: number | null): number | null => (from === null || to === null ? null : Math.max(0, to - from));

/**
 * The record's wall time split into its parts. `endNs`: when the answer is given (`clab run`:
 * now, after the save), on the marks' clock; by default the record's saveEndNs.
 */
export function timeToAnswer(record: TimedRecord, endNs?: number): TimeToAnswer {
  const marks = record.timeMarks ?? null;
  const unknown: string[] = [];
  let eventsStart: number | null = null;
  let eventsEnd: number | null = null;
  for (const e of record.events) {
    if (eventsStart === null || e.startNs < eventsStart) eventsStart = e.startNs;
    if (eventsEnd === null || e.endNs > eventsEnd) eventsEnd = e.endNs;
  }
  const joins = communicatorJoins(record.logs);
  // Every rank up (the last to begin joining), and the communicator made (the last to finish).
  const ranksUp = joins.length ? Math.max(...joins.map((j) => j.startNs)) : null;
  const initEnd = joins.length ? Math.max(...joins.map((j) => j.endNs)) : null;
  const asked = marks?.askedNs ?? null;
  const stepsStart = initEnd ?? eventsStart;
  const runEnd = marks?.runEndNs ?? eventsEnd;
  const end = endNs ?? marks?.saveEndNs ?? null;

  if (!marks) unknown.push('start, save and wall: the record has no time marks (made before they were kept)');
  else if (marks.saveEndNs === undefined) unknown.push('save and wall: the record was kept while the run went');
  if (!joins.length) unknown.push("init: no rank's line says how long it took to join (counted in start)");

  // The rank processes' part, split where their lines tell: until the last one's process started
  // (the fork, or a launcher), then until the last began to join (node, the worker's bundle, the addon).
  const started = joins.length ? Math.max(...joins.map((j) => j.processStartNs)) : null;
  const ranks: TimeItem[] =
    started === null
      ? [{ name: 'rank processes', ns: span(marks?.forkNs ?? null, stepsStart) }]
      : [
          { name: 'forking the ranks', ns: span(marks?.forkNs ?? null, started) },
          { name: 'ranks loading', ns: span(started, ranksUp) },
        ];
  const start: TimePart = {
    name: 'start',
    ns: span(asked, ranksUp ?? stepsStart),
    detail: marks ? [{ name: 'core', ns: span(asked, marks.forkNs) }, ...ranks] : [],
  };
  const communicators = new Map<string, Join[]>();
  for (const j of joins) {
    const list = communicators.get(j.communicator);
    if (list) list.push(j);
    else communicators.set(j.communicator, [j]);
  }
  const init: TimePart = {
    name: 'init',
    ns: span(ranksUp, initEnd),
    detail: [
      ...[...communicators].map(([name, js]) => ({
        name,
        ns: span(Math.max(...js.map((j) => j.startNs)), Math.max(...js.map((j) => j.endNs))),
      })),
      // Made later, within the steps (their time is the steps'): said here, where communicators are.
      ...variantJoins(record.logs),
    ],
  };
  const steps: TimePart = { name: 'steps', ns: span(stepsStart, runEnd), detail: stepPhases(record.events) };
  const save: TimePart = { name: 'save', ns: span(marks?.saveStartNs ?? null, marks?.saveEndNs ?? null), detail: [] };
  const wallNs = span(asked, end);
  const known = [start, init, steps, save].reduce((sum, p) => sum + (p.ns ?? 0), 0);
  const other: TimePart = { name: 'other', ns: wallNs === null ? null : Math.max(0, wallNs - known), detail: [] };
  return { wallNs, parts: [start, init, steps, save, other], unknown };
}

const itemText = (i: TimeItem) => `${i.name} ${formatDuration(i.ns)}`;

/**
 * One line: `time to answer: 1.15 s = start 420 ms (core 120 ms, rank processes 300 ms) + init
 * 4.0 ms (cpu communicator 4.0 ms) + steps 700 ms (rank 0: timed loops …) + save 10 ms + other
 * 16 ms`, then what is unknown.
 */
export function timeToAnswerLine(t: TimeToAnswer): string {
  const parts = t.parts.map((p) => {
    const detail = p.detail.length ? ` (${p.name === 'steps' ? 'rank 0: ' : ''}${p.detail.map(itemText).join(', ')})` : '';
    return `${itemText(p)}${detail}`;
  });
  const unknown = t.unknown.length ? `; unknown: ${t.unknown.join('; ')}` : '';
  return `time to answer: ${formatDuration(t.wallNs)} = ${parts.join(' + ')}${unknown}`;
}
