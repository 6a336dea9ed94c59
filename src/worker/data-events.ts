// The backend's making and checking of a call's data (data-program.ts), as timeline slices.
import type { NativeTimes } from '../addon/native-api.js';
import type { TimelineEvent } from '../shared/run/rank/protocol.js';

/** The backend's making and checking of a run's data, as slices on its stream (none where the host did both). */
export function dataEvents(base: Omit<TimelineEvent, 'phase' | 'startNs' | 'endNs'>, t: NativeTimes): TimelineEvent[] {
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
