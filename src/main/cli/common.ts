// What every command shares: output, exit codes, how usage errors are reported.
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { inertJson, visibleControls } from '../../shared/data/control-chars.js';
import { isWarning, ScenarioFileError, type FileProblem } from '../../shared/plan/text.js';
import { recordAsItsStepsSay } from '../../shared/results/record-status.js';
import type { RunRecord } from '../../shared/run/record/record.js';
import { readRecord } from '../core/library/record-store.js';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

let stdoutClosed = false;
let stderrClosed = false;
/**
 * A reader that goes away (`clab run … | head -1`) closes the pipe: what is printed after that
 * goes nowhere, and the command carries on (a run still writes its record) instead of dying on
 * EPIPE.
 */
export function tolerateClosedPipes(): void {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') stdoutClosed = true;
    else throw e;
  });
  process.stderr.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') stderrClosed = true;
    else throw e;
  });
}

/**
 * Every line `clab` prints goes through these: what it prints comes from files (scenario names and
 * keys, labels, lessons, log lines, paths in messages), and no control character in them reaches
 * the terminal (shared/data/control-chars.ts).
 */
export const out = (line: string) => {
  if (!stdoutClosed) process.stdout.write(`${visibleControls(line)}\n`);
};
export const err = (line: string) => {
  if (!stderrClosed) process.stderr.write(`${visibleControls(line)}\n`);
};
/** JSON on stdout, its control characters as \u escapes (still the same JSON). */
export const outJson = (json: string) => {
  if (!stdoutClosed) process.stdout.write(`${inertJson(json)}\n`);
};

export const rankCount = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new InvalidArgumentError('expected a whole number of ranks from 1 to 64');
  return n;
};

const problemLine = (p: FileProblem) =>
  `${p.file}:${p.line}:${p.column}: ${isWarning(p) ? 'warning' : 'error'}: ${p.path ? `${p.path}: ` : ''}${p.message}`;

/** A saved run as `clab` shows it: with the status its steps give it, and a notice where the record said otherwise. */
export function readShownRecord(file: string): RunRecord {
  const { record, notice } = recordAsItsStepsSay(readRecord(file), file);
  if (notice) err(`clab: ${notice}`);
  return record;
}

/** Warnings of a scenario that loaded (a duplicate key): printed, refusing nothing. */
export function reportWarnings(warnings: FileProblem[]): void {
  for (const p of warnings) err(problemLine(p));
}

export function reportUsageError(e: unknown): number {
  if (e instanceof ScenarioFileError) {
    for (const p of e.problems) err(problemLine(p));
    const warnings = e.problems.filter(isWarning).length;
    const errors = e.problems.length - warnings;
    err(`${errors} problem${errors === 1 ? '' : 's'} found${warnings ? ` (and ${warnings} warning${warnings === 1 ? '' : 's'})` : ''}`);
  } else {
    err(`clab: ${(e as Error).message}`);
  }
  return EXIT_USAGE;
}

/** A command registers itself on the program and reports its exit status through setExit. */
export type RegisterCommand = (program: Command, setExit: (code: number) => void) => void;
