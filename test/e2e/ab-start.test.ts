// Starting an NCCL A/B from the run panel (issue 38), in Chromium against a real `clab serve` on
// this machine's cpu backend: Start A/B waits for a scenario that names the nccl backend, both
// libraries and 1 to 50 repeats; run on the cpu backend the lab refuses it in one line, which the
// panel shows as the lab says it. (The turns and the Open button need the nccl backend: GPU only.)
// axe-core in both themes with the form open and the refusal shown.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { CPU_REFUSAL } from '../../src/main/core/service/nccl-ab/start-ab';
import { axeViolations, screenshot, setEditorText, usesLabPage } from './helpers';
import { setRunOptions } from './lab-page';

let page: Page;

const scenario = (backend: 'cpu' | 'nccl') =>
  JSON.stringify(
    {
      version: 1,
      name: 'A/B from the panel',
      world: { ranks: 2 },
      backend,
      steps: [{ op: 'all_reduce', count: 1024 }],
    },
    null,
    2,
  );

usesLabPage((session) => ({ page } = session));

async function fillForm(): Promise<void> {
  if (!(await page.getByTestId('ab-section').evaluate((d) => (d as HTMLDetailsElement).open)))
    await page.getByTestId('ab-section').locator('summary').click();
  await page.getByTestId('ab-library-a-input').fill('/opt/nccl-2.28/lib/libnccl.so.2');
  await page.getByTestId('ab-library-b-input').fill('/opt/nccl-2.30/lib/libnccl.so.2');
  await page.getByTestId('ab-repeats').fill('2');
}

describe('an NCCL A/B started from the run panel', () => {
  it('waits for a scenario that names the nccl backend, saying why', async () => {
    await setEditorText(page, scenario('cpu'));
    await fillForm();
    expect(await page.getByTestId('ab-start').isDisabled()).toBe(true);
    expect(await page.getByTestId('ab-why').textContent()).toMatch(/must name the nccl backend/);
    await page.getByTestId('ab-repeats').fill('51');
    await setEditorText(page, scenario('nccl'));
    expect(await page.getByTestId('ab-why').textContent()).toBe('Repeats: a whole number from 1 to 50.');
    expect(await page.getByTestId('ab-start').isDisabled()).toBe(true);
  });

  it('run on the cpu backend, shows the one line the lab refuses it with', async () => {
    await setEditorText(page, scenario('nccl'));
    await setRunOptions(page, 'cpu', null);
    await fillForm();
    await page.getByTestId('ab-start').click();
    await page.getByTestId('ab-refused').waitFor();
    expect(await page.getByTestId('ab-refused').innerText()).toBe(CPU_REFUSAL);
    // Nothing was started: Start A/B is there again for another try.
    expect(await page.getByTestId('ab-start').isEnabled()).toBe(true);
    await screenshot(page, 'ab-start-refused');
  });

  for (const scheme of ['light', 'dark'] as const)
    it(`finds no serious or critical axe-core violation with the form open, ${scheme} theme`, async () => {
      await page.emulateMedia({ colorScheme: scheme });
      await page.getByTestId('ab-refused').waitFor();
      expect(await axeViolations(page)).toEqual([]);
      await page.emulateMedia({ colorScheme: 'light' });
    });
});
