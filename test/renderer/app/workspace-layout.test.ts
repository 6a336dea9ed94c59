import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LAYOUT,
  MAX_SHARE,
  MIN_SHARE,
  parseLayout,
  splitterDrag,
  splitterKey,
  splitterValue,
} from '../../../src/renderer/src/app/workspace-layout';

describe('the workspace layout', () => {
  it('reads back what was stored, clamped, and the default for anything else', () => {
    expect(parseLayout(JSON.stringify({ editorShare: 0.3, editorCollapsed: true }))).toEqual({ editorShare: 0.3, editorCollapsed: true });
    expect(parseLayout(JSON.stringify({ editorShare: 5 }))).toEqual({ editorShare: MAX_SHARE, editorCollapsed: false });
    for (const bad of [null, '', 'not json', 'null', '{"editorShare":"wide"}', '[]'])
      expect(parseLayout(bad), String(bad)).toEqual(DEFAULT_LAYOUT);
  });

  it('moves the splitter by keys as ARIA’s window splitter: arrows, Shift for more, Home/End, Enter collapses', () => {
    const at = (share: number) => ({ editorShare: share, editorCollapsed: false });
    expect(splitterKey(at(0.4), 'ArrowLeft', false)!.editorShare).toBeCloseTo(0.38);
    expect(splitterKey(at(0.4), 'ArrowRight', true)!.editorShare).toBeCloseTo(0.5);
    expect(splitterKey(at(0.4), 'Home', false)).toEqual(at(MIN_SHARE));
    expect(splitterKey(at(0.4), 'End', false)).toEqual(at(MAX_SHARE));
    expect(splitterKey(at(0.4), 'Enter', false)).toEqual({ editorShare: 0.4, editorCollapsed: true });
    expect(splitterKey({ editorShare: 0.4, editorCollapsed: true }, 'Enter', false)).toEqual(at(0.4));
    expect(splitterKey(at(0.4), 'x', false)).toBeNull();
  });

  it('collapses the editor by ← at its least width and shows it at its least by →', () => {
    const collapsed = splitterKey({ editorShare: MIN_SHARE, editorCollapsed: false }, 'ArrowLeft', false)!;
    expect(collapsed.editorCollapsed).toBe(true);
    expect(splitterValue(collapsed)).toBe(0);
    expect(splitterKey(collapsed, 'ArrowRight', false)).toEqual({ editorShare: MIN_SHARE, editorCollapsed: false });
  });

  it('follows a drag, clamped, and collapses the editor when dragged nearly shut', () => {
    expect(splitterDrag(DEFAULT_LAYOUT, 0.5)).toEqual({ editorShare: 0.5, editorCollapsed: false });
    expect(splitterDrag(DEFAULT_LAYOUT, 0.95)).toEqual({ editorShare: MAX_SHARE, editorCollapsed: false });
    expect(splitterDrag(DEFAULT_LAYOUT, 0.1)).toEqual({ editorShare: MIN_SHARE, editorCollapsed: false });
    expect(splitterDrag(DEFAULT_LAYOUT, 0.02).editorCollapsed).toBe(true);
    expect(splitterValue(DEFAULT_LAYOUT)).toBe(42);
  });
});
