// The timeline given the window and driven by keys, in Chromium at 1600 × 1000 against a real
// `clab serve`: the editor hidden or narrowed (splitter by keyboard, kept across a reload), the
// timeline full screen, search with its count and jumps, arrows and +/- moving the window, slices
// selected by keys with their details, a measured range, a group of lanes collapsed, the `?` list
// of keys, and the compare toolbar on one line.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { syntheticRecord } from '../../bench/timeline/synthetic-record';
import { LAYOUT_STORAGE_KEY } from '../../src/renderer/src/app/workspace-layout';
import { KEY_BINDINGS } from '../../src/renderer/src/timeline/keys';
import type { RunRecord } from '../../src/shared/run/record/record';
import { axeViolations, REPO_ROOT, screenshot, usesLabPage } from './helpers';

let page: Page;

const WIDTH = 1600;
const HEIGHT = 1000;

/** Two ranks, three streams and a host lane each, 80 events (bench/timeline/synthetic-record.ts). */
const small = syntheticRecord({ ranks: 2, rounds: 2, warmup: 1, iters: 2, name: 'small timeline' });

usesLabPage(
  (session) => ({ page } = session),
  (lab) => {
    writeFileSync(join(lab.runsDir, 'small.run.json'), JSON.stringify(small));
    execFileSync(
      process.execPath,
      ['bin/clab.cjs', 'run', 'scenarios/overlap.scenario.json', '--backend', 'cpu', '--out', join(lab.runsDir, 'overlap.run.json')],
      { cwd: REPO_ROOT, stdio: 'ignore' },
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

/** After the frames that input has asked for. */
const frames = () => page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));

async function visible(): Promise<{ start: number; end: number }> {
  await frames();
  const root = page.getByTestId('timeline');
  return { start: Number(await root.getAttribute('data-visible-start-ns')), end: Number(await root.getAttribute('data-visible-end-ns')) };
}

async function width(testId: string): Promise<number> {
  return (await page.getByTestId(testId).boundingBox())!.width;
}

/** Keys go to the timeline as after a click on it (without clicking a slice). */
async function focusTimeline(): Promise<void> {
  await page.getByTestId('timeline').focus();
}

/** The lane's events in the order the timeline keeps them: by start. */
function laneEvents(record: RunRecord, rank: number, stream: string): RunRecord['events'] {
  return record.events
    .filter((e) => e.rank === rank && record.plan.streams[e.stream] === stream && e.phase !== 'fill' && e.phase !== 'verify')
    .sort((a, b) => a.startNs - b.startNs);
}

describe('the timeline takes the window', () => {
  it('gets at least 90 % of a 1600 px window with the editor hidden, and the choice survives a reload', async () => {
    await page.setViewportSize({ width: WIDTH, height: HEIGHT });
    await openTimeline('small.run.json');
    const before = await width('timeline');
    expect(before).toBeLessThan(0.6 * WIDTH); // the editor's 5/12 beside it
    await page.getByTestId('editor-toggle').click();
    await frames();
    expect(await width('timeline')).toBeGreaterThanOrEqual(0.9 * WIDTH);
    expect(await width('timeline-canvas')).toBeGreaterThanOrEqual(0.85 * WIDTH);
    await screenshot(page, 'timeline-keys-1-editor-hidden');

    await page.reload();
    await page.getByTestId('connection').filter({ hasText: 'connected' }).waitFor();
    expect(await page.getByTestId('editor-toggle').getAttribute('aria-expanded')).toBe('false');
    expect(await page.getByTestId('splitter').getAttribute('aria-valuenow')).toBe('0');
    await page.getByTestId('editor-toggle').click();
    await page.locator('[data-testid=editor] .view-lines').waitFor();
  });

  it('moves the splitter by keyboard, the editor narrower and the timeline wider, Enter collapsing it', async () => {
    await openTimeline('small.run.json');
    const splitter = page.getByTestId('splitter');
    expect(await splitter.getAttribute('role')).toBe('separator');
    expect(await splitter.getAttribute('aria-valuenow')).toBe('42');
    const before = await width('timeline');
    await splitter.focus();
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Shift+ArrowLeft');
    expect(await splitter.getAttribute('aria-valuenow')).toBe('30');
    await frames();
    expect(await width('timeline')).toBeGreaterThan(before + 0.1 * WIDTH);
    await page.keyboard.press('ArrowRight');
    expect(await splitter.getAttribute('aria-valuenow')).toBe('32');
    await page.keyboard.press('Enter');
    expect(await splitter.getAttribute('aria-valuenow')).toBe('0');
    await frames();
    expect(await width('timeline')).toBeGreaterThanOrEqual(0.9 * WIDTH);
    await page.keyboard.press('Enter');
    expect(await splitter.getAttribute('aria-valuenow')).toBe('32');
    await screenshot(page, 'timeline-keys-2-splitter-moved');
    // And by dragging: to a quarter of the window.
    const bar = (await splitter.boundingBox())!;
    await page.mouse.move(bar.x + bar.width / 2, bar.y + bar.height / 2);
    await page.mouse.down();
    await page.mouse.move(0.25 * WIDTH, bar.y + bar.height / 2, { steps: 5 });
    await page.mouse.up();
    expect(Math.abs(Number(await splitter.getAttribute('aria-valuenow')) - 25)).toBeLessThanOrEqual(1);
    await splitter.focus();
    await page.keyboard.press('Home');
    expect(await splitter.getAttribute('aria-valuenow')).toBe('15');
    // Forgotten, the layout is the 5:7 split again (as the later tests expect).
    await page.evaluate((key) => localStorage.removeItem(key), LAYOUT_STORAGE_KEY);
    await page.reload();
    await page.getByTestId('connection').filter({ hasText: 'connected' }).waitFor();
    expect(await splitter.getAttribute('aria-valuenow')).toBe('42');
  });

  it('goes full screen with Shift+F or its button and back with Esc; F alone, as in Perfetto, does not', async () => {
    await openTimeline('small.run.json');
    await focusTimeline();
    const root = page.getByTestId('timeline');
    await page.keyboard.press('f');
    expect(await root.getAttribute('data-fullscreen')).toBe('false');
    await page.keyboard.press('Shift+F');
    expect(await root.getAttribute('data-fullscreen')).toBe('true');
    await frames();
    const box = (await root.boundingBox())!;
    expect([box.x, box.y, box.width, box.height]).toEqual([0, 0, WIDTH, HEIGHT]);
    await screenshot(page, 'timeline-keys-3-full-screen');
    await page.keyboard.press('Escape');
    expect(await root.getAttribute('data-fullscreen')).toBe('false');
    await page.getByTestId('timeline-fullscreen').click();
    expect(await root.getAttribute('data-fullscreen')).toBe('true');
    await page.getByTestId('timeline-fullscreen').click();
    expect(await root.getAttribute('data-fullscreen')).toBe('false');
  });
});

describe('the timeline by keys', () => {
  it("searches the slices: count, matches selected in time order by Enter and Shift+Enter, the op's, not the host's fill", async () => {
    // The host's fill and verify are named after their step, but are not the op: "fill" finds them.
    const host = (e: RunRecord['events'][number]) => e.phase === 'fill' || e.phase === 'verify';
    const expected = small.events.filter((e) => e.name.toLowerCase().includes('matmul') && !host(e)).sort((a, b) => a.startNs - b.startNs);
    expect(small.events.filter((e) => e.name.toLowerCase().includes('matmul') && host(e))[0].startNs).toBeLessThan(expected[0].startNs);
    await focusTimeline();
    await page.keyboard.press('Control+f');
    const field = page.getByTestId('timeline-search');
    await field.waitFor();
    await page.keyboard.type('MatMul');
    const count = page.getByTestId('timeline-search-count');
    await expect.poll(() => count.getAttribute('data-matches')).toBe(String(expected.length));
    expect(await count.textContent()).toBe(`${expected.length} matches`);
    await frames();
    const root = page.getByTestId('timeline');
    expect(Number(await root.getAttribute('data-match-bars'))).toBeGreaterThan(0);

    await field.press('Enter');
    expect(await count.textContent()).toBe(`1 of ${expected.length}`);
    const slice = page.getByTestId('timeline-details-slice');
    expect(await slice.textContent()).toContain(expected[0].name);
    expect(await slice.textContent()).not.toContain('(fill)');
    await field.press('Enter');
    expect(await count.textContent()).toBe(`2 of ${expected.length}`);
    expect(await slice.textContent()).toContain(expected[1].name);
    expect(await page.getByTestId('timeline-details').locator('h3').textContent()).toContain(`#${expected[1].step} `);
    await screenshot(page, 'timeline-keys-4-search');
    await field.press('Shift+Enter');
    await field.press('Shift+Enter');
    expect(await count.textContent()).toBe(`${expected.length} of ${expected.length}`);

    // Closing the search leaves no highlight and gives the keys back to the timeline.
    await field.press('Escape');
    await field.waitFor({ state: 'detached' });
    await frames();
    expect(await root.getAttribute('data-match-bars')).toBe('0');
    await page.keyboard.press('/');
    await field.waitFor();
    expect(await field.inputValue()).toBe('');
    await page.keyboard.type('#');
    await page.keyboard.type(String(expected[0].step));
    await expect
      .poll(() => count.getAttribute('data-matches'))
      .toBe(String(small.events.filter((e) => e.step === expected[0].step).length));
    await field.press('Escape');
    await page.keyboard.press('Escape'); // the selection
    await page.getByTestId('timeline-details').waitFor({ state: 'detached' });
  });

  it('zooms with + and - and pans with the arrow keys', async () => {
    await focusTimeline();
    const whole = await visible();
    await page.keyboard.press('+');
    await page.keyboard.press('=');
    const zoomed = await visible();
    expect(zoomed.end - zoomed.start).toBeLessThan(0.7 * (whole.end - whole.start));
    await page.keyboard.press('ArrowRight');
    const right = await visible();
    expect(right.start).toBeGreaterThan(zoomed.start);
    expect(Math.abs(right.end - right.start - (zoomed.end - zoomed.start))).toBeLessThanOrEqual(2); // rounded to the ns
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    expect((await visible()).start).toBeLessThan(right.start);
    await page.keyboard.press('-');
    await page.keyboard.press('-');
    await page.keyboard.press('-');
    const out = await visible();
    expect(out.end - out.start).toBeGreaterThan(zoomed.end - zoomed.start);
    await page.getByTestId('timeline-fit').click();
  });

  it('selects slices by keys, through a lane with ] and [ and across lanes with ↓, showing each one as a click does', async () => {
    const lane0 = laneEvents(small, 0, 'default');
    const lane1 = laneEvents(small, 0, 'comm');
    await focusTimeline();
    const root = page.getByTestId('timeline');
    const slice = page.getByTestId('timeline-details-slice');
    const heading = page.getByTestId('timeline-details').locator('h3');
    await page.keyboard.press(']');
    await expect.poll(() => root.getAttribute('data-selected-slice')).toBe('0:0');
    expect(await slice.textContent()).toContain(lane0[0].name);
    expect(await slice.textContent()).toContain('rank 0 · default');
    expect(await heading.textContent()).toContain(`#${lane0[0].step} `);
    await page.keyboard.press(']');
    await page.keyboard.press(']');
    await expect.poll(() => root.getAttribute('data-selected-slice')).toBe('0:2');
    expect(await heading.textContent()).toContain(`#${lane0[2].step} `);
    await page.keyboard.press('[');
    await expect.poll(() => root.getAttribute('data-selected-slice')).toBe('0:1');
    // The comm lane's slice nearest the middle of this one.
    await page.keyboard.press('ArrowDown');
    const middle = (lane0[1].startNs + lane0[1].endNs) / 2;
    const nearest = lane1.reduce((best, e, i) => {
      const distance = (x: RunRecord['events'][number]) => Math.max(0, x.startNs - middle, middle - x.endNs);
      return distance(e) < distance(lane1[best]) ? i : best;
    }, 0);
    await expect.poll(() => root.getAttribute('data-selected-slice')).toBe(`1:${nearest}`);
    expect(await slice.textContent()).toContain('rank 0 · comm');
    expect(await slice.textContent()).toContain(lane1[nearest].name);
    await screenshot(page, 'timeline-keys-5-selected-by-keys');
    // The same details a click on that slice shows.
    const lines = await page.getByTestId('timeline-details-line').allTextContents();
    expect(lines.length).toBeGreaterThan(0);
  });

  it('measures a range with Shift+drag, and from one selected slice to another with M', async () => {
    const canvas = (await page.getByTestId('timeline-canvas').boundingBox())!;
    const { start, end } = await visible();
    const y = canvas.y + 40;
    await page.keyboard.down('Shift');
    await page.mouse.move(canvas.x + 0.3 * canvas.width, y);
    await page.mouse.down();
    await page.mouse.move(canvas.x + 0.6 * canvas.width, y, { steps: 4 });
    await page.mouse.up();
    await page.keyboard.up('Shift');
    const measure = page.getByTestId('timeline-measure');
    const duration = Number(await measure.getAttribute('data-duration-ns'));
    expect(duration / (0.3 * (end - start))).toBeCloseTo(1, 1);
    expect(await measure.textContent()).toContain('Δ ');
    // A measure is no drag: the window stayed.
    expect(await visible()).toEqual({ start, end });
    await screenshot(page, 'timeline-keys-6-measure-drag');

    // By keys alone: the pointer away, M at the first slice's start, then at the third's end.
    await page.mouse.move(5, 5);
    await focusTimeline();
    await page.keyboard.press('Escape');
    await measure.waitFor({ state: 'detached' });
    const lane0 = laneEvents(small, 0, 'default');
    await page.keyboard.press(']');
    await page.keyboard.press('m');
    expect(await measure.getAttribute('data-duration-ns')).toBe('');
    await page.keyboard.press(']');
    await page.keyboard.press(']');
    await page.keyboard.press('m');
    expect(Number(await measure.getAttribute('data-duration-ns'))).toBeCloseTo(lane0[2].endNs - lane0[0].startNs, 3);
    await screenshot(page, 'timeline-keys-7-measure-keys');
    await page.keyboard.press('Escape');
    await measure.waitFor({ state: 'detached' });
  });

  it("zooms to the selected slice with F, as Perfetto does, else to the measured range; Home and End go to the run's ends", async () => {
    const lane0 = laneEvents(small, 0, 'default');
    const origin = Math.min(...small.events.map((e) => e.startNs));
    await focusTimeline();
    await page.keyboard.press(']');
    await page.keyboard.press(']');
    await page.keyboard.press('f');
    const slice = { start: lane0[1].startNs - origin, end: lane0[1].endNs - origin };
    const spare = (slice.end - slice.start) / 10;
    const zoomed = await visible();
    expect(Math.abs(zoomed.start - (slice.start - spare))).toBeLessThanOrEqual(2);
    expect(Math.abs(zoomed.end - (slice.end + spare))).toBeLessThanOrEqual(2);
    await screenshot(page, 'timeline-keys-7b-zoomed-to-selection');
    // Home and End: the same width, at the run's start and at its end.
    const width = zoomed.end - zoomed.start;
    await page.keyboard.press('End');
    const atEnd = await visible();
    expect(Math.abs(atEnd.end - atEnd.start - width)).toBeLessThanOrEqual(2);
    await page.keyboard.press('Home');
    const atStart = await visible();
    expect(Math.abs(atStart.end - atStart.start - width)).toBeLessThanOrEqual(2);
    expect(atStart.start).toBeLessThanOrEqual(0);
    expect(atEnd.start).toBeGreaterThan(atStart.start + width);
    // No slice selected: F zooms to the measured range.
    await page.keyboard.press('Escape');
    await page.getByTestId('timeline-fit').click();
    await focusTimeline();
    const canvas = (await page.getByTestId('timeline-canvas').boundingBox())!;
    const whole = await visible();
    await page.keyboard.down('Shift');
    await page.mouse.move(canvas.x + 0.2 * canvas.width, canvas.y + 40);
    await page.mouse.down();
    await page.mouse.move(canvas.x + 0.4 * canvas.width, canvas.y + 40, { steps: 4 });
    await page.mouse.up();
    await page.keyboard.up('Shift');
    await page.mouse.move(5, 5);
    await focusTimeline();
    await page.keyboard.press('f');
    const measured = await visible();
    expect((measured.end - measured.start) / (whole.end - whole.start)).toBeCloseTo(0.2 * 1.2, 1);
    await page.keyboard.press('Escape');
    await page.getByTestId('timeline-fit').click();
  });

  it('says in the legend what the arrows are', async () => {
    const arrow = page.getByTestId('timeline-legend-arrow');
    expect(await arrow.textContent()).toBe('a send to its receive');
    expect(await axeViolations(page)).toEqual([]);
  });

  it('collapses a group of lanes by a click on its header and expands it by the keyboard', async () => {
    const lanes = page.getByTestId('timeline-lane');
    const before = await lanes.count();
    expect(before).toBe(8); // 2 ranks × default, comm, compute, host
    const rank0 = page.locator('[data-testid=timeline-group][data-group="rank 0"]');
    await rank0.click();
    expect(await rank0.getAttribute('aria-expanded')).toBe('false');
    expect(await lanes.count()).toBe(4);
    expect(await page.locator('[data-testid=timeline-lane][data-lane^="rank 0"]').count()).toBe(0);
    expect(await rank0.textContent()).toContain('4 lanes');
    await frames();
    await screenshot(page, 'timeline-keys-8-group-collapsed');
    await rank0.focus();
    await page.keyboard.press('Enter');
    expect(await lanes.count()).toBe(8);
  });

  it('lists every key on ?, closed by Esc', async () => {
    await focusTimeline();
    await page.keyboard.press('?');
    const help = page.getByTestId('timeline-help');
    await help.waitFor();
    expect(await page.getByTestId('timeline-help-key').count()).toBe(KEY_BINDINGS.length);
    const text = (await help.textContent()) ?? '';
    for (const words of [
      'Ctrl+F',
      'Shift+Enter',
      'Shift+F',
      'full screen',
      'zoom to the selected slice',
      'Home',
      'End',
      'measure',
      'Shift+drag',
    ])
      expect(text).toContain(words);
    await screenshot(page, 'timeline-keys-9-help');
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });
  });

  it('keeps the compare toolbar on one line at 1600 px beside the editor', async () => {
    await page.setViewportSize({ width: WIDTH, height: HEIGHT });
    await openTimeline('overlap.run.json');
    await page.getByTestId('timeline-mode-compare').click();
    const toolbar = page.locator('.timeline-toolbar');
    const line = (await page.getByTestId('timeline-fit').boundingBox())!.height;
    // Every control's middle on the toolbar's one line.
    const middles = await toolbar
      .locator(':scope > :not(.spacer)')
      .evaluateAll((els) => els.map((e) => e.getBoundingClientRect()).map((r) => r.top + r.height / 2));
    const box = (await toolbar.boundingBox())!;
    expect(box.height).toBeLessThan(1.5 * line);
    expect(Math.max(...middles) - Math.min(...middles)).toBeLessThan(line / 2);
    // Search, Fit, Full screen, PNG, SVG and ? beside the mode, compare and repeat.
    expect(middles.length).toBe(9);
    await screenshot(page, 'timeline-keys-10-compare-toolbar');
  });
});
