// The page loads Monaco and the Results view (with chart.js) after its first drawing, not with
// it: with both held back, the tabs and run controls are up and working; once they arrive the
// editor shows its scenario and an opened run its results.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syntheticRecord } from '../../bench/timeline/synthetic-record';
import { launchBrowser, screenshot, startLabServer, type Browser, type LabServerProcess } from './helpers';

let server: LabServerProcess;
let browser: Browser;

beforeAll(async () => {
  server = await startLabServer();
  writeFileSync(
    join(server.runsDir, 'small.run.json'),
    JSON.stringify(syntheticRecord({ ranks: 2, rounds: 1, warmup: 1, iters: 2, name: 'small' })),
  );
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('loading the page', () => {
  it('draws the views before the editor code arrives, and fetches the Results view only for a record', async () => {
    const { page } = browser;
    const scripts: string[] = [];
    page.on('request', (r) => {
      if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
    });
    let release!: () => void;
    const held = new Promise<void>((done) => (release = done));
    const heldBack: string[] = [];
    await page.route(/\/assets\/(ScenarioEditor|ResultsView)-[^/]*\.js$/, async (route) => {
      heldBack.push(new URL(route.request().url()).pathname);
      await held;
      await route.continue();
    });

    await page.goto(server.url);
    await page.getByTestId('connection').filter({ hasText: 'connected' }).waitFor();
    await page.getByTestId('editor-loading').waitFor();
    await page.getByTestId('tab-runs').click();
    await page.getByTestId('open-run').first().waitFor();
    expect(await page.locator('.monaco-editor').count()).toBe(0);
    await screenshot(page, 'lazy-load-editor-pending');
    // The Results view's code is asked for once the page is idle, and waits too.
    await expect.poll(() => heldBack.some((s) => s.includes('/ResultsView-')), { timeout: 10_000 }).toBe(true);
    expect(scripts.filter((s) => s.includes('/ResultsView-') || s.includes('/ScenarioEditor-'))).toHaveLength(2);

    release();
    await page.locator('[data-testid=editor] .view-lines').waitFor();
    await page.getByTestId('open-run').first().click();
    await page.getByTestId('results').waitFor();
  });
});
