// The step's time on the timeline's axis (same ticks and labels): one iteration as it ran, and a
// cursor where the animation is in it.
import { tickLabel, timeTicks } from '../ui/ticks';

interface Props {
  width: number;
  iterationUs: number;
  /** 0…1 through the iteration. */
  at: number;
}

const H = 34;
const PAD = 12;

export function PaceAxis({ width, iterationUs, at }: Props) {
  const spanNs = iterationUs * 1000;
  const { step, ticks } = timeTicks(0, spanNs, Math.max(2, Math.floor(width / 110)));
  const x = (ns: number) => PAD + ((width - 2 * PAD) * ns) / spanNs;
  return (
    <svg className="learn-axis" data-testid="learn-time-axis" width={width} height={H} viewBox={`0 0 ${width} ${H}`}>
      <line x1={PAD} x2={width - PAD} y1={8} y2={8} stroke="#94a3b8" />
      {ticks.map((t) => (
        <g key={t}>
          <line x1={x(t)} x2={x(t)} y1={4} y2={12} stroke="#94a3b8" />
          <text x={x(t)} y={26} textAnchor="middle" className="learn-axis-label">
            {tickLabel(t, step)}
          </text>
        </g>
      ))}
      <rect data-testid="learn-time-cursor" x={x(Math.min(1, Math.max(0, at)) * spanNs) - 1.5} y={1} width={3} height={14} fill="#dc2626" />
    </svg>
  );
}
