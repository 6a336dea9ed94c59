// Theory beside a sweep's measurement: what busbw is against algbw for this op and world, what
// the α-β model assumed, and where the measurement beats the model or falls far short of it.
import { busBandwidthExplanation } from '../../../shared/learn/busbw.js';
import { isModelledOp } from '../../../shared/learn/model.js';
import { modelSummary, type SweepModel } from '../../../shared/learn/sweep-model.js';

interface Props {
  op: string;
  world: number;
  /** null where the record cannot say the link's peak (an older record, one rank). */
  model: SweepModel | null;
}

export function ModelNote({ op, world, model }: Props) {
  return (
    <div className="model-note" data-testid="model-note">
      {isModelledOp(op) && <p data-testid="busbw-explanation">{busBandwidthExplanation(op, world)}</p>}
      {model ? (
        <>
          <p data-testid="model-summary">
            The dashed line is the α-β model: {modelSummary(model)}. A call costs α for each hop it waits for, plus the bytes its link must
            carry over β.
            {model.alternatives.map((other) => (
              <span key={other.algorithm}>
                {' '}
                The dotted line is the same α and β on NCCL&apos;s double binary {other.algorithm}:{' '}
                {other.hops === model.hops ? `the same ${other.hops} hops` : `${other.hops} hops instead of ${model.hops}`}, but each
                rank&apos;s link carries twice the buffer; NCCL picks, for each size, the algorithm it expects to be faster.
              </span>
            ))}
          </p>
          <ul data-testid="model-notes">
            {model.notes.map((note) => (
              <li key={note}>{note}</li>
            ))}
          </ul>
        </>
      ) : (
        <p className="dim">
          No model line:{' '}
          {world < 2 ? 'on 1 rank nothing crosses a link.' : 'this record does not say how fast the link between its ranks can go.'}
        </p>
      )}
    </div>
  );
}
