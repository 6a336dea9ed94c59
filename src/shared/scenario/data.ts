// How each rank fills its input tensor: a named pattern, or explicit numbers as a torch script
// writes them. Expected results are computed from it on the host.
import { z } from 'zod';
import { valuesCount } from '../data/values.js';
import { LIMITS } from './limits.js';

const valueList = z.array(z.number()).max(LIMITS.values);
const chunkList = z.array(valueList).min(1).max(LIMITS.ranks);
const valuesSchema = z
  .object({
    kind: z.literal('values'),
    values: valueList.optional().describe("Every rank's input, element by element: as many numbers as the step's input has."),
    chunks: chunkList
      .optional()
      .describe(
        "Every rank's input as a list of world chunks, chunk j for rank j: scatter's scatter_list on the root, the input list of all_to_all and reduce_scatter. Each chunk has the step's count elements (count/world for all_to_all_single and reduce_scatter_tensor).",
      ),
    perRank: z
      .array(z.union([valueList, chunkList]))
      .max(LIMITS.ranks)
      .optional()
      .describe(
        "Rank r's input is perRank[r]: a list of numbers, or of world chunks. One list per rank; a rank that sends nothing in the step (scatter's other ranks, a send's receiver) gives [].",
      ),
  })
  .strict()
  .superRefine((p, ctx) => {
    const given = (['values', 'chunks', 'perRank'] as const).filter((k) => p[k] !== undefined);
    if (given.length !== 1)
      ctx.addIssue({
        code: 'custom',
        message: `expected exactly one of "values" (every rank's input), "chunks" (every rank's input as one chunk per rank) or "perRank" (one list per rank); got ${given.length ? given.map((k) => `"${k}"`).join(' and ') : 'none'}`,
      });
    const total = valuesCount(p);
    if (total > LIMITS.values)
      ctx.addIssue({ code: 'custom', message: `expected at most ${LIMITS.values} numbers in one "values" data; got ${total}` });
  })
  .describe(
    'Explicit numbers, as a torch script writes its tensors: "values" for every rank, "chunks" (one per destination rank, e.g. scatter\'s scatter_list) or "perRank". Their count must match the step\'s input, and each number must fit the dtype.',
  );

export const patternSchema = z
  .discriminatedUnion('kind', [
    z
      .object({ kind: z.literal('rank'), scale: z.number().optional(), offset: z.number().optional() })
      .strict()
      .describe('Every element holds scale × rank + offset.'),
    z
      .object({ kind: z.literal('arange'), start: z.number().optional(), step: z.number().optional(), rankStride: z.number().optional() })
      .strict()
      .describe('Element i holds start + step × i (+ rankStride × rank, default 0).'),
    z
      .object({
        kind: z.literal('arange_rank'),
        start: z.number().optional(),
        step: z.number().optional(),
        rankStride: z.number().optional(),
      })
      .strict()
      .describe('Element i holds start + step × i + rankStride × rank (rankStride default 1).'),
    z
      .object({ kind: z.literal('constant'), value: z.number() })
      .strict()
      .describe('Every element holds value.'),
    z
      .object({ kind: z.literal('random'), seed: z.number().int(), min: z.number().optional(), max: z.number().optional() })
      .strict()
      .describe('Reproducible pseudo-random values from (seed, rank, index), uniform in [min, max].'),
    valuesSchema,
  ])
  .describe('How each rank fills its input tensor; expected results are computed from it on the host.');
