// The phases of an event as small integers (for typed arrays), and where each is drawn.
import { HOST_PHASES } from '../../../shared/export/trace-layout.js';
import type { TimelineEvent } from '../../../shared/run/rank/protocol.js';
import { timelineEventSchema } from '../../../shared/run/rank/timeline-event.js';

export type Phase = TimelineEvent['phase'];

/** The record's phases, in its schema's order (the schema is the one list). */
export const PHASES: readonly Phase[] = timelineEventSchema.shape.phase.options;
export const PHASE_INDEX: Record<Phase, number> = Object.fromEntries(PHASES.map((p, i) => [p, i])) as Record<Phase, number>;

/** fill and verify are the rank's host thread making and checking buffers, not work on a stream. */
export const isHostPhase = (phase: Phase): boolean => HOST_PHASES.has(phase);
