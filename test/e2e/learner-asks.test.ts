// What a learner asked for next (issue 40, items 13–18), in Chromium against a real `clab serve` on
// records made by the CLI on the cpu backend: units that fit small messages, pictures as SVG, a
// report to share, time left while running, sweeps on one chart, ring against tree. Every view
// these add is checked with axe-core in both themes.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Download, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  axeViolations,
  REPO_ROOT,
  cliRecord,
  shortSweep,
  screenshot,
  SCREENSHOTS,
  setEditorText,
  usesLabPage,
  type LabServerProcess,
} from './helpers';
import { runAndWait, selectRun, setRunOptions } from './lab-page';

let server: LabServerProcess;
let page: Page;
const paths = { tiny: '', sweepA: '', sweepB: '', pairs: '' };

usesLabPage(
  (session) => ({ server, page } = session),
  (lab) => {
    server = lab;
    paths.tiny = cliRecord(server.runsDir, shortSweep(server.runsDir, '64B'), 2, 'sweep-tiny');
    paths.sweepA = cliRecord(server.runsDir, shortSweep(server.runsDir, '256KiB'), 2, 'sweep-a');
    paths.sweepB = cliRecord(server.runsDir, shortSweep(server.runsDir, '1MiB'), 3, 'sweep-b');
    paths.pairs = cliRecord(server.runsDir, 'scenarios/p2p-pairs.scenario.json', 3, 'pairs');
  },
);

async function openSaved(path: string): Promise<void> {
  await page.getByTestId('tab-runs').click();
  await selectRun(page, path);
  await page
    .getByTestId('replay-banner')
    .filter({ hasText: path.split('/').pop()! })
    .waitFor();
}

async function download(testId: string, nth = 0): Promise<{ download: Download; text: string }> {
  const [d] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).nth(nth).click()]);
  return { download: d, text: readFileSync(await d.path()).toString('utf8') };
}

/** What the browser's XML parser makes of an SVG file: its root, an error if it is not well-formed, and counts of `tags`. */
function parseSvg(svg: string, tags: string[]): Promise<{ root: string; error: string | null; counts: number[] }> {
  return page.evaluate(
    ({ svg, tags }) => {
      const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
      const error = doc.querySelector('parsererror');
      return {
        root: `${doc.documentElement.namespaceURI} ${doc.documentElement.localName}`,
        error: error ? error.textContent : null,
        counts: tags.map((t) => doc.getElementsByTagName(t).length),
      };
    },
    { svg, tags },
  );
}

/** axe-core's serious findings in both themes, the light one left on. */
async function axeBothThemes(): Promise<string[]> {
  const found: string[] = [];
  for (const scheme of ['dark', 'light'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    found.push(...(await axeViolations(page)).map((v) => `[${scheme}] ${v}`));
  }
  return found;
}

describe('units that fit', () => {
  it('shows a sweep of small messages in MB/s in its table and chart, never 0.00', async () => {
    await openSaved(paths.tiny);
    const table = page.getByTestId('results-table').first();
    const headers = await table.locator('thead th').allTextContents();
    expect(headers.filter((h) => h.startsWith('algbw') || h.startsWith('busbw'))).toEqual(['algbw(MB/s)', 'busbw(MB/s)']);
    const cells = await table
      .locator('[data-testid=result-row]')
      .evaluateAll((rows) => rows.map((r) => Array.from(r.querySelectorAll('td'), (td) => td.textContent)));
    const algbw = headers.indexOf('algbw(MB/s)');
    expect(cells.length).toBeGreaterThan(0);
    for (const row of cells) expect(row[algbw]).not.toBe('0.00');
    await page.locator('[data-testid=bandwidth-chart][data-unit="MB/s"]').waitFor();
    expect(await page.getByTestId('sweep-summary').textContent()).toMatch(/busbw at the largest size: [\d.]+ MB\/s/);
    expect(await axeBothThemes()).toEqual([]);
    await screenshot(page, 'units-small-messages');
  });
});

describe('pictures as SVG', () => {
  it('saves the bandwidth chart, each pairs heatmap and the visible timeline as well-formed SVG', async () => {
    await openSaved(paths.sweepA);
    const chart = await download('chart-svg');
    expect(chart.download.suggestedFilename()).toMatch(/\.svg$/);
    const c = await parseSvg(chart.text, ['path', 'circle']);
    expect(c).toMatchObject({ root: 'http://www.w3.org/2000/svg svg', error: null });
    // busbw, algbw and the ring model; a dot per measured size on the first two.
    expect(c.counts[0]).toBeGreaterThanOrEqual(3);
    expect(c.counts[1]).toBeGreaterThan(10);

    await openSaved(paths.pairs);
    const heat = await download('pairs-svg');
    expect(heat.download.suggestedFilename()).toMatch(/-bandwidth\.svg$/);
    const h = await parseSvg(heat.text, ['rect']);
    expect(h.error).toBeNull();
    // 3 × 3 cells and the background.
    expect(h.counts[0]).toBe(10);

    await page.getByTestId('tab-timeline').click();
    await page.getByTestId('timeline-legend').waitFor();
    const timeline = await download('timeline-svg');
    expect(timeline.download.suggestedFilename()).toMatch(/-timeline\.svg$/);
    const t = await parseSvg(timeline.text, ['g', 'rect']);
    expect(t.error).toBeNull();
    expect(t.counts[0]).toBeGreaterThanOrEqual(3);
    expect(t.counts[1]).toBeGreaterThan(3);
    // Kept beside the screenshots: the pictures as a reader gets them.
    mkdirSync(SCREENSHOTS, { recursive: true });
    writeFileSync(join(SCREENSHOTS, 'sweep-chart.svg'), chart.text);
    writeFileSync(join(SCREENSHOTS, 'pairs-heatmap.svg'), heat.text);
    writeFileSync(join(SCREENSHOTS, 'timeline.svg'), timeline.text);
    expect(await axeBothThemes()).toEqual([]);
  });
});

describe('a report to share', () => {
  it("clab export --format html writes one file that opens from disk, loads nothing and matches the app's Report", async () => {
    const file = join(server.runsDir, 'sweep-a.report.html');
    execFileSync(process.execPath, ['bin/clab.cjs', 'export', paths.sweepA, '--format', 'html', '-o', file], { cwd: REPO_ROOT });
    const cli = readFileSync(file, 'utf8');

    await openSaved(paths.sweepA);
    const app = await download('export-html');
    expect(app.download.suggestedFilename()).toMatch(/\.report\.html$/);
    expect(app.text).toBe(cli);

    const report = await page.context().newPage();
    const requests: string[] = [];
    report.on('request', (r) => requests.push(r.url()));
    try {
      await report.goto(`file://${file}`);
      expect(requests).toEqual([`file://${file}`]);
      const sections = await report.locator('section[data-section]').evaluateAll((all) => all.map((s) => s.getAttribute('data-section')));
      expect(sections).toEqual(['environment', 'results', 'charts', 'timeline', 'report', 'scenario']);
      expect(await report.locator('[data-section=charts] svg path').count()).toBeGreaterThanOrEqual(3);
      expect(await report.locator('[data-section=timeline] svg g[data-lane]').count()).toBeGreaterThanOrEqual(2);
      expect(await report.locator('[data-section=results] tbody tr').count()).toBeGreaterThan(10);
      expect(await report.locator('script').count()).toBe(0);
      const found: string[] = [];
      for (const scheme of ['dark', 'light'] as const) {
        await report.emulateMedia({ colorScheme: scheme });
        found.push(...(await axeViolations(report)).map((v) => `[${scheme}] ${v}`));
      }
      expect(found).toEqual([]);
      await report.setViewportSize({ width: 1100, height: 1400 });
      await report.screenshot({ path: join(SCREENSHOTS, 'report-html.png') });
    } finally {
      await report.close();
    }
  });
});

describe('time left', () => {
  it('shows elapsed time and an estimate of what is left while a sweep runs, and the rate once large sizes ran', async () => {
    await page.getByTestId('tab-log').click();
    await setEditorText(
      page,
      `${JSON.stringify({ version: 1, name: 'long sweep', world: { ranks: 2 }, steps: [{ op: 'sweep', collective: 'all_reduce', minBytes: 8, maxBytes: '64MiB', iters: 20 }] }, null, 2)}\n`,
    );
    await setRunOptions(page, 'cpu', null);
    const ended = runAndWait(page, null, 180_000);
    const left = page.getByTestId('time-left');
    await left.filter({ hasText: /^elapsed \d+ s, about .+ left/ }).waitFor({ timeout: 60_000 });
    // The rate once large sizes ran: the basis and the words of one render, waited for together
    // (the estimate is redrawn at every step, so a text read after the wait may be a later one).
    await page
      .locator('[data-testid=time-left][data-basis="steps and bytes"]')
      .filter({ hasText: /^elapsed \d+ s, about .+ left, at [\d.]+ [GM]B\/s measured$/ })
      .waitFor({ timeout: 120_000 });
    expect(await axeBothThemes()).toEqual([]);
    await screenshot(page, 'run-time-left');
    expect(await ended).toMatch(/passed/i);
    // Gone once the run has ended: the status says how it went.
    expect(await left.count()).toBe(0);
  });
});

describe('sweeps on one chart', () => {
  it('overlays the sweeps of three picked saved runs, each run its colour and legend entry, with the models', async () => {
    await page.getByTestId('tab-runs').click();
    for (const path of [paths.tiny, paths.sweepA, paths.sweepB])
      await page.locator(`[data-testid=saved-run]:has(td[title="${path}"]) input[type=checkbox]`).check();
    await page.getByTestId('overlay-sweeps').click();
    const chart = page.getByTestId('overlay-chart');
    await chart.waitFor();
    const labels = (await chart.getAttribute('data-series'))!.split('|');
    expect(labels.filter((l) => l.endsWith(' busbw')).sort()).toEqual([
      'sweep-a.run.json busbw',
      'sweep-b.run.json busbw',
      'sweep-tiny.run.json busbw',
    ]);
    expect(labels.filter((l) => l.includes(' model')).length).toBe(3);
    const drawn = await chart.evaluate((c: HTMLCanvasElement) => {
      const data = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      return data.some((v, i) => i % 4 === 3 && v !== 0);
    });
    expect(drawn).toBe(true);
    const svg = await download('chart-svg', (await page.getByTestId('chart-svg').count()) - 1);
    expect(svg.text).toContain('>sweep-b.run.json busbw</text>');
    await page.getByTestId('sweep-overlay').scrollIntoViewIfNeeded();
    expect(await axeBothThemes()).toEqual([]);
    await screenshot(page, 'saved-runs-sweeps-overlaid');
  });
});

describe('ring against tree', () => {
  it("plays a step's all_reduce as ring and as tree side by side, with the α-β cost of each for its world and size", async () => {
    await openSaved(paths.sweepB);
    await page.getByTestId('tab-learn').click();
    const select = page.getByTestId('learn-step-select');
    const options = await select.locator('option').evaluateAll((o) => o.map((x) => (x as HTMLOptionElement).value));
    await select.selectOption(options[options.length - 1]);
    const section = page.getByTestId('ring-vs-tree');
    await section.waitFor();
    expect(await section.locator('h3').textContent()).toBe('Ring against tree: all_reduce of 1 MiB on 3 ranks');
    // 3 ranks: the ring 2(n−1) = 4 stages, every rank sending at once; the tree up and down one level, both trees at once.
    expect(await page.getByTestId('rt-stage').textContent()).toBe('stage 1 of 4');
    expect(await page.getByTestId('ring-diagram').getAttribute('data-live-links')).toBe('3');
    expect(await page.getByTestId('tree-diagram').getAttribute('data-live-links')).toBe('4');
    await page.getByTestId('rt-forward').click();
    await page.getByTestId('rt-forward').click();
    await page.locator('[data-testid=ring-diagram][data-stage="2"]').waitFor();
    expect(await page.getByTestId('rt-tree').textContent()).toContain('done after 2 stages');
    for (const algorithm of ['ring', 'tree'])
      expect(await page.getByTestId(`rt-cost-${algorithm}`).textContent()).toMatch(/^α-β: [\d.]+ µs$/);
    expect(await page.getByTestId('rt-verdict').textContent()).toMatch(
      /^The model has the (ring|tree) faster at this size .*host memory copy.* The record does not say which NCCL chose/,
    );
    await section.scrollIntoViewIfNeeded();
    expect(await axeBothThemes()).toEqual([]);
    await screenshot(page, 'learn-ring-vs-tree');
  });

  it("says which algorithm NCCL chose where the record has the profiler's counts", async () => {
    // The cpu record as if NCCL's profiler had seen its last step: 10 calls, 8 on TREE and 2 on RING.
    const record = JSON.parse(readFileSync(paths.sweepB, 'utf8')) as { steps: Record<string, unknown>[] };
    const last = record.steps[record.steps.length - 1];
    last.nccl = {
      calls: 10,
      seen: 10,
      algo: { TREE: 8, RING: 2 },
      proto: { LL: 10 },
      nChannels: { '2': 10 },
      missingEnds: 0,
      zeroTimes: 0,
      kernelMedianUs: null,
    };
    const path = join(server.runsDir, 'sweep-b-nccl.run.json');
    writeFileSync(path, JSON.stringify(record));
    await openSaved(path);
    await page.getByTestId('tab-learn').click();
    const select = page.getByTestId('learn-step-select');
    const options = await select.locator('option').evaluateAll((o) => o.map((x) => (x as HTMLOptionElement).value));
    await select.selectOption(options[options.length - 1]);
    await page.getByTestId('ring-vs-tree').waitFor();
    expect(await page.getByTestId('rt-verdict').textContent()).toMatch(/NCCL varied: TREE 8×, RING 2×\.$/);
  });
});
