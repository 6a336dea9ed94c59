import { describe, expect, it } from 'vitest';
import { actionOf, KEY_BINDINGS, type KeyPress } from '../../../src/renderer/src/timeline/keys';

const press = (key: string, mods: Partial<KeyPress> = {}): KeyPress => ({
  key,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  ...mods,
});

describe('timeline keys', () => {
  it('zooms with W/S and +/- (= being + unshifted) and pans with A/D and the arrows, in either case', () => {
    expect(['w', 'W', '+', '='].map((k) => actionOf(press(k, { shiftKey: k === 'W' || k === '+' })))).toEqual(Array(4).fill('zoom-in'));
    expect(['s', '-'].map((k) => actionOf(press(k)))).toEqual(['zoom-out', 'zoom-out']);
    expect(['a', 'ArrowLeft', 'd', 'ArrowRight'].map((k) => actionOf(press(k)))).toEqual([
      'pan-left',
      'pan-left',
      'pan-right',
      'pan-right',
    ]);
  });

  it('searches on Ctrl+F, Cmd+F and /, and steps through matches with Enter and Shift+Enter', () => {
    expect(actionOf(press('f', { ctrlKey: true }))).toBe('search');
    expect(actionOf(press('f', { metaKey: true }))).toBe('search');
    expect(actionOf(press('/'))).toBe('search');
    expect(actionOf(press('Enter'))).toBe('next-match');
    expect(actionOf(press('Enter', { shiftKey: true }))).toBe('previous-match');
  });

  it("gives F Perfetto's meaning, zoom to the selection, and full screen to Shift+F; Home and End go to the run's ends", () => {
    expect(actionOf(press('f'))).toBe('zoom-selection');
    expect(actionOf(press('F', { shiftKey: true }))).toBe('fullscreen');
    // Shift with a letter the table has no Shift+ binding for is that letter still.
    expect(actionOf(press('W', { shiftKey: true }))).toBe('zoom-in');
    expect(actionOf(press('Home'))).toBe('run-start');
    expect(actionOf(press('End'))).toBe('run-end');
  });

  it('tells F from Ctrl+F, ? from /, and leaves Ctrl and Alt chords to the page', () => {
    expect(actionOf(press('?', { shiftKey: true }))).toBe('help');
    expect(actionOf(press('w', { ctrlKey: true }))).toBeNull();
    expect(actionOf(press('+', { ctrlKey: true }))).toBeNull();
    expect(actionOf(press('w', { altKey: true }))).toBeNull();
    expect(actionOf(press('x'))).toBeNull();
  });

  it('binds each key to one action, and lists every action once in the help', () => {
    const codes = KEY_BINDINGS.flatMap((b) => b.codes);
    expect(new Set(codes).size).toBe(codes.length);
    const actions = KEY_BINDINGS.map((b) => b.action);
    expect(new Set(actions).size).toBe(actions.length);
    for (const b of KEY_BINDINGS)
      for (const code of b.codes)
        expect(
          actionOf(
            press(code.replace(/^(Ctrl|Shift)\+/, ''), {
              ctrlKey: code.startsWith('Ctrl+'),
              shiftKey: code.startsWith('Shift+'),
            }),
          ),
        ).toBe(b.action);
  });
});
