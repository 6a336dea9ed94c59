// How a slice looks: its op's colour, and a look per phase: warm-up lighter and hatched, timed
// solid, the loop outlined, the checked run with a dotted border, a compare block as a dashed
// frame, the host's fill and verify in greys, the backend's data kernels in tinted greys, a step
// still in flight when the run failed lighter with a red dashed border up to the failure.
import { OP_COLOURS } from './ops';
import { PHASE_INDEX } from './phases';

export const HOST_COLOURS = { fill: '#b6bdc7', verify: '#7b8491' } as const;
/** The backend's data kernels on a stream: the host's greys, tinted, so they read as the same work moved. */
export const DATA_COLOURS = { fill: '#b9c9b4', check: '#6f8a68' } as const;
export const TEXT_DARK = '#1f2328';
export const ACCENT = '#2563eb';
export const UNFINISHED_BORDER = '#b91c1c';

function rgba(hex: string, alpha: number): string {
  const n = parseInt(hex.slice(1), 16);
  return `rgba(${n >> 16}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}

const LIGHT = OP_COLOURS.map((c) => rgba(c, 0.45));
const FAINT = OP_COLOURS.map((c) => rgba(c, 0.12));

/** Fill of a slice's body; merged runs use it alone. */
export function bodyColour(op: number, phase: number): string {
  switch (phase) {
    case PHASE_INDEX.fill:
      return HOST_COLOURS.fill;
    case PHASE_INDEX.verify:
      return HOST_COLOURS.verify;
    case PHASE_INDEX['data-fill']:
      return DATA_COLOURS.fill;
    case PHASE_INDEX['data-check']:
      return DATA_COLOURS.check;
    case PHASE_INDEX.warmup:
    case PHASE_INDEX.loop:
    case PHASE_INDEX.unfinished:
      return LIGHT[op];
    case PHASE_INDEX.block:
      return FAINT[op];
    default:
      return OP_COLOURS[op];
  }
}

/** Text on a dark body is white, on a light one dark. */
export function textColour(phase: number): string {
  return phase === PHASE_INDEX.timed || phase === PHASE_INDEX.check || phase === PHASE_INDEX.verify || phase === PHASE_INDEX['data-check']
    ? '#ffffff'
    : TEXT_DARK;
}

/** Diagonal stripes laid over warm-up slices. */
export function hatchPattern(ctx: CanvasRenderingContext2D): CanvasPattern | null {
  const tile = document.createElement('canvas');
  tile.width = tile.height = 6;
  const t = tile.getContext('2d')!;
  t.strokeStyle = 'rgba(255, 255, 255, 0.7)';
  t.lineWidth = 1.5;
  t.beginPath();
  t.moveTo(0, 6);
  t.lineTo(6, 0);
  t.stroke();
  return ctx.createPattern(tile, 'repeat');
}

/** Border of a slice wide enough to show one; null where the phase has none. */
export function borderOf(op: number, phase: number): { colour: string; dash: number[] } | null {
  switch (phase) {
    case PHASE_INDEX.loop:
      return { colour: OP_COLOURS[op], dash: [] };
    case PHASE_INDEX.check:
      return { colour: TEXT_DARK, dash: [1, 2] };
    case PHASE_INDEX.block:
      return { colour: OP_COLOURS[op], dash: [4, 3] };
    case PHASE_INDEX.unfinished:
      return { colour: UNFINISHED_BORDER, dash: [3, 2] };
    default:
      return null;
  }
}
