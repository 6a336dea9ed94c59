// The GPU benches' tables (bench/gpu/profiler-table.cjs, sweep-table.cjs) on records whose ratios
// are known: a real run record from the cpu backend, its times scaled per side and repeat, and
// nccl-tests logs written from the same figures. The benches cannot run here; their tables can.
// Each table reads the record in either of its file forms (JSON, or packed past 8192 events) alike.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeRecordAtomic } from '../../src/main/core/library/record-store';
import { PACKED_FILE_MIN_EVENTS } from '../../src/shared/run/record/record-file';
import type { RunRecord } from '../../src/shared/run/record/record';

type Step = {
  origin: { kind: string };
  bytes: number;
  busbw: number;
  timing: { perOp?: number; mean: number };
};
type Rec = { steps: Step[]; events: unknown[] };

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'clab-bench-tables-'));
let base: Rec;
const REPEATS = 8;
const MiB = 1 << 20;

/** The base record with every sweep step's time × `factor` (busbw ÷ it). */
function scaled(factor: number): Rec {
  const r = structuredClone(base);
  for (const s of r.steps) {
    if (s.origin.kind !== 'sweep') continue;
    s.timing.perOp = (s.timing.perOp ?? s.timing.mean) * factor;
    s.busbw /= factor;
  }
  return r;
}
const write = (name: string, rec: Rec) => fs.writeFileSync(path.join(work, name), JSON.stringify(rec));
type Write = typeof write;
/** The record with its events repeated to PACKED_FILE_MIN_EVENTS: one the lab writes packed. */
function manyEvents(rec: Rec): Rec {
  const events = Array.from({ length: PACKED_FILE_MIN_EVENTS }, (_, i) => rec.events[i % rec.events.length]);
  return { ...rec, events };
}
/** The same record of many events in each of its file forms: as JSON, and packed by the lab's own writer. */
const forms: Record<'json' | 'packed', Write> = {
  json: (name, rec) => write(name, manyEvents(rec)),
  packed: (name, rec) => {
    const file = path.join(work, name);
    writeRecordAtomic(file, manyEvents(rec) as unknown as RunRecord);
    // A packed file starts with its summary line, which says so.
    const head = fs.readFileSync(file).subarray(0, 4096).toString('latin1');
    expect(head.slice(0, head.indexOf('\n'))).toContain('"packed":"clab.packed-run"');
  },
};
/** A small deterministic wobble per repeat, ±1 %. */
const wobble = (k: number) => 1 + 0.01 * Math.sin(k * 1.7);
const table = (script: string, ...args: string[]) => {
  const r = spawnSync(process.execPath, [path.resolve('bench/gpu', script), work, String(REPEATS), ...args], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, CLAB_B_ENV: 'CLAB_NCCL_PROFILER=0' },
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
};

beforeAll(() => {
  const scenario = {
    version: 1,
    name: 'bench tables',
    world: { ranks: 2 },
    defaults: { dtype: 'float32', warmup: 1, iters: 3 },
    steps: [{ op: 'sweep', collective: 'all_reduce', redop: 'sum', minBytes: 8, maxBytes: '2MiB', factor: 16 }],
  };
  const file = path.join(work, 'scenario.json');
  fs.writeFileSync(file, JSON.stringify(scenario));
  const out = path.join(work, 'base.run.json');
  const r = spawnSync(process.execPath, ['bin/clab.cjs', 'run', file, '--backend', 'cpu', '--ranks', '2', '--out', out], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(r.status, r.stderr + r.stdout).toBe(0);
  base = JSON.parse(fs.readFileSync(out, 'utf8')) as Rec;
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** profiler.sh's records: on 10 % slower than off in every repeat, off-again as off. */
function profilerRecords(writeRecord: Write) {
  for (let k = 1; k <= REPEATS; k++) {
    writeRecord(`off-${k}.run.json`, scaled(wobble(k)));
    writeRecord(`on-${k}.run.json`, scaled(1.1 * wobble(k)));
    writeRecord(`off-again-${k}.run.json`, scaled(wobble(k)));
  }
}

describe('bench/gpu/profiler-table.cjs', () => {
  it('reads a side 10 % slower in every repeat as missed, and the A/A pair as met, size by size', () => {
    profilerRecords(write);
    const sizes = base.steps.filter((s) => s.origin.kind === 'sweep').map((s) => s.bytes);
    const small = sizes.filter((b) => b < MiB).length;
    const out = table('profiler-table.cjs', 'on', 'off', 'off-again');
    expect(out).toContain(`# time per op below 1 MiB, on / off over the sizes: 1.100–1.100, median 1.100, ${small} of ${small} above 1.02`);
    expect(out).toMatch(new RegExp(`# paired verdicts, on: 0 met, ${sizes.length} missed`));
    expect(out).toMatch(new RegExp(`# paired verdicts, off-again: ${sizes.length} met, 0 missed, 0 unresolved`));
    expect(out).toMatch(/paired, on \/ off per repeat .*: 8 1\.100 \[1\.100–1\.100\] missed/);
  });

  it('gives the same table for packed records as for the same records in JSON', () => {
    profilerRecords(forms.json);
    const fromJson = table('profiler-table.cjs', 'on', 'off', 'off-again');
    expect(fromJson).toContain('# paired verdicts, on: 0 met');
    profilerRecords(forms.packed);
    expect(table('profiler-table.cjs', 'on', 'off', 'off-again')).toBe(fromJson);
  });
});

/** sweep.sh's records: clab 0.9 × the base's times in every repeat, clab-b 1.2 ×. */
function sweepRecords(writeRecord: Write) {
  for (let k = 1; k <= REPEATS; k++) {
    writeRecord(`clab-${k}.run.json`, scaled(0.9 * wobble(k)));
    writeRecord(`clab-b-${k}.run.json`, scaled(1.2 * wobble(k)));
  }
}

describe('bench/gpu/sweep-table.cjs', () => {
  it('sets clab, nccl-tests against itself and clab-b beside nccl-tests repeat by repeat', () => {
    for (const f of fs.readdirSync(work)) if (/^(on|off|off-again)-\d+\.run\.json$/.test(f)) fs.rmSync(path.join(work, f));
    sweepRecords(write);
    for (let k = 1; k <= REPEATS; k++) {
      fs.writeFileSync(path.join(work, `clab-${k}.wall`), '2.5\n');
      fs.writeFileSync(path.join(work, `clab-b-${k}.wall`), '3.0\n');
      fs.writeFileSync(path.join(work, `peer-${k}.wall`), '3.5\n');
      fs.writeFileSync(path.join(work, `clab-${k}.log`), `PASSED: …\ntime to answer: ${k === 1 ? '2.4 s' : '2100 ms'} = start 1 s + …\n`);
      // nccl-tests' rows: size count type redop root, out of place time algbw busbw #wrong, in place the same.
      for (const name of ['peer', 'peer2']) {
        const rows = base.steps
          .filter((s) => s.origin.kind === 'sweep')
          .map((s) => {
            const us = (s.timing.perOp ?? s.timing.mean) * wobble(k);
            const bus = s.busbw / wobble(k);
            return `${s.bytes} ${s.bytes / 4} float sum -1 ${us} ${bus} ${bus} 0 ${us} ${bus} ${bus} 0`;
          });
        fs.writeFileSync(path.join(work, `${name}-${k}-all_reduce_perf.log`), rows.join('\n') + '\n');
      }
    }
    const small = base.steps.filter((s) => s.origin.kind === 'sweep' && s.bytes < MiB).length;
    const out = table('sweep-table.cjs');
    expect(out).toContain('all_reduce < 1 MiB, time per op > 1.0 × nccl-tests: none');
    expect(out).toMatch(
      new RegExp(
        `paired clab / nccl-tests per repeat, all_reduce < 1 MiB .*: median of the sizes' medians 0\\.900; ${small} met, 0 missed`,
      ),
    );
    expect(out).toMatch(
      new RegExp(`paired nccl-tests \\(A/A\\) / nccl-tests per repeat, all_reduce .*; ${small} met, 0 missed, 0 unresolved`),
    );
    expect(out).toMatch(new RegExp(`paired clab-b / nccl-tests per repeat, all_reduce .*; 0 met, ${small} missed`));
    expect(out).toContain('clab-b (CLAB_NCCL_PROFILER=0), all_reduce < 1 MiB, clab-b / nccl-tests: 1.200–1.200');
    expect(out).toContain('clab / clab-b: 0.750–0.750');
    expect(out).toMatch(/whole sweep, process start to exit .*clab 2\.50 s .*nccl-tests 3\.50 s .*ratio 0\.714/);
    expect(out).toMatch(/whole sweep, clab-b \(CLAB_NCCL_PROFILER=0\): 3\.00 s .*ratio 0\.857; clab \/ clab-b 0\.833/);
    // The answer's own wall, read from each run's line (2.4 s once, 2100 ms after): the median 2.10 s against 3.50.
    expect(out).toMatch(
      /time to answer \(each clab run's `time to answer:` line.*\): clab 2\.10 s \(runs 2\.40, 2\.10.*ratio to nccl-tests' 3\.50 s 0\.600/,
    );
    expect(out).not.toContain('launch:');
  });

  it("says how many of clab's sweep steps were graph-launched beside nccl-tests' -G (GRAPH)", () => {
    const sweepSteps = base.steps.filter((s) => s.origin.kind === 'sweep').length;
    const graphed = (k: number, all: boolean) => {
      const r = scaled(0.9 * wobble(k));
      (r.steps as (Step & { ranks: { launch?: string }[] })[]).forEach((s, i) =>
        s.ranks.forEach((rank) => (rank.launch = all || i > 0 ? 'graph' : undefined)),
      );
      return r;
    };
    for (let k = 1; k <= REPEATS; k++) write(`clab-${k}.run.json`, graphed(k, k > 1));
    const out = spawnSync(process.execPath, [path.resolve('bench/gpu/sweep-table.cjs'), work, String(REPEATS)], {
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, GRAPH: '20' },
    }).stdout;
    expect(out).toContain(
      `launch: clab graph-launched ${REPEATS * sweepSteps - 1} of ${REPEATS * sweepSteps} sweep steps over the runs (each size's iterations captured in one CUDA graph, one replay timed); nccl-tests -G 20 (that many replays of its graph of the same iterations)`,
    );
  });

  it('gives the same table for packed records as for the same records in JSON', () => {
    sweepRecords(forms.json);
    const fromJson = table('sweep-table.cjs');
    expect(fromJson).toMatch(/paired clab \/ nccl-tests per repeat, all_reduce .*: median of the sizes' medians 0\.900/);
    sweepRecords(forms.packed);
    expect(table('sweep-table.cjs')).toBe(fromJson);
  });
});

describe('bench/gpu/results.cjs record', () => {
  const results = (file: string) => {
    const r = spawnSync(process.execPath, [path.resolve('bench/gpu/results.cjs'), 'record', path.join(work, file)], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status, r.stderr).toBe(0);
    return r.stdout;
  };

  it("prints a packed record's results as it prints the same record in JSON", () => {
    forms.json('results-json.run.json', base);
    forms.packed('results-packed.run.json', base);
    const fromJson = results('results-json.run.json');
    expect(fromJson).toMatch(/^STATUS status=passed backend=cpu world=2 steps=\d+ wrong=0 error=null\n/);
    expect(fromJson).toContain('RESULT op=all_reduce bytes=8 count=2 ');
    expect(results('results-packed.run.json')).toBe(fromJson);
  });

  it('refuses a file that is no record in one line naming it', () => {
    fs.writeFileSync(path.join(work, 'broken.run.json'), '{"format": "clab.run", "version": 1');
    const r = spawnSync(process.execPath, [path.resolve('bench/gpu/results.cjs'), 'record', path.join(work, 'broken.run.json')], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`${path.join(work, 'broken.run.json')}: cannot read the run record: its JSON breaks at line 1`);
  });
});
