// Two saved runs side by side (compareRuns): the steps both ran, with each change marked where it
// stands outside both runs' own spread; the steps only one ran; compare blocks; and what differs
// in where they ran.
import type {
  BlockComparison,
  EnvironmentChange,
  RunComparison,
  RunSummary,
  StepComparison,
  StepKey,
} from '../../../shared/export/index.js';
import { formatBytes, formatGBs } from '../ui/units';
import { CompareStepsTable, SideHeader, StepCells, timeText as time } from './CompareStepsTable';
import { changeSense, changeText, changeTitle } from './comparison-cells';

const gbs = (x: number | null) => (x === null ? 'n/a' : formatGBs(x));
const keyText = (k: StepKey) => `${k.label}${k.occurrence ? ` (#${k.occurrence + 1})` : ''}`;

function Change({ metric, pct, step }: { metric: 'time' | 'busbw'; pct: number | null; step: StepComparison }) {
  const marked = step.significant && pct !== null;
  return (
    <td className={marked ? `change significant ${changeSense(metric, pct)}` : 'change'} title={changeTitle(step)}>
      {changeText(pct)}
      {marked && ' *'}
    </td>
  );
}

function StepRow({ step }: { step: StepComparison }) {
  return (
    <tr data-testid="compare-row" data-significant={step.significant}>
      <StepCells name={keyText(step)} op={step.op} bytes={step.bytes} />
      <td>{time(step.a.timeUs)}</td>
      <td>{time(step.b.timeUs)}</td>
      <Change metric="time" pct={step.timeChangePct} step={step} />
      <td>{gbs(step.a.busbw)}</td>
      <td>{gbs(step.b.busbw)}</td>
      <Change metric="busbw" pct={step.busbwChangePct} step={step} />
      <td className={step.a.verdict === step.b.verdict ? '' : 'failed'}>
        {step.a.verdict} / {step.b.verdict}
      </td>
    </tr>
  );
}

function StepsTable({ steps }: { steps: StepComparison[] }) {
  return (
    <CompareStepsTable
      testId="compare-steps"
      what="runs"
      steps={steps}
      Row={StepRow}
      columns={
        <>
          <SideHeader name="time A" unit="µs" />
          <SideHeader name="time B" unit="µs" />
          <th>Δ time</th>
          <SideHeader name="busbw A" unit="GB/s" />
          <SideHeader name="busbw B" unit="GB/s" />
          <th>Δ busbw</th>
          <th>verdict A / B</th>
        </>
      }
      note={
        <p className="dim compare-note">
          * the change lies outside both runs’ own spread: each run’s median time is outside the other run’s min…max. Hover a change for the
          spreads.
        </p>
      }
    />
  );
}

function OnlyIn({ side, keys }: { side: 'A' | 'B'; keys: StepKey[] }) {
  if (!keys.length) return null;
  return (
    <div data-testid={`compare-only-${side.toLowerCase()}`}>
      <h4>
        Only in {side} ({keys.length})
      </h4>
      <ul className="compare-only">
        {keys.map((k, i) => (
          <li key={i}>
            {keyText(k)}{' '}
            <span className="dim">
              {k.op}, {formatBytes(k.bytes)}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}

function Blocks({ blocks }: { blocks: BlockComparison[] }) {
  if (!blocks.length) return null;
  return (
    <>
      <h4>Compare blocks</h4>
      <ul className="compare-only">
        {blocks.map((b, i) => (
          <li key={i} className={b.significant ? 'significant' : ''}>
            {b.label}: {b.variant}: {time(b.a.durationUs)} → {time(b.b.durationUs)} µs ({changeText(b.durationChangePct)}
            {b.significant ? ' *' : ''}){', '}speed-up ×{b.a.speedup?.toFixed(2) ?? 'n/a'} → ×{b.b.speedup?.toFixed(2) ?? 'n/a'}
          </li>
        ))}
      </ul>
    </>
  );
}

const envValue = (e: EnvironmentChange) =>
  e.kind === 'added' ? `only in B: ${e.b}` : e.kind === 'removed' ? `only in A: ${e.a}` : `${e.a} → ${e.b}`;

function EnvironmentDiff({ changes }: { changes: EnvironmentChange[] }) {
  return (
    <div data-testid="compare-env">
      <h4>Environment</h4>
      {changes.length === 0 ? (
        <p className="dim">The same host, backend, GPUs, versions and NCCL variables.</p>
      ) : (
        <dl className="environment">
          {changes.map((e) => (
            <div key={e.field} className="compare-env-row">
              <dt>{e.field}</dt>
              <dd>{envValue(e)}</dd>
            </div>
          ))}
        </dl>
      )}
    </div>
  );
}

function RunLine({ side, run, name }: { side: 'A' | 'B'; run: RunSummary; name: string }) {
  return (
    <p className="compare-run">
      <strong>{side}</strong> {name} <span className="dim">{new Date(run.createdAt).toLocaleString()}</span>{' '}
      <span className={run.status === 'passed' ? 'passed' : 'failed'}>{run.status}</span>, {run.world} ranks, {run.backend}
    </p>
  );
}

export function RunComparisonView({ comparison: c, names }: { comparison: RunComparison; names: [string, string] }) {
  return (
    <section className="result-section run-comparison" data-testid="run-comparison">
      <h3>Comparison</h3>
      <RunLine side="A" run={c.a} name={names[0]} />
      <RunLine side="B" run={c.b} name={names[1]} />
      <StepsTable steps={c.steps} />
      <OnlyIn side="A" keys={c.onlyInA} />
      <OnlyIn side="B" keys={c.onlyInB} />
      <Blocks blocks={c.blocks} />
      <EnvironmentDiff changes={c.environment} />
    </section>
  );
}
