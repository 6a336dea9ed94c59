// How a slice looks: its op's colour, and a look per phase: warm-up lighter and hatched, timed
// solid, the loop outlined, the checked run with a dotted border, a compare block as a dashed
// frame, the host's fill and verify in greys, the backend's data kernels in tinted greys, a step
// still in flight when the run failed lighter with a red dashed border up to the failure. Text on
// an op's colour is white or black, whichever reads better; around the slices, the colours of the
// theme the system asks for (styles.css's variables, as the canvas needs them).
import { textOn } from '../ui/contrast';
import { colourScheme } from '../ui/theme';
import { OP_COLOURS } from './ops';
import { PHASE_INDEX } from './phases';

export const HOST_COLOURS = { fill: '#b6bdc7', verify: '#7b8491' } as const;
/** The backend's data kernels on a stream: the host's greys, tinted, so they read as the same work moved. */
export const DATA_COLOURS = { fill: '#b9c9b4', check: '#6f8a68' } as const;
export const TEXT_DARK = '#1f2328';
export const UNFINISHED_BORDER = '#b91c1c';

/** What the canvases draw besides the slices, per colour scheme. */
export const CANVAS_COLOURS = {
  light: {
    background: '#ffffff',
    axis: '#f6f7f9',
    axisLine: '#d9dde3',
    grid: '#eef0f3',
    tick: '#5f6872',
    text: TEXT_DARK,
    header: '#eef2f7',
    laneAlt: '#fafbfc',
    accent: '#2563eb',
    flow: 'rgba(31, 35, 40, 0.55)',
    veil: 'rgba(30, 41, 59, 0.18)',
  },
  dark: {
    background: '#161b22',
    axis: '#0d1117',
    axisLine: '#3d444d',
    grid: '#262c34',
    tick: '#9ea7b3',
    text: '#e6edf3',
    header: '#21262d',
    laneAlt: '#1a1f26',
    accent: '#58a6ff',
    flow: 'rgba(230, 237, 243, 0.6)',
    veil: 'rgba(0, 0, 0, 0.45)',
  },
} as const;
export type CanvasColours = (typeof CANVAS_COLOURS)[keyof typeof CANVAS_COLOURS];
export const canvasColours = (): CanvasColours => CANVAS_COLOURS[colourScheme()];

/** Text on each op's solid colour. */
export const OP_TEXT = OP_COLOURS.map(textOn);

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

/** Text on a slice: on an op's solid colour the better of white and black; on the host's greys as before; on a translucent body the theme's. */
export function textColour(op: number, phase: number): string {
  switch (phase) {
    case PHASE_INDEX.timed:
    case PHASE_INDEX.check:
      return OP_TEXT[op];
    case PHASE_INDEX.verify:
    case PHASE_INDEX['data-check']:
      return '#ffffff';
    case PHASE_INDEX.fill:
    case PHASE_INDEX['data-fill']:
      return TEXT_DARK;
    default:
      return canvasColours().text;
  }
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
      return { colour: canvasColours().text, dash: [1, 2] };
    case PHASE_INDEX.block:
      return { colour: OP_COLOURS[op], dash: [4, 3] };
    case PHASE_INDEX.unfinished:
      return { colour: UNFINISHED_BORDER, dash: [3, 2] };
    default:
      return null;
  }
}
