// Keeps a run's record at its final path current while the run goes: rewritten atomically as
// steps end, at most once per interval, so that a run killed without warning (kill -9, a power
// cut) keeps what it had measured. The last write is the run's own, with its final status.
import type { RunRecord } from '../../../shared/run/record/record.js';
import { writeRecordAtomic } from './record-store.js';

export interface Checkpointed {
  on(event: 'step', listener: () => void): unknown;
  off(event: 'step', listener: () => void): unknown;
  /** The record as it stands, status "incomplete"; null before there is anything to keep. */
  snapshot(): RunRecord | null;
}

export class RecordCheckpoint {
  private lastWriteMs = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly onStep = () => this.schedule();

  constructor(
    private readonly run: Checkpointed,
    private readonly path: string,
    private readonly intervalMs = 1000,
    private readonly onError: (e: Error) => void = () => undefined,
  ) {
    run.on('step', this.onStep);
  }

  private schedule(): void {
    if (this.timer) return;
    const wait = Math.max(0, this.lastWriteMs + this.intervalMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.write();
    }, wait);
  }

  private write(): void {
    const record = this.run.snapshot();
    if (!record) return;
    this.lastWriteMs = Date.now();
    try {
      writeRecordAtomic(this.path, record);
    } catch (e) {
      this.onError(e as Error);
    }
  }

  /** The run ended: no more interim writes (its final record is written by the caller). */
  close(): void {
    this.run.off('step', this.onStep);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
