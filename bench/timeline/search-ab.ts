// Frame draw time with and without a search's matches drawn, in one page, alternating A B A B so
// that the machine's load falls on both alike: the same key zooms and pans over the 100 000-event
// run, search off, then on (SEARCH, default "all_reduce": about 30 % of the slices match).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchBrowser, openLab, startLabServer } from '../../test/e2e/helpers';
import { roundsFor, syntheticRecord } from './synthetic-record';

const EVENTS = Number(process.env.EVENTS ?? 100_000);
const SEARCH = process.env.SEARCH ?? 'all_reduce';
const shape = { ranks: 8, warmup: 2, iters: 10 };
type Frame = { at: number; ms: number; slices: number };

const frames = (page: Page) => page.evaluate(() => (window as unknown as { __clabTimelineFrames?: Frame[] }).__clabTimelineFrames ?? []);
const settle = (page: Page) => page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

/** Draw times (ms) of one frame per key: zooming in from the whole run, panning, zooming out. */
async function keyFrames(page: Page): Promise<number[]> {
  const before = (await frames(page)).length;
  await page.getByTestId('timeline').focus();
  for (const key of [...Array(8).fill('w'), ...Array(6).fill('d'), ...Array(6).fill('a'), ...Array(8).fill('s')]) {
    await page.keyboard.press(key);
    await settle(page);
  }
  return (await frames(page)).slice(before).map((f) => f.ms);
}

const server = await startLabServer();
const browser = await launchBrowser();
try {
  const record = syntheticRecord({ ...shape, rounds: roundsFor(EVENTS, shape), name: 'timeline bench' });
  writeFileSync(join(server.runsDir, 'bench.run.json'), JSON.stringify(record));
  const page = browser.page;
  await page.setViewportSize({ width: 1600, height: 1000 });
  await openLab(page, server);
  await page.getByTestId('tab-runs').click();
  await page.getByTestId('open-run').click();
  await page.getByTestId('results').waitFor();
  await page.getByTestId('tab-timeline').click();
  await page.locator('[data-testid=timeline][data-slices-drawn]').waitFor();
  const off: number[] = [];
  const on: number[] = [];
  for (let round = 0; round < 4; round++) {
    off.push(...(await keyFrames(page)));
    await page.getByTestId('timeline-search-button').click();
    await page.getByTestId('timeline-search').fill(SEARCH);
    await page.getByTestId('timeline-search-count').filter({ hasText: /match/ }).waitFor();
    on.push(...(await keyFrames(page)));
    await page.getByTestId('timeline-search').focus();
    await page.keyboard.press('Escape');
  }
  const matches = SEARCH ? record.events.filter((e) => e.name.toLowerCase().includes(SEARCH.toLowerCase())).length : 0;
  console.log(`${record.events.length} events; search "${SEARCH}" matches ${matches}; ${off.length} frames each way`);
  for (const [what, ms] of [
    ['search off', off],
    ['search on', on],
  ] as const)
    console.log(
      `${what.padEnd(12)} median ${quantile(ms, 0.5).toFixed(1)} ms  p95 ${quantile(ms, 0.95).toFixed(1)} ms  max ${Math.max(...ms).toFixed(1)} ms`,
    );
  console.log(
    `on / off: median ${(quantile(on, 0.5) / quantile(off, 0.5)).toFixed(2)}, p95 ${(quantile(on, 0.95) / quantile(off, 0.95)).toFixed(2)}`,
  );
} finally {
  await browser.close();
  await server.stop();
}
