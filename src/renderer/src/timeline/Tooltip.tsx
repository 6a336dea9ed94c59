// The hovered slice, described next to the pointer (flipped left near the right edge).
import type { SliceDescription } from './describe';

const OFFSET = 14;
const WIDTH = 300;

export function Tooltip({ description, x, y, boxWidth }: { description: SliceDescription; x: number; y: number; boxWidth: number }) {
  const left = x + OFFSET + WIDTH > boxWidth ? Math.max(0, x - OFFSET - WIDTH) : x + OFFSET;
  return (
    <div className="timeline-tooltip" data-testid="timeline-tooltip" role="tooltip" style={{ left, top: y + OFFSET }}>
      <div className="tooltip-title">{description.title}</div>
      <dl>
        {description.rows.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
    </div>
  );
}
