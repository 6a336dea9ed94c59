// runAb on two sides of real cpu runs (no NCCL here): the turns go A B, B A, …, every run's record
// is kept where its side put it, and the summary pairs the same steps of both sides.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAb, stoppedBy } from '../../../../../src/main/core/service/nccl-ab/run-ab';
import { prepareRun } from '../../../../../src/main/core/service/start-run';
import { readRecord } from '../../../../../src/main/core/library/record-store';
import { parseScenarioText } from '../../../../../src/shared/plan/text';
import { abTableLines } from '../../../../../src/shared/results/nccl-ab';
import { ncclAbFileSchema } from '../../../../../src/shared/run/api/nccl-ab-file';
import { tempDir } from '../../../../setup/temp-dirs';

const dir = tempDir('nccl-ab');
/** An all_reduce sweep from 8 B on 2 cpu ranks. */
const cpuSweep = (name: string, maxBytes: number | string, file: string) =>
  parseScenarioText(
    JSON.stringify({
      version: 1,
      name,
      world: { ranks: 2 },
      backend: 'cpu',
      defaults: { dtype: 'float32', warmup: 1, iters: 3 },
      steps: [{ op: 'sweep', collective: 'all_reduce', redop: 'sum', minBytes: 8, maxBytes, factor: 2 }],
    }),
    file,
  );
const scenario = cpuSweep('ab on cpu', 32, 'ab.scenario.json');

describe('runAb', () => {
  it('runs the sides in turns A B B A, keeps every record and pairs their steps', async () => {
    const turns: string[] = [];
    const { runs, summary } = await runAb({
      scenario: 'ab on cpu',
      scenarioFile: null,
      repeats: 2,
      libraries: { A: '/a/libnccl.so.2', B: '/b/libnccl.so.2' },
      runSide: async ({ repeat, side, library }) => {
        turns.push(`${side}${repeat + 1} ${library}`);
        const prepared = prepareRun({
          loaded: scenario,
          scenarioFile: null,
          backend: 'cpu',
          recordPath: join(dir, `${side}${repeat + 1}.run.json`),
        });
        const { record, savedTo } = await prepared.start();
        return { record, savedTo };
      },
    });
    expect(turns).toEqual(['A1 /a/libnccl.so.2', 'B1 /b/libnccl.so.2', 'B2 /b/libnccl.so.2', 'A2 /a/libnccl.so.2']);
    expect(runs.map((r) => r.savedTo)).toEqual(['A1', 'B1', 'B2', 'A2'].map((n) => join(dir, `${n}.run.json`)));
    for (const r of runs) expect(readRecord(r.savedTo!).id).toBe(r.record.id);
    expect(summary.turns.map((t) => t.status)).toEqual(['passed', 'passed', 'passed', 'passed']);
    expect(summary.steps.map((s) => s.bytes)).toEqual([8, 16, 32]);
    for (const s of summary.steps) {
      expect(s.pairs).toBe(2);
      expect(s.ratio).toBeGreaterThan(0);
      expect(['faster', 'slower', 'within noise']).toContain(s.verdict);
    }
    const lines = abTableLines(summary);
    expect(lines[0]).toBe('NCCL A/B: ab on cpu, 2 repeats per side, turns A B B A');
    expect(lines.filter((l) => /^all_reduce .* (faster|slower|within noise)$/.test(l))).toHaveLength(3);
  }, 120_000);

  const longer = cpuSweep('ab on cpu, longer', '4MiB', 'ab-longer.scenario.json');
  /** A side's turn on cpu ranks; `stop` says why the turn is stopped as soon as it starts (null: it runs). */
  const side =
    (stop: (turn: string) => string | null) =>
    async ({ repeat, side: name }: { repeat: number; side: 'A' | 'B' }) => {
      const prepared = prepareRun({
        loaded: longer,
        scenarioFile: null,
        backend: 'cpu',
        recordPath: join(dir, `stop-${name}${repeat + 1}.run.json`),
      });
      const why = stop(`${name}${repeat + 1}`);
      // Stopped once its first step has ended, with 19 to go.
      if (why) prepared.run.once('step', () => prepared.run.stop(why));
      const { record, savedTo } = await prepared.start();
      return { record, savedTo };
    };
  const request = {
    scenario: 'ab on cpu',
    scenarioFile: null,
    repeats: 2,
    libraries: { A: '/a/libnccl.so.2', B: '/b/libnccl.so.2' },
  };

  it('ends after a side that was stopped, keeping the turns that ran and saying why', async () => {
    const turns: string[] = [];
    const { runs, summary } = await runAb({
      ...request,
      runSide: side((turn) => (turns.push(turn), turn === 'B1' ? 'interrupted (SIGINT)' : null)),
    });
    expect(turns).toEqual(['A1', 'B1']);
    expect(runs.map((r) => r.record.status)).toEqual(['passed', 'aborted']);
    expect(stoppedBy(runs[1].record)).toBe('interrupted (SIGINT)');
    expect(summary.stopped).toBe('interrupted (SIGINT)');
    expect(summary.turns.map((t) => `${t.side}${t.repeat + 1} ${t.status}`)).toEqual(['A1 passed', 'B1 aborted']);
    // What A measured is kept; no repeat timed a step on both sides (B1 stopped after its first).
    expect(summary.steps).toHaveLength(20);
    expect(summary.steps.every((s) => s.aUs !== null && s.pairs <= 1)).toBe(true);
    expect(summary.steps.filter((s) => s.pairs === 0).every((s) => s.verdict === 'n/a')).toBe(true);
    expect(abTableLines(summary)).toContain("  stopped after 2 of 4 turns (interrupted (SIGINT)): the steps below are those turns'");
    expect(ncclAbFileSchema.parse(summary).stopped).toBe('interrupted (SIGINT)');
  }, 120_000);

  it('ends where a turn would not start for a reason endsEarly names, and not where it names none', async () => {
    const refusing = (at: string, message: string) => {
      const run = side(() => null);
      return async (turn: { repeat: number; side: 'A' | 'B'; library: string }) => {
        if (`${turn.side}${turn.repeat + 1}` === at) throw new Error(message);
        return run(turn);
      };
    };
    const endsEarly = (e: unknown) => ((e as Error).message === 'stopped' ? 'stopped' : null);
    const { runs, summary } = await runAb({ ...request, runSide: refusing('B2', 'stopped'), endsEarly });
    expect(runs.map((r) => `${r.side}${r.repeat + 1}`)).toEqual(['A1', 'B1']);
    expect(summary.stopped).toBe('stopped');
    expect(summary.steps.every((s) => s.pairs === 1)).toBe(true);
    expect(summary.steps).toHaveLength(20);
    await expect(runAb({ ...request, runSide: refusing('B2', 'the lab broke'), endsEarly })).rejects.toThrow('the lab broke');
    // Nothing ran yet: nothing to keep, the A/B is refused.
    await expect(runAb({ ...request, runSide: refusing('A1', 'stopped'), endsEarly })).rejects.toThrow('stopped');
  }, 120_000);
});
