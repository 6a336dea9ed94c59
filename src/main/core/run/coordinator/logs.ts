// The run's log: every line a rank printed and the lab's own (rank null), in the order they came,
// each at the core's CLOCK_MONOTONIC ns when it came (the clock of the ranks' events on this host).
import type { LogLine } from '../../../../shared/run/record/record.js';

export class RunLog {
  private readonly kept: LogLine[] = [];

  /** Keeps the line and returns it, for the driver to show. */
  add(rank: number | null, text: string, atNs: number): LogLine {
    const line = { rank, atNs, text };
    this.kept.push(line);
    return line;
  }

  get lines(): readonly LogLine[] {
    return this.kept;
  }
}
