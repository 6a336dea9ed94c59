// Accessibility and themes in Chromium against a real `clab serve` (issue 25, items 12, 17, 21
// and 26): axe-core finds nothing serious or critical in any view in either theme after a cpu
// run; keyboard focus can leave the editor; the tabs follow the arrow keys; the dark theme.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, editorText, eventually, screenshot, setEditorText, usesLabPage } from './helpers';
import { chooseTemplate, runAndWait, setRunOptions } from './lab-page';

let page: Page;
usesLabPage((session) => ({ page } = session));

const VIEWS = ['log', 'results', 'timeline', 'learn', 'runs'] as const;
type Scheme = 'light' | 'dark';

// Every kind of result a view draws: collectives, a send, a sweep (the chart) and pairs (the
// heatmaps; on 3 ranks, so that cells fall between the scale's ends, where contrast is hardest).
// It ends with a newline, as the templates do: Monaco dims the number of the line after it.
const SCENARIO = `${JSON.stringify(
  {
    version: 1,
    name: 'a11y',
    world: { ranks: 3 },
    steps: [
      { op: 'broadcast', count: 4 },
      { op: 'all_reduce', count: 3 },
      { op: 'send', from: 0, to: 1, count: 4 },
      { op: 'sweep', collective: 'all_reduce', minBytes: 1024, maxBytes: 16384 },
      { op: 'pairs', bytes: 4096, iters: 2 },
    ],
  },
  null,
  2,
)}\n`;

async function setScheme(scheme: Scheme): Promise<void> {
  await page.emulateMedia({ colorScheme: scheme });
}

/** Relative luminance of what is drawn behind the middle of an element (its first opaque background up the tree). */
async function backgroundLuminance(selector: string): Promise<number> {
  return page
    .locator(selector)
    .first()
    .evaluate((el) => {
      for (let at: Element | null = el; at; at = at.parentElement) {
        const m = /rgba?\(([\d.]+), ([\d.]+), ([\d.]+)(?:, ([\d.]+))?\)/.exec(getComputedStyle(at).backgroundColor);
        if (m && (m[4] === undefined || Number(m[4]) > 0.5)) {
          const lin = (c: number) => (c / 255 <= 0.04045 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
          return 0.2126 * lin(Number(m[1])) + 0.7152 * lin(Number(m[2])) + 0.0722 * lin(Number(m[3]));
        }
      }
      return 1;
    });
}

async function showView(view: (typeof VIEWS)[number]): Promise<void> {
  await page.getByTestId(`tab-${view}`).click();
  await page.getByTestId(`tab-${view}`).and(page.locator('[aria-selected=true]')).waitFor();
  if (view === 'timeline') await page.getByTestId('timeline-legend').waitFor();
  if (view === 'runs') await page.getByTestId('saved-run').first().waitFor();
}

// One cpu run first, so that every view has something to show.
beforeAll(async () => {
  await chooseTemplate(page, 'all-in-one.scenario.json');
  await setEditorText(page, SCENARIO);
  await setRunOptions(page, 'cpu', null);
  expect(await runAndWait(page, null, 120_000)).toMatch(/passed/i);
}, 180_000);

describe('accessibility', () => {
  for (const scheme of ['light', 'dark'] as const) {
    it(`finds no serious or critical axe-core violation in any view, ${scheme} theme`, async () => {
      await setScheme(scheme);
      const found: string[] = [];
      for (const view of VIEWS) {
        await showView(view);
        // axe judges the contrast of what it can see: bring the heatmap's cells into view.
        if (view === 'results') await page.getByTestId('pairs-cell').first().scrollIntoViewIfNeeded();
        found.push(...(await axeViolations(page)).map((v) => `[${view}] ${v}`));
        await screenshot(page, `a11y-${scheme}-${view}`);
      }
      await setScheme('light');
      expect(found).toEqual([]);
    });
  }

  it('moves between tabs with the arrow keys, Home and End, and shows the tab reached', async () => {
    await showView('log');
    const tablist = page.getByRole('tablist');
    expect(await tablist.getAttribute('aria-label')).toBe('Views');
    // One tab in the Tab order: the selected one.
    expect(await page.locator('[role=tab][tabindex="0"]').count()).toBe(1);
    await page.getByTestId('tab-log').focus();
    const focusedTab = () => page.evaluate(() => document.activeElement?.getAttribute('data-testid'));
    const steps: [string, string][] = [
      ['ArrowRight', 'tab-results'],
      ['ArrowRight', 'tab-timeline'],
      ['End', 'tab-runs'],
      ['ArrowRight', 'tab-log'],
      ['ArrowLeft', 'tab-runs'],
      ['Home', 'tab-log'],
    ];
    for (const [key, tab] of steps) {
      await page.keyboard.press(key);
      expect(await focusedTab(), key).toBe(tab);
      expect(await page.getByTestId(tab).getAttribute('aria-selected')).toBe('true');
      expect(await page.getByTestId(tab).getAttribute('tabindex')).toBe('0');
    }
  });

  it('lets the keyboard reach the log list, which scrolls', async () => {
    await showView('log');
    const log = page.getByTestId('run-log');
    expect(await log.getAttribute('tabindex')).toBe('0');
    await log.focus();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('run-log');
  });
});

describe('leaving the editor by keyboard', () => {
  const inEditor = () => page.evaluate(() => document.querySelector('[data-testid=editor]')!.contains(document.activeElement));
  const focusedTestId = () => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName);

  it('says how to leave while the editor has focus, and Esc then Tab leaves it', async () => {
    await chooseTemplate(page, 'all-in-one.scenario.json');
    // Opening a template focuses the editor: go elsewhere first, where the hint is not shown.
    await page.getByTestId('tab-log').focus();
    await page.getByTestId('editor-tab-hint').waitFor({ state: 'detached' });
    await page.locator('[data-testid=editor] .view-lines').click();
    const hint = page.getByTestId('editor-tab-hint');
    await hint.waitFor();
    expect(await hint.textContent()).toContain('Ctrl+M: Tab moves focus');
    await screenshot(page, 'editor-tab-hint');

    // Tab alone indents and stays.
    await page.keyboard.press('Home');
    await page.keyboard.press('Tab');
    expect(await inEditor()).toBe(true);
    await page.keyboard.press('Control+z');

    await page.keyboard.press('Escape');
    await page.keyboard.press('Tab');
    expect(await inEditor()).toBe(false);
    expect(await focusedTestId()).toBeTruthy();
    await hint.waitFor({ state: 'detached' });

    // Shift+Tab after Esc goes back to what comes before the editor.
    await page.locator('[data-testid=editor] .view-lines').click();
    await page.keyboard.press('Escape');
    await page.keyboard.press('Shift+Tab');
    expect(await inEditor()).toBe(false);
  });

  it('Ctrl+M makes Tab move focus, and says so', async () => {
    await chooseTemplate(page, 'all-in-one.scenario.json');
    await page.locator('[data-testid=editor] .view-lines').click();
    await page.keyboard.press('Control+m');
    await page.getByTestId('editor-tab-hint').filter({ hasText: 'Tab moves focus · Ctrl+M: Tab indents' }).waitFor();
    const before = await page.evaluate(() =>
      (globalThis as unknown as { monaco: { editor: { getModels(): { getValue(): string }[] } } }).monaco.editor.getModels()[0].getValue(),
    );
    await page.keyboard.press('Tab');
    expect(await inEditor()).toBe(false);
    // Nothing was typed into the scenario.
    const after = await page.evaluate(() =>
      (globalThis as unknown as { monaco: { editor: { getModels(): { getValue(): string }[] } } }).monaco.editor.getModels()[0].getValue(),
    );
    expect(after).toBe(before);
    // Back to Tab indenting, for the tests after this one.
    await page.locator('[data-testid=editor] .view-lines').click();
    await page.keyboard.press('Control+m');
    await page.getByTestId('editor-tab-hint').filter({ hasText: 'Tab inserts indentation' }).waitFor();
  });
});

describe('the dark theme', () => {
  it('follows prefers-color-scheme in every view, the editor and the canvases', async () => {
    await setScheme('dark');
    try {
      expect(await backgroundLuminance('body')).toBeLessThan(0.03);
      expect(await page.locator('[data-testid=editor] .monaco-editor').first().getAttribute('class')).toContain('vs-dark');
      for (const view of VIEWS) {
        await showView(view);
        expect(await backgroundLuminance('.tab-body'), view).toBeLessThan(0.03);
        expect(await backgroundLuminance('.editor-pane'), view).toBeLessThan(0.03);
        await screenshot(page, `dark-${view}`);
      }
      // The timeline's canvases are drawn in the theme's colours, and again when the theme changes
      // while they are shown.
      await showView('timeline');
      // The axis band's top-left pixel: nothing but the band's colour is drawn there.
      const brightest = () =>
        page.locator('.timeline-canvas-box canvas').evaluate((canvas: HTMLCanvasElement) => {
          const [r, g, b] = canvas.getContext('2d')!.getImageData(1, 1, 1, 1).data;
          return [Math.max(r, g, b)];
        });
      await eventually(async () => ((await brightest()).every((v) => v < 40) ? true : undefined), 10_000, 'the timeline drawn dark');
      await setScheme('light');
      await eventually(
        async () => ((await brightest()).every((v) => v > 200) ? true : undefined),
        10_000,
        'the timeline drawn light again',
      );
      await setScheme('dark');
      await eventually(async () => ((await brightest()).every((v) => v < 40) ? true : undefined), 10_000, 'the timeline drawn dark again');
    } finally {
      await setScheme('light');
    }
    // And back: light again without a reload.
    expect(await backgroundLuminance('.tab-body')).toBeGreaterThan(0.8);
    expect(await page.locator('[data-testid=editor] .monaco-editor').first().getAttribute('class')).not.toContain('vs-dark');
  });
});

// Last: it reloads the page, which forgets the run the views above show.
describe('a fresh page', () => {
  const inEditor = () => page.evaluate(() => document.querySelector('[data-testid=editor]')!.contains(document.activeElement));
  const focusedTestId = () => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName);

  it('leaves the focus out of the editor when the page loads: the first Tab reaches the first control and types nothing', async () => {
    await chooseTemplate(page, 'all-in-one.scenario.json');
    const text = await editorText(page);
    await page.reload();
    await page.getByTestId('connection').filter({ hasText: 'connected' }).waitFor();
    await page.locator('[data-testid=editor] .view-lines').waitFor();
    await expect.poll(() => editorText(page)).toBe(text);
    expect(await inEditor()).toBe(false);
    await page.keyboard.press('Tab');
    expect(await inEditor()).toBe(false);
    expect(await focusedTestId()).toBe('template-picker');
    expect(await editorText(page)).toBe(text);
    expect(await page.getByTestId('dirty-marker').count()).toBe(0);
  });
});
