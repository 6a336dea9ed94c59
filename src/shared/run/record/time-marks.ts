// The moments of a run that its events do not hold, stamped by the lab core on the clock the
// ranks' events use (CLOCK_MONOTONIC nanoseconds of the core's host): when the answer was asked
// for, when the ranks were asked for, when the run ended and when its record was saved. With the
// events and the ranks' "joined the … communicator" lines they split a run's wall time into its
// parts (time-to-answer.ts). Optional in the record: records before them still read.
import { z } from 'zod';

const ns = z.number().finite().min(0);

export const timeMarksSchema = z.object({
  /** When the answer was asked for: `clab run`'s process start; a door's request for the run. */
  askedNs: ns,
  /** When the core went to start the rank processes (after its own preparations). */
  forkNs: ns,
  /** When the last rank's results were in (the run's record made). */
  runEndNs: ns,
  /** When the core began to save the record. */
  saveStartNs: ns,
  /**
   * When the record's bytes were made (all but writing them out: the mark is among those bytes);
   * absent in a record kept while the run went.
   */
  saveEndNs: ns.optional(),
});

export type TimeMarks = z.infer<typeof timeMarksSchema>;
