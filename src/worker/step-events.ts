// A step's runs as timeline slices: the backend's making and checking of its data
// (data-program.ts), the loop or graph its timed iterations ran in, each iteration, and the work
// of the rank's host thread (making buffers, checking outputs).
import type { NativeTimes } from '../addon/native-api.js';
import type { PlanStep } from '../shared/plan/types.js';
import type { TimelineEvent } from '../shared/run/rank/protocol.js';

type EventBase = Omit<TimelineEvent, 'phase' | 'startNs' | 'endNs'>;

/** The backend's making and checking of a run's data, as slices on its stream (none where the host did both). */
function dataEvents(base: EventBase, t: NativeTimes): TimelineEvent[] {
  return [
    ...(t.dataFillEndNs !== undefined
      ? [{ ...base, name: `${base.name} (data made)`, phase: 'data-fill' as const, startNs: t.dataFillStartNs!, endNs: t.dataFillEndNs }]
      : []),
    ...(t.dataCheckEndNs !== undefined
      ? [
          {
            ...base,
            name: `${base.name} (data checked)`,
            phase: 'data-check' as const,
            startNs: t.dataCheckStartNs!,
            endNs: t.dataCheckEndNs,
          },
        ]
      : []),
  ];
}

/** One run of a call (warm-up, timed, check): its data slices, its loop or graph when it ran as one, and each iteration. */
export function runEvents(base: EventBase, times: NativeTimes | null, phase: TimelineEvent['phase']): TimelineEvent[] {
  if (!times) return [];
  const loop: TimelineEvent[] =
    times.loopEndNs !== undefined
      ? [
          {
            ...base,
            name: `${base.name} ×${times.startNs.length} (${times.launch === 'graph' ? 'graph' : 'loop'})`,
            phase: 'loop',
            startNs: times.loopStartNs!,
            endNs: times.loopEndNs,
          },
        ]
      : [];
  return [...dataEvents(base, times), ...loop, ...times.startNs.map((startNs, i) => ({ ...base, phase, startNs, endNs: times.endNs[i] }))];
}

/** Work of a rank's host thread (the timeline's host lane) for a step: making buffers, checking outputs. */
export function hostEvent(rank: number, step: PlanStep, phase: 'fill' | 'verify', startNs: number, endNs: number): TimelineEvent {
  return { rank, stream: step.stream, step: step.index, name: `${step.label} (${phase})`, phase, startNs, endNs, bytes: 0 };
}
