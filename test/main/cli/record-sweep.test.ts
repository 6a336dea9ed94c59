// Hostile run records through what `clab replay`, `export` and `compare` do with them: any value put
// anywhere in a real record (from runs of plain steps, a sweep, pairs and a compare block on cpu
// ranks), a record cut short, or the key order changed ends in a refusal naming the file, or in
// text — never another exception, a hang, or output that acts on the terminal.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRecord } from '../../../src/main/core/library/record-store';
import { LabRun } from '../../../src/main/core/run/run';
import { visibleControls } from '../../../src/shared/data/control-chars';
import { chromeTrace, compareRuns, comparisonReport, resultsCsv, resultsJson } from '../../../src/shared/export/index';
import { pairsMatrix, runReport, statusLine } from '../../../src/shared/export/format';
import { compilePlan } from '../../../src/shared/plan/compile';
import type { RunRecord } from '../../../src/shared/run/record/record';
import { scenarioSchema } from '../../../src/shared/scenario/schema';

const dir = mkdtempSync(join(tmpdir(), 'clab-record-sweep-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SCENARIOS = [
  {
    version: 1,
    name: 'steps',
    world: { ranks: 2 },
    defaults: { warmup: 0, iters: 2 },
    steps: [
      { op: 'all_reduce', count: 4, label: 'sum' },
      { op: 'broadcast', count: 3, root: 1 },
      { op: 'send', from: 0, to: 1, count: 2 },
      { op: 'barrier' },
    ],
  },
  {
    version: 1,
    name: 'sweep',
    world: { ranks: 2 },
    defaults: { warmup: 0, iters: 1 },
    steps: [{ op: 'sweep', collective: 'all_gather', minBytes: 64, maxBytes: 1024, factor: 4 }],
  },
  { version: 1, name: 'pairs', world: { ranks: 3 }, defaults: { warmup: 0, iters: 1 }, steps: [{ op: 'pairs', bytes: 64 }] },
  {
    version: 1,
    name: 'compare',
    world: { ranks: 2 },
    defaults: { warmup: 0, iters: 1 },
    steps: [
      {
        op: 'compare',
        repeat: 2,
        warmup: 0,
        variants: [
          { name: 'a', steps: [{ op: 'all_reduce', count: 16 }] },
          { name: 'b', steps: [{ op: 'all_reduce', count: 16, async: true }, { op: 'wait' }] },
        ],
      },
    ],
  },
];

let records: RunRecord[] = [];
beforeAll(async () => {
  records = [];
  for (const s of SCENARIOS) {
    const scenario = scenarioSchema.parse(s);
    records.push(
      await new LabRun({ plan: compilePlan(scenario), backend: 'cpu', scenario, scenarioFile: `${s.name}.scenario.json` }).run(),
    );
  }
}, 120_000);

/** Everything replay, export (every format) and compare print or write for a record, as one text. */
function everyOutput(record: RunRecord, other: RunRecord): string {
  const pairs = record.plan.pairs.flatMap((_, i) => pairsMatrix(record, i));
  return [
    ...runReport(record),
    statusLine(record),
    ...pairs,
    JSON.stringify(chromeTrace(record)),
    resultsCsv(record),
    JSON.stringify(resultsJson(record)),
    ...comparisonReport(compareRuns(other, record)),
    ...comparisonReport(compareRuns(record, other)),
  ].join('\n');
}

/** Reads `text` as `clab` reads a record file; then what the commands do with it. A refusal names the file. */
function throughTheCommands(text: string, other: RunRecord): void {
  const file = join(dir, 'mutated.run.json');
  writeFileSync(file, text);
  let record: RunRecord;
  try {
    record = readRecord(file);
  } catch (e) {
    expect(e).toBeInstanceOf(Error);
    expect((e as Error).message.startsWith(`${file}: `)).toBe(true);
    return;
  }
  const printed = everyOutput(record, other);
  // What reaches a terminal goes through visibleControls (common.ts): none of it is left acting.
  expect(visibleControls(printed)).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
}

function paths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return [at, ...value.flatMap((v, i) => paths(v, [...at, i]))];
  if (value && typeof value === 'object') return [at, ...Object.entries(value).flatMap(([k, v]) => paths(v, [...at, k]))];
  return [at];
}

function replaced(value: unknown, path: (string | number)[], by: unknown): unknown {
  if (!path.length) return by;
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let node = copy;
  if (!node || typeof node !== 'object') return copy;
  for (const key of path.slice(0, -1)) {
    node = node[key] as Record<string | number, unknown>;
    if (!node || typeof node !== 'object') return copy; // an earlier edit replaced what held this path
  }
  if (by === undefined && !Array.isArray(node)) delete node[path.at(-1)!];
  else node[path.at(-1)!] = by;
  return copy;
}

const hostile = fc.oneof(
  fc.constantFrom(
    undefined,
    null,
    0,
    -1,
    -3,
    1,
    2,
    64,
    65,
    1e9,
    1e300,
    -1e300,
    0.5,
    2 ** 53,
    '',
    'x',
    '\u001b[2J\u009b31m\u202e',
    '__proto__',
    [],
    {},
    [0],
    true,
  ),
  fc.jsonValue({ maxDepth: 3 }),
);

describe('hostile run records through replay, export and compare', () => {
  it('any value put anywhere in a real record, up to three at once', () => {
    const all = records.map((r) => paths(r));
    fc.assert(
      fc.property(
        fc.nat({ max: SCENARIOS.length - 1 }),
        fc.array(fc.tuple(fc.nat(), hostile), { minLength: 1, maxLength: 3 }),
        fc.nat({ max: SCENARIOS.length - 1 }),
        (which, edits, otherIndex) => {
          const mutated = edits.reduce<unknown>(
            (r, [pick, value]) => replaced(r, all[which][pick % all[which].length], value),
            records[which],
          );
          throughTheCommands(JSON.stringify(mutated) ?? '', records[otherIndex]);
        },
      ),
      { numRuns: 600 },
    );
  }, 120_000);

  it('a record cut short, with stray text, or its steps, events and logs shuffled between records', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: SCENARIOS.length - 1 }),
        fc.nat({ max: SCENARIOS.length - 1 }),
        fc.nat(),
        fc.string({ maxLength: 4 }),
        fc.constantFrom('steps', 'events', 'logs', 'compares', 'plan', 'environment', 'error', 'world'),
        (which, from, at, stray, key) => {
          const text = JSON.stringify(records[which]);
          const cut = at % (text.length + 1);
          throughTheCommands(text.slice(0, cut) + stray + text.slice(cut), records[from]);
          // A part of another record in this one's place: valid alone, inconsistent together.
          throughTheCommands(
            JSON.stringify({ ...records[which], [key]: (records[from] as unknown as Record<string, unknown>)[key] }),
            records[which],
          );
        },
      ),
      { numRuns: 300 },
    );
  }, 120_000);
});
