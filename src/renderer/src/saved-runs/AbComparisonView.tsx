// An NCCL A/B opened from Saved runs: the two libraries, per step A's and B's time per op, B/A with
// its paired interval and the verdict, the chart of B/A per step, and each side's run records.
import {
  abIntervalText,
  abLibraryVersion,
  abRatioText,
  abStepName,
  abStoppedText,
  abVerdictCounts,
  type AbLibrary,
  type AbStep,
  type NcclAbSummary,
} from '../../../shared/results/nccl-ab.js';
import { AbChart } from './AbChart';
import { verdictSense } from './ab-chart';
import { CompareStepsTable, SideHeader, StepCells, timeText as time } from './CompareStepsTable';

function Library({ side, library }: { side: 'A' | 'B'; library: AbLibrary }) {
  return (
    <div className="compare-env-row" data-testid={`ab-library-${side.toLowerCase()}`}>
      <dt>{side}</dt>
      <dd>
        <strong>{abLibraryVersion(library)}</strong> <span className="ab-path">{library.path}</span>
        {library.sha256 && (
          <span className="dim" title={`SHA-256 ${library.sha256}`}>
            {' '}
            sha256 {library.sha256.slice(0, 12)}…
          </span>
        )}
      </dd>
    </div>
  );
}

function StepRow({ step }: { step: AbStep }) {
  return (
    <tr data-testid="ab-row" data-verdict={step.verdict}>
      <StepCells name={abStepName(step)} op={step.op} bytes={step.bytes} />
      <td>{time(step.aUs)}</td>
      <td>{time(step.bUs)}</td>
      <td>{abRatioText(step.ratio)}</td>
      <td title={`${step.pairs} repeat${step.pairs === 1 ? '' : 's'} timed on both sides`}>{abIntervalText(step)}</td>
      <td className={`change ${verdictSense(step.verdict)}`} data-testid="ab-verdict">
        {step.verdict}
      </td>
    </tr>
  );
}

function StepsTable({ steps }: { steps: AbStep[] }) {
  return (
    <CompareStepsTable
      testId="ab-steps"
      what="sides"
      steps={steps}
      Row={StepRow}
      columns={
        <>
          <SideHeader name="A" unit="µs/op" />
          <SideHeader name="B" unit="µs/op" />
          <th>B/A</th>
          <th>interval</th>
          <th>verdict</th>
        </>
      }
    />
  );
}

const chartTitle = ({ libraries: { A, B } }: NcclAbSummary) =>
  `B/A per step${A.version && B.version ? `: NCCL ${B.version} over NCCL ${A.version}` : ''}, with its interval`;

interface Props {
  ab: NcclAbSummary;
  /** The A/B file's name. */
  name: string;
  /** The A/B file's folder: its turns' records are named relative to it. */
  folder: string;
  /** Opens a side's run record (a replay). */
  onOpen(path: string): void;
}

export function AbComparisonView({ ab, name, folder, onOpen }: Props) {
  return (
    <section className="result-section run-comparison" data-testid="ab-comparison">
      <h3>
        <span className="ab-badge">NCCL A/B</span> {ab.scenario}
      </h3>
      <p className="compare-run">
        {name} <span className="dim">{new Date(ab.createdAt).toLocaleString()}</span>, {ab.repeats} repeat{ab.repeats === 1 ? '' : 's'} per
        side, taking turns A B, B A, …
      </p>
      <dl className="environment">
        <Library side="A" library={ab.libraries.A} />
        <Library side="B" library={ab.libraries.B} />
      </dl>
      {ab.stopped !== undefined && (
        <p className="compare-note failed" data-testid="ab-stopped">
          {abStoppedText(ab)}
        </p>
      )}
      <StepsTable steps={ab.steps} />
      <p className="compare-note" data-testid="ab-counts">
        B against A: {abVerdictCounts(ab)}
      </p>
      <p className="dim compare-note">{ab.rule}</p>
      <AbChart steps={ab.steps} title={chartTitle(ab)} />
      <h4>Side runs</h4>
      <ul className="compare-only" data-testid="ab-turns">
        {ab.turns.map((t, i) => (
          <li key={i}>
            repeat {t.repeat + 1}, {t.side}: <span className={t.status === 'passed' ? 'passed' : 'failed'}>{t.status}</span>{' '}
            {t.record ? (
              <button type="button" className="small" data-testid="ab-open-record" onClick={() => onOpen(`${folder}/${t.record}`)}>
                Open {t.record}
              </button>
            ) : (
              <span className="dim">(record not written)</span>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
