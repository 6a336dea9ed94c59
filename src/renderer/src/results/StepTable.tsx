// The nccl-tests table: size, count, type, redop, root, time, algbw, busbw, #wrong, and a
// verdict per step; a failed step is followed by its first mismatches on each rank.
import { Fragment } from 'react';
import { FAIL, PASS, stepTitle, sweepRow } from '../../../shared/format.js';
import type { StepRecord } from '../../../shared/record.js';
import { NCCL_TESTS_COLUMNS, ncclTestsCells } from './sections';

const VERDICT_TEXT: Record<StepRecord['verdict'], string> = { pass: PASS, fail: FAIL, none: '–', error: 'error', 'not-run': 'not run' };

function Mismatches({ step, columns }: { step: StepRecord; columns: number }) {
  const ranks = step.ranks.filter((r) => r.mismatches.length > 0);
  if (!ranks.length) return null;
  return (
    <tr className="mismatch-row" data-testid="mismatches">
      <td colSpan={columns}>
        {ranks.map((r) => (
          <div key={r.rank} className="mismatch-rank">
            <span>Rank {r.rank}: {r.wrong} of {r.checked} wrong; first mismatches:</span>
            <table className="mismatch-table">
              <thead><tr><th>index</th><th>expected</th><th>actual</th></tr></thead>
              <tbody>
                {r.mismatches.map((m) => (
                  <tr key={m.index}><td>{m.index}</td><td>{m.expected}</td><td>{m.actual}</td></tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
      </td>
    </tr>
  );
}

export function StepTable({ steps, showStep }: { steps: StepRecord[]; showStep: boolean }) {
  const columns = NCCL_TESTS_COLUMNS.length + 1 + (showStep ? 1 : 0);
  return (
    <table className="step-table" data-testid="results-table">
      <thead>
        <tr>
          {showStep && <th className="left">step</th>}
          {NCCL_TESTS_COLUMNS.map(([name, unit]) => <th key={name}>{name}{unit && <><br /><span className="unit">{unit}</span></>}</th>)}
          <th>check</th>
        </tr>
      </thead>
      <tbody>
        {steps.map((step) => (
          <Fragment key={step.index}>
            <tr className={`verdict-${step.verdict}`} data-testid="result-row" data-verdict={step.verdict}>
              {showStep && <td className="left">{stepTitle(step)}</td>}
              {ncclTestsCells(sweepRow(step)).map((cell, i) => <td key={i}>{cell}</td>)}
              <td className="verdict">{VERDICT_TEXT[step.verdict]}</td>
            </tr>
            <Mismatches step={step} columns={columns} />
          </Fragment>
        ))}
      </tbody>
    </table>
  );
}
