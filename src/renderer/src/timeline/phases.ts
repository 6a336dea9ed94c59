// The phases of an event as small integers (for typed arrays), and where each is drawn.
import type { TimelineEvent } from '../../../shared/run/protocol.js';

export type Phase = TimelineEvent['phase'];

export const PHASES: readonly Phase[] = [
  'warmup',
  'timed',
  'loop',
  'check',
  'block',
  'fill',
  'verify',
  'data-fill',
  'data-check',
  'unfinished',
  'channel',
  'proxy',
];
export const PHASE_INDEX: Record<Phase, number> = Object.fromEntries(PHASES.map((p, i) => [p, i])) as Record<Phase, number>;

/** fill and verify are the rank's host thread making and checking buffers, not work on a stream. */
export const isHostPhase = (phase: Phase): boolean => phase === 'fill' || phase === 'verify';
