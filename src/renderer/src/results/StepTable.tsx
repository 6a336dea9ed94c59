// The nccl-tests table: size, count, type, redop, root, time, algbw, busbw, #wrong, and a
// verdict per step (and, where NCCL's profiler saw the run, what NCCL chose); a failed step is
// followed by its first mismatches on each rank. A table of steps that move no tensor (a warm-up
// multiply) shows their time and check alone.
import { useState } from 'react';
import { RESULT_COLUMNS, resultCells, resultTexts, type ResultColumn } from '../../../shared/results/results-table.js';
import { FAIL, PASS, stepTitle } from '../../../shared/export/format.js';
import type { StepRecord } from '../../../shared/run/record/record.js';
import { describeChoice, shortChoice } from '../../../shared/run/nccl/nccl-step-info.js';
import { describeRan } from '../../../shared/run/nccl/nccl-kernels.js';
import { FIRST_PAINT_STEPS } from './first-paint';
import { bandwidthUnitFor, formatBandwidthIn, type BandwidthUnit } from '../ui/units';

const VERDICT_TEXT: Record<StepRecord['verdict'], string> = {
  pass: PASS,
  fail: FAIL,
  none: '–',
  error: 'error',
  stopped: 'stopped',
  'not-run': 'not run',
};

/** A step the user stopped did nothing wrong: it reads grey, not as a failure. */
const rowClass = (step: StepRecord, expected: boolean) =>
  expected ? 'verdict-expected' : `verdict-${step.verdict}${step.verdict === 'stopped' ? ' dim' : ''}`;

/** A step that failed in a run whose failures were all meant (its expectation met): the run doing its job. */
const failedAsMeant = (step: StepRecord, expectedFailures: boolean) =>
  expectedFailures && (step.verdict === 'fail' || step.verdict === 'error');

function Mismatches({ step, columns }: { step: StepRecord; columns: number }) {
  const ranks = step.ranks.filter((r) => r.mismatches.length > 0);
  if (!ranks.length) return null;
  return (
    <tr className="mismatch-row" data-testid="mismatches">
      <td colSpan={columns}>
        {ranks.map((r) => (
          <div key={r.rank} className="mismatch-rank">
            <span>
              Rank {r.rank}: {r.wrong} of {r.checked} wrong; first mismatches:
            </span>
            <table className="mismatch-table">
              <thead>
                <tr>
                  <th>index</th>
                  <th>expected</th>
                  <th>actual</th>
                </tr>
              </thead>
              <tbody>
                {r.mismatches.map((m) => (
                  <tr key={m.index}>
                    <td>{m.index}</td>
                    <td>{m.expected}</td>
                    <td>{m.actual}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
      </td>
    </tr>
  );
}

/** NCCL's algorithm, protocol and channels for a step; its title the counts, kernel span and prediction. */
function NcclCell({ step }: { step: StepRecord }) {
  const n = step.nccl;
  if (!n) return <td>–</td>;
  const us = (x: number | null | undefined) => (x === null || x === undefined ? 'n/a' : `${x.toFixed(1)} µs`);
  const title =
    `algorithm ${describeChoice(n.algo)}, protocol ${describeChoice(n.proto)}, channels ${describeChoice(n.nChannels)}; ` +
    `kernel ${us(n.kernelMedianUs)} (median), NCCL predicted ${us(n.predictedChosenUs)}`;
  return (
    <td className="left" title={title} data-testid="nccl-choice">
      {shortChoice(n)}
    </td>
  );
}

/** What NCCL ran the step on: a symmetric kernel by name, its usual kernels, copy engines (nccl-kernels.ts). */
function RanCell({ step }: { step: StepRecord }) {
  return (
    <td className="left" data-testid="nccl-ran">
      {describeRan(step) ?? '–'}
    </td>
  );
}

function StepRow({
  step,
  showStep,
  columns,
  nccl,
  ran,
  expected,
  shownColumns,
  bandwidth,
}: {
  step: StepRecord;
  showStep: boolean;
  columns: number;
  nccl: boolean;
  ran: boolean;
  expected: boolean;
  shownColumns: readonly ResultColumn[];
  bandwidth: BandwidthUnit;
}) {
  const texts = resultTexts(step);
  const bw = (v: number | null) => (v === null ? 'n/a' : formatBandwidthIn(v, bandwidth));
  const shown = { ...texts, algbw: bw(step.algbw), busbw: bw(step.busbw) };
  return (
    <>
      <tr
        className={rowClass(step, expected)}
        data-testid="result-row"
        data-verdict={step.verdict}
        data-expected={expected ? 'true' : undefined}
      >
        {showStep && <td className="left">{stepTitle(step)}</td>}
        {shownColumns.map((c) => (
          <td key={c.id}>{shown[c.id]}</td>
        ))}
        <td className="verdict">
          {VERDICT_TEXT[step.verdict]}
          {expected && ' (expected)'}
        </td>
        {nccl && <NcclCell step={step} />}
        {ran && <RanCell step={step} />}
      </tr>
      <Mismatches step={step} columns={columns} />
    </>
  );
}

const TIME_ONLY = RESULT_COLUMNS.filter((c) => c.id === 'time');

/**
 * Rows shown before "show all": a run of thousands of steps would hold the page up while it opens
 * (laying out the rows costs more than reading the record). Failed and unfinished steps always show.
 */
export const ROWS_SHOWN = 300;

/**
 * `firstPaint`: the Results' first go (first-paint.ts), its first rows only, and no "show all" yet.
 * `expectedFailures`: the run failed as it was meant to (a deliberate mistake, an injected fault):
 * its failed steps read as expected, as the run's status does.
 */
export function StepTable({
  steps,
  showStep,
  firstPaint,
  expectedFailures = false,
}: {
  steps: StepRecord[];
  showStep: boolean;
  firstPaint: boolean;
  expectedFailures?: boolean;
}) {
  const [all, setAll] = useState(false);
  const nccl = steps.some((s) => s.nccl);
  const ran = steps.some((s) => describeRan(s) !== null);
  // Steps that move no tensor (a multiply, a barrier) have a time and a check, nothing of
  // nccl-tests' other columns: a table of them alone shows those two.
  const shownColumns = steps.some((s) => resultCells(s).count !== null) ? RESULT_COLUMNS : TIME_ONLY;
  const columns = shownColumns.length + 1 + (showStep ? 1 : 0) + (nccl ? 1 : 0) + (ran ? 1 : 0);
  const rows = firstPaint ? FIRST_PAINT_STEPS : ROWS_SHOWN;
  // One unit for the table's bandwidth columns, the one its largest value reads best in.
  const bandwidth = bandwidthUnitFor(steps.flatMap((s) => [s.algbw, s.busbw]));
  const unitOf = (c: ResultColumn) => (c.id === 'algbw' || c.id === 'busbw' ? `(${bandwidth.name})` : (c.shownUnit ?? c.unit));
  const shown =
    (all && !firstPaint) || steps.length <= rows
      ? steps
      : steps.filter((s, i) => i < rows || (s.verdict !== 'pass' && s.verdict !== 'none'));
  return (
    <>
      <table className="step-table" data-testid="results-table">
        <thead>
          <tr>
            {showStep && <th className="left">step</th>}
            {shownColumns.map((c) => (
              <th key={c.id}>
                {c.title}
                {c.unit && (
                  <>
                    <br />
                    <span className="unit">{unitOf(c)}</span>
                  </>
                )}
              </th>
            ))}
            <th>check</th>
            {nccl && <th className="left">NCCL</th>}
            {ran && <th className="left">ran on</th>}
          </tr>
        </thead>
        <tbody>
          {shown.map((step) => (
            <StepRow
              key={step.index}
              step={step}
              showStep={showStep}
              columns={columns}
              nccl={nccl}
              ran={ran}
              expected={failedAsMeant(step, expectedFailures)}
              shownColumns={shownColumns}
              bandwidth={bandwidth}
            />
          ))}
        </tbody>
      </table>
      {!firstPaint && shown.length < steps.length && (
        <button type="button" className="link" data-testid="results-table-all" onClick={() => setAll(true)}>
          show all {steps.length} steps ({steps.length - shown.length} more rows)
        </button>
      )}
    </>
  );
}
