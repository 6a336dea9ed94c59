// The editor's completion and hover on a step's op, in Chromium against a real `clab serve`
// (issue 25, items 11 and 13).
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { COLLECTIVES, OBJECT_COLLECTIVES } from '../../src/shared/ops';
import { COMMON_OPS } from '../../src/shared/ops/order';
import { screenshot, setEditorText, usesLabPage } from './helpers';
import { chooseTemplate } from './lab-page';

let page: Page;
usesLabPage((session) => ({ page } = session));

const ALL_OPS = [...COLLECTIVES, ...OBJECT_COLLECTIVES, 'send', 'recv', 'barrier', 'wait', 'compute', 'group', 'sweep', 'pairs', 'compare'];
const scenario = (step: string) =>
  `{\n  "version": 1,\n  "name": "typed",\n  "world": { "ranks": 2 },\n  "steps": [\n    ${step}\n  ]\n}\n`;

/** Puts Monaco's cursor at a line and column and focuses the editor. */
async function placeCursor(lineNumber: number, column: number): Promise<void> {
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

describe('the editor on a step op', () => {
  it('offers every op on "op": "", most used first', async () => {
    await chooseTemplate(page, 'all-in-one.scenario.json');
    const step = '{ "op": "" }';
    await setEditorText(page, scenario(step));
    await placeCursor(6, 5 + step.indexOf('""') + 1);
    await page.keyboard.press('Control+Space');
    const focused = page.locator('.suggest-widget .monaco-list-row.focused');
    await focused.waitFor();
    // The list is virtual (only the rows in view exist): walk it with the arrow key.
    const offered: string[] = [];
    for (let i = 0; i < ALL_OPS.length + 5; i++) {
      const label = JSON.parse((await focused.textContent())!.trim()) as string;
      if (offered.includes(label)) break;
      offered.push(label);
      await page.keyboard.press('ArrowDown');
      await expect.poll(async () => (await focused.textContent())?.trim() !== JSON.stringify(label)).toBe(true);
    }
    await screenshot(page, 'editor-op-completion');
    await page.keyboard.press('Escape');
    expect([...offered].sort()).toEqual([...ALL_OPS].sort());
    expect(offered.slice(0, COMMON_OPS.length)).toEqual(COMMON_OPS);
  });

  it("shows the hovered op's description and no other op's", async () => {
    await chooseTemplate(page, 'all-in-one.scenario.json');
    await setEditorText(page, scenario('{ "op": "broadcast", "count": 4 }'));
    await page.locator('[data-testid=editor] .view-line span', { hasText: '"broadcast"' }).first().hover();
    const hover = page.locator('.monaco-hover-content').filter({ hasText: 'broadcast' }).first();
    await hover.filter({ hasText: "The root's tensor is copied to every rank" }).waitFor();
    await screenshot(page, 'editor-op-hover');
    const text = (await hover.textContent()) ?? '';
    expect(text).not.toContain('Every rank ends with the reduction'); // all_reduce's
    expect(text).not.toContain('all_to_all');
    for (const other of ALL_OPS.filter((o) => o !== 'broadcast' && !o.startsWith('broadcast'))) expect(text).not.toContain(`${other}:`);
  });
});
