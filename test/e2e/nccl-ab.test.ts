// An NCCL A/B in the app (issue 38, part 2), in Chromium against a real `clab serve`: an A/B built
// by the lab's own code (runAb, summarizeAb, saveAb) from real cpu-backend runs, the sides taking
// turns; the two libraries are any two files (the cpu backend loads neither). Saved runs lists it
// marked as an A/B, and Open shows the compare view: the libraries, per step A's and B's time, B/A,
// the interval and the verdict as the file says them, and the chart. axe-core in both themes.
// Screenshot: test-results/screenshots/nccl-ab.png (docs/screenshot-nccl-ab.png is a copy of it).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { abFileOf, saveAb } from '../../src/main/core/service/nccl-ab/ab-file';
import { runAb } from '../../src/main/core/service/nccl-ab/run-ab';
import { prepareRun } from '../../src/main/core/service/start-run';
import { parseScenarioText } from '../../src/shared/plan/text';
import { abIntervalText, abRatioText, abStepName, type NcclAbSummary } from '../../src/shared/results/nccl-ab';
import { formatMicroseconds } from '../../src/shared/results/results-table';
import { axeViolations, screenshot, usesLabPage } from './helpers';

let page: Page;
let ab: NcclAbSummary;
let libraries: { A: string; B: string };

const SCENARIO = JSON.stringify({
  version: 1,
  name: 'NCCL A/B: small all_reduce',
  world: { ranks: 2 },
  backend: 'cpu',
  defaults: { dtype: 'float32', warmup: 1, iters: 5 },
  steps: [{ op: 'sweep', collective: 'all_reduce', redop: 'sum', minBytes: 8, maxBytes: 256, factor: 2 }],
});

usesLabPage(
  (session) => ({ page } = session),
  async (lab) => {
    const libs = join(lab.runsDir, 'libs');
    mkdirSync(join(libs, '2.28.3'), { recursive: true });
    mkdirSync(join(libs, '2.30.7'), { recursive: true });
    libraries = { A: join(libs, '2.28.3', 'libnccl.so.2'), B: join(libs, '2.30.7', 'libnccl.so.2') };
    writeFileSync(libraries.A, 'A');
    writeFileSync(libraries.B, 'B');
    const folder = join(lab.runsDir, 'small-all-reduce-nccl-ab');
    mkdirSync(folder);
    const loaded = parseScenarioText(SCENARIO, 'nccl-ab.scenario.json');
    const { summary } = await runAb({
      scenario: loaded.scenario.name,
      scenarioFile: null,
      repeats: 2,
      libraries,
      runSide: async ({ repeat, side }) => {
        const prepared = prepareRun({
          loaded,
          scenarioFile: null,
          backend: 'cpu',
          recordPath: join(folder, `${side}${repeat + 1}.run.json`),
        });
        const { record, savedTo } = await prepared.start();
        return { record, savedTo };
      },
    });
    ab = saveAb(abFileOf(folder), summary);
    // A file that is no A/B: listed with why, as the Saved runs list does a broken record.
    writeFileSync(join(lab.runsDir, 'broken.nccl-ab.json'), JSON.stringify({ ...ab, repeats: 'two' }));
  },
);

async function openAb(): Promise<void> {
  await page.getByTestId('tab-runs').click();
  await page.getByTestId('saved-abs').waitFor();
  await page.locator('[data-testid=saved-ab]:has-text("small all_reduce") [data-testid=open-ab]').click();
  await page.getByTestId('ab-comparison').waitFor();
  await page.getByTestId('ab-chart').waitFor();
}

describe('an NCCL A/B in Saved runs', () => {
  it('is listed marked as an A/B, with both libraries; a broken A/B file with why', async () => {
    await page.getByTestId('tab-runs').click();
    const rows = page.getByTestId('saved-ab');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(2);
    const [good, broken] = await rows.allInnerTexts();
    expect(good).toMatch(/^NCCL A\/B\s+NCCL A\/B: small all_reduce\s/);
    expect(good).toContain('NCCL (version not read)');
    expect(broken).toContain('broken.nccl-ab.json: repeats: expected number, received string');
    // Open says what is wrong with it, in the same one line.
    await page.locator('[data-testid=saved-ab]:has-text("broken.nccl-ab.json") [data-testid=open-ab]').click();
    expect(await page.getByTestId('compare-failed').textContent()).toBe(
      'Could not open the A/B: broken.nccl-ab.json: repeats: expected number, received string',
    );
    // The side records lie in the A/B's folder, not among the runs.
    expect(await page.getByTestId('saved-runs-empty').textContent()).toBe('No saved runs yet.');
  });

  it('opens in the compare view: per step A, B, B/A, the interval and the verdict as the file has them', async () => {
    await openAb();
    expect(await page.getByTestId('ab-library-a').innerText()).toContain(libraries.A);
    expect(await page.getByTestId('ab-library-b').innerText()).toContain(libraries.B);
    const rows = await page
      .locator('[data-testid=ab-row]')
      .evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent ?? '')));
    expect(ab.steps.map((s) => s.bytes)).toEqual([8, 16, 32, 64, 128, 256]);
    const us = (x: number | null) => (x === null ? 'n/a' : formatMicroseconds(x));
    expect(rows).toEqual(
      ab.steps.map((s) => [abStepName(s), s.op, `${s.bytes} B`, us(s.aUs), us(s.bUs), abRatioText(s.ratio), abIntervalText(s), s.verdict]),
    );
    // Real runs, 2 repeats: every step timed on both sides, each read as one of the three verdicts.
    for (const s of ab.steps) {
      expect(s.pairs).toBe(2);
      expect(['faster', 'slower', 'within noise']).toContain(s.verdict);
    }
    const counts = (v: string) => ab.steps.filter((s) => s.verdict === v).length;
    expect(await page.getByTestId('ab-counts').textContent()).toBe(
      `B against A: ${counts('faster')} faster, ${counts('slower')} slower, ${counts('within noise')} within noise`,
    );
    expect(await page.getByTestId('ab-chart').getAttribute('data-points')).toBe('6');
    // The whole view in one picture: the editor hidden, the window tall enough for the table and the chart.
    const size = page.viewportSize()!;
    await page.getByTestId('editor-toggle').click();
    await page.setViewportSize({ width: 1280, height: 1280 });
    await page.getByTestId('ab-comparison').evaluate((el) => el.scrollIntoView({ block: 'start', inline: 'start' }));
    await screenshot(page, 'nccl-ab');
    await page.setViewportSize(size);
    await page.getByTestId('editor-toggle').click();
  });

  it('opens a side’s record from the A/B as a replay', async () => {
    await openAb();
    await page.getByTestId('ab-open-record').first().click();
    await page.getByTestId('replay-banner').waitFor();
    expect(await page.getByTestId('replay-banner').textContent()).toContain('Replay of A1.run.json');
  });

  for (const scheme of ['light', 'dark'] as const)
    it(`finds no serious or critical axe-core violation in the A/B view, ${scheme} theme`, async () => {
      await page.emulateMedia({ colorScheme: scheme });
      await openAb();
      expect(await axeViolations(page)).toEqual([]);
      if (scheme === 'dark') await screenshot(page, 'nccl-ab-dark');
      await page.emulateMedia({ colorScheme: 'light' });
    });
});
