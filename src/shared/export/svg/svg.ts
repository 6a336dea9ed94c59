// The few pieces every SVG picture the lab writes shares: escaping, the document, text, and axis
// ticks. Pictures are standalone (xmlns, a white background, fonts the system has) so that they
// open from disk and inline in an HTML report alike; nothing is fetched.

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text safe inside an element or a quoted attribute. */
export const escapeXml = (text: string): string => text.replace(/[&<>"']/g, (c) => XML_ESCAPES[c]);

export const FONT = 'system-ui, -apple-system, &quot;Segoe UI&quot;, &quot;DejaVu Sans&quot;, sans-serif';

/** A number as an attribute: at most two decimals, no trailing zeros. */
export const n = (x: number): string => String(Math.round(x * 100) / 100);

/** One standalone SVG document: `label` is its accessible name (role="img" and a <title>). */
export function svgDocument(width: number, height: number, label: string, body: string[]): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${n(width)}" height="${n(height)}" viewBox="0 0 ${n(width)} ${n(height)}" role="img" font-family="${FONT}" font-size="12">`,
    `<title>${escapeXml(label)}</title>`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    ...body,
    '</svg>',
  ].join('\n');
}

export interface TextOptions {
  anchor?: 'start' | 'middle' | 'end';
  size?: number;
  weight?: number;
  fill?: string;
  rotate?: boolean;
}

export function text(x: number, y: number, content: string, o: TextOptions = {}): string {
  const attrs = [
    `x="${n(x)}"`,
    `y="${n(y)}"`,
    o.anchor && o.anchor !== 'start' ? `text-anchor="${o.anchor}"` : '',
    o.size ? `font-size="${o.size}"` : '',
    o.weight ? `font-weight="${o.weight}"` : '',
    `fill="${o.fill ?? '#1f2937'}"`,
    o.rotate ? `transform="rotate(-90 ${n(x)} ${n(y)})"` : '',
  ].filter(Boolean);
  return `<text ${attrs.join(' ')}>${escapeXml(content)}</text>`;
}

/** About `count` round ticks from 0 (or `min`) to at least `max`: steps of 1, 2 or 5 × 10^k. */
export function linearTicks(min: number, max: number, count = 5): number[] {
  if (!(max > min)) return [min];
  const raw = (max - min) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw)!;
  const ticks: number[] = [];
  for (let v = Math.floor(min / step) * step; v < max + step / 2 && ticks.length <= 4 * count; v += step)
    ticks.push(Number(v.toPrecision(12)));
  if (ticks[ticks.length - 1] < max) ticks.push(Number((ticks[ticks.length - 1] + step).toPrecision(12)));
  return ticks;
}

/** Powers of ten from below `min` to above `max` (a log axis' ticks). */
export function decadeTicks(min: number, max: number): number[] {
  const lo = Math.floor(Math.log10(min));
  const hi = Math.ceil(Math.log10(max));
  const ticks: number[] = [];
  for (let e = lo; e <= hi && ticks.length < 40; e++) ticks.push(10 ** e);
  return ticks;
}

/** An axis tick with no more digits than the value has (0.0005, 1, 50), as the app's charts write theirs too. */
export const formatLogTick = (x: number): string => String(Number(x.toPrecision(3)));

/** Sizes are powers of two: every k-th power from `min` to `max`, so that about eight show. */
export function powerOfTwoTicks(min: number, max: number): number[] {
  const lo = Math.ceil(Math.log2(Math.max(min, 1)));
  const hi = Math.floor(Math.log2(Math.max(max, 1)));
  const every = Math.max(1, Math.ceil((hi - lo + 1) / 8));
  const ticks: number[] = [];
  for (let e = lo; e <= hi; e += every) ticks.push(2 ** e);
  return ticks;
}
