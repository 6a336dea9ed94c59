// A run record on disk in each form, side by side on one real record (bench, not a test): the JSON
// form every record had (A, twice: the A/A says the noise), the form records of many events are
// written in now (packed: a summary line, then the packed run; record-file.ts), and gzip of the
// JSON (node:zlib level 1, the other form considered). For each: the file's bytes, writing it
// (encoding included), opening it as clab does (read, parse, check), opening it as a door sends it
// to the page (SavedRuns.openPacked: a JSON file is parsed and packed, a packed one sent as it lies)
// and listing it (its head). Medians of ROUNDS rounds, the forms taking turns in each.
//
//   npx tsx bench/cpu/record-form.ts                       records bench/cpu/record-sweep.scenario.json first (90 000 events)
//   RECORD=runs/x.run.json ROUNDS=9 npx tsx bench/cpu/record-form.ts
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { readRecord, writeRecordAtomic } from '../../src/main/core/library/record-store';
import { SavedRuns } from '../../src/main/core/library/saved-runs';
import { medianWithInterval } from '../../src/shared/data/stats';
import { validateRecord } from '../../src/shared/run/record/record-text';
import { writesPacked } from '../../src/shared/run/record/record-file';
import type { RunRecord } from '../../src/shared/run/record/record';

const ROUNDS = Math.max(3, Math.min(50, Number(process.env.ROUNDS ?? 7)));
const dir = mkdtempSync(join(tmpdir(), 'clab-record-form-'));

function theRecord(): { record: RunRecord; from: string } {
  const given = process.env.RECORD;
  const from = given ?? join(dir, 'sweep.run.json');
  if (!given)
    execFileSync(process.execPath, ['bin/clab.cjs', 'run', 'bench/cpu/record-sweep.scenario.json', '--backend', 'cpu', '--out', from], {
      stdio: 'ignore',
    });
  return { record: readRecord(from), from };
}

interface Form {
  name: string;
  write(file: string, record: RunRecord): void;
  open(file: string): RunRecord;
}

/** The record as JSON as the core writes it: the fields a listing shows first (core/run). */
function asJson(r: RunRecord): string {
  const { format, version, id, createdAt, finishedAt, scenarioFile, world, status, environment, error, ...rest } = r;
  return JSON.stringify({ format, version, id, createdAt, finishedAt, scenarioFile, world, status, environment, error, ...rest });
}

const json: (name: string) => Form = (name) => ({
  name,
  write: (file, record) => writeFileSync(file, asJson(record)),
  open: (file) => readRecord(file),
});
const forms: Form[] = [
  json('A: JSON'),
  json("A': JSON again (A/A)"),
  {
    name: 'B: packed (now)',
    write: (file, record) => void writeRecordAtomic(file, record),
    open: (file) => readRecord(file),
  },
  {
    name: 'C: JSON, gzip -1',
    write: (file, record) => writeFileSync(file, gzipSync(asJson(record), { level: 1 })),
    open: (file) => {
      const r = validateRecord(JSON.parse(gunzipSync(readFileSync(file)).toString('utf8')));
      if (!r.ok) throw new Error(r.problem);
      return r.record;
    },
  },
];

const ms = (from: number) => performance.now() - from;

async function main(): Promise<void> {
  const { record, from } = theRecord();
  if (!writesPacked(record)) console.log(`note: ${from} has ${record.events.length} events, fewer than are written packed; B writes JSON`);
  const samples = forms.map(() => ({ write: [] as number[], open: [] as number[], page: [] as number[], list: [] as number[], bytes: 0 }));
  for (let round = 0; round < ROUNDS; round++) {
    // A new order each round (rotated), so drift in the machine's load falls on every form alike.
    for (let k = 0; k < forms.length; k++) {
      const i = (k + round) % forms.length;
      const form = forms[i];
      const folder = join(dir, `form-${i}-${round}`);
      mkdirSync(folder);
      const file = join(folder, 'run.run.json');
      let t = performance.now();
      form.write(file, record);
      samples[i].write.push(ms(t));
      samples[i].bytes = statSync(file).size;
      t = performance.now();
      const opened = form.open(file);
      samples[i].open.push(ms(t));
      if (opened.events.length !== record.events.length) throw new Error(`${form.name}: ${opened.events.length} events read back`);
      if (i !== 3) {
        // A door: the listing (each file's head), then the page's packed run, each by a fresh SavedRuns.
        t = performance.now();
        const [listed] = await new SavedRuns(folder).list();
        samples[i].list.push(ms(t));
        if (listed?.partial) throw new Error(`${form.name}: listed partial`);
        t = performance.now();
        await new SavedRuns(folder).openPacked(file);
        samples[i].page.push(ms(t));
      }
      rmSync(folder, { recursive: true });
    }
  }
  const median = (xs: number[]) => (xs.length ? medianWithInterval(xs).median : NaN);
  const a = samples[0];
  const cell = (xs: number[], base: number[]) =>
    xs.length ? `${median(xs).toFixed(1)} (×${(median(xs) / median(base)).toFixed(2)})` : 'n/a';
  console.log(
    `record: ${from}, ${record.events.length} events; ${ROUNDS} rounds, medians in ms (× the JSON's); ${new Date().toISOString()}, node ${process.version}`,
  );
  console.log('| form | bytes | write | open (clab) | open (page) | list |');
  console.log('|---|---:|---:|---:|---:|---:|');
  forms.forEach((f, i) => {
    const s = samples[i];
    console.log(
      `| ${f.name} | ${s.bytes} (×${(s.bytes / a.bytes).toFixed(2)}) | ${cell(s.write, a.write)} | ${cell(s.open, a.open)} | ${cell(s.page, a.page)} | ${cell(s.list, a.list)} |`,
    );
  });
  rmSync(dir, { recursive: true, force: true });
}

main().catch((e) => {
  rmSync(dir, { recursive: true, force: true });
  console.error(e);
  process.exit(1);
});
