// `clab run --step`: before each step, say what it will do and each rank's input, and wait for a
// line on stdin (Enter on a terminal) before running it. Lines typed ahead (or piped in) are
// used in order; once stdin ends, the remaining steps run without pausing. Of piped input only
// newlines are counted, never kept, and reading stops while more lines wait than steps remain: a
// `yes '' |` or a file without newlines holds no memory.
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { pauseDescription } from '../../shared/run/rank/step-mode.js';
import type { LabRun } from '../core/run/run.js';

export interface StepPromptOptions {
  input: Readable;
  /** Whether the input is a terminal (then Ctrl+C arrives through it, not as a signal). */
  terminal: boolean;
  write: (line: string) => void;
}

interface LineSource {
  /** Stop reading until resume(): enough lines wait. */
  pause(): void;
  resume(): void;
  close(): void;
}

/** A terminal: readline, which hands Ctrl+C to us in line mode rather than raising SIGINT. */
function terminalLines(input: Readable, line: () => void, ended: () => void, interrupted: () => void): LineSource {
  const lines = createInterface({ input, terminal: true });
  lines.on('line', line).on('close', ended).on('SIGINT', interrupted);
  return { pause: () => lines.pause(), resume: () => lines.resume(), close: () => lines.close() };
}

/** A pipe or a file: newlines counted as they arrive, nothing buffered. */
function pipedLines(input: Readable, line: () => void, ended: () => void): LineSource {
  let done = false;
  const end = () => {
    if (done) return;
    done = true;
    ended();
  };
  const onData = (chunk: Buffer | string) => {
    const text = typeof chunk === 'string' ? chunk : chunk.toString('latin1');
    for (let i = text.indexOf('\n'); i >= 0 && !done; i = text.indexOf('\n', i + 1)) line();
  };
  input.on('data', onData).on('end', end).on('close', end).on('error', end);
  return {
    pause: () => input.pause(),
    resume: () => {
      if (!done) input.resume();
    },
    close: () => {
      input.off('data', onData);
      input.pause();
      end();
    },
  };
}

/** Drives `run` one step at a time from lines of `input`; returns a function that lets go of the input. */
export function promptSteps(run: LabRun, o: StepPromptOptions): () => void {
  /** Lines that arrived before their pause; no more are read while this many wait. */
  const enoughAhead = Math.max(1, run.plan.steps.length);
  let typedAhead = 0;
  let ended = false;
  let waiting = false;
  let saidEnded = false;
  // Let go of once the run ends (stopped, failed or done): closing stdin then is not stdin ending.
  let released = false;
  const unpaused = () => {
    if (!saidEnded) o.write('[lab] stdin ended: the remaining steps run without pausing');
    saidEnded = true;
    run.next();
  };
  const go = () => {
    waiting = false;
    run.next();
  };
  const onLine = () => {
    if (waiting) return go();
    if (++typedAhead >= enoughAhead) source.pause();
  };
  const onEnd = () => {
    if (ended || released) return;
    ended = true;
    if (waiting) {
      waiting = false;
      unpaused();
    }
  };
  const source = o.terminal
    ? terminalLines(o.input, onLine, onEnd, () => run.stop('interrupted (SIGINT)'))
    : pipedLines(o.input, onLine, onEnd);
  run.on('paused', ({ step }) => {
    o.write(`⏸ ${pauseDescription(run.plan.steps[step], run.plan.world, run.plan.steps.length)}`);
    if (typedAhead) {
      typedAhead--;
      source.resume();
      return run.next();
    }
    if (ended) return unpaused();
    o.write(o.terminal ? "  predict each rank's result, then press Enter to run it" : '  waiting for a line on stdin to run it');
    waiting = true;
  });
  return () => {
    released = true;
    source.close();
  };
}
