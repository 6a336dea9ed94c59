// The results table's header says µs, as every other place in the app does; nccl-tests' ASCII
// "(us)" stays in the terminal table, which reads like nccl-tests' own.
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { StepTable } from '../../../src/renderer/src/results/StepTable';
import { RunComparisonView } from '../../../src/renderer/src/saved-runs/RunComparisonView';
import { compareRuns } from '../../../src/shared/results/compare-runs';
import { SWEEP_HEADER } from '../../../src/shared/export/format';
import { allReduce, buildRecord } from '../../shared/export/records';

describe('time units in the results views', () => {
  const record = buildRecord({ world: 2, steps: [{ label: 'all_reduce', action: allReduce(4), timesUs: [[10], [12]] }] });

  it("the step table's header says µs", () => {
    const html = renderToStaticMarkup(createElement(StepTable, { steps: record.steps, showStep: true, firstPaint: false }));
    expect(html).toContain('(µs)');
    expect(html).not.toContain('(us)');
  });

  it('the comparison of two runs says µs', () => {
    const html = renderToStaticMarkup(
      createElement(RunComparisonView, { comparison: compareRuns(record, { ...record, id: 'run-2' }), names: ['a', 'b'] }),
    );
    expect(html).not.toContain('(us)');
  });

  it("the terminal table keeps nccl-tests' header", () => {
    expect(SWEEP_HEADER.join('\n')).toContain('(us)');
  });
});
