// `clab run` ends with, and `clab replay` prints, where the run's time went (issue 39): real rank
// processes on the cpu backend, the built bundle. The line's parts come from the core's marks and
// the ranks' own "joined" lines, so a change to either that loses a part fails here.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRecord } from '../../../src/main/core/library/record-store';
import { tempDir } from '../../setup/temp-dirs';

const clab = (...args: string[]) => spawnSync(process.execPath, ['bin/clab.cjs', ...args], { encoding: 'utf8', timeout: 60_000 });
const dir = tempDir('cli-time-to-answer');
// A duration as the line writes it (formatDuration, data/units.ts): 0 ns, 402 µs, 25.2 ms, 4.24 s.
const D = '[\\d.]+ (?:ns|µs|ms|s)';
const KNOWN = new RegExp(
  `^time to answer: ${D} = start ${D} \\(core ${D}, forking the ranks ${D}, ranks loading ${D}\\) \\+ init ${D} \\(cpu communicator ${D}\\) ` +
    `\\+ steps ${D} \\(rank 0: timed loops ${D}, warm-up ${D}, fill/check ${D}, per-iteration pass ${D}\\) \\+ save ${D} \\+ other ${D}$`,
);
const lastLine = (text: string) => text.trimEnd().split('\n').at(-1)!;

describe('time to answer', () => {
  it('is the last line of a run, every part known, and replay prints it again from the record', () => {
    const out = join(dir, 'sweep.run.json');
    const r = clab('run', 'scenarios/allreduce-sweep.scenario.json', '--ranks', '2', '--backend', 'cpu', '--out', out);
    expect(r.status).toBe(0);
    expect(lastLine(r.stdout)).toMatch(KNOWN);
    const marks = readRecord(out).timeMarks!;
    expect(marks.askedNs).toBeLessThan(marks.forkNs);
    expect(marks.forkNs).toBeLessThan(marks.runEndNs);
    expect(marks.saveStartNs).toBeLessThanOrEqual(marks.saveEndNs!);
    const replay = clab('replay', out);
    expect(lastLine(replay.stdout)).toMatch(KNOWN);
  });

  it('goes to stderr beside --json, whose stdout stays the record alone', () => {
    const r = clab('run', 'scenarios/allreduce-sweep.scenario.json', '--backend', 'cpu', '--json', '--out', join(dir, 'json.run.json'));
    expect(r.status).toBe(0);
    expect((JSON.parse(r.stdout) as { timeMarks: unknown }).timeMarks).toBeDefined();
    expect(lastLine(r.stderr)).toMatch(KNOWN);
  });
});
