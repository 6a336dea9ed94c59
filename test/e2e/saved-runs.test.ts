// Saved runs and replays in Chromium against a real `clab serve` (issue 25, items 20 and 23): the
// tab while the lab is out of reach, a broken run record picked with Open…, a replay's scenario
// name and text, a GPU record replayed on this machine, delete / filter / sort, and the
// timeline PNG's title and legend. Screenshots go to test-results/screenshots/saved-*.png.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { syntheticRecord } from '../../bench/timeline/synthetic-record';
import { MAX_RECORD_BYTES, recordTooLargeMessage } from '../../src/shared/run/record/record-text';
import { chooseTemplate, runAndWait, setRunOptions } from './lab-page';
import {
  axeViolations,
  editorMarkers,
  editorText,
  openLab,
  openLabWithDroppableSockets,
  REPO_ROOT,
  screenshot,
  SCREENSHOTS,
  usesLabPage,
  type LabServerProcess,
} from './helpers';

let server: LabServerProcess;
let page: Page;
let pageErrors: string[];

/** A scenario as a person writes it: their own layout, a title that is no file name. */
const WRITTEN = `{
  "version": 1,
  "name": "My ring: two ranks",
  "world": { "ranks": 2 },
  "steps": [ { "op": "all_reduce", "count": 8 } ]
}
`;

/** Recorded on 2 × H200 with nccl; its scenario names the nccl backend. Read only. */
const GPU_RECORD = join(REPO_ROOT, 'docs', 'records', 'overlap-gpu-h200x2.run.json');

/** As `clab serve` names a record: the scenario's slug, the time, a random tail (not the scenario's name). */
const RING_RUN = 'my-ring-2026-11-26T01-00-00-000Z-a1b2c3.run.json';
const MISTAKE_RUN = 'wrong-root.run.json';
const BROKEN_RUN = 'broken.run.json';

const record = (name: string, createdAt: string, seconds: number, status: 'passed' | 'failed' = 'passed') => {
  const r = syntheticRecord({ ranks: 2, rounds: 1, warmup: 0, iters: 1, name });
  return JSON.stringify({
    ...r,
    createdAt,
    finishedAt: new Date(Date.parse(createdAt) + seconds * 1000).toISOString(),
    status,
  });
};

usesLabPage(
  (session) => ({ server, page, pageErrors } = session),
  (lab) => {
    writeFileSync(join(lab.runsDir, 'alpha.run.json'), record('alpha sweep', '2026-11-20T10:00:00.000Z', 30));
    writeFileSync(join(lab.runsDir, 'beta.run.json'), record('beta pairs', '2026-11-24T10:00:00.000Z', 2, 'failed'));
    writeFileSync(join(lab.runsDir, 'gamma.run.json'), record('gamma ring', '2026-11-22T10:00:00.000Z', 9));
    copyFileSync(GPU_RECORD, join(lab.runsDir, 'overlap-gpu-h200x2.run.json'));
    const written = join(lab.runsDir, 'my-ring.scenario.json');
    writeFileSync(written, WRITTEN);
    execFileSync(process.execPath, ['bin/clab.cjs', 'run', written, '--backend', 'cpu', '--out', join(lab.runsDir, RING_RUN)], {
      cwd: REPO_ROOT,
      stdio: 'ignore',
    });
    // Cut short, its summary whole at its head: listed, and Open says where it breaks.
    writeFileSync(join(lab.runsDir, BROKEN_RUN), record('broken', '2026-11-19T10:00:00.000Z', 1).slice(0, 3000));
    // As older cores wrote records (the scenario and plan before the summary), past 64 MiB: sparse.
    const older = join(lab.runsDir, 'older.run.json');
    writeFileSync(
      older,
      '{"format":"clab.run","version":1,"id":"old","createdAt":"2026-10-01T00:00:00.000Z","scenario":{"name":"older and large"},"plan":{"steps":[',
    );
    truncateSync(older, 65 * 1024 * 1024);
    // Past the bound every door shares: listed, and refused when opened.
    const huge = join(lab.runsDir, 'huge.run.json');
    writeFileSync(huge, record('huge', '2026-11-18T10:00:00.000Z', 1));
    truncateSync(huge, MAX_RECORD_BYTES + 1);
    // A mistake of the gallery: it fails as it is meant to, so `clab run` exits 0.
    execFileSync(
      process.execPath,
      ['bin/clab.cjs', 'run', 'scenarios/mistakes/wrong-root.scenario.json', '--backend', 'cpu', '--out', join(lab.runsDir, MISTAKE_RUN)],
      { cwd: REPO_ROOT, stdio: 'ignore' },
    );
  },
);

const listedNames = () => page.locator('[data-testid=saved-run] td:nth-child(2)').allTextContents();

async function showSavedRuns(): Promise<void> {
  await page.getByTestId('tab-runs').click();
  await page.getByTestId('saved-runs').waitFor();
}

/** The console's line for a run the lab refused to send (HTTP 400): a test's own doing where it opens one on purpose. */
const refusedDownloadsAreOurs = () => pageErrors.splice(0, pageErrors.length, ...pageErrors.filter((e) => !e.includes('status of 400')));

const savedRow = (file: string) => page.locator(`[data-testid=saved-run]:has(td[title$="/${file}"])`);

async function openSaved(file: string): Promise<void> {
  await showSavedRuns();
  await page.locator(`[data-testid=saved-run]:has(td[title$="/${file}"]) [data-testid=open-run]`).click();
  await page.getByTestId('replay-banner').waitFor();
}

describe('saved runs', () => {
  it('says "Not connected — retrying" while the lab is out of reach, and lists the runs once it is back', async () => {
    // The page's WebSockets, so the test can drop them and hold off reconnecting (to a closed port).
    const setOffline = await openLabWithDroppableSockets(page, server);
    await setOffline(true);
    await expect.poll(async () => page.getByTestId('connection').textContent(), { timeout: 10_000 }).not.toBe('connected');
    // The tab opened while the lab is away: it used to wait on "Loading…" for ever.
    await page.getByTestId('tab-runs').click();
    const offline = page.getByTestId('saved-runs-offline');
    await offline.waitFor({ timeout: 5_000 });
    expect(await offline.textContent()).toMatch(/^Not connected — retrying/);
    await screenshot(page, 'saved-1-offline');
    // A run saved meanwhile is there once the connection is back.
    writeFileSync(join(server.runsDir, 'delta.run.json'), record('delta while away', '2026-11-25T10:00:00.000Z', 1));
    await setOffline(false);
    await expect.poll(async () => page.getByTestId('connection').textContent(), { timeout: 20_000 }).toBe('connected');
    await page.getByTestId('saved-runs').waitFor({ timeout: 10_000 });
    await offline.waitFor({ state: 'detached' });
    expect(await listedNames()).toContain('delta while away');
    await screenshot(page, 'saved-2-reconnected');
    // The refused reconnections to the closed port are this test's own doing.
    pageErrors.splice(0, pageErrors.length, ...pageErrors.filter((e) => !e.includes('ws://127.0.0.1:9/')));
  });

  it('says a truncated .run.json picked with Open… is not a valid run record, and where it breaks, instead of opening it as a scenario', async () => {
    const before = await page.getByTestId('file-name').textContent();
    const whole = readFileSync(join(server.runsDir, RING_RUN), 'utf8');
    // Cut where a copy stopped between two fields: just before the record's steps.
    const cut = whole.slice(0, whole.lastIndexOf(',"steps":') + 1);
    await page
      .getByTestId('open-file-input')
      .setInputFiles({ name: 'cut.run.json', mimeType: 'application/json', buffer: Buffer.from(cut) });
    const notice = page.getByTestId('notice');
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(
      /^cut\.run\.json is not a valid run record: its JSON breaks at line 1, column \d+ \(character \d+ of \d+\): the file ends too early/,
    );
    expect(await page.getByTestId('file-name').textContent()).toBe(before);
    await screenshot(page, 'saved-3-truncated-record');
    await notice.getByRole('button', { name: 'dismiss' }).click();
  });

  it('asks the lab to prepare a run once the pointer is on its Open button, once per run', async () => {
    // A page of its own, so that its API socket is watched from the start.
    const other = await page.context().newPage();
    const sent: string[] = [];
    other.on('websocket', (ws) => ws.on('framesent', (frame) => sent.push(String(frame.payload))));
    try {
      await openLab(other, server);
      await other.getByTestId('tab-runs').click();
      const openOf = (file: string) => other.locator(`[data-testid=saved-run]:has(td[title$="/${file}"]) [data-testid=open-run]`);
      await openOf('gamma.run.json').hover();
      await other.mouse.move(0, 0);
      await openOf('gamma.run.json').hover();
      await openOf('alpha.run.json').hover();
      const prepared = () =>
        sent
          .map((f) => JSON.parse(f) as { call: { method: string; params: { path: string } } })
          .filter((f) => f.call.method === 'prepareRun')
          .map((f) => f.call.params.path);
      // Frames go out in order: once alpha's is seen, gamma's second hover has sent nothing.
      await expect.poll(() => prepared().length).toBe(2);
      expect(prepared()).toEqual([join(server.runsDir, 'gamma.run.json'), join(server.runsDir, 'alpha.run.json')]);
    } finally {
      await other.close();
    }
  });

  it("opens a replay's scenario under its own file name with its text as written", async () => {
    await openSaved(RING_RUN);
    await page.getByTestId('file-name').filter({ hasText: 'my-ring.scenario.json' }).waitFor();
    expect(await editorText(page)).toBe(WRITTEN);
    await screenshot(page, 'saved-4-replay-name-and-text');
  });

  it("notes, not as an error, that a GPU record's backend is not on this machine", async () => {
    await openSaved('overlap-gpu-h200x2.run.json');
    await page.getByTestId('file-name').filter({ hasText: 'overlap-gpu' }).waitFor();
    const note = 'recorded on nccl; this machine has cpu only — replay shows the record, re-running needs a GPU';
    const markers = await expect
      .poll(async () => (await editorMarkers(page)).filter((m) => m.owner === 'clab'), { timeout: 10_000 })
      .toHaveLength(1)
      .then(async () => (await editorMarkers(page)).filter((m) => m.owner === 'clab'));
    // Monaco's Info severity (2), not Error (8).
    expect(markers[0]).toMatchObject({ severity: 2, text: expect.stringContaining(note) });
    expect(await page.getByTestId('editor-problems').textContent()).toBe('No problems');
    await screenshot(page, 'saved-5-gpu-record-note');
  });

  it('reads a run that failed as it was meant to as passed in the list, the Results and its failed steps, as its run did', async () => {
    await showSavedRuns();
    const cell = page.locator(`[data-testid=saved-run]:has(td[title$="/${MISTAKE_RUN}"]) [data-testid=run-status-cell]`);
    expect(await cell.textContent()).toBe('passed (expected failure)');
    expect(await cell.getAttribute('class')).toBe('passed');
    expect(await cell.getAttribute('title')).toMatch(/^expected failure seen: /);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'saved-5b-expected-failure-listed');
    await openSaved(MISTAKE_RUN);
    await page.getByTestId('tab-results').click();
    const status = page.getByTestId('results-status');
    expect(await status.textContent()).toMatch(/^PASSED: expected failure seen/);
    const failed = page.locator('[data-testid=result-row][data-verdict=error], [data-testid=result-row][data-verdict=fail]');
    expect(await failed.count()).toBeGreaterThan(0);
    const colour = (l: ReturnType<Page['locator']>) => l.evaluate((el) => getComputedStyle(el).color);
    for (const row of await failed.all()) {
      expect(await row.getAttribute('data-expected')).toBe('true');
      expect(await row.locator('td.verdict').textContent()).toMatch(/ \(expected\)$/);
      // Green as the run's status, not red.
      expect(await colour(row.locator('td.verdict'))).toBe(await colour(status));
    }
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'saved-5c-expected-failure-results');
  });

  it('lists an older record too large to read whole for its summary, marked, and one past the bound, whose Open says the bound in one line', async () => {
    await showSavedRuns();
    const older = savedRow('older.run.json');
    expect(await older.getAttribute('data-partial')).toBe('true');
    expect(await older.locator('td').nth(1).textContent()).toBe('older and large');
    expect(await older.getByTestId('run-status-cell').textContent()).toBe('unknown (summary not read)');
    const huge = savedRow('huge.run.json');
    expect(await huge.getByTestId('run-too-large').textContent()).toBe(' (256.0 MiB: too large to open)');
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'saved-5d-older-and-too-large');
    await huge.getByTestId('open-run').click();
    const notice = page.getByTestId('notice');
    await notice.waitFor();
    // The words Open… in a browser refuses such a file with (renderer/src/editor/file-io.ts).
    expect(await notice.evaluate((el) => el.firstChild!.textContent)).toBe(recordTooLargeMessage('huge.run.json', MAX_RECORD_BYTES + 1));
    await notice.getByRole('button', { name: 'dismiss' }).click();
    refusedDownloadsAreOurs();
  });

  it('names a refused run by its file, not by its absolute path, and drops the notice once a good run opens', async () => {
    await showSavedRuns();
    await savedRow(BROKEN_RUN).getByTestId('open-run').click();
    const notice = page.getByTestId('notice');
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(/^broken\.run\.json: cannot read the run record: its JSON breaks at line 1/);
    expect(await notice.textContent()).not.toContain(server.runsDir);
    await screenshot(page, 'saved-5e-refused-by-name');
    refusedDownloadsAreOurs();
    await openSaved(RING_RUN);
    await notice.waitFor({ state: 'detached' });
    const banner = page.getByTestId('replay-banner');
    expect(await banner.textContent()).toContain(RING_RUN);
    expect(await banner.textContent()).not.toContain(server.runsDir);
    // The same with Open…: a cut file refused, then a good one opened.
    const picker = page.getByTestId('open-file-input');
    const ring = readFileSync(join(server.runsDir, RING_RUN));
    await picker.setInputFiles({ name: 'cut.run.json', mimeType: 'application/json', buffer: ring.subarray(0, 2000) });
    await notice.waitFor();
    await picker.setInputFiles({ name: 'ring.run.json', mimeType: 'application/json', buffer: ring });
    await notice.waitFor({ state: 'detached' });
    await banner.filter({ hasText: 'ring.run.json' }).waitFor();
  });

  it('filters the list by scenario, backend, date and status', async () => {
    await showSavedRuns();
    const filter = page.getByTestId('saved-runs-filter');
    await filter.fill('failed');
    expect(await listedNames()).toEqual(['beta pairs']);
    await filter.fill('nccl');
    expect(await listedNames()).toEqual(['Overlap on/off (GPU sizes)']);
    await filter.fill('2026-11-22');
    expect(await listedNames()).toEqual(['gamma ring']);
    await filter.fill('ring cpu');
    expect(new Set(await listedNames())).toEqual(new Set(['gamma ring', 'My ring: two ranks']));
    expect(await page.getByTestId('saved-runs-count').textContent()).toMatch(/^2 of \d+ runs$/);
    await screenshot(page, 'saved-6-filtered');
    await filter.fill('');
  });

  it('sorts by name, duration and status from the column headers, and keeps the sort after a reload', async () => {
    await showSavedRuns();
    await page.getByTestId('saved-runs-filter').fill('');
    const synthetic = (names: string[]) => names.filter((n) => /^(alpha|beta|gamma|delta)/.test(n));
    await page.getByTestId('sort-name').click();
    expect(synthetic(await listedNames())).toEqual(['alpha sweep', 'beta pairs', 'delta while away', 'gamma ring']);
    await page.getByTestId('sort-duration').click();
    expect(synthetic(await listedNames())).toEqual(['alpha sweep', 'gamma ring', 'beta pairs', 'delta while away']);
    await page.getByTestId('sort-duration').click();
    expect(synthetic(await listedNames())).toEqual(['delta while away', 'beta pairs', 'gamma ring', 'alpha sweep']);
    await page.reload();
    await page.getByTestId('connection').filter({ hasText: 'connected' }).waitFor();
    await showSavedRuns();
    expect(synthetic(await listedNames())).toEqual(['delta while away', 'beta pairs', 'gamma ring', 'alpha sweep']);
    expect(await page.locator('th[aria-sort=ascending]').textContent()).toBe('duration ▲');
    await screenshot(page, 'saved-7-sorted-by-duration');
    await page.getByTestId('sort-date').click();
  });

  it('deletes a run after asking once more, removing its file from the runs folder', async () => {
    await showSavedRuns();
    const file = join(server.runsDir, 'gamma.run.json');
    const row = page.locator(`[data-testid=saved-run]:has(td[title="${file}"])`);
    await row.getByTestId('delete-run').click();
    await row.getByTestId('cancel-delete').click();
    expect(existsSync(file)).toBe(true);
    await row.getByTestId('delete-run').click();
    await screenshot(page, 'saved-8-delete-asked');
    await row.getByTestId('confirm-delete').click();
    await row.waitFor({ state: 'detached' });
    expect(existsSync(file)).toBe(false);
    expect(await listedNames()).not.toContain('gamma ring');
  });

  it('refuses a delete request with ../ from the page, with its token, and deletes nothing', async () => {
    const outside = join(server.runsDir, '..', `clab-e2e-outside-${process.pid}.run.json`);
    writeFileSync(outside, '{}');
    const answer = await page.evaluate(async (name) => {
      const token = sessionStorage.getItem('clab.token');
      const ws = new WebSocket(`ws://${location.host}/api?token=${encodeURIComponent(token ?? '')}`);
      await new Promise((open) => (ws.onopen = open));
      const reply = new Promise<string>((got) => (ws.onmessage = (m) => got(String(m.data))));
      ws.send(JSON.stringify({ type: 'call', v: 1, id: 1, call: { method: 'deleteRun', params: { file: `../${name}` } } }));
      const text = await reply;
      ws.close();
      return JSON.parse(text) as { ok: boolean; error?: string };
    }, `clab-e2e-outside-${process.pid}.run.json`);
    expect(answer.ok).toBe(false);
    expect(answer.error).toMatch(/^invalid call to deleteRun: params\.file: expected the file name of a saved run/);
    expect(existsSync(outside)).toBe(true);
    execFileSync('rm', ['-f', outside]);
  });

  it("exports the timeline PNG with a title and the legend of the run's ops above the lanes", async () => {
    await openSaved(RING_RUN);
    await page.getByTestId('tab-timeline').click();
    await page.locator('[data-testid=timeline][data-slices-drawn]').waitFor();
    const swatches = await page
      .locator('[data-testid=timeline-legend] .legend-item i.swatch[style]')
      .evaluateAll((els) => els.map((e) => getComputedStyle(e).backgroundColor));
    expect(swatches.length).toBeGreaterThan(0);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('timeline-png').click()]);
    const png = readFileSync((await download.path())!);
    const found = await page.evaluate(
      async ({ data, colours }) => {
        const image = new Image();
        image.src = `data:image/png;base64,${data}`;
        await image.decode();
        const canvas = document.querySelector<HTMLCanvasElement>('[data-testid=timeline-canvas]')!;
        const header = image.height - canvas.height;
        const c = document.createElement('canvas');
        c.width = image.width;
        c.height = image.height;
        const ctx = c.getContext('2d')!;
        ctx.drawImage(image, 0, 0);
        const pixels = ctx.getImageData(0, 0, image.width, Math.max(1, header)).data;
        const seen = new Set<string>();
        for (let i = 0; i < pixels.length; i += 4) seen.add(`rgb(${pixels[i]}, ${pixels[i + 1]}, ${pixels[i + 2]})`);
        // Dark text pixels in the title's row.
        let dark = 0;
        for (let i = 0; i < Math.min(pixels.length, image.width * 4 * 30); i += 4) if (pixels[i] < 80 && pixels[i + 1] < 80) dark++;
        return { header, width: image.width, canvasWidth: canvas.width, colours: colours.filter((x) => seen.has(x)), dark };
      },
      { data: png.toString('base64'), colours: swatches },
    );
    expect(found.header).toBeGreaterThanOrEqual(40);
    expect(found.width).toBeGreaterThan(found.canvasWidth);
    expect(found.colours).toEqual(swatches);
    expect(found.dark).toBeGreaterThan(100);
    // The exported image itself, beside the screenshots (test-results/ is ignored).
    mkdirSync(SCREENSHOTS, { recursive: true });
    writeFileSync(join(SCREENSHOTS, 'saved-9-timeline-export.png'), png);
  });

  it("replays a run started from the page under the template's name and text, not `<run-id>.scenario.json`", async () => {
    await chooseTemplate(page, 'all-in-one.scenario.json');
    const template = await editorText(page);
    await setRunOptions(page, 'cpu', 2);
    expect(await runAndWait(page)).toMatch(/^PASSED/);
    await showSavedRuns();
    await page.locator('[data-testid=saved-run]:has(td:text-is("All-in-one collectives")) [data-testid=open-run]').click();
    await page.getByTestId('replay-banner').waitFor();
    await page
      .getByTestId('file-name')
      .filter({ hasText: /^all-in-one\.scenario\.json$/ })
      .waitFor();
    expect(await editorText(page)).toBe(template);
    await screenshot(page, 'saved-10-page-run-replayed');
  });
});
