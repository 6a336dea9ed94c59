// A pairs step as heatmaps (bandwidth, latency, plain copy): rows are senders, columns receivers,
// so a one-way measurement fills one cell and its reverse is its own cell. Beside the matrices:
// what joins each pair (link, NCCL's transport, share of the link's peak) and why a pair failed.
import { formatBytes } from '../ui/units';
import { downloadBlob, fileStem } from '../ui/download';
import { heatmapSvg } from '../../../shared/export/svg/heatmap.js';
import { pairErrorWord } from '../../../shared/results/pairs.js';
import {
  formatPairValue,
  heatColour,
  heatTextColour,
  linkText,
  rangePosition,
  type PairCell,
  type PairLink,
  type PairsHeatmaps,
  type PairsMetric,
} from './pairs-heatmap';

function Cell({
  metric,
  cell,
  from,
  to,
  link,
}: {
  metric: PairsMetric;
  cell: PairCell;
  from: number;
  to: number;
  link: PairLink | undefined;
}) {
  if (cell.kind === 'self') return <td className="pair-self" aria-label="same rank" />;
  const where = `rank ${from} → rank ${to}`;
  const beside = linkText(link, metric.measure);
  const common = {
    'data-testid': 'pairs-cell',
    'data-from': from,
    'data-to': to,
    'data-state': cell.kind,
    'data-link': link?.link?.text ?? '',
    'data-transport': link?.transport ?? '',
  };
  switch (cell.kind) {
    case 'not-measured':
      return <td {...common} data-value="" className="pair-none" title={`${where}: not measured`} />;
    case 'unfinished': {
      const why = cell.step.verdict === 'stopped' ? 'stopped' : 'not run';
      return (
        <td {...common} data-value="" className="pair-none" title={`${where}: ${cell.step.label} ${why}`}>
          {why}
        </td>
      );
    }
    case 'error': {
      const e = cell.error;
      const text = pairErrorWord(e?.code);
      const why = e
        ? `${e.code}: ${e.message}${e.warnings.length ? `\n${e.warnings.join('\n')}` : ''}${e.hints.map((h) => `\nhint: ${h}`).join('')}`
        : 'ended in an error';
      return (
        <td {...common} data-value="" data-code={e?.code ?? ''} className="pair-error" title={`${where}: ${why}`}>
          {text}
        </td>
      );
    }
    case 'measured': {
      if (cell.value === null || !metric.range)
        return (
          <td {...common} data-value="" title={`${where}: no figure measured`}>
            n/a
          </td>
        );
      const t = rangePosition(cell.value, metric.range);
      const text = formatPairValue(metric, cell.value);
      const wrong = cell.step.verdict === 'fail';
      return (
        <td
          {...common}
          data-value={cell.value}
          className={`pair-value${wrong ? ' pair-wrong' : ''}`}
          style={{ background: heatColour(metric, t), color: heatTextColour(metric, t) }}
          title={`${where}: ${text} ${metric.unit} (${cell.step.label})${wrong ? `, ${cell.step.wrong} wrong` : ''}${beside ? `\n${beside}` : ''}`}
        >
          {text}
          {wrong && ' ✗'}
        </td>
      );
    }
  }
}

function Legend({ metric }: { metric: PairsMetric }) {
  if (!metric.range) return null;
  const { min, max } = metric.range;
  return (
    <div className="heat-legend" data-testid="heat-legend">
      <span>{formatPairValue(metric, min)}</span>
      <span className="heat-ramp" style={{ background: `linear-gradient(to right, ${heatColour(metric, 0)}, ${heatColour(metric, 1)})` }} />
      <span>
        {formatPairValue(metric, max)} {metric.unit}
      </span>
      <span className="dim">{metric.higherIsBetter ? 'darker is faster' : 'darker is slower'}</span>
    </div>
  );
}

function Matrix({ metric, links, label }: { metric: PairsMetric; links: Map<string, PairLink>; label: string }) {
  const saveSvg = () =>
    downloadBlob(`${fileStem(`${label}-${metric.measure}`)}.svg`, new Blob([heatmapSvg(metric)], { type: 'image/svg+xml' }));
  const ranks = metric.rows.map((_, i) => i);
  return (
    <figure className="pairs-heatmap" data-testid="pairs-matrix" data-metric={metric.measure}>
      <figcaption>{metric.title}</figcaption>
      <table>
        <caption>sender (row) → receiver (column)</caption>
        <thead>
          <tr>
            <th className="corner" title="sender (row) → receiver (column)">
              from \ to
            </th>
            {ranks.map((to) => (
              <th key={to} scope="col">
                {to}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {metric.rows.map((row, from) => (
            <tr key={from}>
              <th scope="row">{from}</th>
              {row.map((cell, to) => (
                <Cell key={to} metric={metric} cell={cell} from={from} to={to} link={links.get(`${from},${to}`)} />
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <Legend metric={metric} />
      <button
        type="button"
        className="small"
        data-testid="pairs-svg"
        title={`This ${metric.measure} matrix as an SVG picture`}
        onClick={saveSvg}
      >
        SVG
      </button>
    </figure>
  );
}

function percent(share: number | null): string {
  return share === null ? '—' : `${(100 * share).toFixed(0)} %`;
}

export function PairsHeatmap({ heatmaps }: { heatmaps: PairsHeatmaps }) {
  const { spec, matrices, links, failures, both } = heatmaps;
  const byPair = new Map(links.map((l) => [`${l.from},${l.to}`, l]));
  const unmeasured = matrices[0]?.rows.flat().some((c) => c.kind === 'not-measured');
  const arrow = both ? '⇄' : '→';
  return (
    <>
      <h3>
        {spec.label}{' '}
        <small>
          {spec.path}, {formatBytes(spec.bytes)}
          {both ? ' each way, both directions at once' : ', one way'};{' '}
          <span data-testid="pairs-summary">
            {heatmaps.pairsMeasured - failures.length} of {heatmaps.pairsMeasured} pairs measured
            {failures.length ? `, ${failures.length} failed` : ''}
          </span>
        </small>
      </h3>
      <div className="pairs-heatmaps">
        {matrices.map((m) => (
          <Matrix key={m.measure} metric={m} links={byPair} label={spec.label} />
        ))}
      </div>
      <p className="pairs-note dim">
        {both
          ? 'Both cells of a pair show the one measurement that sent both ways at once.'
          : 'Each cell is a send from the row’s rank to the column’s rank; i→j and j→i are measured apart.'}
        {unmeasured && ' Empty cells: not measured.'} Each pair runs on a communicator of its own: a pair that fails is marked and the
        others are still measured.
      </p>
      {links.some((l) => l.link || l.transport || l.how) && (
        <table className="pairs-links" data-testid="pairs-links">
          <caption>what joins each pair</caption>
          <thead>
            <tr>
              <th>pair</th>
              <th>link</th>
              <th>NCCL transport</th>
              <th>send/recv of peak</th>
              <th>plain copy</th>
              <th>copy of peak</th>
            </tr>
          </thead>
          <tbody>
            {links
              .filter((l) => !both || l.from < l.to)
              .map((l) => (
                <tr key={`${l.from},${l.to}`} data-testid="pairs-link" data-from={l.from} data-to={l.to}>
                  <td>
                    {l.from}
                    {arrow}
                    {l.to}
                  </td>
                  <td title={l.link?.peakFrom ?? undefined}>
                    {l.link ? `${l.link.text}${l.link.peakGBps ? `, ${+l.link.peakGBps.toFixed(1)} GB/s` : ''}` : 'host'}
                  </td>
                  <td>{l.transport ?? 'unknown'}</td>
                  <td>{percent(l.share)}</td>
                  <td>{l.how ?? '—'}</td>
                  <td>{percent(l.copyShare)}</td>
                </tr>
              ))}
          </tbody>
        </table>
      )}
      {failures.length > 0 && (
        <ul className="pairs-failures" data-testid="pairs-failures">
          {failures.map((f) => (
            <li key={`${f.from},${f.to}`} data-from={f.from} data-to={f.to}>
              <strong>
                {f.from}
                {arrow}
                {f.to} failed
              </strong>
              {f.error ? ` on rank ${f.error.rank}: ${f.error.code}: ${f.error.message}` : ''}
              {f.error?.warnings.map((w, i) => (
                <pre key={i} className="warn-line">
                  {w}
                </pre>
              ))}
              {f.error?.hints.map((h, i) => (
                <div key={i} className="hint">
                  hint: {h}
                </div>
              ))}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
