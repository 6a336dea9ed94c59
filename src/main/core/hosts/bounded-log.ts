// Lines about refused and dropped connections: anyone can open many, so the first few are said
// and the rest only counted, then summed up in one line. stderr and the record's logs stay bounded
// however many come.

/** How many such lines a listener says before it only counts them. */
export const SHOWN_REFUSALS = 10;

export class BoundedLog {
  private shown = 0;
  private held = 0;

  constructor(
    private readonly log: (line: string) => void,
    private readonly limit = SHOWN_REFUSALS,
  ) {}

  line(text: string): void {
    if (this.shown < this.limit) {
      this.shown++;
      this.log(text);
    } else this.held++;
  }

  /** Says how many were not shown, once (then counts afresh). */
  summary(what: string): void {
    if (this.held) this.log(`and ${this.held} more ${what} (not shown one by one)`);
    this.held = 0;
  }
}
