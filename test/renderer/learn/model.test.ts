// The Learn view's model and pace: values from the record (or the pattern before a step runs),
// the schedule's outputs held against the recorded ones, and a pace that follows the step's time.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { carriesElements, learnable, learnSubject, learnTitle, sentContent } from '../../../src/renderer/src/learn/model';
import { learnPace, paceText, runSlowdown, STAGE_MS_BOUNDS, UNTIMED_STAGE_MS } from '../../../src/renderer/src/learn/pace';
import { compileLoaded, parseScenarioText } from '../../../src/shared/plan/text';
import type { StepRecord } from '../../../src/shared/run/record/record';
import { formatValues, rankInput } from '../../../src/shared/run/rank/inputs';
import { reduceTensors } from '../../../src/shared/data/reduce';
import { allocTensor } from '../../../src/shared/data/dtypes';

const plan = compileLoaded(
  parseScenarioText(
    JSON.stringify({
      version: 1,
      name: 'learn',
      world: { ranks: 4 },
      steps: [
        { op: 'broadcast', count: 4, root: 2, data: { kind: 'arange_rank', start: 1 } },
        { op: 'all_reduce', count: 4096 },
        { op: 'barrier' },
      ],
    }),
    'learn.scenario.json',
  ),
);

function recordOf(
  index: number,
  outputs: (string | null)[],
  inputs: (string | null)[],
  medianUs: number | null,
  failing: number[] = [],
): StepRecord {
  const step = plan.steps[index];
  return {
    index,
    path: step.path,
    label: step.label,
    origin: step.origin,
    action: step.action,
    verdict: 'pass',
    wrong: 0,
    bytes: 16,
    algbw: null,
    busbw: null,
    flops: null,
    timing: medianUs === null ? null : { min: medianUs, median: medianUs, max: medianUs, p99: medianUs, mean: medianUs, samples: 1 },
    ranks: outputs.map((output, rank) => ({
      step: index,
      rank,
      verdict: failing.includes(rank) ? 'fail' : 'pass',
      checked: 4,
      wrong: failing.includes(rank) ? 4 : 0,
      mismatches: [],
      output,
      input: inputs[rank],
      timesUs: [],
      note: null,
    })),
  };
}

describe('learn model', () => {
  it("a broadcast on 4 ranks: four columns, the recorded inputs, every output the root's, agreeing with the record", () => {
    const inputs = ['[1, 2, 3, 4]', '[2, 3, 4, 5]', '[3, 4, 5, 6]', '[4, 5, 6, 7]'];
    const subject = learnSubject(plan.steps[0], recordOf(0, Array(4).fill('[3, 4, 5, 6]'), inputs, 40), 4);
    if (subject.kind !== 'model') throw new Error(subject.reason);
    const m = subject.model;
    expect(m.inputsFrom).toBe('record');
    expect(m.inputs).toEqual([
      [1, 2, 3, 4],
      [2, 3, 4, 5],
      [3, 4, 5, 6],
      [4, 5, 6, 7],
    ]);
    expect(m.computed).toEqual(Array(4).fill([3, 4, 5, 6]));
    expect(m.agrees).toEqual([true, true, true, true]);
    expect(m.schedule.stages).toHaveLength(6);
  });

  it('a rank whose recorded output is not what the moves give is flagged', () => {
    const subject = learnSubject(
      plan.steps[0],
      recordOf(0, ['[3, 4, 5, 6]', '[nan, nan, nan, nan]', '[3, 4, 5, 6]', '[3, 4, 5, 6]'], [null, null, null, null], 40, [1]),
      4,
    );
    if (subject.kind !== 'model') throw new Error(subject.reason);
    expect(subject.model.inputsFrom).toBe('pattern');
    expect(subject.model.agrees).toEqual([true, false, true, true]);
  });

  it('before a step runs, inputs come from the data pattern and nothing is compared', () => {
    const subject = learnSubject(plan.steps[0], null, 4);
    if (subject.kind !== 'model') throw new Error(subject.reason);
    expect(subject.model.inputs[2]).toEqual([3, 4, 5, 6]);
    expect(subject.model.agrees).toEqual([null, null, null, null]);
  });

  it('large tensors have no values, only chunk outlines', () => {
    const subject = learnSubject(plan.steps[1], null, 4);
    if (subject.kind !== 'model') throw new Error(subject.reason);
    expect(subject.model.inputs).toEqual([null, null, null, null]);
    expect(subject.model.inputLengths).toEqual([4096, 4096, 4096, 4096]);
  });

  it('steps that move no tensor are not learnable', () => {
    expect(plan.steps.map(learnable)).toEqual([true, true, false]);
    expect(learnSubject(plan.steps[2], null, 4).kind).toBe('none');
  });
});

describe('learn pace', () => {
  it('one slowdown per run, a power of ten; a step twice as long plays twice as long', () => {
    const steps = [recordOf(0, [], [], 40), recordOf(0, [], [], 80)];
    const slowdown = runSlowdown(steps)!;
    expect(Math.log10(slowdown) % 1).toBe(0);
    const fast = learnPace(steps[0], 6, slowdown);
    const slow = learnPace(steps[1], 6, slowdown);
    expect(slow.stageMs).toBeCloseTo(2 * fast.stageMs);
    expect(fast.stageMs).toBeCloseTo((40 * slowdown) / 1000 / 6);
  });

  it('holds a stage between bounds a person can follow, and says so', () => {
    const p = learnPace(recordOf(0, [], [], 1), 6, 1e5);
    expect(p.stageMs).toBe(STAGE_MS_BOUNDS[0]);
    expect(p.clamped).toBe(true);
  });

  it('untimed steps play at a fixed pace', () => {
    expect(learnPace(null, 6, 1e5)).toEqual({ iterationUs: null, slowdown: null, stageMs: UNTIMED_STAGE_MS, clamped: false });
  });
});

describe('learn model on rounded previews', () => {
  const randomPlan = compileLoaded(
    parseScenarioText(
      JSON.stringify({
        version: 1,
        name: 'random',
        world: { ranks: 2 },
        steps: [{ op: 'all_reduce', count: 8, dtype: 'float32', data: { kind: 'random', seed: 7, min: 0, max: 10 } }],
      }),
      'random.scenario.json',
    ),
  );
  const step = randomPlan.steps[0];
  // What the rank processes record: their real inputs and the real float32 sum, each shown to 6 digits.
  const real = [0, 1].map((r) => rankInput(step, r, 2)!);
  const sum = reduceTensors(
    'float32',
    'sum',
    real.map((values) => {
      const t = allocTensor('float32', values.length);
      values.forEach((v, i) => t.set(i, v));
      return t;
    }),
  );
  const output = formatValues(Array.from({ length: sum.length }, (_, i) => sum.get(i)));
  const record = (verdicts: ('pass' | 'fail')[], outputs: string[]): StepRecord => ({
    index: 0,
    path: step.path,
    label: step.label,
    origin: step.origin,
    action: step.action,
    verdict: verdicts.every((v) => v === 'pass') ? 'pass' : 'fail',
    wrong: 0,
    bytes: 32,
    algbw: null,
    busbw: null,
    flops: null,
    timing: null,
    ranks: verdicts.map((verdict, rank) => ({
      step: 0,
      rank,
      verdict,
      checked: 8,
      wrong: verdict === 'pass' ? 0 : 1,
      mismatches: [],
      output: outputs[rank],
      input: formatValues(real[rank]),
      timesUs: [],
      note: null,
    })),
  });

  it('random float data that the run found right agrees on every rank (the moves use the real inputs, not their 6-digit previews)', () => {
    const subject = learnSubject(step, record(['pass', 'pass'], [output, output]), 2);
    if (subject.kind !== 'model') throw new Error(subject.reason);
    expect(subject.model.agrees).toEqual([true, true]);
    expect(subject.model.inputs[0]).toEqual(real[0]);
  });

  it('a rank whose check passed is never called wrong, even where the shown values differ in the last digit', () => {
    const off = output.replace(/\d(?=[,\]])/, (d) => String((Number(d) + 1) % 10));
    const subject = learnSubject(step, record(['pass', 'pass'], [off, output]), 2);
    if (subject.kind !== 'model') throw new Error(subject.reason);
    expect(subject.model.agrees).not.toContain(false);
  });

  it("a rank whose check failed and whose output is not the moves' is flagged", () => {
    const subject = learnSubject(step, record(['pass', 'fail'], [output, '[0, 0, 0, 0, 0, 0, 0, 0]']), 2);
    if (subject.kind !== 'model') throw new Error(subject.reason);
    expect(subject.model.agrees).toEqual([true, false]);
  });
});

describe('learn model of runs made of sends', () => {
  const shippedPlan = (name: string) => compileLoaded(parseScenarioText(readFileSync(`scenarios/${name}`, 'utf8'), name));

  it("p2p-pairs: every pair's steps are learnable, each a send from one rank of the pair to the other", () => {
    const plan = shippedPlan('p2p-pairs.scenario.json');
    const steps = plan.steps.filter(learnable);
    expect(steps.length).toBe(plan.steps.filter((s) => s.action.kind === 'pair').length);
    expect(steps.length).toBeGreaterThan(0);
    for (const step of steps) {
      const subject = learnSubject(step, null, plan.world);
      if (subject.kind !== 'model') throw new Error(subject.reason);
      const a = step.action as { from: number; to: number; both: boolean };
      const moved = subject.model.schedule.stages.flatMap((st) => st.transfers.map((t) => `${t.from}→${t.to}`)).sort();
      expect(moved).toEqual((a.both ? [`${a.from}→${a.to}`, `${a.to}→${a.from}`] : [`${a.from}→${a.to}`]).sort());
    }
  });

  it("a pair exchanged both ways moves each rank's buffer to the other at once", () => {
    const plan = compileLoaded(
      parseScenarioText(
        JSON.stringify({
          version: 1,
          name: 'both',
          world: { ranks: 2 },
          steps: [{ op: 'pairs', bytes: 16, direction: 'both', latency: false, copy: false }],
        }),
        'both.scenario.json',
      ),
    );
    const subject = learnSubject(plan.steps[0], null, 2);
    if (subject.kind !== 'model') throw new Error(subject.reason);
    expect(subject.model.schedule.stages).toHaveLength(1);
    expect(subject.model.inputs.map((v) => v?.length)).toEqual([4, 4]);
    expect(subject.model.computed).toEqual([subject.model.inputs[1], subject.model.inputs[0]]);
  });

  it("overlap: the group of sends of each variant's first timed repeat is learnable, three buffers 0 → 1", () => {
    const plan = shippedPlan('overlap.scenario.json');
    const steps = plan.steps.filter(learnable);
    expect(
      steps.map((s) => `${s.label} (${(s.origin as { variant?: string }).variant}, ${(s.origin as { repeat?: number }).repeat})`),
    ).toEqual([
      'receive (overlap off, 0)',
      'receive (overlap off, copy engine, 0)',
      'receive (overlap on, 0)',
      'receive (overlap on, copy engine, 0)',
    ]);
    const subject = learnSubject(steps[0], null, plan.world);
    if (subject.kind !== 'model') throw new Error(subject.reason);
    expect(subject.model.schedule.stages.flatMap((st) => st.transfers.map((t) => `${t.from}→${t.to}`))).toEqual(['0→1', '0→1', '0→1']);
    expect(subject.model.inputLengths).toEqual([3 * 1048576, 0]);
  });
});

describe('learn wording', () => {
  const twoRanks = compileLoaded(
    parseScenarioText(
      JSON.stringify({
        version: 1,
        name: 'wording',
        world: { ranks: 2 },
        steps: [
          { op: 'all_reduce', count: 4, redop: 'max' },
          { op: 'all_reduce', label: 'max of the losses', count: 4, redop: 'max' },
          { op: 'broadcast', count: 3, root: 0 },
          { op: 'broadcast', count: 1, root: 0 },
        ],
      }),
      'wording.scenario.json',
    ),
  );

  it('a stage count reads "1 stage", not "1 stages"', () => {
    const subject = learnSubject(twoRanks.steps[0], null, 2);
    if (subject.kind !== 'model') throw new Error(subject.reason);
    expect(subject.model.schedule.summary).not.toMatch(/\b1 stages\b/);
    expect(subject.model.schedule.summary).toContain('(1 stage,');
  });

  it("a step's name says its reduce op, unless its label does already", () => {
    expect(learnTitle(twoRanks.steps[0])).toBe('all_reduce (max)');
    expect(learnTitle(twoRanks.steps[1])).toBe('max of the losses');
    expect(learnTitle(twoRanks.steps[2])).toBe('broadcast');
  });

  it('the pace says a long iteration in plain µs, never as 2.03e+4', () => {
    const text = paceText({ iterationUs: 20_300, slowdown: 0.1, stageMs: 2000, clamped: false }, 1);
    expect(text).not.toMatch(/e\+/);
    expect(text).toContain('took 20300 µs (median)');
  });

  it('a chunk with no elements is not animated as "(empty)"', () => {
    const subject = learnSubject(twoRanks.steps[3], null, 2);
    if (subject.kind !== 'model') throw new Error(subject.reason);
    const { model } = subject;
    // A chain of 2 ranks: chunk 0 (no element) crosses at stage 0, chunk 1 (the element) at stage 1.
    const carried = model.schedule.stages.map((st, k) => st.transfers.map((t) => carriesElements(model, sentContent(model.states[k], t))));
    expect(carried).toEqual([[false], [true]]);
  });
});
