// The Learn view in Chromium against a real `clab serve` and cpu ranks: a broadcast on 4 ranks as
// four columns with inputs and outputs and an animation that advances; step mode pausing before
// each step and resuming on Next; Stop while paused leaving no rank process; the lessons.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, descendants, eventually, screenshot, setEditorText, usesLabPage, type LabServerProcess } from './helpers';
import { chooseTemplate, runAndWait, setRunOptions } from './lab-page';

let server: LabServerProcess;
let page: Page;

usesLabPage((session) => ({ server, page } = session));

const scenario = (steps: unknown[]) =>
  JSON.stringify(
    {
      version: 1,
      name: 'learn broadcast',
      world: { ranks: 4 },
      backend: 'cpu',
      defaults: { warmup: 1, iters: 5 },
      steps,
    },
    null,
    2,
  );

const broadcast = { op: 'broadcast', count: 4, root: 1, data: { kind: 'arange_rank', start: 1 } };
const allReduce = { op: 'all_reduce', count: 8, data: { kind: 'arange_rank', start: 1 } };

const stageOf = async () => Number(await page.getByTestId('learn-diagram').getAttribute('data-stage'));
const texts = (testId: string) => page.getByTestId(testId).allTextContents();

describe('the Learn view', () => {
  it('shows a broadcast on 4 ranks as four columns with inputs and outputs, and its animation advances', async () => {
    await chooseTemplate(page, 'all-in-one.scenario.json');
    await setEditorText(page, scenario([broadcast, allReduce]));
    await setRunOptions(page, 'cpu', 4);
    expect(await runAndWait(page)).toMatch(/^PASSED/);
    await page.getByTestId('tab-learn').click();
    await page.getByTestId('learn-view').waitFor();
    expect(await page.getByTestId('learn-step-select').inputValue()).toBe('0');
    expect(await page.getByTestId('learn-column').count()).toBe(4);
    // Each rank's input as the run recorded it (arange_rank from 1: rank r holds r + 1 …).
    expect(await page.getByTestId('learn-input').evaluateAll((els) => els.map((e) => e.getAttribute('data-values')))).toEqual([
      '1, 2, 3, 4',
      '2, 3, 4, 5',
      '3, 4, 5, 6',
      '4, 5, 6, 7',
    ]);
    expect(await page.getByTestId('learn-input-chunk').count()).toBe(16);
    expect(await stageOf()).toBe(0);
    expect(await page.getByTestId('learn-stage-label').textContent()).toBe(
      'stage 1 of 6: 1 chunk on the move, 1 of 4 sent by the first rank',
    );
    expect(await texts('learn-output')).toEqual(Array(4).fill('will be [2, 3, 4, 5]'));
    await expect
      .poll(async () => page.getByTestId('learn-pace').textContent())
      .toMatch(/Pace from the run: an iteration of this step took [\d.]+ µs \(median\); shown ×[\d ]+ slower/);
    const cursorAtStart = Number(await page.getByTestId('learn-time-cursor').getAttribute('x'));

    await page.getByTestId('learn-play').click();
    await eventually(async () => ((await stageOf()) >= 2 ? true : undefined), 20_000, 'the animation to pass stage 2');
    expect(await page.getByTestId('learn-transfer').count()).toBeGreaterThan(0);
    expect(Number(await page.getByTestId('learn-time-cursor').getAttribute('x'))).toBeGreaterThan(cursorAtStart);
    await screenshot(page, 'learn-broadcast-playing');
    // docs/screenshot-learn-broadcast.png is this picture, copied over by hand (README.md here).
    await page.getByTestId('learn-pause').click();
    while ((await stageOf()) < 6) await page.getByTestId('learn-forward').click();
    expect(await page.getByTestId('learn-stage-label').textContent()).toBe('done: all 6 stages');
    expect(await texts('learn-output')).toEqual(Array(4).fill('output [2, 3, 4, 5] ✓'));
    expect(await page.getByTestId('learn-check').textContent()).toBe(
      '✓ The moves end with exactly the outputs the run recorded, on 4 ranks.',
    );
    // After the last stage every rank's output buffer holds the root's values.
    const slots = await texts('learn-slot');
    expect(slots.slice(0, 16).map((s) => s.trim())).toEqual(Array(4).fill(['2', '3', '4', '5']).flat());

    await page.getByTestId('learn-step-select').selectOption('1');
    expect(await page.getByTestId('learn-summary').textContent()).toContain('Ring all_reduce: a reduce-scatter (3 stages');
    await page.getByTestId('learn-forward').click();
    await page.getByTestId('learn-forward').click();
    await page.getByTestId('learn-forward').click();
    // After the reduce-scatter half, rank 0 holds chunk 1 reduced over all four ranks.
    expect(await page.locator('[data-testid=learn-column][data-rank="0"] [data-testid=learn-slot]').nth(1).textContent()).toContain(
      'r0+r1+r2+r3',
    );
    await screenshot(page, 'learn-all-reduce-after-reduce-scatter');
  });

  it('draws no chunk without an element when the tensor is shorter than the world', async () => {
    await setEditorText(page, scenario([{ op: 'all_reduce', count: 3, data: { kind: 'arange_rank', start: 1 } }]));
    expect(await runAndWait(page)).toMatch(/^PASSED/);
    await page.getByTestId('tab-learn').click();
    await page.getByTestId('learn-view').waitFor();
    // 3 elements in 4 chunks: one chunk of every rank's input, and its slot in the ring, holds none.
    expect(await page.getByTestId('learn-input-chunk').count()).toBe(12);
    expect(await page.getByTestId('learn-slot').count()).toBe(12);
    const empty = async () =>
      [...(await texts('learn-input-chunk')), ...(await texts('learn-slot'))].filter((t) => !t.trim() || t.includes('(empty)'));
    for (let stage = 0; stage < 6; stage++) {
      expect(await empty(), `stage ${stage}`).toEqual([]);
      await page.getByTestId('learn-forward').click();
    }
    expect(await empty()).toEqual([]);
    // Rank r holds r + 1, r + 2, r + 3: the sums over 4 ranks.
    expect(await texts('learn-output')).toEqual(Array(4).fill('output [10, 14, 18] ✓'));
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'learn-all-reduce-short');
  });

  it('step mode pauses before each step with outputs to predict, and Next runs one step at a time', async () => {
    await setEditorText(page, scenario([broadcast, allReduce]));
    await page.getByTestId('step-mode').check();
    await page.getByTestId('run-button').click();
    await page.getByTestId('learn-view').waitFor();
    await expect.poll(() => page.getByTestId('learn-paused').textContent(), { timeout: 20_000 }).toContain('Paused before #0');
    expect(await texts('learn-output')).toEqual(Array(4).fill('output: ? (predict it)'));
    expect(await page.getByTestId('learn-predict').count()).toBe(1);
    await new Promise((r) => setTimeout(r, 1000));
    // Still waiting: nothing ran while the learner thinks.
    expect(await page.getByTestId('progress-text').textContent()).toBe('0/2 steps');
    expect(await page.getByTestId('run-paused').textContent()).toContain('Waiting before step #0');
    await screenshot(page, 'learn-step-mode');

    await page.getByTestId('next-button').click();
    await expect.poll(() => page.getByTestId('learn-paused').textContent(), { timeout: 20_000 }).toContain('Paused before #1');
    expect(await page.getByTestId('progress-text').textContent()).toBe('1/2 steps');
    await page.getByTestId('learn-step-select').selectOption('0');
    expect(await page.getByTestId('learn-check').textContent()).toContain('✓ The moves end with exactly the outputs the run recorded');

    await page.getByTestId('learn-next-step').click();
    await page.getByTestId('run-status-line').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('run-status-line').textContent()).toMatch(/^PASSED/);
    expect(await page.getByTestId('learn-paused').count()).toBe(0);
  });

  it('Stop while paused ends the run and leaves no rank process', async () => {
    await page.getByTestId('run-button').click();
    await expect.poll(() => page.getByTestId('learn-paused').textContent(), { timeout: 20_000 }).toContain('Paused before #0');
    expect(descendants(server.pid).filter((p) => p.args.includes('worker.cjs'))).toHaveLength(4);
    await page.getByTestId('stop-button').click();
    await page.getByTestId('run-status-line').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('run-status-line').textContent()).toMatch(/^ABORTED/);
    await eventually(
      () => (descendants(server.pid).some((p) => p.args.includes('worker.cjs')) ? undefined : true),
      10_000,
      'no rank process left',
    );
    await page.getByTestId('step-mode').uncheck();
  });

  it('lists the mistakes gallery as lessons, each with what you see, why and the fix, and opens one', async () => {
    await page.getByTestId('tab-learn').click();
    expect(await page.getByTestId('learn-lesson').count()).toBe(7);
    const lesson = page.getByTestId('learn-lesson').filter({ hasText: 'ranks disagree on the root' });
    await lesson.locator('summary').click();
    expect(await lesson.locator('dt').allTextContents()).toEqual(['What you will see', 'Why it happens', 'How to fix it']);
    expect(await lesson.textContent()).toContain('Pass the same root everywhere');
    await screenshot(page, 'learn-lessons');
    await lesson.getByTestId('learn-lesson-open').click();
    await page.getByTestId('file-name').filter({ hasText: 'wrong-root' }).waitFor();

    // Run it: the diagnosis, and in the Learn tab the lesson of this run and the ranks that disagree.
    await setRunOptions(page, 'cpu', null);
    expect(await runAndWait(page)).toContain('expected failure seen');
    await page.getByTestId('tab-learn').click();
    expect(await page.getByTestId('learn-run-lesson').textContent()).toContain('Pass the same root everywhere');
    expect(await page.locator('.learn-warn').textContent()).toContain('rank 0 ran something else in this step');
    await screenshot(page, 'learn-wrong-root');
  });
});
