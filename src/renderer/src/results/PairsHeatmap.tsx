// A pairs sweep as two heatmaps, bandwidth and time: rows are senders, columns receivers, so a
// one-way measurement fills one cell and its reverse says "not measured".
import { formatBytes } from '../../../shared/scenario/units.js';
import {
  formatPairValue, heatColour, needsLightText, rangePosition, type PairCell, type PairsHeatmaps, type PairsMetric,
} from './pairs-heatmap';

function Cell({ metric, cell, from, to }: { metric: PairsMetric; cell: PairCell; from: number; to: number }) {
  if (cell.kind === 'self') return <td className="pair-self" aria-label="same rank" />;
  const where = `rank ${from} → rank ${to}`;
  const common = { 'data-testid': 'pairs-cell', 'data-from': from, 'data-to': to, 'data-state': cell.kind };
  switch (cell.kind) {
    case 'not-measured':
      return <td {...common} data-value="" className="pair-none" title={`${where}: not measured`} />;
    case 'unfinished': {
      const why = cell.step.verdict === 'stopped' ? 'stopped' : 'not run';
      return <td {...common} data-value="" className="pair-none" title={`${where}: ${cell.step.label} ${why}`}>{why}</td>;
    }
    case 'error':
      return <td {...common} data-value="" className="pair-error" title={`${where}: ${cell.step.label} ended in an error`}>ERR</td>;
    case 'measured': {
      if (cell.value === null || !metric.range) return <td {...common} data-value="" title={`${where}: no ${metric.name} measured`}>n/a</td>;
      const t = rangePosition(cell.value, metric.range);
      const text = formatPairValue(metric.name, cell.value);
      const wrong = cell.step.verdict === 'fail';
      return (
        <td
          {...common}
          data-value={cell.value}
          className={`pair-value${wrong ? ' pair-wrong' : ''}${needsLightText(t) ? ' light' : ''}`}
          style={{ background: heatColour(metric.name, t) }}
          title={`${where}: ${text} ${metric.unit} (${cell.step.label})${wrong ? `, ${cell.step.wrong} wrong` : ''}`}
        >
          {text}{wrong && ' ✗'}
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
      <span>{formatPairValue(metric.name, min)}</span>
      <span className="heat-ramp" style={{ background: `linear-gradient(to right, ${heatColour(metric.name, 0)}, ${heatColour(metric.name, 1)})` }} />
      <span>{formatPairValue(metric.name, max)} {metric.unit}</span>
      <span className="dim">{metric.higherIsBetter ? 'darker is faster' : 'darker is slower'}</span>
    </div>
  );
}

function Matrix({ metric }: { metric: PairsMetric }) {
  const ranks = metric.rows.map((_, i) => i);
  return (
    <figure className="pairs-heatmap" data-testid="pairs-matrix" data-metric={metric.name}>
      <figcaption>{metric.name} ({metric.unit})</figcaption>
      <table>
        <caption>sender (row) → receiver (column)</caption>
        <thead>
          <tr><th className="corner" title="sender (row) → receiver (column)">from \ to</th>{ranks.map((to) => <th key={to} scope="col">{to}</th>)}</tr>
        </thead>
        <tbody>
          {metric.rows.map((row, from) => (
            <tr key={from}>
              <th scope="row">{from}</th>
              {row.map((cell, to) => <Cell key={to} metric={metric} cell={cell} from={from} to={to} />)}
            </tr>
          ))}
        </tbody>
      </table>
      <Legend metric={metric} />
    </figure>
  );
}

export function PairsHeatmap({ heatmaps }: { heatmaps: PairsHeatmaps }) {
  const { spec, bandwidth, time } = heatmaps;
  const unmeasured = bandwidth.rows.flat().some((c) => c.kind === 'not-measured');
  return (
    <>
      <h3>{spec.label} <small>{spec.path}, {formatBytes(spec.bytes)}{spec.direction === 'both' ? ' each way, both directions at once' : ', one way'}</small></h3>
      <div className="pairs-heatmaps">
        <Matrix metric={bandwidth} />
        <Matrix metric={time} />
      </div>
      <p className="pairs-note dim">
        {spec.direction === 'both'
          ? 'Both cells of a pair show the one measurement that sent both ways at once.'
          : 'Each cell is a send from the row’s rank to the column’s rank.'}
        {unmeasured && ' Empty cells: not measured.'}
      </p>
    </>
  );
}
