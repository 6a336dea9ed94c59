// `clab export --format chrome-trace` of a large run in bounded memory: the trace is written as
// it is made, never held whole, so a heap far smaller than the trace's text and objects is enough.
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { roundsFor, syntheticRecord } from '../../../bench/timeline/synthetic-record.js';
import { tempDir } from '../../setup/temp-dirs';

const EVENTS = 200_000;
/** MiB of V8 heap: the trace written whole (its events as objects, then as one string) needs about 250 at this size; streamed, about 110. */
const HEAP_MIB = 176;

describe('clab export of a large run', () => {
  it(`writes the trace of ${EVENTS} events with a ${HEAP_MIB} MiB heap`, () => {
    const dir = tempDir('export-memory');
    const shape = { ranks: 8, warmup: 2, iters: 10 };
    const record = syntheticRecord({ ...shape, rounds: roundsFor(EVENTS, shape), name: 'large' });
    const file = join(dir, 'large.run.json');
    writeFileSync(file, JSON.stringify(record));
    const out = join(dir, 'large.trace.json');
    const r = spawnSync(
      process.execPath,
      [`--max-old-space-size=${HEAP_MIB}`, 'bin/clab.cjs', 'export', file, '--format', 'chrome-trace', '-o', out],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    // Its text alone is over a third of the heap it was written with.
    expect(statSync(out).size).toBeGreaterThan((HEAP_MIB * 2 ** 20) / 3);
    const trace = JSON.parse(readFileSync(out, 'utf8')) as { traceEvents: { ph: string }[] };
    expect(trace.traceEvents.filter((e) => e.ph === 'X')).toHaveLength(record.events.length);
    expect(trace.traceEvents.filter((e) => e.ph === 's').length).toBeGreaterThan(0);
  }, 180_000);
});
