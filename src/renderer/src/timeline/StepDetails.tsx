// The selected step: the slice selected (where, how long), what each rank got (the lines a learner
// reads), its inputs and outputs, and its timing; or, while a live run has not finished it, that
// it is still running.
import { loopStallLines, resultLines, stepTitle, timingLine } from '../../../shared/export/format.js';
import type { PlanStep } from '../../../shared/plan/types.js';
import type { StepRecord } from '../../../shared/run/record/record.js';
import type { StepView } from '../ui/view';
import type { SliceDescription } from './describe';

interface Props {
  planStep: PlanStep | undefined;
  step: StepRecord | undefined;
  /** The slice selected in it, as its tooltip describes it. */
  slice?: SliceDescription | null;
  onClose(): void;
  /** The other views that can show this step (the Learn view: what moved where). */
  stepViews?(step: PlanStep): StepView[];
  onOpenStep?(view: string, step: number): void;
}

/** Of a slice's description, what the step's own lines below do not say already. */
const SLICE_ROWS = new Set(['lane', 'phase', 'duration', 'starts at', 'channel', 'iteration']);

export function StepDetails({ planStep, step, slice, onClose, stepViews, onOpenStep }: Props) {
  const timing = step ? timingLine(step) : null;
  const stalls = step ? loopStallLines(step) : [];
  const hasData = step?.ranks.some((r) => r.input != null || r.output !== null);
  return (
    <section className="timeline-details" data-testid="timeline-details" aria-label="Selected step">
      <header>
        <h3>
          #{planStep?.index ?? step?.index} {step ? stepTitle(step) : planStep?.label}
        </h3>
        {step && <span className={`verdict verdict-${step.verdict}`}>{step.verdict}</span>}
        <span className="spacer" />
        {onOpenStep &&
          planStep &&
          stepViews?.(planStep).map((view) => (
            <button
              key={view.id}
              type="button"
              className="small"
              data-testid={`timeline-${view.id}`}
              onClick={() => onOpenStep(view.id, planStep.index)}
            >
              {view.label}
            </button>
          ))}
        <button type="button" className="small" onClick={onClose}>
          close
        </button>
      </header>
      {slice && (
        <p className="slice-line" data-testid="timeline-details-slice">
          <strong>{slice.title}</strong>
          {slice.rows
            .filter(([name]) => SLICE_ROWS.has(name))
            .map(([name, value]) => (
              <span key={name}>
                <span className="dim">{name}</span> {value}
              </span>
            ))}
        </p>
      )}
      {!step && <p className="dim">Still running: its results come when the step ends.</p>}
      {step && (
        <>
          <ol className="rank-lines">
            {resultLines(step).map((line, i) => (
              <li key={i} data-testid="timeline-details-line">
                {line}
              </li>
            ))}
          </ol>
          {timing && <pre className="text-block">{timing.trim()}</pre>}
          {stalls.length > 0 && (
            <pre className="text-block" data-testid="timeline-details-stall">
              {stalls.map((l) => l.trim()).join('\n')}
            </pre>
          )}
          {hasData && (
            <table className="step-table">
              <thead>
                <tr>
                  <th>rank</th>
                  <th className="left">input</th>
                  <th className="left">output</th>
                </tr>
              </thead>
              <tbody>
                {step.ranks.map((r) => (
                  <tr key={r.rank}>
                    <td>{r.rank}</td>
                    <td className="left">{r.input ?? '—'}</td>
                    <td className="left">{r.output ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}
