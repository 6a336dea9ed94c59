// Step mode's input: lines piped in ahead are used in order, and an endless stream of them
// (`yes '' | clab run X --step`) is not read further than the steps that remain can use.
import { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { promptSteps } from '../../../src/main/cli/step-prompt';
import type { LabRun } from '../../../src/main/core/run/run';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A run of `steps` barriers that pauses when told to, counting next(). */
function fakeRun(steps: number) {
  const run = Object.assign(new EventEmitter(), {
    plan: {
      world: 2,
      steps: Array.from({ length: steps }, (_, index) => ({
        index,
        label: 'barrier',
        action: { kind: 'barrier' },
        origin: { kind: 'step', path: `steps[${index}]` },
      })),
    },
    nexts: 0,
    next() {
      run.nexts++;
      return true;
    },
    stop() {},
  });
  return run;
}

describe('clab run --step input', () => {
  it('stops reading an endless stream of lines once more wait than steps remain, and uses them in order', async () => {
    let produced = 0;
    const endless = new Readable({
      read() {
        produced += 65536;
        this.push(Buffer.alloc(65536, 10));
      },
    });
    const run = fakeRun(3);
    const written: string[] = [];
    const release = promptSteps(run as unknown as LabRun, { input: endless, terminal: false, write: (l) => written.push(l) });
    await sleep(300);
    // A few chunks at most (the stream's own read-ahead), not the tens of MB 300 ms of `yes` gives.
    expect(produced).toBeLessThan(1024 * 1024);
    for (let step = 0; step < 3; step++) run.emit('paused', { step });
    expect(run.nexts).toBe(3);
    expect(written.filter((l) => l.startsWith('  waiting'))).toEqual([]);
    release();
    endless.destroy();
  });

  it('waits for a line when none was typed ahead, and runs on once the input ends', async () => {
    const input = new Readable({ read() {} });
    const run = fakeRun(2);
    const written: string[] = [];
    const release = promptSteps(run as unknown as LabRun, { input, terminal: false, write: (l) => written.push(l) });
    run.emit('paused', { step: 0 });
    expect(written.at(-1)).toBe('  waiting for a line on stdin to run it');
    input.push('\n');
    await sleep(20);
    expect(run.nexts).toBe(1);
    input.push(null);
    await sleep(20);
    run.emit('paused', { step: 1 });
    expect(run.nexts).toBe(2);
    expect(written).toContain('[lab] stdin ended: the remaining steps run without pausing');
    release();
  });
});
