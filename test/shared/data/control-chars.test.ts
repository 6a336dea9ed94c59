import { describe, expect, it } from 'vitest';
import { visibleControls } from '../../../src/shared/data/control-chars';

describe('control characters from a record', () => {
  it('are written as visible escapes, tab and newline kept', () => {
    expect(visibleControls('a\u001b[2Jb')).toBe('a\\e[2Jb');
    expect(visibleControls('x\ry\u0007\u0000\u007f\u009b')).toBe('x\\ry\\x07\\x00\\x7f\\x9b');
    expect(visibleControls('left\u202eright\u2066')).toBe('left\\u202eright\\u2066');
    expect(visibleControls('col1\tcol2\nline 2 µs ✓ → ⇄')).toBe('col1\tcol2\nline 2 µs ✓ → ⇄');
  });
});
