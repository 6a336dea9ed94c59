// The results of one run, live or replayed from its record: tables, per-rank lines, bandwidth
// charts, pair matrices, compare summaries and the environment it ran in.
import { useMemo } from 'react';
import { runSucceeded } from '../../../shared/results/expectation.js';
import { compareSummary, statusLine } from '../../../shared/export/format.js';
import { recordAsItsStepsSay } from '../../../shared/results/record-status.js';
import type { RunRecord, StepRecord } from '../../../shared/run/record/record.js';
import { insideNcclHint } from '../../../shared/run/nccl/inside-nccl.js';
import { sweepModel } from '../../../shared/learn/sweep-model.js';
import { fileStem } from '../ui/download';
import { formatBandwidth } from '../ui/units';
import { baseName } from '../ui/file-name';
import type { RecordSource } from '../ui/view';
import { BandwidthChart } from './BandwidthChart';
import { EnvironmentPanel } from './EnvironmentPanel';
import { ExportMenu } from './ExportMenu';
import { ModelNote } from './ModelNote';
import { PairsHeatmap } from './PairsHeatmap';
import { pairsHeatmaps } from './pairs-heatmap';
import { RankLines } from './RankLines';
import { resultSections } from './sections';
import { StepTable } from './StepTable';
import { useAfterFirstPaint } from './first-paint';

/** The scenario's name, else its file. */
function runTitle(record: RunRecord): string {
  const name = (record.scenario as { name?: unknown } | null)?.name;
  return typeof name === 'string' ? name : (record.scenarioFile ?? 'Run');
}

function SweepSummary({ steps }: { steps: StepRecord[] }) {
  const wrong = steps.reduce((sum, s) => sum + s.wrong, 0);
  const largest = steps.filter((s) => s.busbw !== null).slice(-1)[0];
  return (
    <p className={`sweep-summary ${wrong ? 'failed' : 'passed'}`} data-testid="sweep-summary">
      Out of bounds values: {wrong} {wrong ? 'ERROR' : 'OK'}
      {largest && <> · busbw at the largest size: {formatBandwidth(largest.busbw!)}</>}
    </p>
  );
}

export function ResultsView({ record, source }: { record: RunRecord; source: RecordSource }) {
  const sections = useMemo(() => resultSections(record), [record]);
  const firstPaint = !useAfterFirstPaint(record);
  const title = runTitle(record);
  const stem = fileStem(title);
  // A run on NCCL whose scenario did not ask to see inside it: says so, with how to ask.
  const insideHint = record.imported ? null : insideNcclHint(record);
  // A record opened from a file reads by what its steps say, whatever status it was saved with.
  const { record: shown, notice } = useMemo(
    () => (source.kind === 'replay' ? recordAsItsStepsSay(record, baseName(source.from)) : { record, notice: null }),
    [record, source],
  );
  return (
    <div className="results" data-testid="results">
      {source.kind === 'replay' && (
        <p className="replay-banner" data-testid="replay-banner">
          Replay of <code title={source.from}>{baseName(source.from)}</code>, recorded {new Date(record.createdAt).toLocaleString()}.
          Nothing was run.
        </p>
      )}
      {record.imported && (
        <p className="replay-banner" data-testid="imported-banner">
          Imported from <code>{record.imported.file}</code> ({record.imported.source}, {record.imported.program}
          {record.imported.version ? ` ${record.imported.version}` : ''}): measured elsewhere, no values checked by the lab, no timeline.
          <br />
          <small>{record.imported.notes.join(' ')}</small>
        </p>
      )}
      {notice && (
        <p className="replay-banner" data-testid="status-notice">
          {notice}
        </p>
      )}
      {/* An expected failure seen (a deliberate mistake, an injected fault) is the run doing its job: it reads as passed. */}
      <header className={`results-header ${runSucceeded(shown) ? 'passed' : 'failed'}`}>
        <h2>{title}</h2>
        <p className="status-text" data-testid="results-status">
          {statusLine(shown)}
        </p>
        {insideHint && (
          <p className="inside-nccl-hint" data-testid="inside-nccl-hint">
            {insideHint}
          </p>
        )}
        {source.kind === 'live' && source.savedTo && (
          <p className="saved-to">
            Run record: <code>{source.savedTo}</code>
          </p>
        )}
        <ExportMenu record={record} fileStem={stem} />
      </header>
      {sections.map((section) => {
        if (section.kind === 'steps') {
          return (
            <section key={`steps-${section.steps[0].index}`} className="result-section">
              <h3>Steps</h3>
              <StepTable steps={section.steps} showStep firstPaint={firstPaint} expectedFailures={shown.expectation?.met === true} />
              <h4>Per-rank results</h4>
              <RankLines steps={section.steps} firstPaint={firstPaint} />
            </section>
          );
        }
        if (section.kind === 'sweep') {
          const spec = record.plan.sweeps[section.sweep];
          const model = sweepModel(record.plan, record.environment, record.steps, section.sweep);
          return (
            <section key={`sweep-${section.sweep}`} className="result-section" data-testid="sweep">
              <h3>
                {spec.label}{' '}
                <small>
                  {spec.path}, {record.world} ranks
                </small>
              </h3>
              <StepTable
                steps={section.steps}
                showStep={false}
                firstPaint={firstPaint}
                expectedFailures={shown.expectation?.met === true}
              />
              <SweepSummary steps={section.steps} />
              <BandwidthChart
                title={`${spec.label}: bandwidth vs size, ${record.world} ranks`}
                steps={section.steps}
                fileStem={`${stem}-${fileStem(spec.label)}`}
                model={model}
              />
              <ModelNote op={spec.op} world={record.world} model={model} />
            </section>
          );
        }
        return (
          <section key={`pairs-${section.pairs}`} className="result-section" data-testid="pairs">
            <PairsHeatmap heatmaps={pairsHeatmaps(record, section.pairs)} />
          </section>
        );
      })}
      {record.compares.length > 0 && (
        <section className="result-section">
          <h3>Compare</h3>
          {record.compares.map((c) => (
            <pre key={c.index} className="text-block compare-summary" data-testid="compare-summary">
              {compareSummary(c, record.environment.backend, record.plan).join('\n')}
            </pre>
          ))}
        </section>
      )}
      <section className="result-section">
        <h3>Environment</h3>
        <EnvironmentPanel environment={record.environment} />
      </section>
    </div>
  );
}
