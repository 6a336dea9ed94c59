// What a learner asked for next (issue 40, items 13–18), in Chromium against a real `clab serve` on
// records made by the CLI on the cpu backend: units that fit small messages, pictures as SVG, a
// report to share, time left while running, sweeps on one chart, ring against tree. Every view
// these add is checked with axe-core in both themes.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, REPO_ROOT, screenshot, usesLabPage, type LabServerProcess } from './helpers';
import { selectRun } from './lab-page';

let server: LabServerProcess;
let page: Page;
const paths = { tiny: '', sweepA: '', sweepB: '' };

/** `clab run` on the cpu backend, the record written to the server's runs folder. */
function runCli(scenario: string, ranks: number, name: string): string {
  const out = join(server.runsDir, `${name}.run.json`);
  execFileSync(process.execPath, ['bin/clab.cjs', 'run', scenario, '--ranks', String(ranks), '--backend', 'cpu', '--out', out], {
    cwd: REPO_ROOT,
    stdio: 'ignore',
  });
  return out;
}

/** The all_reduce sweep template from 8 B up to `maxBytes`, beside the records in the runs folder. */
function shortSweep(maxBytes: string): string {
  const sweep = JSON.parse(readFileSync(join(REPO_ROOT, 'scenarios/allreduce-sweep.scenario.json'), 'utf8')) as {
    steps: Record<string, unknown>[];
  };
  sweep.steps[0].maxBytes = maxBytes;
  delete (sweep as { $schema?: string }).$schema;
  const file = join(server.runsDir, `sweep-${maxBytes}.scenario.json`);
  writeFileSync(file, JSON.stringify(sweep));
  return file;
}

usesLabPage(
  (session) => ({ server, page } = session),
  (lab) => {
    server = lab;
    paths.tiny = runCli(shortSweep('64B'), 2, 'sweep-tiny');
    paths.sweepA = runCli(shortSweep('256KiB'), 2, 'sweep-a');
    paths.sweepB = runCli(shortSweep('1MiB'), 3, 'sweep-b');
  },
);

async function openSaved(path: string): Promise<void> {
  await page.getByTestId('tab-runs').click();
  await selectRun(page, path);
  await page
    .getByTestId('replay-banner')
    .filter({ hasText: path.split('/').pop()! })
    .waitFor();
}

/** axe-core's serious findings in both themes, the light one left on. */
async function axeBothThemes(): Promise<string[]> {
  const found: string[] = [];
  for (const scheme of ['dark', 'light'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    found.push(...(await axeViolations(page)).map((v) => `[${scheme}] ${v}`));
  }
  return found;
}

describe('units that fit', () => {
  it('shows a sweep of small messages in MB/s in its table and chart, never 0.00', async () => {
    await openSaved(paths.tiny);
    const table = page.getByTestId('results-table').first();
    const headers = await table.locator('thead th').allTextContents();
    expect(headers.filter((h) => h.startsWith('algbw') || h.startsWith('busbw'))).toEqual(['algbw(MB/s)', 'busbw(MB/s)']);
    const cells = await table
      .locator('[data-testid=result-row]')
      .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)));
    const algbw = headers.indexOf('algbw(MB/s)');
    expect(cells.length).toBeGreaterThan(0);
    for (const row of cells) expect(row[algbw]).not.toBe('0.00');
    await page.locator('[data-testid=bandwidth-chart][data-unit="MB/s"]').waitFor();
    expect(await page.getByTestId('sweep-summary').textContent()).toMatch(/busbw at the largest size: [\d.]+ MB\/s/);
    expect(await axeBothThemes()).toEqual([]);
    await screenshot(page, 'units-small-messages');
  });
});
