// The Results header of a record opened from a file: it reads by what the record's steps say, and
// says so where the record's own status disagreed.
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ResultsView } from '../../../src/renderer/src/results/ResultsView';
import type { RunRecord } from '../../../src/shared/run/record/record';
import type { RecordSource } from '../../../src/renderer/src/ui/view';
import { allReduce, buildRecord } from '../../shared/export/records';

const FILE = 'runs/edited.run.json';
/** Saved as passed; every one of its three steps found wrong values. */
const allFailed: RunRecord = buildRecord({
  world: 2,
  steps: [0, 1, 2].map((i) => ({ label: `step ${i}`, action: allReduce(4), timesUs: [[1], [1]], wrong: 1 })),
});
const header = (source: RecordSource) => {
  const html = renderToStaticMarkup(createElement(ResultsView, { record: allFailed, source }));
  return {
    status: /<header class="results-header (\w+)">[\s\S]*?data-testid="results-status">([^<]*)</.exec(html)?.slice(1),
    notice: /data-testid="status-notice">([^<]*)</.exec(html)?.[1] ?? null,
  };
};

describe('the Results header of a replayed record', () => {
  it('shows a record saved as passed over steps that all failed as failed, with a notice naming its file (not its path)', () => {
    expect(header({ kind: 'replay', from: FILE })).toEqual({
      status: ['failed', 'FAILED: 0/3 checked steps correct on 2 ranks (cpu)'],
      notice: `edited.run.json: the record&#x27;s status is &quot;passed&quot; but 3 of its 3 steps failed; shown as failed, as its steps say`,
    });
  });
});
