// The editor's completion and hover on a step's op, in Chromium against a real `clab serve`
// (issue 25, items 11 and 13), and the world's checks beside schema errors (item 14).
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { COLLECTIVES, OBJECT_COLLECTIVES } from '../../src/shared/ops';
import { COMMON_OPS } from '../../src/shared/ops/order';
import { editorMarkers, eventually, screenshot, setEditorText, usesLabPage } from './helpers';
import { chooseTemplate, setRunOptions } from './lab-page';

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

describe('the editor on a scenario with schema errors', () => {
  it('marks a root outside the world and a send to self while another step breaks the schema', async () => {
    await chooseTemplate(page, 'all-in-one.scenario.json');
    await setRunOptions(page, 'auto', null);
    await setEditorText(
      page,
      scenario(
        [
          '{ "op": "broadcast", "count": 4, "root": 5 }',
          '{ "op": "all_reduce", "count": "three" }',
          '{ "op": "send", "from": 0, "to": 0, "count": 2 }',
        ].join(',\n    '),
      ),
    );
    // Lines: 6 the broadcast, 7 the all_reduce with the schema error, 8 the send.
    const markers = await eventually(
      async () => {
        const all = await editorMarkers(page);
        const lab = all.filter((m) => m.owner === 'clab');
        return all.some((m) => m.owner === 'json' && m.text.startsWith('7:')) && lab.length >= 2 ? all : undefined;
      },
      15_000,
      "the schema's and the world's markers together",
    );
    const lab = markers.filter((m) => m.owner === 'clab').map((m) => m.text);
    expect(lab).toEqual([
      expect.stringMatching(/^6:\d+ steps\[0\]\.root: rank 5 does not exist in a world of 2 ranks/),
      expect.stringMatching(/^8:\d+ steps\[2\]\.to: a rank cannot send to itself/),
    ]);
    expect(markers.filter((m) => m.owner === 'json').every((m) => m.text.startsWith('7:'))).toBe(true);
    // The status line counts both kinds.
    const counted = await eventually(
      async () => Number(/^(\d+) errors?/.exec((await page.getByTestId('editor-problems').textContent()) ?? '')?.[1] ?? 0) || undefined,
      5_000,
      'the status line',
    );
    expect(counted).toBeGreaterThanOrEqual(lab.length + 1);
    await screenshot(page, 'editor-world-beside-schema');
  });
});
