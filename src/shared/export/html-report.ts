// A run as one HTML file to share: the scenario, where it ran, the results table, the sweep charts
// and pair heatmaps as inline SVG, a static overview of the timeline and the run's text report.
// Self-contained: inline CSS, no script, and a Content-Security-Policy that lets it load nothing,
// so it opens from disk the same anywhere. Pure: the CLI writes it, the app downloads it.
import { bandwidthUnitFor, formatBandwidthIn, formatBytes } from '../data/units.js';
import { sweepModel } from '../learn/sweep-model.js';
import { pairsView } from '../results/pairs.js';
import { isBookkeeping, RESULT_COLUMNS, resultTexts, stepOp } from '../results/results-table.js';
import type { RunRecord } from '../run/record/record.js';
import { shownStatus } from '../results/expectation.js';
import { environmentLine } from './environment-line.js';
import { runReport, statusLine, stepTitle } from './format.js';
import { opColour } from './op-colours.js';
import { sweepChart } from './sweep-chart.js';
import { HOST_PHASES } from './trace-layout.js';
import { heatmapSvg } from './svg/heatmap.js';
import { lineChartSvg } from './svg/line-chart.js';
import { escapeXml as esc } from './svg/svg.js';
import { timelineSvg, type TimelineLane } from './svg/timeline.js';

/** Rows of the results table the report shows; the text report below it has them all. */
export const REPORT_TABLE_ROWS = 2000;

const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: #1f2937; background: #fff; margin: 2rem auto; max-width: 1040px; padding: 0 1rem; }
h1 { font-size: 1.5rem; margin-bottom: 0.2rem; } h2 { font-size: 1.15rem; margin-top: 2rem; border-bottom: 1px solid #e5e7eb; }
.status { font-weight: 600; } .passed { color: #166534; } .failed { color: #991b1b; } .dim { color: #4b5563; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; margin: 0.5rem 0; }
th, td { border: 1px solid #e5e7eb; padding: 0.15rem 0.5rem; text-align: right; } th { background: #f9fafb; } td.left, th.left { text-align: left; }
pre { background: #f9fafb; border: 1px solid #e5e7eb; padding: 0.75rem; overflow-x: auto; font-size: 12px; }
figure { margin: 1rem 0; } svg { max-width: 100%; height: auto; }
`;

/** The scenario's name, else its file. */
function reportTitle(record: RunRecord): string {
  const name = (record.scenario as { name?: unknown } | null)?.name;
  return typeof name === 'string' ? name : (record.scenarioFile ?? 'Run');
}

function resultsTable(record: RunRecord): string {
  const steps = record.steps.filter((s) => !isBookkeeping(s));
  if (!steps.length) return '<p class="dim">No step measured anything.</p>';
  const unit = bandwidthUnitFor(steps.flatMap((s) => [s.algbw, s.busbw]));
  const bw = (v: number | null) => (v === null ? 'n/a' : formatBandwidthIn(v, unit));
  const head = RESULT_COLUMNS.map((c) => {
    const u = c.id === 'algbw' || c.id === 'busbw' ? `(${unit.name})` : (c.shownUnit ?? c.unit);
    return `<th>${esc(c.title)}${u ? `<br>${esc(u)}` : ''}</th>`;
  });
  const rows = steps.slice(0, REPORT_TABLE_ROWS).map((s) => {
    const t = { ...resultTexts(s), algbw: bw(s.algbw), busbw: bw(s.busbw) };
    return `<tr><td class="left">${esc(stepTitle(s))}</td>${RESULT_COLUMNS.map((c) => `<td>${esc(t[c.id])}</td>`).join('')}<td>${esc(s.verdict)}</td></tr>`;
  });
  const more =
    steps.length > REPORT_TABLE_ROWS ? `<p class="dim">${steps.length - REPORT_TABLE_ROWS} more steps in the text report below.</p>` : '';
  return `<table><thead><tr><th class="left">step</th>${head.join('')}<th>check</th></tr></thead><tbody>${rows.join('')}</tbody></table>${more}`;
}

function charts(record: RunRecord): string[] {
  const out: string[] = [];
  record.plan.sweeps.forEach((sweep, i) => {
    const steps = record.steps.filter((s) => s.origin.kind === 'sweep' && s.origin.sweep === i);
    const model = sweepModel(record.plan, record.environment, record.steps, i);
    const { unit, series } = sweepChart(steps, model);
    const title = `${sweep.label ?? `sweep ${i}`}: bandwidth against message size`;
    out.push(`<figure>${lineChartSvg({ title, yTitle: unit.name, yScale: 'linear', series })}</figure>`);
  });
  record.plan.pairs.forEach((_, i) => {
    for (const m of pairsView(record, i, formatBytes).matrices) out.push(`<figure>${heatmapSvg(m)}</figure>`);
  });
  return out;
}

/** The whole run's timeline: a lane per rank and stream, each event in its step's op colour. */
export function timelineOverview(record: RunRecord, title: string): string {
  if (!record.events.length) return '<p class="dim">The record has no timeline events.</p>';
  const origin = record.events.reduce((m, e) => Math.min(m, e.startNs), Infinity);
  const colours = record.plan.steps.map((s) => opColour(stepOp(s.action)));
  const lanes = new Map<string, TimelineLane & { key: number; spans: { start: number; end: number; colour: string }[] }>();
  let end = 0;
  for (const e of record.events) {
    if (e.channel || e.proxy) continue;
    const host = HOST_PHASES.has(e.phase);
    const key = e.rank * 16 + (host ? 15 : e.stream);
    const name = `rank ${e.rank} · ${host ? 'host' : (record.plan.streams[e.stream] ?? `stream ${e.stream}`)}`;
    let lane = lanes.get(name);
    if (!lane) lanes.set(name, (lane = { key, name, spans: [] }));
    lane.spans.push({ start: e.startNs - origin, end: e.endNs - origin, colour: colours[e.step] ?? '#5b6a78' });
    end = Math.max(end, e.endNs - origin);
  }
  const sorted = [...lanes.values()].sort((a, b) => a.key - b.key);
  for (const lane of sorted) lane.spans.sort((a, b) => a.start - b.start);
  const ops = [...new Set(record.plan.steps.map((s) => stepOp(s.action)))];
  return timelineSvg({ title, lanes: sorted, start: 0, end, legend: ops.map((op) => ({ label: op, colour: opColour(op) })) });
}

export function htmlReport(record: RunRecord): string {
  const title = reportTitle(record);
  const status = shownStatus(record);
  const passed = status === 'passed';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} — Collective Lab report</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>${esc(title)}</h1>
<p class="dim">Collective Lab run of ${esc(record.createdAt)}${record.scenarioFile ? `, scenario ${esc(record.scenarioFile.split(/[\\/]/).pop()!)}` : ''}.</p>
<p class="status ${passed ? 'passed' : 'failed'}" data-section="status">${esc(statusLine(record))}</p>
<section data-section="environment"><h2>Environment</h2><p>${esc(environmentLine(record.environment).replace(/^# environment: /, ''))}</p></section>
<section data-section="results"><h2>Results</h2>${resultsTable(record)}</section>
<section data-section="charts"><h2>Charts</h2>${charts(record).join('\n') || '<p class="dim">No sweep or pairs step to chart.</p>'}</section>
<section data-section="timeline"><h2>Timeline</h2><figure>${timelineOverview(record, `${title}: the whole run`)}</figure></section>
<section data-section="report"><h2>Report</h2><pre tabindex="0">${esc(runReport(record).join('\n'))}</pre></section>
<section data-section="scenario"><h2>Scenario</h2><pre tabindex="0">${esc(JSON.stringify(record.scenario, null, 2))}</pre></section>
</main>
</body>
</html>
`;
}
