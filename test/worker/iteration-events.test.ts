import { describe, expect, it } from 'vitest';
import { EVENTS_IN_LOOP_FROM_BYTES, eventsInLoop, iterationEventsChoice } from '../../src/worker/iteration-events.js';

describe('where a timed loop gets its iterations’ events', () => {
  it('by size: inside the loop from 256 MiB, a second pass below', () => {
    expect(EVENTS_IN_LOOP_FROM_BYTES).toBe(256 * 2 ** 20);
    expect(eventsInLoop('auto', EVENTS_IN_LOOP_FROM_BYTES)).toBe(true);
    expect(eventsInLoop('auto', EVENTS_IN_LOOP_FROM_BYTES - 1)).toBe(false);
    expect(eventsInLoop('auto', 8)).toBe(false);
    expect(eventsInLoop('auto', 2 ** 30)).toBe(true);
  });

  it('CLAB_ITERATION_EVENTS decides for every step, for comparing both', () => {
    expect(eventsInLoop(iterationEventsChoice('loop'), 8)).toBe(true);
    expect(eventsInLoop(iterationEventsChoice('pass'), 2 ** 30)).toBe(false);
    expect(iterationEventsChoice(undefined)).toBe('auto');
    expect(iterationEventsChoice('')).toBe('auto');
    expect(iterationEventsChoice('auto')).toBe('auto');
  });

  it('refuses any other value, naming the variable and what it takes', () => {
    expect(() => iterationEventsChoice('inside')).toThrow('CLAB_ITERATION_EVENTS must be auto, loop or pass (got "inside")');
  });
});
