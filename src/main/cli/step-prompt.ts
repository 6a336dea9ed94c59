// `clab run --step`: before each step, say what it will do and each rank's input, and wait for a
// line on stdin (Enter on a terminal) before running it. Lines typed ahead (or piped in) are
// used in order; once stdin ends, the remaining steps run without pausing.
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { pauseDescription } from '../../shared/run/step-mode.js';
import type { LabRun } from '../core/run.js';

export interface StepPromptOptions {
  input: Readable;
  /** Whether the input is a terminal (then Ctrl+C arrives through it, not as a signal). */
  terminal: boolean;
  write: (line: string) => void;
}

/** Drives `run` one step at a time from lines of `input`; returns a function that lets go of the input. */
export function promptSteps(run: LabRun, o: StepPromptOptions): () => void {
  const lines = createInterface({ input: o.input, terminal: o.terminal });
  const typed: string[] = [];
  let ended = false;
  let waiting = false;
  let saidEnded = false;
  const unpaused = () => {
    if (!saidEnded) o.write('[lab] stdin ended: the remaining steps run without pausing');
    saidEnded = true;
    run.next();
  };
  const go = () => {
    waiting = false;
    run.next();
  };
  lines.on('line', (line) => {
    if (waiting) go();
    else typed.push(line);
  });
  lines.on('close', () => {
    ended = true;
    if (waiting) {
      waiting = false;
      unpaused();
    }
  });
  // A terminal in line mode hands Ctrl+C to the interface rather than raising SIGINT.
  lines.on('SIGINT', () => run.stop('interrupted (SIGINT)'));
  run.on('paused', ({ step }) => {
    o.write(`⏸ ${pauseDescription(run.plan.steps[step], run.plan.world, run.plan.steps.length)}`);
    if (typed.length) {
      typed.shift();
      return run.next();
    }
    if (ended) return unpaused();
    o.write(o.terminal ? '  predict each rank\'s result, then press Enter to run it' : '  waiting for a line on stdin to run it');
    waiting = true;
  });
  return () => lines.close();
}
