// What the Learn view shows for one step: the op's chunk schedule on this world and root, each
// rank's input values (the run's own, from its record; before the step has run, from the data
// pattern), the state after every stage, and the outputs the schedule arrives at held against
// the outputs the run recorded.
import type { Dtype, Scalar } from '../../../shared/data/dtypes.js';
import { formatValues, inputLength, rankInput } from '../../../shared/run/rank/inputs.js';
import {
  chunkRange,
  collectiveMoves,
  p2pMoves,
  sendMoves,
  statesOf,
  type MoveSchedule,
  type MoveState,
  type SlotContent,
  type Transfer,
} from '../../../shared/learn/moves.js';
import { matchesPreview, outputValues, parsePreview, slotReducer } from '../../../shared/learn/values.js';
import { COLLECTIVE_DESCRIPTORS } from '../../../shared/ops/index.js';
import type { PlanAction, PlanStep } from '../../../shared/plan/types.js';
import type { Redop } from '../../../shared/data/reduce.js';
import type { StepRecord } from '../../../shared/run/record/record.js';

export interface LearnModel {
  planStep: PlanStep;
  /** The step's results; null while it has not run (a paused run). */
  record: StepRecord | null;
  schedule: MoveSchedule;
  /** Before the first stage, then after each. */
  states: MoveState[];
  dtype: Dtype;
  /** Reduced with this, or null where nothing is reduced. */
  redop: Redop | null;
  /** Each rank's input values; null where it has none or it is too long to show (chunk outlines instead). */
  inputs: (Scalar[] | null)[];
  inputLengths: number[];
  inputsFrom: 'record' | 'pattern';
  reduce: (values: Scalar[]) => Scalar;
  /** Each rank's output as the schedule computes it from the inputs. */
  computed: (Scalar[] | null)[];
  /** Each rank's output as the run recorded it (null: none recorded, or too long). */
  recorded: (Scalar[] | null)[];
  /** Per rank: the two agree (true), differ (false), or there is nothing to hold them against (null). */
  agrees: (boolean | null)[];
  /** Ranks that ran another action than the step's (a deliberate mistake): the schedule is the step's. */
  disagreeing: number[];
}

export type LearnSubject = { kind: 'model'; model: LearnModel } | { kind: 'none'; reason: string };

const ranksOf = (world: number) => Array.from({ length: world }, (_, r) => r);

function sameValues(dtype: Dtype, computed: Scalar[], shown: Scalar[]): boolean {
  return computed.length === shown.length && computed.every((x, i) => matchesPreview(dtype, x, shown[i]));
}

export function learnSubject(planStep: PlanStep, record: StepRecord | null, world: number): LearnSubject {
  const a = planStep.action;
  let schedule: MoveSchedule;
  if (a.kind === 'collective') schedule = collectiveMoves(a.op, world, a.root);
  else if (a.kind === 'p2p') schedule = p2pMoves(world, a.from, a.to);
  else if (a.kind === 'pair')
    schedule = sendMoves(
      world,
      a.both
        ? [
            { from: a.from, to: a.to },
            { from: a.to, to: a.from },
          ]
        : [{ from: a.from, to: a.to }],
    );
  else if (sendGroup(a)) schedule = sendMoves(world, a.items);
  else
    return {
      kind: 'none',
      reason: `${planStep.label} moves no tensor data between ranks to show (the Learn view shows collectives and sends).`,
    };
  const dtype: Dtype = a.kind === 'group' ? a.items[0].dtype : a.dtype;
  const redop = a.kind === 'collective' && COLLECTIVE_DESCRIPTORS[a.op].reduces ? a.redop : null;
  const ranks = ranksOf(world);
  const result = (rank: number) => record?.ranks.find((r) => r.rank === rank);
  const fromRecord = ranks.map((r) => parsePreview(result(r)?.input, dtype));
  const inputsFrom = fromRecord.some((v) => v !== null) ? 'record' : 'pattern';
  // The pattern gives a rank's input at full precision; the record's preview only to 6 digits.
  // Where the two show the same, the moves start from the pattern's values.
  const inputs = ranks.map((r) => {
    const pattern = rankInput(planStep, r, world);
    const shown = result(r)?.input;
    return pattern && (!shown || formatValues(pattern) === shown) ? pattern : (fromRecord[r] ?? pattern);
  });
  const reduce = slotReducer(dtype, redop ?? 'sum', world);
  const states = statesOf(schedule);
  const computed = outputValues(schedule, inputs, states[states.length - 1], reduce);
  const recorded = ranks.map((r) => parsePreview(result(r)?.output, dtype));
  // A rank whose own check passed holds the expected output at full precision, which is what the
  // moves give: it agrees whatever its 6-digit preview shows.
  const agrees = ranks.map((r) => {
    const c = computed[r];
    const got = recorded[r];
    if (!record || !c || !got) return null;
    return result(r)?.verdict === 'pass' || sameValues(dtype, c, got);
  });
  return {
    kind: 'model',
    model: {
      planStep,
      record,
      schedule,
      states,
      dtype,
      redop,
      inputs,
      inputsFrom,
      reduce,
      computed,
      recorded,
      agrees,
      inputLengths: ranks.map((r) => inputLength(planStep, r, world)),
      disagreeing: (planStep.perRank ?? []).map((p) => p.rank),
    },
  };
}

type SendGroup = Extract<PlanAction, { kind: 'group' }> & { items: Extract<PlanAction, { kind: 'p2p' }>[] };
const sendGroup = (a: PlanAction): a is SendGroup => a.kind === 'group' && a.items.length > 0 && a.items.every((i) => i.kind === 'p2p');

/**
 * Steps the Learn view can show: collectives, sends (alone, grouped, a pair's), and in a compare
 * block those of each variant's first timed repeat (the others repeat them).
 */
export const learnable = (step: PlanStep): boolean => {
  const a = step.action;
  const moves = a.kind === 'collective' || a.kind === 'p2p' || a.kind === 'pair' || sendGroup(a);
  return moves && (step.origin.kind !== 'compare' || step.origin.repeat === 0);
};

/** A step's name in the Learn view: its label, and the reduce op where the label does not say it. */
export function learnTitle(step: PlanStep): string {
  const a = step.action;
  const redop = a.kind === 'collective' && COLLECTIVE_DESCRIPTORS[a.op].reduces ? a.redop : null;
  return redop && !step.label.includes(redop) ? `${step.label} (${redop})` : step.label;
}

/** What a transfer carries, in the state before its stage. */
export const sentContent = (state: MoveState, t: Transfer): SlotContent =>
  t.source === 'input' ? [{ rank: t.from, chunk: t.fromSlot }] : state[t.from][t.fromSlot];

/** Whether a slot's content holds any element: a chunk of a short buffer can hold none, and is not worth animating. */
export const carriesElements = (model: LearnModel, content: SlotContent): boolean =>
  content.some((p) => {
    const [start, end] = chunkRange(model.inputLengths[p.rank], model.schedule.inputChunks[p.rank], p.chunk);
    return end > start;
  });

/**
 * Where each input chunk and working slot is drawn: its row, or -1 where it holds no element (a
 * tensor shorter than the world is cut into chunks some of which are empty: there is nothing to
 * show of them). A slot that is never filled (an output still to come) is drawn.
 */
export interface SlotRows {
  input: number[][];
  work: number[][];
}

const rowsOf = (shown: boolean[]) => {
  let row = 0;
  return shown.map((s) => (s ? row++ : -1));
};

export function slotRows(model: LearnModel): SlotRows {
  const { schedule, states } = model;
  return {
    input: schedule.inputChunks.map((chunks, rank) =>
      rowsOf(Array.from({ length: chunks }, (_, chunk) => carriesElements(model, [{ rank, chunk }]))),
    ),
    work: schedule.workSlots.map((slots, rank) =>
      rowsOf(
        Array.from(
          { length: slots },
          (_, slot) =>
            states.every((state) => state[rank][slot].length === 0) || states.some((state) => carriesElements(model, state[rank][slot])),
        ),
      ),
    ),
  };
}
