// "Ranks from a launcher" in the run panel: opened and filled from the keyboard, its Run starts a
// launcher of two plain shell-started `clab worker`s that join the lab, and the Log shows it.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { descendants, eventually, screenshot, usesLabPage, type LabServerProcess } from './helpers';
import { chooseTemplate, runAndWait, setRunOptions } from './lab-page';
import { freePort } from '../setup/free-port';

let server: LabServerProcess;
let page: Page;
usesLabPage((session) => ({ server, page } = session));

/** A port nothing listens on now (the lab's listener takes it a moment later). */
describe('ranks from a launcher', () => {
  it('runs all-in-one on 2 cpu ranks started by a launcher, the launch and the joins in the Log', async () => {
    await chooseTemplate(page, 'all-in-one.scenario.json');
    await setRunOptions(page, 'cpu', 2);

    // Collapsed by default; the summary opens it from the keyboard.
    const section = page.getByTestId('remote-section');
    expect(await section.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    expect(await page.getByLabel('Listen at').isVisible()).toBe(false);
    await page.getByTestId('remote-summary').focus();
    await page.keyboard.press('Enter');
    await page.getByLabel('Listen at').waitFor();
    expect(await page.getByLabel('Listen at').isDisabled()).toBe(true);

    await page.getByRole('checkbox', { name: /wait for clab workers/ }).focus();
    await page.keyboard.press('Space');
    expect(await page.getByTestId('remote-enabled').isChecked()).toBe(true);
    expect(await page.getByLabel('Listen at').inputValue()).toBe('127.0.0.1:7777');

    // A listen address the API would refuse: said inline, and Run waits for a good one.
    await page.getByLabel('Listen at').fill('localhost:');
    expect(await page.getByTestId('remote-listen-problem').textContent()).toContain('[HOST:]PORT');
    expect(await page.getByLabel('Listen at').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByTestId('run-button').isDisabled()).toBe(true);

    const port = await freePort();
    await page.getByLabel('Listen at').fill(`127.0.0.1:${port}`);
    await page.getByTestId('remote-listen-problem').waitFor({ state: 'detached' });
    // The lab appends `clab worker --connect … --token-file …` to the launcher; this one starts two ranks of it.
    const launch = `sh -c 'for r in 0 1; do ${process.execPath} "$@" --rank $r --world 2 & done; wait' sh`;
    await page.getByLabel('Launcher (optional)').fill(launch);
    await screenshot(page, 'remote-1-section');

    const status = await runAndWait(page, null, 90_000);
    expect(status).toMatch(/^PASSED: 24\/24 checked steps correct on 2 ranks \(cpu\)/);
    const log = await page.getByTestId('log-line').allTextContents();
    expect(log.some((l) => l.startsWith(`[lab] waiting for 2 ranks at 127.0.0.1:${port} (this host only; token in `))).toBe(true);
    expect(
      log.some(
        (l) => l.startsWith(`[lab] starting the launcher: ${launch} `) && / worker --connect 127\.0\.0\.1:\d+ --token-file /.test(l),
      ),
    ).toBe(true);
    expect(log.filter((l) => /^\[lab\] rank \d joined from host /.test(l))).toHaveLength(2);
    expect(log).toContain('[Rank 1] all_reduce sum: [2, 4, 6] ✓');
    await screenshot(page, 'remote-2-log');

    // The launcher and its workers end with the run.
    await eventually(
      () => (descendants(server.pid).some((p) => p.args.includes(' worker --connect')) ? undefined : true),
      15_000,
      'the launched workers to end',
    );
  }, 120_000);
});
