// A record of its own kind: results measured elsewhere (an nccl-tests log or -J JSON) and read
// in by `clab import`, kept in the record format so that replay, compare and the sweep chart show
// them beside the lab's runs. Marked so that nothing reads it as the lab's own: no rank's values
// were checked by the lab, there is no timeline, and each size's time is the one the file says.
import { z } from 'zod';

export const importedSchema = z.object({
  /** What was read: "nccl-tests text log" or "nccl-tests JSON". */
  source: z.string().max(200),
  /** The file's name as given to `clab import` (its folder left out). */
  file: z.string().max(4096),
  /** The program that measured it, e.g. "all_reduce_perf". */
  program: z.string().max(200),
  /** nccl-tests' version, where the file says. */
  version: z.string().max(200).nullable(),
  /** When it was read in (ISO 8601). */
  importedAt: z.string().max(64),
  /** What the record cannot say that a run's record would (one line each). */
  notes: z.array(z.string().max(1000)).max(100),
});

export type Imported = z.infer<typeof importedSchema>;
