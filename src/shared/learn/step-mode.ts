// Step mode: a run that waits before each step until the learner asks for it, so they can predict
// the result first. The rank processes and the core both ask here which steps pause.
import type { PlanStep } from '../plan/types.js';

/**
 * Steps of a compare block run through without pausing: a pause inside the block would stand in
 * the block's measured time. Every other step pauses.
 */
export const pausesBefore = (step: PlanStep): boolean => step.origin.kind !== 'compare';
