// The timeline of a saved run in Chromium against a real `clab serve`: every event drawn per lane,
// wheel/drag/keys moving the window, hover and click on a slice, compare variants stacked, PNG.
// Reads back what the last frame drew from the view's data-* attributes.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { syntheticRecord } from '../../bench/timeline/synthetic-record';
import { resultLines } from '../../src/shared/export/format';
import type { RunRecord } from '../../src/shared/run/record/record';
import { REPO_ROOT, screenshot, usesLabPage, type LabServerProcess } from './helpers';
import { chooseTemplate, setRunOptions } from './lab-page';

let server: LabServerProcess;
let page: Page;

/** Two ranks, three streams, 80 events of 1.5 µs or more over about 0.4 ms: at the page's width none is thinner than a pixel. */
const small = syntheticRecord({ ranks: 2, rounds: 2, warmup: 1, iters: 2, name: 'small timeline' });

/** Large tensors made and checked by the backend (the path nccl takes with its data kernels; here cpu ranks with CLAB_DATA=backend). */
const BACKEND_DATA_SCENARIO = {
  version: 1,
  name: 'data on the stream',
  world: { ranks: 2 },
  defaults: { warmup: 1, iters: 2 },
  steps: [
    { op: 'all_reduce', count: 262144, data: { kind: 'random', seed: 3 } },
    { op: 'all_gather', count: 65536 },
  ],
};

usesLabPage(
  (session) => ({ server, page } = session),
  (lab) => {
    writeFileSync(join(lab.runsDir, 'small.run.json'), JSON.stringify(small));
    const dataScenario = join(lab.runsDir, 'data-on-the-stream.scenario.json');
    writeFileSync(dataScenario, JSON.stringify(BACKEND_DATA_SCENARIO));
    execFileSync(
      process.execPath,
      ['bin/clab.cjs', 'run', dataScenario, '--backend', 'cpu', '--out', join(lab.runsDir, 'data-on-the-stream.run.json')],
      {
        cwd: REPO_ROOT,
        stdio: 'ignore',
        env: { ...process.env, CLAB_DATA: 'backend' },
      },
    );
    execFileSync(
      process.execPath,
      ['bin/clab.cjs', 'run', 'scenarios/overlap.scenario.json', '--backend', 'cpu', '--out', join(lab.runsDir, 'overlap.run.json')],
      {
        cwd: REPO_ROOT,
        stdio: 'ignore',
      },
    );
    // Fails on purpose at its first step: no step ends, every rank's step is in flight.
    execFileSync(
      process.execPath,
      [
        'bin/clab.cjs',
        'run',
        'scenarios/mistakes/mismatched-collective.scenario.json',
        '--backend',
        'cpu',
        '--out',
        join(lab.runsDir, 'mismatched.run.json'),
      ],
      {
        cwd: REPO_ROOT,
        stdio: 'ignore',
      },
    );
  },
);

async function openTimeline(file: string): Promise<void> {
  await page.getByTestId('tab-runs').click();
  await page.locator(`[data-testid=saved-run]:has(td[title$="${file}"]) [data-testid=open-run]`).click();
  await page.getByTestId('results').waitFor();
  await page.getByTestId('tab-timeline').click();
  await page.locator('[data-testid=timeline][data-slices-drawn]').waitFor();
}

interface Window {
  start: number;
  end: number;
  drawn: number;
}
/** The window the last frame drew, read after the frames that input has asked for. */
async function visible(): Promise<Window> {
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  const root = page.getByTestId('timeline');
  return {
    start: Number(await root.getAttribute('data-visible-start-ns')),
    end: Number(await root.getAttribute('data-visible-end-ns')),
    drawn: Number(await root.getAttribute('data-slices-drawn')),
  };
}

async function lanes(): Promise<{ lane: string; drawn: number; events: number }[]> {
  return page.getByTestId('timeline-lane').evaluateAll((els) =>
    els.map((e) => ({
      lane: e.getAttribute('data-lane') ?? '',
      drawn: Number(e.getAttribute('data-drawn')),
      events: Number(e.getAttribute('data-events')),
    })),
  );
}

/** Each lane's name and how many events the record puts on it. */
function eventsPerLane(record: RunRecord): Map<string, number> {
  const counts = new Map<string, number>();
  for (const e of record.events) {
    const where = e.phase === 'fill' || e.phase === 'verify' ? 'host' : record.plan.streams[e.stream];
    const name = `rank ${e.rank} · ${where}`;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}

/** Page coordinates of the middle of an event's slice, in the window shown now. */
async function pointAt(record: RunRecord, event: RunRecord['events'][number]): Promise<{ x: number; y: number }> {
  const origin = Math.min(...record.events.map((e) => e.startNs));
  const { start, end } = await visible();
  const canvas = (await page.getByTestId('timeline-canvas').boundingBox())!;
  const lane = (await page
    .locator(`[data-testid=timeline-lane][data-lane="rank ${event.rank} · ${record.plan.streams[event.stream]}"]`)
    .boundingBox())!;
  const t = (event.startNs + event.endNs) / 2 - origin;
  return { x: canvas.x + ((t - start) / (end - start)) * canvas.width, y: lane.y + lane.height / 2 };
}

describe('the timeline of a saved run', () => {
  it('draws every event of each lane when the whole run is in view and none is thinner than a pixel', async () => {
    await openTimeline('small.run.json');
    await screenshot(page, 'timeline-1-whole-run');
    const expected = eventsPerLane(small);
    const shown = await lanes();
    expect(shown.map((l) => l.lane).sort()).toEqual([...expected.keys()].sort());
    for (const l of shown) {
      expect(l.events, l.lane).toBe(expected.get(l.lane));
      expect(l.drawn, l.lane).toBe(expected.get(l.lane));
    }
    expect((await visible()).drawn).toBe(small.events.length);
  });

  it('zooms with the wheel around the pointer, pans by dragging and with the keys, and fits back', async () => {
    const canvas = (await page.getByTestId('timeline-canvas').boundingBox())!;
    const whole = await visible();
    await page.mouse.move(canvas.x + canvas.width * 0.25, canvas.y + 60);
    await page.mouse.wheel(0, -400);
    const zoomed = await visible();
    expect(zoomed.end - zoomed.start).toBeLessThan((whole.end - whole.start) / 2);
    // The time under the pointer stays under it.
    const under = (v: Window) => v.start + 0.25 * (v.end - v.start);
    expect(Math.abs(under(zoomed) - under(whole))).toBeLessThan((whole.end - whole.start) * 0.01);
    expect(zoomed.drawn).toBeLessThan(small.events.length);

    await page.mouse.move(canvas.x + canvas.width * 0.6, canvas.y + 60);
    await page.mouse.down();
    await page.mouse.move(canvas.x + canvas.width * 0.4, canvas.y + 60, { steps: 5 });
    await page.mouse.up();
    const dragged = await visible();
    // Dragging left by a fifth of the width shows a fifth of the span later.
    expect((dragged.start - zoomed.start) / (zoomed.end - zoomed.start)).toBeCloseTo(0.2, 1);

    await page.keyboard.press('d');
    const panned = await visible();
    expect(panned.start).toBeGreaterThan(dragged.start);
    await page.keyboard.press('w');
    const keyZoomed = await visible();
    expect(keyZoomed.end - keyZoomed.start).toBeLessThan(panned.end - panned.start);
    await screenshot(page, 'timeline-2-zoomed');

    await page.getByTestId('timeline-fit').click();
    expect((await visible()).start).toBe(whole.start);
  });

  it('describes the slice under the pointer and shows its step when clicked, outlined on every lane', async () => {
    const step = small.steps.find((s) => s.label === 'all_reduce')!;
    const event = small.events.find((e) => e.step === step.index && e.rank === 1 && e.phase === 'timed')!;
    const at = await pointAt(small, event);
    await page.mouse.move(at.x, at.y);
    const tooltip = page.getByTestId('timeline-tooltip');
    await tooltip.waitFor();
    const text = (await tooltip.textContent()) ?? '';
    expect(text).toContain('all_reduce');
    expect(text).toContain(`#${step.index} all_reduce`);
    expect(text).toContain('rank 1 · comm');
    expect(text).toContain(`${step.algbw!.toFixed(2)} GB/s`);
    await screenshot(page, 'timeline-3-tooltip');

    await page.mouse.click(at.x, at.y);
    const details = page.getByTestId('timeline-details');
    await details.waitFor();
    const lines = await page.getByTestId('timeline-details-line').allTextContents();
    expect(lines).toEqual(resultLines(step));
    await screenshot(page, 'timeline-4-selected-step');
    await details.getByRole('button', { name: 'close' }).click();
    await details.waitFor({ state: 'detached' });
  });

  it('opens a clicked step in the Learn view (what moved where)', async () => {
    const step = small.steps.find((s) => s.label === 'all_reduce')!;
    const at = await pointAt(
      small,
      small.events.find((e) => e.step === step.index && e.rank === 1 && e.phase === 'timed')!,
    );
    await page.mouse.click(at.x, at.y);
    await page.getByTestId('timeline-learn').click();
    expect(await page.getByTestId('learn-step-select').inputValue()).toBe(String(step.index));
    expect(await page.getByTestId('learn-column').count()).toBe(small.world);
    await page.getByTestId('tab-timeline').click();
    await page.locator('[data-testid=timeline][data-slices-drawn]').waitFor();
  });

  it("draws the backend's making and checking of data on the stream lanes, with their legend", async () => {
    const record = JSON.parse(readFileSync(join(server.runsDir, 'data-on-the-stream.run.json'), 'utf8')) as RunRecord;
    const onStream = record.events.filter((e) => e.phase === 'data-fill' || e.phase === 'data-check');
    expect(onStream.length).toBeGreaterThanOrEqual(8); // each of 2 ranks fills and checks in each run of each step
    await openTimeline('data-on-the-stream.run.json');
    const expected = eventsPerLane(record);
    for (const l of await lanes()) expect(l.events, l.lane).toBe(expected.get(l.lane));
    const legend = (await page.getByTestId('timeline-legend').textContent()) ?? '';
    expect(legend).toContain('data made on the stream');
    expect(legend).toContain('data checked on the stream');
    const check = onStream.find((e) => e.phase === 'data-check' && e.rank === 0)!;
    await page.getByTestId('timeline-fit').click();
    const at = await pointAt(record, check);
    await page.mouse.move(at.x, at.y);
    await screenshot(page, 'timeline-data-on-the-stream');
  });

  it("draws a failed run's steps in flight as open slices, each rank's call in its tooltip", async () => {
    const record = JSON.parse(readFileSync(join(server.runsDir, 'mismatched.run.json'), 'utf8')) as RunRecord;
    expect(record.status).toBe('error');
    const open = record.events.filter((e) => e.phase === 'unfinished');
    expect(open.map((e) => e.rank).sort()).toEqual([0, 1]);
    await openTimeline('mismatched.run.json');
    const drawn = await lanes();
    expect(drawn.map((l) => [l.lane, l.events])).toEqual([
      ['rank 0 · default', 1],
      ['rank 1 · default', 1],
    ]);
    for (const l of drawn) expect(l.drawn, l.lane).toBe(1);
    expect(await page.getByTestId('timeline-legend').textContent()).toContain('in flight when the run ended');
    const at = await pointAt(
      record,
      open.find((e) => e.rank === 1)!,
    );
    await page.mouse.move(at.x, at.y);
    await expect
      .poll(async () =>
        page
          .getByTestId('timeline-tooltip')
          .textContent()
          .catch(() => ''),
      )
      .toContain('unfinished: in all_reduce(sum, 3 × float32 = 12 B, #2)');
    await screenshot(page, 'timeline-failed-run-in-flight');
  });

  it('exports the visible timeline as a PNG', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('timeline-png').click()]);
    expect(download.suggestedFilename()).toMatch(/-timeline\.png$/);
    const png = readFileSync((await download.path())!);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  it('stacks the variants of a compare block on one time scale, each from its own block start', async () => {
    await openTimeline('overlap.run.json');
    const overlap = JSON.parse(readFileSync(join(server.runsDir, 'overlap.run.json'), 'utf8')) as RunRecord;
    const whole = await lanes();
    expect(whole.map((l) => l.lane).sort()).toEqual([...eventsPerLane(overlap).keys()].sort());
    for (const l of whole) expect(l.drawn, l.lane).toBeGreaterThan(0);
    await screenshot(page, 'timeline-5-overlap-run');

    await page.getByTestId('timeline-mode-compare').click();
    const headers = await page.locator('.timeline-group-header').allTextContents();
    expect(headers.map((h) => h.split(' · ')[0])).toEqual([
      'overlap off',
      'overlap off, copy engine',
      'overlap on',
      'overlap on, copy engine',
    ]);
    const compared = await lanes();
    // "off" receives on the compute stream; "on" on comm, beside the matmul on compute.
    expect(compared.map((l) => l.lane)).toContain('rank 1 · comm');
    for (const l of compared) expect(l.drawn, l.lane).toBeGreaterThan(0);
    const window = await visible();
    expect(window.start).toBeLessThanOrEqual(0);
    await screenshot(page, 'timeline-6-compare');
  });

  it('shows the receive under the GEMM in "overlap on" of the overlap-gpu run recorded on 2 H200s (docs/records)', async () => {
    const file = 'overlap-gpu-h200x2.run.json';
    const gpu = JSON.parse(readFileSync(join(REPO_ROOT, 'docs/records', file), 'utf8')) as RunRecord;
    writeFileSync(join(server.runsDir, file), JSON.stringify(gpu));
    // In the record: rank 1's receive (comm stream) and GEMM (compute stream) of a timed "on" repeat overlap in time.
    const on = gpu.steps.filter((s) => s.origin.kind === 'compare' && s.origin.variant === 'overlap on' && s.origin.repeat === 0);
    const onRank1 = (label: string) =>
      gpu.events.find((e) => e.rank === 1 && e.phase === 'timed' && on.some((s) => s.index === e.step && s.label.endsWith(label)))!;
    const receive = onRank1('receive');
    const gemm = onRank1('matmul');
    expect(gpu.plan.streams[receive.stream]).toBe('comm');
    expect(gpu.plan.streams[gemm.stream]).toBe('compute');
    expect(Math.min(receive.endNs, gemm.endNs) - Math.max(receive.startNs, gemm.startNs)).toBeGreaterThan(
      0.5 * (receive.endNs - receive.startNs),
    );

    await openTimeline(file);
    await page.getByTestId('timeline-mode-compare').click();
    await page.getByTestId('timeline-repeat').selectOption('0');
    const headers = await page.locator('.timeline-group-header').allTextContents();
    expect(headers.map((h) => h.split(' · ')[0])).toEqual(['overlap off', 'overlap on']);
    const compared = await lanes();
    for (const lane of ['rank 1 · comm', 'rank 1 · compute']) expect(compared.find((l) => l.lane === lane)?.drawn, lane).toBeGreaterThan(0);
    await screenshot(page, 'timeline-8-overlap-gpu-h200x2');
  });

  it("stacks overlap-gpu's variants on one time scale: the copy engine's receive under the GEMM (docs/records, 2 H200s)", async () => {
    const file = 'overlap-gpu-variants-h200x2.run.json';
    const gpu = JSON.parse(readFileSync(join(REPO_ROOT, 'docs/records', file), 'utf8')) as RunRecord;
    writeFileSync(join(server.runsDir, file), JSON.stringify(gpu));
    // In the record: the copy engine's receive is drawn as a transfer like NCCL's, on rank 1's comm stream.
    const copies = gpu.steps.filter(
      (s) => s.origin.kind === 'compare' && s.origin.variant === 'overlap on, copy engine' && s.action.kind === 'group',
    );
    expect(copies.every((s) => s.verdict === 'pass' && s.label.endsWith('receive'))).toBe(true);

    await openTimeline(file);
    await page.getByTestId('timeline-mode-compare').click();
    await page.getByTestId('timeline-repeat').selectOption('0');
    const headers = await page.locator('.timeline-group-header').allTextContents();
    // The refused zero-SM variant ran its GEMM alone; it is stacked like the others.
    expect(headers.map((h) => h.split(' · ')[0])).toEqual(gpu.compares[0].variants.map((v) => v.name));
    const compared = await lanes();
    for (const lane of ['rank 1 · comm', 'rank 1 · compute']) expect(compared.find((l) => l.lane === lane)?.drawn, lane).toBeGreaterThan(0);
    // Tall enough for all six variants (docs/screenshot-timeline-overlap-variants.png).
    const size = page.viewportSize();
    await page.setViewportSize({ width: 1440, height: 1500 });
    await screenshot(page, 'timeline-9-overlap-gpu-variants-h200x2');
    if (size) await page.setViewportSize(size);
  });

  it('fills in while a run goes: slices appear as steps end, the end of time stays in view', async () => {
    await chooseTemplate(page, 'allreduce-sweep.scenario.json');
    await setRunOptions(page, 'cpu', 2);
    await page.getByTestId('run-button').click();
    await page.getByTestId('tab-timeline').click();
    const shownDuringRun = new Set<number>();
    const visibleEnds: number[] = [];
    const ended = page.getByTestId('run-status-line');
    while (!(await ended.count())) {
      const events = await lanes()
        .then((ls) => ls.reduce((n, l) => n + l.events, 0))
        .catch(() => 0);
      const end = Number(
        await page
          .getByTestId('timeline')
          .getAttribute('data-visible-end-ns')
          .catch(() => null),
      );
      if (events > 0 && !(await ended.count())) {
        shownDuringRun.add(events);
        visibleEnds.push(end);
      }
      await page.waitForTimeout(100);
    }
    // At least two different counts while running: the view grew without being reopened…
    expect(shownDuringRun.size).toBeGreaterThanOrEqual(2);
    // …and its window moved on with the run's end.
    expect(visibleEnds[visibleEnds.length - 1]).toBeGreaterThan(visibleEnds[0]);
    await screenshot(page, 'timeline-7-after-live-run');
  });
});
