// The lab's UI in Chromium against a real `clab serve`: run, refuse, stop, sweep, replay. Each
// view is saved as a screenshot in test-results/screenshots.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { resultLines } from '../../src/shared/export/format';
import { learnerLines } from '../../src/shared/export/learner-lines';
import { runRecordSchema, type RunRecord } from '../../src/shared/run/record/record';
import {
  descendants,
  editorMarkers,
  editorText,
  eventually,
  openLab,
  openLabWithDroppableSockets,
  REPO_ROOT,
  screenshot,
  setEditorText,
  usesLabPage,
  type LabServerProcess,
} from './helpers';
import { chooseTemplate, ranWorkers, runAndWait, selectRun, setRunOptions } from './lab-page';

let server: LabServerProcess;
let page: Page;
let pageErrors: string[];
usesLabPage((session) => ({ server, page, pageErrors } = session));

const allInOne = JSON.parse(readFileSync(join(REPO_ROOT, 'scenarios/all-in-one.scenario.json'), 'utf8')) as {
  steps: { op: string; label?: string }[];
};
const savedRuns = () => readdirSync(server.runsDir).filter((f) => f.endsWith('.run.json'));
const readRecord = (path: string): RunRecord => runRecordSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
const workers = () => descendants(server.pid).filter((p) => p.args.includes('worker.cjs'));

/** The all_reduce sweep template renamed and with other defaults, run on 2 cpu ranks until `steps` steps are done. */
async function startSweep(name: string, defaults: object, steps: number): Promise<void> {
  await chooseTemplate(page, 'allreduce-sweep.scenario.json');
  const sweep = JSON.parse(readFileSync(join(REPO_ROOT, 'scenarios/allreduce-sweep.scenario.json'), 'utf8')) as Record<string, unknown>;
  Object.assign(sweep, { name, defaults });
  await setEditorText(page, JSON.stringify(sweep, null, 2));
  await setRunOptions(page, 'cpu', 2);
  await page.getByTestId('run-button').click();
  await expect
    .poll(async () => ranWorkers(await page.getByTestId('progress-text').textContent()), { timeout: 30_000 })
    .toBeGreaterThanOrEqual(steps);
}

describe('the lab in a browser', () => {
  it("runs the all-in-one template on 2 cpu ranks and shows every rank's result with ✓", async () => {
    await chooseTemplate(page, 'all-in-one.scenario.json');
    await screenshot(page, '1-editor');
    await setRunOptions(page, 'cpu', 2);
    const status = await runAndWait(page);
    expect(status).toMatch(/^PASSED: 24\/24 checked steps correct on 2 ranks \(cpu\)/);

    const lines = (await page.getByTestId('log-line').allTextContents()).filter((l) => l.startsWith('[Rank'));
    // Every result line of the record the server saved is on the page…
    const record = readRecord(join(server.runsDir, savedRuns()[0]));
    const expected = record.steps.filter((s) => s.action.kind !== 'wait').flatMap(resultLines);
    expect(expected.length).toBeGreaterThan(40);
    for (const line of expected) expect(lines).toContain(line);
    // …and read against the scenario: each step once per rank, ✓ wherever a rank checks a value.
    for (const step of allInOne.steps.filter((s) => s.op !== 'wait')) {
      const title = step.label ?? step.op;
      for (const rank of [0, 1]) {
        const head = `[Rank ${rank}] ${title}`;
        // "all_gather" must not match "all_gather_object": the title ends at a space, colon or parenthesis.
        const mine = lines.filter((l) => l.startsWith(head) && /^($|[ :(])/.test(l.slice(head.length)));
        expect(mine, `${title} on rank ${rank}`).not.toHaveLength(0);
        for (const line of mine) expect(line).toMatch(/ ✓$|: no output on this rank|: sent to rank \d|: done/);
      }
    }
    expect(lines.filter((l) => l.endsWith('✗'))).toEqual([]);
    expect(lines).toContain('[Rank 0] broadcast (root 0): [1, 2, 3] ✓');
    expect(lines).toContain('[Rank 1] all_reduce sum: [2, 4, 6] ✓');
    expect(lines).toContain('[Rank 1] all_gather: [[1, 1], [2, 2]] ✓');
    expect(await page.getByTestId('progress-text').textContent()).toBe(`${record.steps.length}/${record.steps.length} steps`);
    await screenshot(page, '2-run-log');

    await page.getByTestId('tab-results').click();
    const rows = page.getByTestId('result-row');
    expect(await rows.count()).toBe(record.steps.filter((s) => s.action.kind !== 'wait').length);
    expect(await page.locator('[data-testid=result-row][data-verdict=fail]').count()).toBe(0);
    expect(await page.locator('[data-testid=result-row][data-verdict=pass]').count()).toBe(24);
    // The results put each rank's input beside its output.
    const learner = record.steps.filter((s) => s.action.kind !== 'wait').flatMap(learnerLines);
    expect(learner).toContain('[Rank 1] all_reduce prod: [2, 3, 4] → [2, 6, 12] ✓');
    expect(await page.getByTestId('rank-line').allTextContents()).toEqual(learner);
    await screenshot(page, '3-results-all-in-one');
  });

  it('marks broken JSON in the editor and refuses to run it, listing the problems', async () => {
    await chooseTemplate(page, 'all-in-one.scenario.json');
    const before = savedRuns().length;
    await page.locator('[data-testid=editor] .view-lines').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' oops');
    await page.locator('[data-testid=editor] .squiggly-error').first().waitFor();
    expect((await editorMarkers(page)).some((m) => m.owner === 'json' && m.severity === 8)).toBe(true);
    await expect.poll(() => page.getByTestId('dirty-marker').count()).toBe(1);

    await page.getByTestId('run-button').click();
    await page.getByTestId('problems').waitFor();
    const problems = await page.getByTestId('problem').allTextContents();
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.join('\n')).toContain('invalid JSON');
    expect(await page.getByTestId('run-status').textContent()).toContain('Refused');
    expect(await page.getByTestId('log-line').count()).toBe(0);
    expect(workers()).toEqual([]);
    expect(savedRuns()).toHaveLength(before);
    await screenshot(page, '4-refused');
  });

  it('marks a problem the JSON Schema cannot see (a root outside the world) from the shared validation, for the ranks chosen', async () => {
    await chooseTemplate(page, 'all-in-one.scenario.json');
    const text = readFileSync(join(REPO_ROOT, 'scenarios/all-in-one.scenario.json'), 'utf8').replace(
      '"op": "broadcast", "count": 3, "root": 0',
      '"op": "broadcast", "count": 3, "root": 5',
    );
    await setEditorText(page, text);
    const marker = await eventually(
      async () => (await editorMarkers(page)).find((m) => m.owner === 'clab' && m.text.includes('root')),
      10_000,
      'a marker from the validation',
    );
    // The marker's line and column: where the broadcast's root stands in the template.
    const lineOf = text.split('\n').findIndex((l) => l.includes('"root": 5')) + 1;
    const columnOf = text.split('\n')[lineOf - 1].indexOf('5, ') + 1;
    expect(marker.text).toBe(`${lineOf}:${columnOf} steps[0].root: rank 5 does not exist in a world of 2 ranks (expected 0…1)`);
    expect(lineOf).toBeGreaterThan(1);
    const markers = await editorMarkers(page);
    expect(markers.filter((m) => m.owner === 'clab')).toHaveLength(1);
    expect(markers.filter((m) => m.owner === 'json')).toEqual([]);
    await page.getByTestId('editor-problems').filter({ hasText: '1 error' }).waitFor();
    await screenshot(page, '4b-core-marker');
  });

  it('marks a backend this machine cannot give the world, from the core', async () => {
    await chooseTemplate(page, 'all-in-one.scenario.json');
    await setRunOptions(page, 'auto', null);
    // No machine here has GPU 60: nccl is refused whether or not it is there at all.
    const text = readFileSync(join(REPO_ROOT, 'scenarios/all-in-one.scenario.json'), 'utf8').replace(
      '"world": { "ranks": 2 },\n  "backend": "auto"',
      '"world": { "devices": [0, 60] },\n  "backend": "nccl"',
    );
    await setEditorText(page, text);
    const marker = await eventually(
      async () => (await editorMarkers(page)).find((m) => m.owner === 'clab'),
      10_000,
      'a marker from the machine check',
    );
    expect(marker.text).toMatch(/^7:\d+ backend: the nccl backend is unavailable: /);
    expect((await editorMarkers(page)).filter((m) => m.owner === 'json')).toEqual([]);
    // The run panel's cpu overrides the scenario's nccl: asked again, the machine has no objection.
    await setRunOptions(page, 'cpu', null);
    await eventually(
      async () => ((await editorMarkers(page)).some((m) => m.owner === 'clab') ? undefined : true),
      10_000,
      'the marker gone',
    );
  });

  it('completes and explains the scenario format from its JSON Schema', async () => {
    await chooseTemplate(page, 'all-in-one.scenario.json');
    const stepLine = '  "steps": [ { "op": "all_reduce", "count": 3, "redop": "" } ]';
    await setEditorText(page, `{\n  "version": 1,\n  "name": "typed",\n  "world": { "ranks": 2 },\n${stepLine}\n}\n`);
    await placeCursor(page, 5, stepLine.indexOf('"redop": "') + '"redop": "'.length + 1);
    await page.keyboard.press('Control+Space');
    const suggestions = page.locator('.suggest-widget .monaco-list-row');
    await suggestions.first().waitFor();
    expect(await suggestions.allTextContents()).toEqual(expect.arrayContaining(['"sum"', '"prod"', '"min"', '"max"', '"avg"']));
    await screenshot(page, '4c-completion');
    await page.keyboard.press('Escape');
    // An empty redop is not one of them: marked as an error from the schema.
    await eventually(
      async () => (await editorMarkers(page)).find((m) => m.owner === 'json' && m.severity === 8 && m.text.startsWith('5:')),
      10_000,
      'a schema marker',
    );
    await page.locator('[data-testid=editor] .view-line span', { hasText: '"world"' }).first().hover();
    const hover = page.locator('.monaco-hover-content');
    await hover.filter({ hasText: 'How many ranks' }).first().waitFor();
    // An op's hover gives its descriptor's count and teaching text.
    await page.locator('[data-testid=editor] .view-line span', { hasText: '"all_reduce"' }).first().hover();
    await hover.filter({ hasText: 'reduce-scatter followed by an all-gather' }).first().waitFor();
    expect(await hover.filter({ hasText: 'count: elements of the tensor every rank passes' }).count()).toBeGreaterThan(0);
  });

  it('keeps unsaved text across a reload and forgets it once downloaded', async () => {
    await chooseTemplate(page, 'all-in-one.scenario.json');
    const edited = readFileSync(join(REPO_ROOT, 'scenarios/all-in-one.scenario.json'), 'utf8').replace(
      '"All-in-one collectives"',
      '"Edited before a restart"',
    );
    await setEditorText(page, edited);
    await page.getByTestId('dirty-marker').waitFor();
    await page.reload();
    await openLab(page, server);
    expect(await page.getByTestId('file-name').textContent()).toBe('all-in-one.scenario.json');
    await page.getByTestId('dirty-marker').waitFor();
    expect(await editorText(page)).toBe(edited);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download').click()]);
    expect(download.suggestedFilename()).toBe('all-in-one.scenario.json');
    expect(readFileSync(await download.path(), 'utf8')).toBe(edited);
    await page.getByTestId('dirty-marker').waitFor({ state: 'detached' });
    await page.reload();
    await openLab(page, server);
    expect(await editorText(page)).toBe(edited);
    expect(await page.getByTestId('dirty-marker').count()).toBe(0);
  });

  it('opens a scenario file dropped on the window', async () => {
    const text = readFileSync(join(REPO_ROOT, 'scenarios/overlap.scenario.json'), 'utf8');
    await page.evaluate((content) => {
      const data = new DataTransfer();
      data.items.add(new File([content], 'dropped.scenario.json', { type: 'application/json' }));
      for (const type of ['dragover', 'drop'])
        window.dispatchEvent(new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }));
    }, text);
    await page.getByTestId('file-name').filter({ hasText: 'dropped.scenario.json' }).waitFor();
    expect(await editorText(page)).toBe(text);
    expect(await page.getByTestId('dirty-marker').count()).toBe(0);
  });

  it('shows a sweep as an nccl-tests table with a bandwidth chart', async () => {
    await chooseTemplate(page, 'allreduce-sweep.scenario.json');
    await setRunOptions(page, 'cpu', 2);
    expect(await runAndWait(page, 'Control+Enter')).toMatch(/^PASSED/);
    await page.getByTestId('tab-results').click();
    const sweep = page.getByTestId('sweep');
    const rows = sweep.getByTestId('result-row');
    expect(await rows.count()).toBe(24);
    const first = await rows.first().locator('td').allTextContents();
    expect(first).toEqual(['8', '2', 'float32', 'sum', '-', expect.any(String), expect.any(String), expect.any(String), '0', '✓']);
    const last = await rows.last().locator('td').allTextContents();
    expect(last.slice(0, 5)).toEqual(['67108864', '16777216', 'float32', 'sum', '-']);
    expect(Number(last[7])).toBeGreaterThan(0);
    const chart = sweep.getByTestId('bandwidth-chart');
    const box = await chart.boundingBox();
    expect(box!.width).toBeGreaterThan(300);
    expect(await chartHasDrawing(page)).toBe(true);
    await chart.scrollIntoViewIfNeeded();
    await screenshot(page, '5-results-sweep');
  });

  it('stops a long sweep and leaves no rank process behind', async () => {
    await startSweep('long all_reduce sweep', { dtype: 'float32', warmup: 5, iters: 2000 }, 3);
    expect(workers().length).toBe(2);
    await page.getByTestId('stop-button').click();

    const status = await page.getByTestId('run-status-line').textContent({ timeout: 20_000 });
    expect(status).toMatch(/^ABORTED/);
    await eventually(() => (workers().length === 0 ? true : undefined), 5_000, 'the rank processes to exit');
    await screenshot(page, '6-stopped');
  });

  it('catches up with a run that ended while the connection was down', async () => {
    // The page's WebSockets, so the test can drop them and hold off reconnecting (to a closed port).
    const setOffline = await openLabWithDroppableSockets(page, server);
    await startSweep('sweep across a lost connection', { dtype: 'float32', warmup: 2, iters: 40 }, 1);
    await setOffline(true);
    await expect.poll(async () => page.getByTestId('connection').textContent(), { timeout: 10_000 }).not.toBe('connected');
    // The run goes on in the lab without the page; wait until its rank processes are gone.
    await eventually(() => (workers().length === 0 ? true : undefined), 60_000, 'the run to end on the server');
    await setOffline(false);
    await expect.poll(async () => page.getByTestId('connection').textContent(), { timeout: 20_000 }).toBe('connected');
    await expect
      .poll(
        async () =>
          page
            .getByTestId('run-status-line')
            .textContent({ timeout: 1_000 })
            .catch(() => null),
        { timeout: 20_000 },
      )
      .toMatch(/^PASSED: 24\/24 checked steps correct on 2 ranks/);
    await screenshot(page, '6b-caught-up');
    // The refused reconnections to the closed port are this test's own doing.
    pageErrors.splice(0, pageErrors.length, ...pageErrors.filter((e) => !e.includes('ws://127.0.0.1:9/')));
  });

  it('opens a saved run as a replay without starting a rank process', async () => {
    const recordPath = join(server.runsDir, 'replayed-p2p.run.json');
    execFileSync(
      process.execPath,
      ['bin/clab.cjs', 'run', 'scenarios/p2p-pairs.scenario.json', '--ranks', '3', '--backend', 'cpu', '--out', recordPath],
      { cwd: REPO_ROOT, stdio: 'ignore' },
    );
    const record = readRecord(recordPath);
    await page.getByTestId('tab-runs').click();
    await selectRun(page, recordPath);
    await page.getByTestId('replay-banner').waitFor();
    expect(await page.getByTestId('replay-banner').textContent()).toContain('replayed-p2p.run.json');
    const checked = record.steps.filter((s) => s.verdict === 'pass').length;
    expect(checked).toBe(6 * 3 + 2);
    expect(await page.getByTestId('results-status').textContent()).toBe(
      `PASSED: ${checked}/${checked} checked steps correct on 3 ranks (cpu)`,
    );
    // Bandwidth, latency and copy heatmaps one way, bandwidth both ways; rows sending to columns.
    const matrices = await page.getByTestId('pairs-matrix').allTextContents();
    expect(matrices).toHaveLength(4);
    expect(matrices[0]).toContain('sender (row) → receiver (column)');
    expect(await page.getByTestId('environment').textContent()).toContain(record.environment.host);
    expect(workers()).toEqual([]);
    await screenshot(page, '7-replay');
  });

  it('opens a run file picked in the browser and shows a failed check with ✗ and its first mismatches', async () => {
    const recordPath = join(server.runsDir, '..', `clab-e2e-failed-${process.pid}.run.json`);
    execFileSync(
      process.execPath,
      ['bin/clab.cjs', 'run', 'scenarios/all-in-one.scenario.json', '--ranks', '2', '--backend', 'cpu', '--out', recordPath],
      { cwd: REPO_ROOT, stdio: 'ignore' },
    );
    const record = withWrongElement(readRecord(recordPath), 'all_reduce', 1);
    writeFileSync(recordPath, JSON.stringify(record));
    try {
      await page.getByTestId('open-file-input').setInputFiles(recordPath);
      await page
        .getByTestId('replay-banner')
        .filter({ hasText: basename(recordPath) })
        .waitFor();
      expect(await page.getByTestId('results-status').textContent()).toBe('FAILED: 23/24 checked steps correct on 2 ranks (cpu)');
      const failed = page.locator('[data-testid=result-row][data-verdict=fail]');
      expect(await failed.count()).toBe(1);
      expect(await failed.locator('td').first().textContent()).toBe('all_reduce sum');
      expect(await failed.locator('td').last().textContent()).toBe('✗');
      const mismatches = page.getByTestId('mismatches');
      expect(await mismatches.locator('tbody tr td').allTextContents()).toEqual(['1', '4', '5']);
      expect(await mismatches.textContent()).toContain('Rank 1: 1 of 3 wrong');
      expect(await page.getByTestId('rank-line').allTextContents()).toContain(
        '[Rank 1] all_reduce sum (3 × float32): [1, 2, 3] → [2, 5, 6] 1 of 3 wrong: [1] expected 4 got 5 ✗',
      );
      await mismatches.scrollIntoViewIfNeeded();
      await screenshot(page, '8-replay-failed-check');
    } finally {
      rmSync(recordPath, { force: true });
    }
  });
});

/** The record as if `rank` had got one wrong element in the first step of `op`. */
function withWrongElement(record: RunRecord, op: string, rank: number): RunRecord {
  const step = record.steps.find((s) => s.action.kind === 'collective' && s.action.op === op)!;
  const result = step.ranks.find((r) => r.rank === rank)!;
  Object.assign(result, { verdict: 'fail', wrong: 1, output: '[2, 5, 6]', mismatches: [{ index: 1, expected: '4', actual: '5' }] });
  Object.assign(step, { verdict: 'fail', wrong: 1 });
  return { ...record, status: 'failed' };
}

/** Puts Monaco's cursor at a line and column and focuses the editor. */
async function placeCursor(page: Page, lineNumber: number, column: number): Promise<void> {
  await page.evaluate(
    ([line, col]) => {
      type Editor = { setPosition(p: object): void; focus(): void };
      const m = (globalThis as unknown as { monaco: { editor: { getEditors(): Editor[] } } }).monaco;
      const editor = m.editor.getEditors()[0];
      editor.setPosition({ lineNumber: line, column: col });
      editor.focus();
    },
    [lineNumber, column],
  );
}

/** Whether the chart's canvas has anything drawn on it. */
function chartHasDrawing(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const canvas = document.querySelector<HTMLCanvasElement>('[data-testid=bandwidth-chart]')!;
    const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
    for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) return true;
    return false;
  });
}
