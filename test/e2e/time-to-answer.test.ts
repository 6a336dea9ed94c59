// Where a run's time went, above its timeline (issue 39): a saved run with the core's time marks
// (written packed, as a run of many events is) shows each part in words in a bar and the whole
// line below it; an older record without marks says what is unknown. In Chromium against a real
// `clab serve`. Screenshot: test-results/screenshots/time-to-answer.png.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { syntheticRecord } from '../../bench/timeline/synthetic-record';
import { writeRecordAtomic } from '../../src/main/core/library/record-store';
import { PACKED_FILE_MIN_EVENTS } from '../../src/shared/run/record/record-file';
import type { RunRecord } from '../../src/shared/run/record/record';
import { axeViolations, screenshot, usesLabPage } from './helpers';

let page: Page;
const MS = 1e6;

/** A run of many events whose ranks joined their communicator, with the core's marks around them. */
function markedRun(): RunRecord {
  const r = syntheticRecord({ ranks: 2, rounds: 400, warmup: 1, iters: 5, name: 'marked run' });
  const first = Math.min(...r.events.map((e) => e.startNs));
  const last = Math.max(...r.events.map((e) => e.endNs));
  const joined = (rank: number) => ({
    rank,
    atNs: first - 5 * MS,
    text: `joined the cpu communicator (2 ranks, pid 10${rank}) in 20 ms, 300 ms after the process started; data is filled and checked on the host`,
  });
  return {
    ...r,
    logs: [...r.logs, joined(0), joined(1)],
    timeMarks: { askedNs: first - 700 * MS, forkNs: first - 500 * MS, runEndNs: last, saveStartNs: last, saveEndNs: last + 40 * MS },
  };
}

usesLabPage(
  (session) => ({ page } = session),
  (lab) => {
    const marked = markedRun();
    expect(marked.events.length).toBeGreaterThanOrEqual(PACKED_FILE_MIN_EVENTS);
    writeRecordAtomic(join(lab.runsDir, 'marked.run.json'), marked);
    writeRecordAtomic(
      join(lab.runsDir, 'older.run.json'),
      syntheticRecord({ ranks: 2, rounds: 2, warmup: 0, iters: 1, name: 'older run' }),
    );
  },
);

async function openTimeline(file: string): Promise<string> {
  await page.getByTestId('tab-runs').click();
  await page.locator(`[data-testid=saved-run]:has(td[title$="/${file}"]) [data-testid=open-run]`).click();
  await page.getByTestId('results').waitFor();
  await page.getByTestId('tab-timeline').click();
  const bar = page.getByTestId('time-to-answer');
  await bar.waitFor();
  return (await bar.locator('p').textContent()) ?? '';
}

describe('time to answer above the timeline', () => {
  it('shows each part of a marked run in words, as wide as its share, and the whole line', async () => {
    const line = await openTimeline('marked.run.json');
    expect(line).toMatch(
      /^time to answer: [\d.]+ (s|ms) = start 675 ms \(core 200 ms, forking the ranks 195 ms, ranks loading 280 ms\) \+ init 20 ms \(cpu communicator 20 ms\) \+ steps /,
    );
    expect(line).toContain('+ save 40 ms');
    const parts = page.locator('[data-testid=time-to-answer] li');
    expect(await parts.allTextContents()).toEqual(expect.arrayContaining(['start 675 ms', 'init 20 ms', 'save 40 ms']));
    const steps = await page.locator('.tta-steps').boundingBox();
    const save = await page.locator('.tta-save').boundingBox();
    expect(steps!.width).toBeGreaterThan(save!.width);
    await screenshot(page, 'time-to-answer');
    expect(await axeViolations(page)).toEqual([]);
  });

  it('says what an older record cannot tell', async () => {
    const line = await openTimeline('older.run.json');
    expect(line).toMatch(/^time to answer: unknown = start unknown/);
    expect(line).toContain('unknown: start, save and wall: the record has no time marks');
  });
});
