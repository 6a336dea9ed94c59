// Actions on the lab's page that several tests share.
import type { Page } from 'playwright-core';

/** Opens a template as it ships, discarding a draft left by an earlier test. */
export async function chooseTemplate(page: Page, id: string): Promise<void> {
  await page.getByTestId('template-picker').selectOption(id);
  await page.getByTestId('file-name').filter({ hasText: id }).waitFor();
  if (await page.getByTestId('revert').count()) await page.getByTestId('revert').click();
  await page.getByTestId('dirty-marker').waitFor({ state: 'detached' });
}

export async function setRunOptions(page: Page, backend: 'auto' | 'cpu' | 'nccl', ranks: number | null): Promise<void> {
  // A run left going by a failed earlier test would keep these disabled: say so rather than time out on a select.
  await page.waitForSelector('[data-testid=run-button]:not([disabled])', { timeout: 30_000 });
  await page.getByTestId('backend').selectOption(backend);
  await page.getByTestId('ranks').selectOption(ranks === null ? '' : String(ranks));
}

/** Clicks Run (or presses `keys` in the editor) and waits for the run to end; returns the status line. */
export async function runAndWait(page: Page, keys: string | null = null, timeoutMs = 60_000): Promise<string> {
  if (keys) {
    await page.locator('[data-testid=editor] .view-lines').click();
    await page.keyboard.press(keys);
  } else {
    await page.getByTestId('run-button').click();
  }
  const line = page.getByTestId('run-status-line');
  await line.waitFor({ timeout: timeoutMs });
  return (await line.textContent()) ?? '';
}

/** Steps done, from the progress text "12/40 steps". */
export function ranWorkers(progress: string | null): number {
  return Number(/^(\d+)\//.exec(progress ?? '')?.[1] ?? 0);
}

export async function selectRun(page: Page, path: string): Promise<void> {
  await page.locator(`[data-testid=saved-run]:has(td[title="${path}"]) [data-testid=open-run]`).click();
}
