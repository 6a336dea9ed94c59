// Integration: real rank processes on the cpu backend, through the lab core.
import { describe, expect, it } from 'vitest';
import { LabRun } from '../../../../src/main/core/run/run';
import { loadScenarioFile } from '../../../../src/main/core/library/scenario-file';
import { compileLoaded, parseScenarioText } from '../../../../src/shared/plan/text';
import { resultLines } from '../../../../src/shared/export/format';
import { DTYPES } from '../../../../src/shared/data/dtypes';
import type { RunRecord } from '../../../../src/shared/run/record/record';
import type { Plan } from '../../../../src/shared/plan/types';
import { alive, shmSegments } from '../leftovers';

function runText(text: string, ranks?: number) {
  const loaded = parseScenarioText(text, 'inline.scenario.json');
  return new LabRun({ plan: compileLoaded(loaded, { ranks }), backend: 'cpu', scenario: loaded.raw, scenarioFile: null });
}

function lines(record: RunRecord) {
  return record.steps.flatMap(resultLines);
}

/** The all-in-one scenario on `ranks` cpu ranks, run once for the tests that read it. */
const allInOne = new Map<number, Promise<{ run: LabRun; plan: Plan; record: RunRecord }>>();
function runAllInOne(ranks: number) {
  if (!allInOne.has(ranks)) {
    const loaded = loadScenarioFile('scenarios/all-in-one.scenario.json');
    const plan = compileLoaded(loaded, { ranks });
    const run = new LabRun({ plan, backend: 'cpu', scenario: loaded.raw, scenarioFile: loaded.file });
    allInOne.set(
      ranks,
      run.run().then((record) => ({ run, plan, record })),
    );
  }
  return allInOne.get(ranks)!;
}

describe('all-in-one scenario on cpu ranks', () => {
  for (const ranks of [2, 3, 4]) {
    it(`checks every result on ${ranks} ranks`, async () => {
      const { plan, record } = await runAllInOne(ranks);
      expect(record.error).toBeNull();
      expect(record.status).toBe('passed');
      expect(record.steps).toHaveLength(plan.steps.length);
      const checked = record.steps.filter((s) => s.verdict === 'pass');
      expect(checked.length).toBeGreaterThanOrEqual(20);
      expect(record.steps.every((s) => s.verdict === 'pass' || s.verdict === 'none')).toBe(true);
      const out = lines(record);
      const sum = ranks * 1;
      expect(out).toContain(`[Rank ${ranks - 1}] all_reduce sum: [${sum}, ${2 * sum}, ${3 * sum}] ✓`);
      expect(out).toContain(`[Rank ${ranks - 1}] broadcast (root 0): [1, 2, 3] ✓`);
      expect(out.filter((l) => l.endsWith('✓')).length).toBeGreaterThanOrEqual(checked.length);
      expect(out.some((l) => l.endsWith('✗'))).toBe(false);
      expect(record.events.length).toBeGreaterThan(0);
    });
  }

  it('leaves no rank process and no shared-memory segment behind, though its ranks exit without tearing down', async () => {
    // The 3-rank run above: its processes and segments, once it ended.
    const { run, record } = await runAllInOne(3);
    expect(record.status).toBe('passed');
    const pids = run.workerPids();
    expect(pids).toHaveLength(3);
    expect(pids.every((pid) => pid !== undefined)).toBe(true);
    for (const pid of pids) expect(alive(pid)).toBe(false);
    expect(shmSegments().filter((f) => pids.some((pid) => f.includes(`-${pid}-`)))).toEqual([]);
  });
});

describe('sweeps', () => {
  it('all_reduce sweep has #wrong = 0 for every dtype', async () => {
    const steps = DTYPES.map((dtype) => ({
      op: 'sweep',
      collective: 'all_reduce',
      dtype,
      minBytes: 8,
      maxBytes: '256KiB',
      factor: 8,
      data: { kind: 'random', seed: 7, min: 0, max: dtype.startsWith('int') || dtype === 'uint8' ? 3 : 4 },
    }));
    const text = JSON.stringify({ version: 1, name: 'dtypes', world: { ranks: 3 }, defaults: { warmup: 1, iters: 2 }, steps });
    const record = await runText(text).run();
    expect(record.error).toBeNull();
    const sweepSteps = record.steps.filter((s) => s.origin.kind === 'sweep');
    expect(sweepSteps.length).toBe(DTYPES.length * 6);
    for (const s of sweepSteps) {
      expect(s.verdict, s.label).toBe('pass');
      expect(s.wrong).toBe(0);
      expect(s.busbw).toBeGreaterThan(0);
    }
  });
});

describe('failures', () => {
  it('a rank killed mid-run ends the run naming the rank, keeps finished steps and leaves no process', async () => {
    const text = JSON.stringify({
      version: 1,
      name: 'kill',
      world: { ranks: 3 },
      defaults: { warmup: 0, iters: 1 },
      steps: [
        { op: 'all_reduce', count: 3 },
        { op: 'broadcast', count: 3 },
        { op: 'all_reduce', count: 4194304, iters: 1000 },
      ],
    });
    const run = runText(text);
    let killedAt = 0;
    run.on('step', (s) => {
      if (s.index === 1) {
        killedAt = Date.now();
        process.kill(run.workerPids()[1]!, 'SIGKILL');
      }
    });
    const record = await run.run();
    expect(Date.now() - killedAt).toBeLessThan(10_000);
    expect(record.status).toBe('error');
    expect(record.error).toMatchObject({ rank: 1, code: 'CLAB_RANK_EXITED' });
    expect(record.error!.message).toMatch(/rank 1 exited on signal SIGKILL/);
    // One list of the ranks' last calls, in the error: not a first one in the log, said as the rank
    // died, that the end's (every rank's calls in) contradicts.
    const lists = [record.error!.message, ...record.logs.map((l) => l.text)].join('\n').match(/\[last calls entered: [^\]]*\]/g) ?? [];
    expect(lists).toHaveLength(1);
    expect(record.error!.message).toContain(lists[0]);
    expect(record.steps.slice(0, 2).map((s) => s.verdict)).toEqual(['pass', 'pass']);
    for (const pid of run.workerPids()) expect(alive(pid)).toBe(false);
    expect(shmSegments().filter((f) => f.includes(`-${run.workerPids()[0]}-`))).toEqual([]);
  });

  it('a step that overruns its timeout is diagnosed per rank and the ranks are ended', async () => {
    const text = JSON.stringify({
      version: 1,
      name: 'slow',
      world: { ranks: 2 },
      steps: [{ op: 'all_reduce', count: 4194304, warmup: 0, iters: 2000, timeoutMs: 300 }],
    });
    const run = runText(text);
    const record = await run.run();
    expect(record.error).toMatchObject({ code: 'CLAB_TIMEOUT', step: 0 });
    expect(record.error!.message).toMatch(
      /rank 0 waits in all_reduce\(sum, 4194304 × float32 = 16 MiB, #2–#2001\); rank 1 waits in all_reduce/,
    );
    for (const pid of run.workerPids()) expect(alive(pid)).toBe(false);
  });

  it('a step asking for more memory than can be had fails naming the rank, the step and the bytes', async () => {
    const text = JSON.stringify({
      version: 1,
      name: 'huge',
      world: { ranks: 2 },
      steps: [
        { op: 'all_reduce', count: 3 },
        { op: 'all_reduce', count: 2000000000, dtype: 'float64' },
      ],
    });
    const run = runText(text);
    const record = await run.run();
    expect(record.error).toMatchObject({ step: 1, code: 'CLAB_OUT_OF_MEMORY' });
    expect(record.error!.message).toMatch(/^rank \d failed in step 1 \(all_reduce\): cannot allocate 16000000000 bytes/);
    expect(record.steps[0].verdict).toBe('pass');
    for (const pid of run.workerPids()) expect(alive(pid)).toBe(false);
  });

  it('stop ends the workers promptly and marks the run aborted', async () => {
    const text = JSON.stringify({
      version: 1,
      name: 'stop',
      world: { ranks: 2 },
      steps: [{ op: 'all_reduce', count: 4194304, iters: 2000 }],
    });
    const run = runText(text);
    run.on('log', (l) => {
      if (l.text.startsWith('joined')) setTimeout(() => run.stop(), 200);
    });
    const started = Date.now();
    const record = await run.run();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(record.status).toBe('aborted');
    for (const pid of run.workerPids()) expect(alive(pid)).toBe(false);
  });
});

describe('shipped experiment scenarios', () => {
  const runFile = (file: string) => {
    const loaded = loadScenarioFile(file);
    return new LabRun({ plan: compileLoaded(loaded), backend: 'cpu', scenario: loaded.raw, scenarioFile: file }).run();
  };

  it('p2p pairs measures every pair, checks what each receiver got', async () => {
    const record = await runFile('scenarios/p2p-pairs.scenario.json');
    expect(record.status).toBe('passed');
    const oneWay = record.steps.filter((s) => s.origin.kind === 'pairs' && s.origin.pairs === 0 && s.origin.measure === 'bandwidth');
    expect(oneWay.map((s) => s.origin.kind === 'pairs' && `${s.origin.from}-${s.origin.to}`)).toEqual([
      '0-1',
      '1-0',
      '0-2',
      '2-0',
      '0-3',
      '3-0',
      '1-2',
      '2-1',
      '1-3',
      '3-1',
      '2-3',
      '3-2',
    ]);
    for (const s of oneWay) {
      expect(s.verdict).toBe('pass');
      expect(s.algbw).toBeGreaterThan(0);
    }
  });

  it('overlap compare reports both durations, the speed-up and the ideal speed-up', async () => {
    const record = await runFile('scenarios/overlap.scenario.json');
    expect(record.status).toBe('passed');
    const [c] = record.compares;
    expect(c.variants.map((v) => v.name)).toEqual(['overlap off', 'overlap off, copy engine', 'overlap on', 'overlap on, copy engine']);
    // The warm-up run of each variant ran and was checked, but is not among the timed repeats.
    expect(record.steps.filter((s) => s.action.kind === 'block-end' && s.action.repeat < 0)).toHaveLength(4);
    // The copy-engine transfers (a plain copy on cpu ranks) arrived and were checked like any receive.
    const copies = record.steps.filter(
      (s) => s.origin.kind === 'compare' && s.origin.variant.endsWith('copy engine') && s.action.kind === 'group',
    );
    expect(copies.length).toBeGreaterThan(0);
    expect(copies.every((s) => s.verdict === 'pass' && s.label.endsWith('receive'))).toBe(true);
    // Against the true ideal: the fastest transfer alone and the multiply alone, from the serial variants.
    expect(c.variants.map((v) => [v.serial, v.transport])).toEqual([
      [true, 'nccl'],
      [true, 'copy-engine'],
      [false, 'nccl'],
      [false, 'copy-engine'],
    ]);
    expect(c.ideal!.us).toBe(Math.max(c.ideal!.commUs, c.ideal!.computeUs));
    expect(['overlap off', 'overlap off, copy engine']).toContain(c.ideal!.commFrom);
    expect(c.variants.every((v) => v.repeatsUs.length === 3 && v.durationUs! > 0)).toBe(true);
    expect(c.variants[0].speedup).toBe(1);
    expect(c.variants[1].speedup).toBeCloseTo(c.variants[0].durationUs! / c.variants[1].durationUs!, 6);
    expect(c.idealSpeedup).toBeCloseTo((c.commUs! + c.computeUs!) / Math.max(c.commUs!, c.computeUs!), 6);
    // Each variant's own comm and compute times; the first's are the ones the ideal comes from.
    expect([c.variants[0].commUs, c.variants[0].computeUs]).toEqual([c.commUs, c.computeUs]);
    expect(c.variants[1].commUs).toBeGreaterThan(0);
    expect(c.variants[1].computeUs).toBeGreaterThan(0);
    // Overlapped variants say when the multiply began in the block and how long the block went on
    // after it (from the ranks' events: rank 1, which receives and multiplies, has the longer block).
    const overlapped = c.variants.filter((v) => !v.serial);
    expect(overlapped.map((v) => v.name)).toEqual(['overlap on', 'overlap on, copy engine']);
    for (const v of c.variants.filter((x) => x.serial)) expect(v).not.toHaveProperty('computeStartUs');
    expect(overlapped.some((v) => v.computeStartUs !== undefined)).toBe(true);
    for (const v of overlapped.filter((x) => x.computeStartUs !== undefined)) {
      expect(v.computeStartUs).toBeGreaterThanOrEqual(0);
      expect(v.afterComputeUs).toBeGreaterThanOrEqual(0);
      expect(v.computeStartUs! + v.afterComputeUs!).toBeLessThan(Math.max(...v.repeatsUs));
    }
  });
});

describe('mixed forms', () => {
  it('checks other dtypes, roots, in-place forms, warm-up reruns, empty tensors and rings on 3 ranks', async () => {
    const loaded = loadScenarioFile('test/fixtures/scenarios/mixed-forms.scenario.json');
    const plan = compileLoaded(loaded);
    const record = await new LabRun({ plan, backend: 'cpu', scenario: loaded.raw, scenarioFile: loaded.file }).run();
    expect(record.error).toBeNull();
    expect(record.steps.map((s) => s.verdict)).toEqual(plan.steps.map((s) => (s.action.kind === 'compute' ? 'none' : 'pass')));
    const out = lines(record);
    expect(out).toContain('[Rank 1] gather (root 1): [[1, 2], [2, 3], [3, 4]] ✓');
    expect(out).toContain('[Rank 0] reduce_scatter sum: [6, 9] ✓');
    expect(out.some((l) => l.startsWith('[Rank 2] reduce min (root 1): no output on this rank'))).toBe(true);
  });
});
