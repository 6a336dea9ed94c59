// Timeline bench: a synthetic 100 000-event run record opened in Chromium through a real
// `clab serve`. Measures the time from opening the run to the timeline's first frame, and the
// draw time of each frame while zooming and panning with the wheel and drags. Prints figures and
// ratios to the targets; passes or fails nothing. See README.md.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { keepPackedForLaterOpens } from '../../src/main/core/library/saved-runs';
import { launchBrowser, openLab, startLabServer } from '../../test/e2e/helpers';
import { labColdLoad, speedscopeColdLoad, type PeerFigures } from './peers';
import { roundsFor, syntheticRecord } from './synthetic-record';

const EVENTS = Number(process.env.EVENTS ?? 100_000);
/** With SEARCH=<query>, the gestures run with that search's matches outlined and the first selected. */
const SEARCH = process.env.SEARCH ?? '';
/**
 * With FOREIGN=1, the run is one clab did not save (copied into the runs folder): nothing of it is
 * packed on disk ahead. By default it is saved as clab saves a run (`clab run`, or the app at the
 * run's end): written, then packed into the packed runs kept on disk, before the lab starts.
 */
const FOREIGN = process.env.FOREIGN === '1';
/**
 * With UNPREPARED=1, the run's file is rewritten with other bytes (another run id) once the lab has
 * packed it ahead for the Runs list, so that the open finds nothing prepared, in memory or on disk
 * (a file only touched is found on disk by its bytes): the figure of a run opened with no head start.
 */
const UNPREPARED = process.env.UNPREPARED === '1';
/**
 * THINK_MS: how long the bench looks at the Runs list before it clicks Open (default 0: at once, so
 * the open finds the lab part-way through packing it). A person's pause is longer: THINK_MS=2000
 * gives the figure of a run the lab had packed by the click.
 */
const THINK_MS = Math.min(Math.max(Number(process.env.THINK_MS ?? 0) || 0, 0), 60_000);
/** The heap figures' run: the largest the page opens (a saved run of at most 64 MiB, saved-runs.ts) is about 360 000 events. */
const HEAP_EVENTS = Number(process.env.HEAP_EVENTS ?? 350_000);
const shape = { ranks: 8, warmup: 2, iters: 10 };

interface Frame {
  at: number;
  ms: number;
  slices: number;
}
type Timed = { t0: number; tResults: number; tTab: number };

const percentile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const median = (values: number[]) => percentile(values, 0.5);

const frames = (page: Page) => page.evaluate(() => (window as unknown as { __clabTimelineFrames?: Frame[] }).__clabTimelineFrames ?? []);
const clearFrames = (page: Page) =>
  page.evaluate(() => {
    (window as unknown as { __clabTimelineFrames?: Frame[] }).__clabTimelineFrames = [];
  });
const settle = (page: Page) => page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));

/** Clicks Open, then the Timeline tab as soon as the results show, all inside the page (no round trips in the figure). */
function openThenTimeline(page: Page): Promise<Timed> {
  // No named functions in here: tsx would wrap them in a helper the page does not have.
  return page.evaluate(async () => {
    const t0 = performance.now();
    (document.querySelector('[data-testid=open-run]') as HTMLElement).click();
    while (!document.querySelector('[data-testid=results]')) {
      if (performance.now() - t0 > 60_000) throw new Error('the run did not open within 60 s');
      await new Promise((r) => setTimeout(r, 1));
    }
    const tResults = performance.now();
    const tab = document.querySelector('[data-testid=tab-timeline]') as HTMLElement | null;
    if (!tab) throw new Error('no Timeline tab (data-testid=tab-timeline) in this build');
    const tTab = performance.now();
    tab.click();
    return { t0, tResults, tTab };
  });
}

async function firstFrameAfter(page: Page, t: number): Promise<Frame> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const found = (await frames(page)).find((f) => f.at >= t);
    if (found) return found;
    if (Date.now() > deadline) throw new Error('no timeline frame within 60 s');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const now = (page: Page) => page.evaluate(() => performance.now());

/**
 * Zooms in and out with the wheel at several places and pans by dragging at the zoom levels in
 * between, each gesture sent without waiting for frames (as a hand would); returns the page-time
 * spans of the gestures, within which the interval between frames is the frame time.
 */
async function interact(page: Page): Promise<[number, number][]> {
  const box = (await page.getByTestId('timeline-canvas').boundingBox())!;
  const y = box.y + Math.min(box.height / 2, 200);
  const spans: [number, number][] = [];
  const gesture = async (act: () => Promise<void>) => {
    const from = await now(page);
    await act();
    await settle(page);
    spans.push([from, await now(page)]);
  };
  const wheel = (deltaY: number) => async () => {
    for (let i = 0; i < 12; i++) await page.mouse.wheel(0, deltaY);
  };
  for (const at of [0.2, 0.5, 0.8]) {
    await page.mouse.move(box.x + box.width * at, y);
    await gesture(wheel(-120));
    await gesture(async () => {
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * (at - 0.15), y, { steps: 20 });
      await page.mouse.move(box.x + box.width * (at + 0.1), y, { steps: 20 });
      await page.mouse.up();
    });
    await gesture(wheel(120));
  }
  await page.mouse.move(box.x + box.width * 0.5, y);
  await gesture(async () => {
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.2, y, { steps: 30 });
    await page.mouse.up();
  });
  return spans;
}

// What clab keeps between sessions (packed runs) goes to a folder of the bench's own.
const clabHome = mkdtempSync(join(tmpdir(), 'clab-bench-home-'));
process.env.CLAB_HOME = clabHome;
const record = syntheticRecord({ ...shape, rounds: roundsFor(EVENTS, shape), name: 'timeline bench' });
const runsDir = mkdtempSync(join(tmpdir(), 'clab-bench-runs-'));
const runFile = join(runsDir, 'bench.run.json');
writeFileSync(runFile, JSON.stringify(record));
if (!FOREIGN) keepPackedForLaterOpens(runFile, (m) => console.warn(m));
const server = await startLabServer({ runsDir });
const browser = await launchBrowser();
try {
  const page = browser.page;
  await openLab(page, server);
  await page.getByTestId('tab-runs').click();
  await page.getByTestId('open-run').waitFor();
  if (THINK_MS && !UNPREPARED) await new Promise((r) => setTimeout(r, THINK_MS));
  if (UNPREPARED) {
    await new Promise((r) => setTimeout(r, 3000));
    writeFileSync(runFile, JSON.stringify({ ...record, id: `${record.id}-changed` }));
  }
  await clearFrames(page);
  const opened = await openThenTimeline(page);
  const first = await firstFrameAfter(page, opened.tTab);
  const lanes = await page.getByTestId('timeline-lane').count();

  let searchMs: number | null = null;
  if (SEARCH) {
    await page.getByTestId('timeline').focus();
    await page.keyboard.press('/');
    const before = await now(page);
    await page.getByTestId('timeline-search').fill(SEARCH);
    await page.getByTestId('timeline-search-count').filter({ hasText: /match/ }).waitFor();
    searchMs = (await now(page)) - before;
    await page.getByTestId('timeline-search').press('Enter');
    await page.getByTestId('timeline-fit').click();
  }
  await settle(page);
  // Reference for the intervals below: how often this headless page gets a frame with nothing to do.
  const idle = await page.evaluate(async () => {
    const times: number[] = [];
    const end = performance.now() + 1000;
    while (performance.now() < end) times.push(await new Promise<number>((r) => requestAnimationFrame(r)));
    return times.slice(1).map((t, i) => t - times[i]);
  });
  await clearFrames(page);
  const gestures = await interact(page);
  const drawn = await frames(page);
  const ms = drawn.map((f) => f.ms);
  const within = (t: number) => gestures.some(([a, b]) => t >= a && t <= b);
  const intervals = drawn.slice(1).flatMap((f, i) => (within(f.at) && within(drawn[i].at) ? [f.at - drawn[i].at] : []));

  const rows: [string, string, number, number | null][] = [
    ['open run → first timeline frame', '< 1000 ms', first.at + first.ms - opened.t0, 1000],
    ['  Open → results shown (lab: load, validate, Results view)', '', opened.tResults - opened.t0, null],
    ['  Timeline tab → first frame (timeline: load + draw)', '< 1000 ms', first.at + first.ms - opened.tTab, 1000],
    ["    of which the first frame's drawing", '', first.ms, null],
    ['frame draw time while zooming/panning, median', '< 16 ms', median(ms), 16],
    ['frame draw time while zooming/panning, p95', '< 33 ms', percentile(ms, 0.95), 33],
    ['frame draw time, max', '', Math.max(...ms), null],
    ['frame interval during gestures, median (vsync 16.7)', '', median(intervals), null],
    ['frame interval during gestures, p95', '', percentile(intervals, 0.95), null],
    ['frame interval of the idle page, median (reference)', '', median(idle), null],
  ];
  console.log(
    `timeline bench: ${record.events.length} events, ${record.steps.length} steps, ${lanes} lanes; ${ms.length} frames while zooming/panning`,
  );
  console.log(
    UNPREPARED
      ? 'the run was changed after the Runs list showed: its open found nothing packed ahead'
      : !FOREIGN
        ? `the run was saved as clab saves one (packed on disk), then a lab started and Open clicked ${THINK_MS ? `${THINK_MS} ms after` : 'the moment'} the Runs list showed`
        : THINK_MS
          ? `the lab began packing the run when the Runs list showed, ${THINK_MS} ms before Open was clicked`
          : 'the lab began packing the run when the Runs list showed, the moment before Open was clicked',
  );
  if (SEARCH)
    console.log(
      `search "${SEARCH}": ${await page.getByTestId('timeline-search-count').getAttribute('data-matches')} matches, typed → count shown in ${searchMs!.toFixed(1)} ms`,
    );
  console.log(
    `first frame drew ${first.slices} rectangles; frames while interacting drew ${Math.min(...drawn.map((f) => f.slices))}–${Math.max(...drawn.map((f) => f.slices))}`,
  );
  console.log('');
  console.log(`${'measure'.padEnd(60)}${'target'.padEnd(12)}${'measured'.padStart(12)}${'ratio'.padStart(8)}`);
  for (const [what, target, value, limit] of rows) {
    console.log(
      `${what.padEnd(60)}${target.padEnd(12)}${`${value.toFixed(1)} ms`.padStart(12)}${(limit === null ? '' : (value / limit).toFixed(2)).padStart(8)}`,
    );
  }
  console.log('\nratio = measured / target: at or below 1.00 meets the target.');

  // Beside speedscope (its release build, the same run as `clab export` writes its trace), each from a cold profile.
  const peers = async (r: typeof record, file: string): Promise<[PeerFigures, PeerFigures]> => {
    writeFileSync(join(server.runsDir, file), JSON.stringify(r));
    if (!FOREIGN) keepPackedForLaterOpens(join(server.runsDir, file), (m) => console.warn(m));
    return [await labColdLoad(server, file), await speedscopeColdLoad(r, join(server.runsDir, `${file}.trace.json`))];
  };
  const [ours, theirs] = await peers(record, 'bench.run.json');
  const heapRecord = syntheticRecord({ ...shape, rounds: roundsFor(HEAP_EVENTS, shape), name: 'timeline bench heap' });
  const [oursHeap, theirsHeap] = await peers(heapRecord, 'heap.run.json');
  const mb = (b: number) => b / 2 ** 20;
  const peerRows: [string, number, number, string][] = [
    [`cold page load → first frame, ${record.events.length} events`, ours.firstFrameMs, theirs.firstFrameMs, 'ms'],
    [`JS heap after GC, ${record.events.length} events`, mb(ours.heapBytes), mb(theirs.heapBytes), 'MiB'],
    [`cold page load → first frame, ${heapRecord.events.length} events`, oursHeap.firstFrameMs, theirsHeap.firstFrameMs, 'ms'],
    [`JS heap after GC, ${heapRecord.events.length} events`, mb(oursHeap.heapBytes), mb(theirsHeap.heapBytes), 'MiB'],
  ];
  console.log('');
  console.log(
    `${'beside speedscope 1.25 (same run, cold profile)'.padEnd(60)}${'ours'.padStart(12)}${'speedscope'.padStart(14)}${'ratio'.padStart(8)}`,
  );
  for (const [what, a, b, unit] of peerRows)
    console.log(
      `${what.padEnd(60)}${`${a.toFixed(1)} ${unit}`.padStart(12)}${`${b.toFixed(1)} ${unit}`.padStart(14)}${(a / b).toFixed(2).padStart(8)}`,
    );
  console.log(`heap per event (ours, ${heapRecord.events.length} events): ${(oursHeap.heapBytes / heapRecord.events.length).toFixed(0)} B`);
  console.log('ratio = ours / speedscope: below 1.00 is ours faster or smaller.');
} finally {
  await browser.close();
  await server.stop();
  rmSync(clabHome, { recursive: true, force: true });
}
