// Results from elsewhere, read in: nccl-tests text logs and -J JSON (samples written for these
// tests in nccl-tests' own printf formats and JSON layout, figures made up), into an imported
// record; bad or foreign input refused in one line naming the file, the line or JSON path, and
// what was expected there.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readNcclTestsJson } from '../../../src/shared/results/nccl-tests-json-in';
import { readNcclTestsLog } from '../../../src/shared/results/nccl-tests-log';
import { importedRecord } from '../../../src/shared/results/nccl-tests-record';
import { NcclTestsReadError } from '../../../src/shared/results/nccl-tests-results';
import { writeNcclTestsJson } from '../../../src/shared/export/nccl-tests-json';
import { scenarioSchema } from '../../../src/shared/scenario/schema';

const sample = (name: string) => readFileSync(join(__dirname, 'nccl-tests-samples', name), 'utf8');
const IMPORT = { file: '/logs/run.log', id: 'imported-1', importedAt: '2026-03-02T10:00:00.000Z' };

describe('an nccl-tests text log', () => {
  const results = readNcclTestsLog('run.log', sample('all_reduce-4ranks.log'));

  it('reads the program, the ranks from the device lines, and every size with both halves', () => {
    expect(results).toMatchObject({
      program: 'all_reduce_perf',
      version: '2.19.6',
      ncclVersion: 22803,
      warmup: 5,
      iters: 20,
      stepFactor: 4,
    });
    expect(results.devices.map((d) => [d.rank, d.hostname, d.device])).toEqual([
      [0, 'gpu-a', 0],
      [1, 'gpu-a', 1],
      [2, 'gpu-b', 0],
      [3, 'gpu-b', 1],
    ]);
    expect(results.rows.map((r) => r.size)).toEqual([1024, 4096, 16384, 65536, 262144, 1048576]);
    expect(results.rows[5]).toMatchObject({
      at: 'line 20',
      count: 262144,
      dtype: 'float32',
      redop: 'sum',
      root: -1,
      outOfPlace: { timeUs: 187.2, algbw: 5.6, busbw: 8.4, wrong: 0 },
      inPlace: { timeUs: 186.41, algbw: 5.63, busbw: 8.44, wrong: 0 },
    });
  });

  it('reads the per-iteration columns of -I 1 and #wrong N/A where nothing was checked', () => {
    const r = readNcclTestsLog('ag.log', sample('all_gather-per-iter.log'));
    expect(r.program).toBe('all_gather_perf');
    expect(r.rows).toHaveLength(4);
    expect(r.rows[3]).toMatchObject({
      size: 64,
      count: 8,
      redop: null,
      outOfPlace: { timeUs: 12.3, wrong: null },
      inPlace: { timeUs: 12.1 },
    });
  });

  it('becomes an imported record: a sweep per half, each size a step with the figures as printed, no ranks, no events', () => {
    const record = importedRecord(results, IMPORT);
    expect(record.imported).toMatchObject({
      source: 'nccl-tests text log',
      file: 'run.log',
      program: 'all_reduce_perf',
      version: '2.19.6',
    });
    expect(record.world).toBe(4);
    // Named as a lab sweep is, the half the lab runs by default (all_reduce: in place) first, so that compare matches them.
    expect(record.plan.sweeps.map((s) => s.label)).toEqual(['all_reduce sweep', 'all_reduce sweep']);
    expect(record.steps).toHaveLength(12);
    const last = record.steps[11];
    expect(last).toMatchObject({ label: 'all_reduce sweep 1 MiB', bytes: 1048576, algbw: 5.6, busbw: 8.4, verdict: 'none', ranks: [] });
    expect(last.origin).toEqual({ kind: 'sweep', sweep: 1, size: 1048576 });
    expect(last.timing).toMatchObject({ mean: 187.2, perOp: 187.2, samples: 1 });
    expect(last.action).toMatchObject({ kind: 'collective', op: 'all_reduce', count: 262144, dtype: 'float32', inPlace: false });
    expect(record.steps[5]).toMatchObject({ algbw: 5.63, action: { inPlace: true } });
    expect(record.events).toEqual([]);
    expect(record.environment).toMatchObject({ host: 'gpu-a', backend: 'nccl', versions: { 'nccl-tests': '2.19.6', nccl: '2.28.3' } });
    // A scenario that runs the same sweep here.
    expect(scenarioSchema.parse(record.scenario)).toMatchObject({
      world: { ranks: 4 },
      steps: [
        { op: 'sweep', collective: 'all_reduce', minBytes: 1024, maxBytes: 1048576, factor: 4, inPlace: true },
        { op: 'sweep', collective: 'all_reduce', inPlace: false },
      ],
    });
  });

  it('refuses bad or foreign input in one line naming the file, the line and what was expected', () => {
    const log = sample('all_reduce-4ranks.log');
    const lines = log.split('\n');
    const refusal = (text: string) => {
      try {
        readNcclTestsLog('run.log', text);
      } catch (e) {
        expect(e).toBeInstanceOf(NcclTestsReadError);
        expect((e as Error).message).not.toContain('\n');
        return (e as Error).message;
      }
      throw new Error('read without complaint');
    };
    const edited = (line: number, text: string) => lines.map((l, i) => (i === line - 1 ? text : l)).join('\n');
    expect(refusal(edited(18, lines[17].replace('65536         16384', '65536         lots')))).toBe(
      'run.log: line 18: expected the count of elements as a whole number, not "lots"',
    );
    expect(refusal(edited(18, lines[17].replace('48.93', 'fast')))).toBe(
      'run.log: line 18: expected the out-of-place time as a number, not "fast"',
    );
    expect(refusal(edited(18, lines[17].replace(/\s+0$/, '')))).toMatch(
      /^run\.log: line 18: expected a row of 13 columns as the header says/,
    );
    expect(refusal(edited(18, lines[17].replace('float', 'char')))).toMatch(
      /^run\.log: line 18: expected an element type nccl-tests names/,
    );
    expect(refusal(edited(18, lines[17].replace('sum', 'mulsum')))).toMatch(/^run\.log: line 18: expected a reduction op the lab has/);
    expect(refusal(edited(18, 'Segmentation fault (core dumped)'))).toMatch(
      /^run\.log: line 18: expected a row of 13 columns as the header says \(.*\), not 4$/,
    );
    expect(refusal(edited(2, '# Collective test starting: hypercube_perf'))).toMatch(
      /^run\.log: line 2: expected one of nccl-tests' programs the lab's sweeps run \(all_reduce_perf, .*\), not "hypercube_perf"$/,
    );
    expect(refusal(lines.filter((_, i) => i !== 1 && i !== lines.length - 3).join('\n'))).toMatch(
      /^run\.log: line \d+: expected "# Collective test starting: PROGRAM" .*--op all_reduce_perf$/,
    );
    expect(refusal(lines.filter((l) => !l.startsWith('#  Rank')).join('\n'))).toMatch(/expected the device lines/);
    expect(refusal('hello\n')).toMatch(/^run\.log: line 1: expected nccl-tests' column header/);
    expect(refusal('{"not": "a log"}')).toMatch(/^run\.log: line 1: expected nccl-tests' column header/);
  });

  it('reads a log from before nccl-tests named its program when told which', () => {
    const old = sample('all_reduce-4ranks.log')
      .split('\n')
      .filter((l) => !l.startsWith('# Collective test'))
      .join('\n');
    expect(readNcclTestsLog('old.log', old, { program: 'all_reduce_perf' }).rows).toHaveLength(6);
  });
});

describe('an nccl-tests -J JSON file', () => {
  const json = () => JSON.parse(sample('alltoall-2hosts.json'));

  it("reads every size's halves with each iteration and each process row, and NCCL's settings", () => {
    const r = readNcclTestsJson('a2a.json', json());
    expect(r).toMatchObject({ program: 'alltoall_perf', ncclVersion: 22803, startTime: '2026-03-02 09:15:00', iters: 5 });
    expect(r.env).toEqual({ NCCL_DEBUG: 'WARN', NCCL_IB_HCA: 'mlx5_0' });
    expect(r.rows.map((x) => x.size)).toEqual([1048576, 2097152, 4194304]);
    expect(r.rows[0].outOfPlace!.timesUs).toHaveLength(5);
    expect(r.rows[0].outOfPlace!.processTimesUs).toHaveLength(2);
    const record = importedRecord(r, { ...IMPORT, file: 'a2a.json' });
    expect(record.environment.backendNote).toBe('imported from nccl-tests JSON a2a.json (hosts node-1, node-2)');
    expect(record.steps[0]).toMatchObject({ bytes: 1048576, action: { op: 'all_to_all', count: 131072 } });
    // Each iteration the slower process row's.
    expect(record.steps[0].timing).toMatchObject({ samples: 5, min: 61.7, max: 62.6 });
    expect(record.plan.sweeps.map((x) => x.label)).toEqual(['all_to_all sweep']);
    expect(record.imported!.notes.join(' ')).toContain(
      "nccl-tests' in-place figures are left out: the lab runs all_to_all out of place only",
    );
  });

  it('refuses what is not nccl-tests JSON, naming the JSON path', () => {
    // The sample as parsed, edited by path: any key may be set to anything.
    const refusal = (edit: (j: ReturnType<typeof json>) => void) => {
      const j = json();
      edit(j);
      try {
        readNcclTestsJson('a2a.json', j);
      } catch (e) {
        expect(e).toBeInstanceOf(NcclTestsReadError);
        return (e as Error).message;
      }
      throw new Error('read without complaint');
    };
    expect(refusal((j) => (j.version = 2))).toBe(
      'a2a.json: $.version: expected nccl-tests JSON file version 3 (nccl-tests 2.17 and later)',
    );
    expect(refusal((j) => (j.results[1].size = 'big'))).toMatch(/^a2a\.json: \$\.results\[1\]\.size: /);
    expect(refusal((j) => (j.results[2].type = 'char'))).toMatch(/^a2a\.json: \$\.results\[2\]\.type: expected an element type/);
    expect(refusal((j) => (j.args[0] = '/opt/bin/hypercube_perf'))).toMatch(
      /^a2a\.json: \$\.args\[0\]: expected one of nccl-tests' programs/,
    );
    expect(refusal((j) => delete j.config.devices)).toMatch(/^a2a\.json: \$\.config\.devices: /);
    expect(refusal((j) => (j.results = []))).toBe('a2a.json: $.results: expected at least one result');
  });

  it("reads back what the lab's own nccl-tests export writes", () => {
    const record = importedRecord(readNcclTestsJson('a2a.json', json()), IMPORT);
    let text = '';
    writeNcclTestsJson(record, (c) => (text += c));
    const again = readNcclTestsJson('again.json', JSON.parse(text));
    expect(again.program).toBe('alltoall_perf');
    expect(again.rows.map((r) => [r.size, r.count, r.outOfPlace!.timeUs])).toEqual(
      readNcclTestsJson('a2a.json', json()).rows.map((r) => [r.size, r.count, r.outOfPlace!.timeUs]),
    );
  });
});
