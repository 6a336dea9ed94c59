// Which colour is which op (only the ops of this run), and how phases look.
import { useMemo } from 'react';
import { opsIn, type TimelineModel } from './model';
import { OP_COLOURS, OPS } from './ops';

const PHASE_KEYS: [string, string][] = [
  ['warmup', 'warm-up'],
  ['timed', 'timed'],
  ['loop', 'loop'],
  ['check', 'checked run'],
  ['block', 'compare block'],
  ['fill', 'host fill'],
  ['verify', 'host verify'],
  ['data-fill', 'data made on the stream'],
  ['data-check', 'data checked on the stream'],
  ['unfinished', 'in flight when the run ended'],
];

export function Legend({ model, version }: { model: TimelineModel; version: number }) {
  const ops = useMemo(() => opsIn(model), [model, version]);
  return (
    <div className="timeline-legend" data-testid="timeline-legend">
      {ops.map((op) => (
        <span key={op} className="legend-item">
          <i className="swatch" style={{ background: OP_COLOURS[op] }} />
          {OPS[op]}
        </span>
      ))}
      <span className="legend-gap" />
      {PHASE_KEYS.map(([phase, label]) => (
        <span key={phase} className="legend-item">
          <i className={`swatch phase-${phase}`} />
          {label}
        </span>
      ))}
    </div>
  );
}
