// A record read in by `clab import` (issue 42) in Chromium against a real `clab serve`: an
// nccl-tests log imported with the real CLI into the runs folder the app reads. Saved runs marks
// it in words, and opening it says, before its results, that it was measured elsewhere: no values
// checked by the lab, no timeline. axe-core in both themes.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, REPO_ROOT, screenshot, usesLabPage } from './helpers';

let page: Page;

const LOG = join(REPO_ROOT, 'test', 'shared', 'export', 'nccl-tests-samples', 'all_reduce-4ranks.log');

usesLabPage(
  (session) => ({ page } = session),
  (lab) => {
    execFileSync(process.execPath, ['bin/clab.cjs', 'import', LOG, '--runs', lab.runsDir], { cwd: REPO_ROOT, stdio: 'ignore' });
  },
);

const importedRow = () => page.locator('[data-testid=saved-run]:has([data-testid=run-imported])');

async function openImported(): Promise<void> {
  await page.getByTestId('tab-runs').click();
  await importedRow().waitFor();
  await importedRow().getByTestId('open-run').click();
  await page.getByTestId('imported-banner').waitFor();
}

describe('a record read in by clab import', () => {
  it('is marked in Saved runs in words: what was read and by which program', async () => {
    await page.getByTestId('tab-runs').click();
    await importedRow().waitFor();
    expect(await page.getByTestId('saved-run').count()).toBe(1);
    expect(await importedRow().getByTestId('run-imported').textContent()).toBe(' (imported: nccl-tests text log, all_reduce_perf)');
  });

  it('says, before its results, that it was measured elsewhere, with no values checked and no timeline', async () => {
    await openImported();
    const banner = await page.getByTestId('imported-banner').textContent();
    expect(banner).toMatch(
      /^Imported from all_reduce-4ranks\.log \(nccl-tests text log, all_reduce_perf 2\.19\.6\): measured elsewhere, no values checked by the lab, no timeline\./,
    );
    expect(banner).toContain('times, algbw, busbw and #wrong are as the file says'); // the record's own notes
    // Before the results: the banner comes first in the page's order.
    const before = await page
      .getByTestId('imported-banner')
      .evaluate((el) =>
        Boolean(el.compareDocumentPosition(document.querySelector('[data-testid=results-status]')!) & Node.DOCUMENT_POSITION_FOLLOWING),
      );
    expect(before).toBe(true);
    await screenshot(page, 'imported');
  });

  for (const scheme of ['light', 'dark'] as const)
    it(`finds no serious or critical axe-core violation in the list and the opened record, ${scheme} theme`, async () => {
      await page.emulateMedia({ colorScheme: scheme });
      await page.getByTestId('tab-runs').click();
      await importedRow().waitFor();
      expect(await axeViolations(page)).toEqual([]);
      await openImported();
      expect(await axeViolations(page)).toEqual([]);
      await page.emulateMedia({ colorScheme: 'light' });
    });
});
