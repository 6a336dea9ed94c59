import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { htmlReport } from '../../../src/shared/export/html-report.js';
import { runRecordSchema, type RunRecord } from '../../../src/shared/run/record/record.js';

const record = (name: string): RunRecord => runRecordSchema.parse(JSON.parse(readFileSync(`docs/records/${name}`, 'utf8')));

describe('the HTML report', () => {
  const html = htmlReport(record('all-in-one-h200x2.run.json'));

  it('is one file that loads nothing: no script, no link, no URL but the SVG namespace', () => {
    expect(html).not.toMatch(/<script|<link|<iframe|<img|@import|url\(/i);
    expect(html.match(/https?:\/\/[^"\s<]*/g)?.every((u) => u === 'http://www.w3.org/2000/svg')).toBe(true);
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`);
  });

  it('has the scenario, environment, results, charts, timeline and text report', () => {
    for (const section of ['status', 'environment', 'results', 'charts', 'timeline', 'report', 'scenario'])
      expect(html).toContain(`data-section="${section}"`);
    expect(html).toContain('NVIDIA H200');
    // The timeline overview is an SVG with a lane per rank and stream.
    expect(html).toMatch(/<g data-lane="rank 1 · [^"]+">/);
  });

  it('charts each sweep and heatmaps each pairs step as inline SVG', () => {
    const pairs = htmlReport(record('p2p-pairs-h200x2.run.json'));
    expect(pairs.match(/<svg /g)!.length).toBeGreaterThanOrEqual(2);
    expect(pairs).toContain('<title>latency');
  });

  it('escapes what the record says, so a name cannot become markup', () => {
    const r = record('all-in-one-h200x2.run.json');
    r.scenario = { ...(r.scenario as object), name: '<script>alert(1)</script>' };
    const out = htmlReport(r);
    expect(out).not.toContain('<script>');
    expect(out).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});
