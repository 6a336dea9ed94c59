// The run's results as files, made here in the page from the record: a trace for Perfetto UI
// (ui.perfetto.dev, chrome://tracing), the results table as CSV, a report to share as one HTML
// file, and the run record itself.
import { chromeTrace, resultsCsv } from '../../../shared/export/index.js';
import { htmlReport } from '../../../shared/export/html-report.js';
import type { RunRecord } from '../../../shared/run/record/record.js';
import { downloadBlob } from '../ui/download';

const json = (value: unknown) => new Blob([JSON.stringify(value)], { type: 'application/json' });

const EXPORTS = [
  {
    id: 'export-trace',
    text: 'Trace (Perfetto)',
    title: 'The timeline in Chrome Trace Event format: open it in ui.perfetto.dev or chrome://tracing',
    suffix: '.trace.json',
    blob: (r: RunRecord) => json(chromeTrace(r)),
  },
  {
    id: 'export-csv',
    text: 'CSV',
    title: 'The results table, one row per step: µs to the ns, GB/s to 0.1 MB/s',
    suffix: '.csv',
    blob: (r: RunRecord) => new Blob([resultsCsv(r)], { type: 'text/csv' }),
  },
  {
    id: 'export-html',
    text: 'Report (HTML)',
    title: 'One self-contained HTML file to share: scenario, environment, results, charts and the timeline; opens from disk',
    suffix: '.report.html',
    blob: (r: RunRecord) => new Blob([htmlReport(r)], { type: 'text/html' }),
  },
  {
    id: 'export-record',
    text: 'Run record',
    title: 'The whole run record (*.run.json): open it later to replay or compare',
    suffix: '.run.json',
    blob: json,
  },
] as const;

export function ExportMenu({ record, fileStem }: { record: RunRecord; fileStem: string }) {
  return (
    <div className="export-menu" role="group" aria-label="Export">
      <span className="dim">Export</span>
      {EXPORTS.map((e) => (
        <button
          key={e.id}
          type="button"
          data-testid={e.id}
          title={e.title}
          onClick={() => downloadBlob(`${fileStem}${e.suffix}`, e.blob(record))}
        >
          {e.text}
        </button>
      ))}
    </div>
  );
}
