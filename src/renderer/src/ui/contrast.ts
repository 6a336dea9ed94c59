// WCAG 2 contrast: relative luminance of an sRGB colour and the ratio between two, for choosing
// the text drawn on a colour the data picks (a heatmap cell, an op's slice).
export type Rgb = readonly [number, number, number];

/** `#rrggbb` or `hsl(h, s%, l%)` as 0…255 channels. */
export function parseColour(colour: string): Rgb {
  const hsl = /^hsl\(\s*([\d.]+),\s*([\d.]+)%,\s*([\d.]+)%\s*\)$/.exec(colour);
  if (hsl) {
    const [h, s, l] = [Number(hsl[1]), Number(hsl[2]) / 100, Number(hsl[3]) / 100];
    const a = s * Math.min(l, 1 - l);
    const f = (n: number) => {
      const k = (n + h / 30) % 12;
      return 255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1)));
    };
    return [f(0), f(8), f(4)];
  }
  const hex = /^#([0-9a-f]{6})$/i.exec(colour);
  if (!hex) throw new Error(`expected a colour as #rrggbb or hsl(h, s%, l%), got "${colour}"`);
  const n = parseInt(hex[1], 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

export function relativeLuminance(colour: string): number {
  const [r, g, b] = parseColour(colour).map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

export const WHITE = '#ffffff';
export const BLACK = '#000000';

/** White or black, whichever reads better on `background` (at least 4.58:1 on any colour). */
export const textOn = (background: string): typeof WHITE | typeof BLACK =>
  contrastRatio(background, WHITE) >= contrastRatio(background, BLACK) ? WHITE : BLACK;
