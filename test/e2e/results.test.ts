// The results views in Chromium against a real `clab serve`, on run records made by the CLI on the
// cpu backend: pair heatmaps, each rank's input beside its output, the chart's y scale, the
// exports (trace, CSV, record, PNG) and the comparison of two saved runs.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Download, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromeTrace, compareRuns, resultsCsv } from '../../src/shared/export/index';
import { resultLines } from '../../src/shared/export/format';
import { sweepModel } from '../../src/shared/learn/sweep-model';
import { learnerLines } from '../../src/shared/export/learner-lines';
import { formatGBs } from '../../src/renderer/src/ui/units';
import { runRecordSchema, type RunRecord } from '../../src/shared/run/record/record';
import { bandwidthTime } from '../../src/shared/data/stats';
import { traceRuleViolations } from '../shared/export/trace-rules';
import { axeViolations, REPO_ROOT, cliRecord, shortSweep, screenshot, usesLabPage, type LabServerProcess } from './helpers';
import { selectRun } from './lab-page';
import { syntheticRecord } from '../../bench/timeline/synthetic-record';
import { FIRST_PAINT_STEPS } from '../../src/renderer/src/results/first-paint';
import { ROWS_SHOWN } from '../../src/renderer/src/results/StepTable';

let server: LabServerProcess;
let page: Page;
const paths = { pairs: '', allInOne: '', sweepA: '', sweepB: '', gpuPairs: '', overlap: '' };

const readRecord = (path: string): RunRecord => runRecordSchema.parse(JSON.parse(readFileSync(path, 'utf8')));

usesLabPage(
  (session) => ({ server, page } = session),
  (lab) => {
    server = lab;
    paths.pairs = cliRecord(server.runsDir, 'scenarios/p2p-pairs.scenario.json', 3, 'pairs');
    paths.allInOne = cliRecord(server.runsDir, 'scenarios/all-in-one.scenario.json', 2, 'all-in-one');
    paths.sweepA = cliRecord(server.runsDir, shortSweep(server.runsDir, '1MiB'), 2, 'sweep-a');
    // B runs one size more, and as if NCCL_ALGO had been set: the comparison must show both.
    paths.sweepB = cliRecord(server.runsDir, shortSweep(server.runsDir, '2MiB'), 2, 'sweep-b');
    const b = readRecord(paths.sweepB);
    b.environment.env.NCCL_ALGO = 'Ring';
    writeFileSync(paths.sweepB, JSON.stringify(b));
    paths.overlap = cliRecord(server.runsDir, 'scenarios/overlap.scenario.json', 2, 'overlap');
    // Recorded on 2 × H200 before pairs steps named their measure: latency was a pairs step of 8 B.
    // Read from docs/records/, written only into the lab's runs folder (a temp folder).
    const recorded = join(REPO_ROOT, 'docs/records/p2p-pairs-h200x2.run.json');
    paths.gpuPairs = join(lab.runsDir, 'p2p-pairs-h200x2.run.json');
    copyFileSync(recorded, paths.gpuPairs);
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

async function download(testId: string): Promise<{ download: Download; bytes: Buffer; text: string }> {
  const [d] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).first().click()]);
  const bytes = readFileSync(await d.path());
  return { download: d, bytes, text: bytes.toString('utf8') };
}

/** The attributes of every pairs cell in the `nth` heatmap. */
function heatmapCells(nth: number) {
  return page
    .getByTestId('pairs-matrix')
    .nth(nth)
    .getByTestId('pairs-cell')
    .evaluateAll((cells) =>
      cells.map((c) => ({
        from: Number(c.getAttribute('data-from')),
        to: Number(c.getAttribute('data-to')),
        state: c.getAttribute('data-state'),
        value: c.getAttribute('data-value'),
        text: c.textContent,
      })),
    );
}

/** Whether anything is drawn on the first chart, and a fingerprint of what. */
function chartPixels(): Promise<{ drawn: boolean; sum: number }> {
  return page.evaluate(() => {
    const canvas = document.querySelector<HTMLCanvasElement>('[data-testid=bandwidth-chart]')!;
    const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
    let sum = 0;
    for (let i = 0; i < data.length; i += 4) sum = (sum * 31 + data[i] + data[i + 3]) % 1_000_000_007;
    return { drawn: data.some((v, i) => i % 4 === 3 && v !== 0), sum };
  });
}

describe('results in a browser', () => {
  it('shows p2p pairs as sender × receiver heatmaps, each direction its own cell, with what joins each pair', async () => {
    const record = readRecord(paths.pairs);
    await openSaved(paths.pairs);
    // One-way: bandwidth, latency and plain copy; both ways (latency off): bandwidth.
    expect(await page.getByTestId('pairs-matrix').evaluateAll((m) => m.map((x) => x.getAttribute('data-metric')))).toEqual([
      'bandwidth',
      'latency',
      'copy',
      'bandwidth',
    ]);
    expect(await page.getByTestId('pairs-matrix').first().locator('caption').textContent()).toBe('sender (row) → receiver (column)');

    const find = (pairs: number, from: number, to: number, measure: string) =>
      record.steps.find(
        (s) =>
          s.origin.kind === 'pairs' &&
          s.origin.pairs === pairs &&
          s.origin.from === from &&
          s.origin.to === to &&
          s.origin.measure === measure,
      )!;
    const oneWay = await heatmapCells(0);
    expect(oneWay).toHaveLength(3 * 2);
    // Every ordered pair measured apart: 0→1 and 1→0 each hold their own step's figure.
    for (const [from, to] of [
      [0, 1],
      [1, 0],
      [0, 2],
      [2, 0],
      [1, 2],
      [2, 1],
    ]) {
      const step = find(0, from, to, 'bandwidth');
      const cell = oneWay.find((c) => c.from === from && c.to === to)!;
      expect(cell.state).toBe('measured');
      expect(Number(cell.value)).toBeCloseTo(step.algbw!, 9);
      expect(cell.text).toBe(formatGBs(step.algbw!));
    }
    expect(oneWay.some((c) => c.from === c.to)).toBe(false);

    // Both ways at once: one measurement fills both cells of an adjacent pair.
    const both = await heatmapCells(3);
    const forward = both.find((c) => c.from === 0 && c.to === 1)!;
    const backward = both.find((c) => c.from === 1 && c.to === 0)!;
    expect(forward.state).toBe('measured');
    expect(backward.value).toBe(forward.value);
    expect(both.find((c) => c.from === 0 && c.to === 2)!.state).toBe('not-measured');

    const latency = await heatmapCells(1);
    expect(Number(latency.find((c) => c.from === 0 && c.to === 1)!.value)).toBeCloseTo(bandwidthTime(find(0, 0, 1, 'latency').timing!), 6);
    expect(await page.getByTestId('heat-legend').count()).toBe(4);
    // What joins each pair: on cpu ranks, host memory through the cpu backend's shared segment.
    const links = page.getByTestId('pairs-links').first();
    expect(await links.getByTestId('pairs-link').count()).toBe(6);
    expect(await links.getByTestId('pairs-link').first().textContent()).toContain('shared memory (cpu backend)');
    expect(await links.getByTestId('pairs-link').first().textContent()).toContain('memcpy between two host buffers');
    expect(await page.getByTestId('pairs-summary').first().textContent()).toBe('6 of 6 pairs measured');
    await page.getByTestId('pairs-matrix').first().scrollIntoViewIfNeeded();
    await screenshot(page, 'r1-pairs-heatmaps');
  });

  it("shows an older GPU record's 8 B pairs step as the latency matrix, in µs", async () => {
    const record = readRecord(paths.gpuPairs);
    await openSaved(paths.gpuPairs);
    expect(await page.getByTestId('pairs-matrix').evaluateAll((m) => m.map((x) => x.getAttribute('data-metric')))).toEqual([
      'bandwidth',
      'bandwidth',
      'latency',
    ]);
    const latency = page.getByTestId('pairs-matrix').nth(2);
    expect(await latency.locator('figcaption').textContent()).toBe('latency, 8 B (µs)');
    const [cell] = (await heatmapCells(2)).filter((c) => c.state === 'measured');
    const step = record.steps.find((s) => s.origin.kind === 'pairs' && s.origin.pairs === 2)!;
    // 8 B an op at 0.00082 GB/s: about 9.7 µs, not a bandwidth.
    expect(Number(cell.value)).toBeCloseTo(bandwidthTime(step.timing!), 6);
    expect(cell.text).toBe(bandwidthTime(step.timing!).toFixed(2));
    await latency.scrollIntoViewIfNeeded();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'r1-pairs-gpu-latency');
  });

  it("shows an overlap run's lone warm-up step by its time and check, and its compare block wrapped in the pane", async () => {
    await openSaved(paths.overlap);
    const table = page.getByTestId('results-table').first();
    expect(await table.locator('th').allTextContents()).toEqual(['step', 'time(µs)', 'check']);
    const rows = table.getByTestId('result-row');
    expect(await rows.count()).toBe(1);
    const cells = await rows.locator('td').allTextContents();
    expect(cells[0]).toContain('warm-up matmul');
    expect(Number(cells[1])).toBeGreaterThan(0);
    const summary = page.getByTestId('compare-summary').first();
    await summary.scrollIntoViewIfNeeded();
    const fits = await summary.evaluate((el) => ({
      scroll: el.scrollWidth,
      client: el.clientWidth,
      longest: Math.max(...(el.textContent ?? '').split('\n').map((line) => line.length)),
    }));
    // Lines far wider than the pane (12 px monospace), wrapped inside it rather than cut off.
    expect(fits.longest * 7).toBeGreaterThan(fits.client);
    expect(fits.scroll).toBeLessThanOrEqual(fits.client);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'r1-overlap-results');
  });

  it('marks a pair that failed, says why beside the matrix and counts it', async () => {
    const record = readRecord(paths.pairs);
    const erred = record.steps.find((s) => s.origin.kind === 'pairs' && s.origin.pairs === 0 && s.origin.from === 1 && s.origin.to === 2)!;
    const error = {
      rank: 2,
      code: 'NCCL_ERROR_INTERNAL_ERROR',
      message: 'rank 1: ncclSend failed',
      warnings: ['host:12:34 [1] NCCL WARN Cuda failure'],
      hints: ['check the link'],
      injected: false,
    };
    Object.assign(erred, { verdict: 'error', algbw: null, busbw: null, timing: null, pair: { transport: null, how: null, error } });
    const path = join(server.runsDir, 'pairs-erred.run.json');
    writeFileSync(path, JSON.stringify({ ...record, status: 'failed' }));
    await openSaved(path);
    const cell = page.getByTestId('pairs-matrix').first().locator('[data-testid=pairs-cell][data-from="1"][data-to="2"]');
    expect(await cell.textContent()).toBe('ERR');
    expect(await cell.getAttribute('title')).toContain('NCCL_ERROR_INTERNAL_ERROR: rank 1: ncclSend failed');
    expect(await cell.evaluate((td) => getComputedStyle(td).color)).toBe('rgb(185, 28, 28)');
    expect(await page.getByTestId('pairs-summary').first().textContent()).toBe('5 of 6 pairs measured, 1 failed');
    const failures = await page.getByTestId('pairs-failures').first().textContent();
    expect(failures).toContain('1→2 failed on rank 2: NCCL_ERROR_INTERNAL_ERROR');
    expect(failures).toContain('NCCL WARN Cuda failure');
    expect(failures).toContain('hint: check the link');
  });

  it("puts each rank's input beside its output and shows how a reduction combined them", async () => {
    const record = readRecord(paths.allInOne);
    await openSaved(paths.allInOne);
    const lines = await page.getByTestId('rank-line').allTextContents();
    expect(lines).toEqual(record.steps.filter((s) => s.action.kind !== 'wait').flatMap(learnerLines));
    expect(lines).toContain('[Rank 1] all_reduce prod: [2, 3, 4] → [2, 6, 12] ✓');
    expect(lines).toContain('[Rank 1] broadcast (root 0): [2, 3, 4] → [1, 2, 3] ✓');
    const reductions = await page.getByTestId('reduction-line').allTextContents();
    expect(reductions).toContain('prod: [1, 2, 3] × [2, 3, 4] → [2, 6, 12]');
    expect(reductions).toContain('min: min([1, 2, 3], [2, 3, 4]) → [1, 2, 3]');
    await page.getByTestId('reduction-line').first().scrollIntoViewIfNeeded();
    await screenshot(page, 'r2-rank-inputs');
  });

  it('reads a record without inputs exactly as before', async () => {
    const record = readRecord(paths.allInOne);
    for (const step of record.steps) for (const r of step.ranks) delete r.input;
    const path = join(server.runsDir, 'all-in-one-without-inputs.run.json');
    writeFileSync(path, JSON.stringify(record));
    await openSaved(path);
    expect(await page.getByTestId('rank-line').allTextContents()).toEqual(
      record.steps.filter((s) => s.action.kind !== 'wait').flatMap(resultLines),
    );
    expect(await page.getByTestId('reduction-line').count()).toBe(0);
  });

  it('switches the bandwidth chart between a linear and a log y axis, and saves it as PNG', async () => {
    await openSaved(paths.sweepA);
    const scale = page.getByTestId('chart-scale');
    expect(await scale.inputValue()).toBe('linear');
    const linear = await chartPixels();
    expect(linear.drawn).toBe(true);
    await scale.selectOption('logarithmic');
    await page.locator('[data-testid=bandwidth-chart][data-scale=logarithmic]').waitFor();
    const log = await chartPixels();
    expect(log.drawn).toBe(true);
    expect(log.sum).not.toBe(linear.sum);
    await page.getByTestId('bandwidth-chart').scrollIntoViewIfNeeded();
    await screenshot(page, 'r3-chart-log');

    const png = await download('chart-png');
    expect(png.download.suggestedFilename()).toBe('all_reduce-sweep-all_reduce-sweep.png');
    expect([...png.bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  });

  it('draws the α-β model dashed beside the measurement, explains busbw for the op and world, and says where they part', async () => {
    await openSaved(paths.sweepA);
    const record = readRecord(paths.sweepA);
    const model = sweepModel(record.plan, record.environment, record.steps, 0)!;
    await page.locator('[data-testid=bandwidth-chart][data-model=ring]').waitFor();
    expect(await page.getByTestId('busbw-explanation').textContent()).toContain(
      'all_reduce on 2 ranks: busbw = algbw × 2(n−1)/n = × 1, because',
    );
    expect(await page.getByTestId('model-summary').textContent()).toContain(
      `β = ${record.environment.hostCopyGBps!.toFixed(2)} GB/s (host memory copy`,
    );
    expect(await page.getByTestId('model-notes').locator('li').allTextContents()).toEqual(model.notes);
    expect(await page.getByTestId('model-summary').textContent()).toContain(
      "The dotted line is the same α and β on NCCL's double binary tree: the same 2 hops, but each rank's link carries twice the buffer",
    );
    await page.getByTestId('model-note').scrollIntoViewIfNeeded();
    await screenshot(page, 'r5-model');
  });

  it('exports a Perfetto trace, the CSV table and the run record from the page', async () => {
    const record = readRecord(paths.allInOne);
    await openSaved(paths.allInOne);

    const trace = await download('export-trace');
    expect(trace.download.suggestedFilename()).toBe('All-in-one-collectives.trace.json');
    const parsed = JSON.parse(trace.text) as { traceEvents: { ph: string; name: string; pid: number }[] };
    expect(traceRuleViolations(parsed)).toEqual([]);
    expect(parsed).toEqual(JSON.parse(JSON.stringify(chromeTrace(record))));
    expect(parsed.traceEvents.filter((e) => e.ph === 'M' && e.name === 'process_name').map((e) => e.pid)).toEqual([0, 1]);
    expect(parsed.traceEvents.filter((e) => e.ph === 'X').length).toBeGreaterThan(record.steps.length);

    const csv = await download('export-csv');
    expect(csv.download.suggestedFilename()).toBe('All-in-one-collectives.csv');
    expect(csv.text).toBe(resultsCsv(record));
    const rows = csv.text
      .trimEnd()
      .split('\r\n')
      .map((line) => line.split(','));
    expect(rows[0].slice(0, 3)).toEqual(['step', 'label', 'op']);
    expect(rows[0]).toContain('busbw (GB/s)');
    expect(rows).toHaveLength(1 + record.steps.filter((s) => !['wait', 'block-begin', 'block-end'].includes(s.action.kind)).length);
    expect(rows[1].slice(1, 3)).toEqual(['broadcast', 'broadcast']);

    const saved = await download('export-record');
    expect(saved.download.suggestedFilename()).toBe('All-in-one-collectives.run.json');
    expect(runRecordSchema.parse(JSON.parse(saved.text))).toEqual(record);
  });

  it('compares two saved runs: matched steps with changes marked, steps only one ran, environment differences', async () => {
    const expected = compareRuns(readRecord(paths.sweepA), readRecord(paths.sweepB));
    await page.getByTestId('tab-runs').click();
    const compare = page.getByTestId('compare-runs');
    expect(await compare.isDisabled()).toBe(true);
    for (const path of [paths.sweepA, paths.sweepB])
      await page.locator(`[data-testid=saved-run]:has(td[title="${path}"]) [data-testid=compare-pick]`).check();
    await compare.click();
    await page.getByTestId('run-comparison').waitFor();

    const rows = page.getByTestId('compare-row');
    expect(await rows.count()).toBe(18);
    expect(expected.steps).toHaveLength(18);
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-significant')))).toEqual(
      expected.steps.map((s) => String(s.significant)),
    );
    const first = await rows.first().locator('td').allTextContents();
    expect(first.slice(0, 3)).toEqual([expected.steps[0].label, 'all_reduce', '8 B']);
    expect(first[9]).toBe('pass / pass');
    expect(await page.getByTestId('compare-only-b').textContent()).toContain('2 MiB');
    expect(await page.getByTestId('compare-only-a').count()).toBe(0);
    const env = await page.getByTestId('compare-env').textContent();
    expect(env).toContain('env.NCCL_ALGO');
    expect(env).toContain('only in B: Ring');
    await page.getByTestId('run-comparison').scrollIntoViewIfNeeded();
    await screenshot(page, 'r4-compare');
  });

  it("opens a long run's results in two goes: the first rows at once, the rest from the next frame, then 'show all'", async () => {
    const long = join(server.runsDir, 'long.run.json');
    writeFileSync(long, JSON.stringify(syntheticRecord({ ranks: 2, rounds: 275, warmup: 0, iters: 1, name: 'long' })));
    // The list is read again when the tab is shown again.
    await page.getByTestId('tab-results').click();
    await page.getByTestId('tab-runs').click();
    // The rows there are when the long run's results first appear: a mutation observer runs before any frame or timer.
    await page.evaluate(() => {
      const found = window as unknown as { firstRows: number | null };
      found.firstRows = null;
      new MutationObserver((_, observer) => {
        if (!document.querySelector('[data-testid=replay-banner]')?.textContent?.includes('long.run.json')) return;
        found.firstRows = document.querySelectorAll('[data-testid=result-row]').length;
        observer.disconnect();
      }).observe(document.body, { childList: true, subtree: true });
    });
    await selectRun(page, long);
    await page.getByTestId('results-table-all').waitFor();
    expect(await page.evaluate(() => (window as unknown as { firstRows: number | null }).firstRows)).toBe(FIRST_PAINT_STEPS);
    expect(await page.getByTestId('result-row').count()).toBe(ROWS_SHOWN);
    await page.getByTestId('results-table-all').click();
    expect(await page.getByTestId('result-row').count()).toBe(1100);
  });
});
