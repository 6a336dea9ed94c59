// Which colour is which op (only the ops of this run), how phases look, and the arrows where the
// run sent from rank to rank.
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

/** `arrows`: the timeline draws arrows from sends to their receives. */
export function Legend({ model, version, arrows }: { model: TimelineModel; version: number; arrows: boolean }) {
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
      {arrows && (
        <span className="legend-item" data-testid="timeline-legend-arrow">
          <svg className="swatch-arrow" width="18" height="10" viewBox="0 0 18 10" aria-hidden="true">
            <path d="M 1 5 H 14 M 10 1.5 L 15 5 L 10 8.5" fill="none" stroke="currentColor" strokeWidth="1.5" />
          </svg>
          a send to its receive
        </span>
      )}
    </div>
  );
}
