import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ERROR_KEYS,
  resultByHand,
  LOOP_HOST_KEYS,
  MISMATCH_KEYS,
  rankStepResultSchema,
  rankStepResultsSchema,
  RESULT_KEYS,
} from '../../../../src/shared/run/rank/rank-result.js';
import { runRecordSchema } from '../../../../src/shared/run/record/record.js';
import { syntheticRecord } from '../../../../bench/timeline/synthetic-record.js';
import { int, itStandsInForTheSchema, mutated, notPlain, number, odd, plain } from '../near-valid.js';

const shape = rankStepResultSchema.shape;
class Times extends Array<number> {}
const text = fc.oneof(fc.string(), fc.constantFrom('[1, 2, 3]', ''));
const mismatch = fc.record({ index: int, expected: text, actual: text }, plain);
const loopHost = fc.record(
  {
    issueUs: fc.oneof(fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }), fc.constant(0)),
    faults: fc.nat(),
    blocked: fc.nat(),
    preempted: fc.nat(),
  },
  plain,
);
const validResult = fc.record(
  {
    step: int,
    rank: fc.oneof(fc.nat(), fc.constant(-0)),
    verdict: fc.constantFrom(...shape.verdict.options),
    checked: int,
    wrong: int,
    mismatches: fc.array(mismatch, { maxLength: 3 }),
    output: fc.option(text),
    input: fc.option(text),
    timesUs: fc.array(number, { maxLength: 5 }),
    spanUs: number,
    loopUs: number,
    loopHost,
    launch: fc.constantFrom(...shape.launch.unwrap().options),
    note: fc.option(text),
    error: fc.record({ code: text, message: text }, plain),
  },
  { requiredKeys: ['step', 'rank', 'verdict', 'checked', 'wrong', 'mismatches', 'output', 'timesUs', 'note'], ...plain },
);

/** A valid result broken in one place: at its top, in a mismatch, its times, its loop's host or its error; or not plain; or with NCCL's choices. */
const brokenResult = validResult.chain((r): fc.Arbitrary<unknown> => {
  const options: fc.Arbitrary<unknown>[] = [
    mutated(r, RESULT_KEYS),
    notPlain(r),
    fc.constant({ ...r, nccl: {} }),
    fc.tuple(odd, fc.nat(5)).map(([x, at]) => ({ ...r, timesUs: [...r.timesUs.slice(0, at), x, ...r.timesUs.slice(at)] })),
    // Times in an array that is not a plain one: the schema gives back a plain copy.
    fc.constant({ ...r, timesUs: Times.from(r.timesUs) }),
  ];
  if (r.mismatches.length)
    options.push(mutated(r.mismatches[0], MISMATCH_KEYS).map((m) => ({ ...r, mismatches: [m, ...r.mismatches.slice(1)] })));
  if (r.loopHost) options.push(mutated(r.loopHost, LOOP_HOST_KEYS).map((h) => ({ ...r, loopHost: h })));
  if (r.error) options.push(mutated(r.error, ERROR_KEYS).map((e) => ({ ...r, error: e })));
  return fc.oneof(...options);
});

describe("the hand check of a step's per-rank results", () => {
  it('knows exactly the keys of the result schema', () => {
    expect(Object.keys(shape)).toEqual(RESULT_KEYS);
    expect(Object.keys(shape.mismatches.element.shape)).toEqual(MISMATCH_KEYS);
    expect(Object.keys(shape.loopHost.unwrap().shape)).toEqual(LOOP_HOST_KEYS);
    expect(Object.keys(shape.error.unwrap().shape)).toEqual(ERROR_KEYS);
  });

  itStandsInForTheSchema({
    element: rankStepResultSchema,
    array: rankStepResultsSchema,
    byHand: resultByHand,
    valid: validResult,
    broken: brokenResult,
  });

  it("leaves a result with NCCL's choices to the schema, which checks them", () => {
    const r = { step: 0, rank: 0, verdict: 'pass', checked: 1, wrong: 0, mismatches: [], output: null, timesUs: [1], note: null };
    expect(resultByHand(r)).toEqual(r);
    expect(resultByHand({ ...r, nccl: {} })).toBeNull();
    expect(rankStepResultsSchema.safeParse([r, { ...r, nccl: {} }]).error?.issues[0].path[0]).toBe(1);
  });

  it("names a record's bad result by its path, as the schema did, and gives its good ones as copies", () => {
    const raw = JSON.parse(JSON.stringify(syntheticRecord({ ranks: 2, rounds: 2, warmup: 0, iters: 2 }))) as {
      steps: { ranks: Record<string, unknown>[] }[];
    };
    const copy = runRecordSchema.parse(raw).steps[3].ranks[1];
    expect(copy).toStrictEqual(raw.steps[3].ranks[1]);
    expect(copy).not.toBe(raw.steps[3].ranks[1]);
    raw.steps[3].ranks[1].timesUs = [1, '2'];
    const r = runRecordSchema.safeParse(raw);
    expect(r.error?.issues[0]).toMatchObject({
      path: ['steps', 3, 'ranks', 1, 'timesUs', 1],
      message: 'Invalid input: expected number, received string',
    });
  });

  it('checks by hand every result of a record as clab writes it', () => {
    const raw = JSON.parse(JSON.stringify(syntheticRecord({ ranks: 4, rounds: 3, warmup: 1, iters: 3 }))) as {
      steps: { ranks: unknown[] }[];
    };
    const results = raw.steps.flatMap((s) => s.ranks);
    expect(results.length).toBeGreaterThan(0);
    expect(results.filter((r) => resultByHand(r) === null)).toEqual([]);
  });
});
