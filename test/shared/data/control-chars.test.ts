import { describe, expect, it } from 'vitest';
import { inertJson, visibleControls } from '../../../src/shared/data/control-chars';

describe('control characters from a record', () => {
  it('are written as visible escapes, tab and newline kept', () => {
    expect(visibleControls('a\u001b[2Jb')).toBe('a\\e[2Jb');
    expect(visibleControls('x\ry\u0007\u0000\u007f\u009b')).toBe('x\\ry\\x07\\x00\\x7f\\x9b');
    expect(visibleControls('left\u202eright\u2066')).toBe('left\\u202eright\\u2066');
    expect(visibleControls('col1\tcol2\nline 2 µs ✓ → ⇄')).toBe('col1\tcol2\nline 2 µs ✓ → ⇄');
  });
});

describe('control characters in JSON printed on a terminal', () => {
  it('are written as \\u escapes that parse back to the same value', () => {
    const value = { label: 'a\u001b[2Jb\u009b31m\u202ec', tab: 'x\ty' };
    const json = inertJson(JSON.stringify(value));
    expect(json).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
    expect(JSON.parse(json)).toEqual(value);
  });
});
