import { describe, expect, it } from 'vitest';
import { lineChartSvg } from '../../../src/shared/export/svg/line-chart.js';
import { heatmapSvg } from '../../../src/shared/export/svg/heatmap.js';
import { timelineSvg } from '../../../src/shared/export/svg/timeline.js';
import { escapeXml, linearTicks } from '../../../src/shared/export/svg/svg.js';
import type { PairsMatrix } from '../../../src/shared/results/pairs.js';
import type { StepRecord } from '../../../src/shared/run/record/record.js';

const count = (svg: string, what: string) => svg.split(what).length - 1;

describe('SVG pictures', () => {
  it('escapes text so that a title cannot break the document', () => {
    expect(escapeXml(`a<b & "c" 'd'>`)).toBe('a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;');
    const svg = lineChartSvg({ title: '<script>', yTitle: 'GB/s', yScale: 'linear', series: [] });
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&lt;script&gt;');
  });

  it('draws each series of a chart as one path through its points, with a legend entry', () => {
    const svg = lineChartSvg({
      title: 'sweep',
      yTitle: 'MB/s',
      yScale: 'linear',
      series: [
        { label: 'busbw (MB/s)', colour: '#2563eb', width: 2, dash: [], markers: true, points: [1, 2, 4, 8].map((x) => ({ x, y: x * 3 })) },
        { label: 'ring model', colour: '#16a34a', width: 2, dash: [6, 4], markers: false, points: [1, 8].map((x) => ({ x, y: x })) },
      ],
    });
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(count(svg, '<path ')).toBe(2);
    expect(count(svg, '<circle ')).toBe(4);
    expect(svg).toContain('stroke-dasharray="6 4"');
    expect(svg).toContain('>busbw (MB/s)</text>');
    expect(svg).toContain('>MB/s</text>');
  });

  it('leaves out points a log axis cannot show', () => {
    const svg = lineChartSvg({
      title: 't',
      yTitle: 'GB/s',
      yScale: 'logarithmic',
      series: [
        {
          label: 'a',
          colour: '#000',
          width: 2,
          dash: [],
          markers: true,
          points: [
            { x: 8, y: 0 },
            { x: 16, y: 2 },
          ],
        },
      ],
    });
    expect(count(svg, '<circle ')).toBe(1);
    expect(svg).toContain('GB/s (log)');
  });

  it('round ticks cover the range from zero', () => {
    expect(linearTicks(0, 9.3)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(linearTicks(0, 0.42)).toEqual([0, 0.1, 0.2, 0.3, 0.4, 0.5]);
  });

  it('writes a heatmap cell per pair with its figure, errors by their word', () => {
    const step = { verdict: 'pass', label: 'p' } as StepRecord;
    const metric: PairsMatrix = {
      measure: 'bandwidth',
      title: 'bandwidth (GB/s)',
      unit: 'GB/s',
      higherIsBetter: true,
      rows: [
        [{ kind: 'self' }, { kind: 'measured', step, value: 0.0048 }],
        [{ kind: 'error', step, error: null }, { kind: 'self' }],
      ],
      range: { min: 0.0048, max: 0.0048 },
    };
    const svg = heatmapSvg(metric);
    expect(count(svg, '<rect x=')).toBe(4);
    expect(svg).toContain('>0.0048</text>');
    expect(svg).toContain('>ERR</text>');
  });

  it('draws a timeline of 100 000 spans in at most about two rectangles a pixel', () => {
    const spans = Array.from({ length: 100_000 }, (_, i) => ({ start: i * 10, end: i * 10 + 5, colour: i % 2 ? '#111111' : '#222222' }));
    const svg = timelineSvg({ title: 'run', lanes: [{ name: 'rank 0 · main', spans }], start: 0, end: 1_000_000, legend: [], width: 960 });
    const rects = count(svg, 'height="16"');
    expect(rects).toBeGreaterThan(100);
    expect(rects).toBeLessThanOrEqual(2 * 960);
    expect(svg).toContain('>rank 0 · main</text>');
  });
});
