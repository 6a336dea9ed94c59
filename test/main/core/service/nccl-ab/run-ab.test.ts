// runAb on two sides of real cpu runs (no NCCL here): the turns go A B, B A, …, every run's record
// is kept where its side put it, and the summary pairs the same steps of both sides.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAb } from '../../../../../src/main/core/service/nccl-ab/run-ab';
import { prepareRun } from '../../../../../src/main/core/service/start-run';
import { readRecord } from '../../../../../src/main/core/library/record-store';
import { parseScenarioText } from '../../../../../src/shared/plan/text';
import { abTableLines } from '../../../../../src/shared/results/nccl-ab';
import { tempDir } from '../../../../setup/temp-dirs';

const dir = tempDir('nccl-ab');
const scenario = parseScenarioText(
  JSON.stringify({
    version: 1,
    name: 'ab on cpu',
    world: { ranks: 2 },
    backend: 'cpu',
    defaults: { dtype: 'float32', warmup: 1, iters: 3 },
    steps: [{ op: 'sweep', collective: 'all_reduce', redop: 'sum', minBytes: 8, maxBytes: 32, factor: 2 }],
  }),
  'ab.scenario.json',
);

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
});
