// Prints a run as it happens: result lines for plain steps, nccl-tests rows for sweeps (a
// progress bar instead when stdout is a terminal), and the summaries at the end.
import { SingleBar, Presets } from 'cli-progress';
import {
  compareSummary,
  loopStallLines,
  sweepLoopStallNotes,
  sweepRanNotes,
  stepRanLines,
  pairsMatrix,
  resultLines,
  statusLine,
  SWEEP_HEADER,
  sweepTitle,
  sweepModelTable,
  sweepRow,
  sweepTable,
  timingLine,
} from '../../shared/export/format.js';
import { hostLines } from '../../shared/results/hosts.js';
import { insideNcclHint } from '../../shared/run/nccl/inside-nccl.js';
import { environmentLine } from '../../shared/export/environment-line.js';
import { visibleControls } from '../../shared/data/control-chars.js';
import type { Plan } from '../../shared/plan/types.js';
import { describeTimeLeft, planWork, RunClock } from '../../shared/results/time-left.js';
import type { LogLine, RunRecord, StepRecord } from '../../shared/run/record/record.js';

export interface ReporterOptions {
  tty: boolean;
  verbose: boolean;
  write: (line: string) => void;
  writeErr: (line: string) => void;
}

export class LiveReporter {
  private bar: SingleBar | null = null;
  private sweepsStarted = new Set<number>();
  private readonly sweepSteps: number;
  private sweepDone = 0;
  /** Elapsed time and what is left, on the bar (time-left.ts). */
  private readonly clock: RunClock;

  constructor(
    private readonly plan: Plan,
    private readonly o: ReporterOptions,
  ) {
    this.sweepSteps = plan.steps.filter((s) => s.origin.kind === 'sweep').length;
    this.clock = new RunClock(planWork(plan), Date.now());
  }

  // Labels and rank output come from the scenario and the ranks: shown, never acting on the terminal.
  private out(line: string): void {
    this.o.write(visibleControls(line));
  }

  private err(line: string): void {
    this.o.writeErr(visibleControls(line));
  }

  log(line: LogLine): void {
    const isError = line.text.startsWith('error:');
    if (!this.o.verbose && !isError) return;
    this.err(line.rank === null ? `[lab] ${line.text}` : `[Rank ${line.rank}] ${line.text}`);
  }

  step(step: StepRecord): void {
    this.clock.stepsEnded([step.index], Date.now());
    const o = step.origin;
    if (o.kind === 'sweep') return this.sweepStep(step, o.sweep);
    if (o.kind !== 'step' || step.action.kind === 'wait') return;
    for (const line of resultLines(step)) this.out(line);
    const t = timingLine(step);
    if (t) this.out(t);
    for (const line of loopStallLines(step)) this.out(line);
  }

  private sweepStep(step: StepRecord, sweep: number): void {
    if (this.o.tty) {
      if (!this.bar) {
        this.bar = new SingleBar(
          { format: 'sweep {bar} {value}/{total} sizes | {time} | {label}', hideCursor: true, clearOnComplete: true },
          Presets.shades_classic,
        );
        this.bar.start(this.sweepSteps, 0, { label: '', time: '' });
      }
      this.bar.update(++this.sweepDone, { label: step.label, time: describeTimeLeft(this.clock.estimate(Date.now())) });
      if (this.sweepDone === this.sweepSteps) this.stopBar();
      return;
    }
    if (!this.sweepsStarted.has(sweep)) {
      this.sweepsStarted.add(sweep);
      this.out(sweepTitle(this.plan, sweep));
      for (const h of SWEEP_HEADER) this.out(h);
    }
    this.out(sweepRow(step));
  }

  private stopBar(): void {
    this.bar?.stop();
    this.bar = null;
  }

  finish(record: RunRecord): void {
    this.stopBar();
    for (let i = 0; i < this.plan.sweeps.length; i++) {
      if (!record.steps.some((s) => s.origin.kind === 'sweep' && s.origin.sweep === i)) continue;
      // Rows were printed live on a pipe, before the link's peak was known: the model follows them
      // as a table of its own. On a terminal the bar stood in for the rows.
      const table = this.o.tty
        ? sweepTable(this.plan, record.steps, i, record.environment)
        : [
            ...sweepTable(this.plan, record.steps, i).filter((l) => l.startsWith('# Out') || l.startsWith('# busbw')),
            ...sweepLoopStallNotes(record.steps, i),
            ...sweepRanNotes(record.steps, i),
            ...sweepModelTable(this.plan, record.steps, i, record.environment),
          ];
      for (const line of table) this.out(line);
    }
    for (const line of stepRanLines(record.steps)) this.out(line);
    for (let i = 0; i < this.plan.pairs.length; i++) for (const line of pairsMatrix(record, i)) this.out(line);
    for (const c of record.compares) for (const line of compareSummary(c, record.environment.backend, record.plan)) this.out(line);
    for (const line of hostLines(record)) this.out(line);
    // Said to the person, beside the tables: an nccl run whose scenario did not ask to see inside NCCL.
    const inside = insideNcclHint(record);
    if (inside) this.err(inside);
    this.out(environmentLine(record.environment));
    this.out(statusLine(record));
  }
}
