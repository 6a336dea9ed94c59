// A long run's Results first draw what fills the screen, then the rest up to the usual bounds: a
// table's first rows and the first steps' lines, failed steps always, and "show all" only once the
// rest is drawn. A short run draws whole the first time.
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { FIRST_PAINT_STEPS } from '../../../src/renderer/src/results/first-paint';
import { RankLines, RANK_LINES_SHOWN } from '../../../src/renderer/src/results/RankLines';
import { ROWS_SHOWN, StepTable } from '../../../src/renderer/src/results/StepTable';
import type { StepRecord } from '../../../src/shared/run/record/record';
import { syntheticRecord } from '../../../bench/timeline/synthetic-record';

/** 1 100 steps, the 700th failed. */
const steps: StepRecord[] = syntheticRecord({ ranks: 2, rounds: 275, warmup: 0, iters: 1 }).steps.map((s, i) =>
  i === 700 ? { ...s, verdict: 'fail', wrong: 1 } : s,
);
const count = (html: string, testId: string) => html.split(`data-testid="${testId}"`).length - 1;
const table = (firstPaint: boolean, of = steps) =>
  renderToStaticMarkup(createElement(StepTable, { steps: of, showStep: true, firstPaint }));
const lines = (firstPaint: boolean, of = steps) => renderToStaticMarkup(createElement(RankLines, { steps: of, firstPaint }));

describe("a long run's Results, drawn in two goes", () => {
  it('draws the first rows of the table and the failed step first, "show all" not yet', () => {
    const html = table(true);
    expect(count(html, 'result-row')).toBe(FIRST_PAINT_STEPS + 1);
    expect(html).toContain('data-verdict="fail"');
    expect(count(html, 'results-table-all')).toBe(0);
  });

  it('then the rows up to the usual bound, with "show all"', () => {
    const html = table(false);
    expect(count(html, 'result-row')).toBe(ROWS_SHOWN + 1);
    expect(count(html, 'results-table-all')).toBe(1);
  });

  it("draws the first steps' lines first, then those of the usual bound of steps", () => {
    expect(count(lines(true), 'rank-line')).toBe((FIRST_PAINT_STEPS + 1) * 2);
    expect(count(lines(true), 'rank-lines-all')).toBe(0);
    expect(count(lines(false), 'rank-line')).toBe((RANK_LINES_SHOWN + 1) * 2);
    expect(count(lines(false), 'rank-lines-all')).toBe(1);
  });

  it('draws a short run whole the first time', () => {
    const short = steps.slice(0, FIRST_PAINT_STEPS);
    expect(table(true, short)).toBe(table(false, short));
    expect(lines(true, short)).toBe(lines(false, short));
  });
});
