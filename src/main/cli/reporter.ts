// Prints a run as it happens: result lines for plain steps, nccl-tests rows for sweeps (a
// progress bar instead when stdout is a terminal), and the summaries at the end.
import { SingleBar, Presets } from 'cli-progress';
import { compareSummary, pairsMatrix, resultLines, statusLine, SWEEP_HEADER, sweepRow, sweepTable, timingLine } from '../../shared/format.js';
import type { Plan } from '../../shared/plan/types.js';
import type { LogLine, RunRecord, StepRecord } from '../../shared/record.js';

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

  constructor(private readonly plan: Plan, private readonly o: ReporterOptions) {
    this.sweepSteps = plan.steps.filter((s) => s.origin.kind === 'sweep').length;
  }

  log(line: LogLine): void {
    const isError = line.text.startsWith('error:');
    if (!this.o.verbose && !isError) return;
    this.o.writeErr(line.rank === null ? `[lab] ${line.text}` : `[Rank ${line.rank}] ${line.text}`);
  }

  step(step: StepRecord): void {
    const o = step.origin;
    if (o.kind === 'sweep') return this.sweepStep(step, o.sweep);
    if (o.kind !== 'step' || step.action.kind === 'wait') return;
    for (const line of resultLines(step)) this.o.write(line);
    const t = timingLine(step);
    if (t) this.o.write(t);
  }

  private sweepStep(step: StepRecord, sweep: number): void {
    if (this.o.tty) {
      if (!this.bar) {
        this.bar = new SingleBar({ format: 'sweep {bar} {value}/{total} sizes | {label}', hideCursor: true, clearOnComplete: true }, Presets.shades_classic);
        this.bar.start(this.sweepSteps, 0, { label: '' });
      }
      this.bar.update(++this.sweepDone, { label: step.label });
      if (this.sweepDone === this.sweepSteps) this.stopBar();
      return;
    }
    if (!this.sweepsStarted.has(sweep)) {
      this.sweepsStarted.add(sweep);
      this.o.write(`# ${this.plan.sweeps[sweep].label} (${this.plan.sweeps[sweep].path}), ${this.plan.world} ranks`);
      for (const h of SWEEP_HEADER) this.o.write(h);
    }
    this.o.write(sweepRow(step));
  }

  private stopBar(): void {
    this.bar?.stop();
    this.bar = null;
  }

  finish(record: RunRecord): void {
    this.stopBar();
    for (let i = 0; i < this.plan.sweeps.length; i++) {
      if (!record.steps.some((s) => s.origin.kind === 'sweep' && s.origin.sweep === i)) continue;
      const table = sweepTable(this.plan, record.steps, i);
      // Rows were printed live on a pipe; on a terminal the bar stood in for them.
      for (const line of this.o.tty ? table : table.filter((l) => l.startsWith('# Out') || l.startsWith('# busbw'))) this.o.write(line);
    }
    for (let i = 0; i < this.plan.pairs.length; i++) for (const line of pairsMatrix(this.plan, record.steps, i)) this.o.write(line);
    for (const c of record.compares) for (const line of compareSummary(c)) this.o.write(line);
    this.o.write(statusLine(record));
  }
}
