// `clab export --format chrome-trace` read by a parser made by others: the trace engine of Chrome
// DevTools' Performance panel (@paulirish/trace_engine, its Node build), on a run of real cpu rank
// processes with sends and receives. Every slice must be found, and an arrow for every send→recv.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { TraceModel, type Types } from '@paulirish/trace_engine';
import { runRecordSchema, type RunRecord } from '../../../src/shared/run/record/record.js';
import { tempDir } from '../../setup/temp-dirs';

/** DevTools' model with every handler, as its Performance panel parses a trace. */
async function devtoolsParse(traceEvents: unknown[]) {
  const model = TraceModel.Model.createWithAllHandlers();
  await model.parse(traceEvents as Types.Events.Event[]);
  const parsed = model.parsedTrace();
  if (!parsed) throw new Error('the trace engine parsed nothing');
  return parsed.data;
}

const clab = (...args: string[]) => spawnSync(process.execPath, ['bin/clab.cjs', ...args], { encoding: 'utf8', timeout: 60_000 });
const dir = tempDir('devtools');

const scenario = join(dir, 'p2p.scenario.json');
writeFileSync(
  scenario,
  JSON.stringify({
    version: 1,
    name: 'p2p',
    world: { ranks: 3 },
    steps: [
      { op: 'send', label: 'send 0→1', from: 0, to: 1, count: 4096, warmup: 1, iters: 4 },
      {
        op: 'group',
        label: 'ring',
        iters: 2,
        steps: [
          { op: 'send', from: 0, to: 1, count: 64 },
          { op: 'send', from: 1, to: 2, count: 64 },
          { op: 'send', from: 2, to: 0, count: 64 },
        ],
      },
      { op: 'all_reduce', count: 1024, iters: 2 },
      { op: 'send', label: 'send 2→0', from: 2, to: 0, count: 16, iters: 3 },
    ],
  }),
);

/** Send→recv pairs, counted from the record alone: per p2p transfer, step and phase, the iterations both ranks ran. */
function sendRecvPairs(record: RunRecord): number {
  const count = (rank: number, step: number, phase: string) =>
    record.events.filter((e) => e.rank === rank && e.step === step && e.phase === phase).length;
  let pairs = 0;
  for (const [index, step] of record.plan.steps.entries()) {
    const action = step.action;
    const items = action.kind === 'p2p' ? [action] : action.kind === 'group' ? action.items.filter((i) => i.kind === 'p2p') : [];
    for (const { from, to } of items)
      for (const phase of ['warmup', 'timed']) pairs += Math.min(count(from, index, phase), count(to, index, phase));
  }
  return pairs;
}

describe('an exported trace in Chrome DevTools’ trace engine', () => {
  let record: RunRecord;
  let parsed: Awaited<ReturnType<typeof devtoolsParse>>;
  beforeAll(async () => {
    const run = join(dir, 'p2p.run.json');
    const r = clab('run', scenario, '--backend', 'cpu', '--out', run);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    record = runRecordSchema.parse(JSON.parse(readFileSync(run, 'utf8')));
    const out = join(dir, 'p2p.trace.json');
    const e = clab('export', run, '--format', 'chrome-trace', '-o', out);
    expect(e.status).toBe(0);
    parsed = await devtoolsParse((JSON.parse(readFileSync(out, 'utf8')) as { traceEvents: unknown[] }).traceEvents);
  }, 120_000);

  it('finds every slice of every rank', () => {
    const entries = [...parsed.Renderer.processes.values()].flatMap((p) => [...p.threads.values()].flatMap((t) => t.entries));
    expect(record.events.length).toBeGreaterThan(30);
    expect(entries.filter((e) => e.ph === 'X')).toHaveLength(record.events.length);
    expect(new Set(entries.map((e) => e.pid))).toEqual(new Set([0, 1, 2]));
  });

  it('finds an arrow for every send→recv pair, from the sender to the receiver of the same step', () => {
    const flows = parsed.Flows.flows;
    const pairs = sendRecvPairs(record);
    expect(pairs).toBe(1 + 4 + 3 * 2 + 3); // one warm-up and 4 iterations, a ring of 3 twice, 3 iterations
    expect(flows).toHaveLength(pairs);
    for (const flow of flows) {
      expect(flow).toHaveLength(2);
      const [send, recv] = flow;
      const stepOf = (e: Types.Events.Event) => (e.args as { step?: number }).step;
      expect(stepOf(send)).toBe(stepOf(recv));
      expect(send.pid).not.toBe(recv.pid);
    }
  });
});
