// Text from a file (a scenario's name and keys, a record's labels, log lines and outputs) printed
// on a terminal: control characters it may carry, by accident or on purpose (an escape sequence
// that clears the screen or rewrites a line), are shown as visible escapes instead of acting on
// the terminal. One rule for every line `clab` prints; JSON gets the same characters as \u escapes.

// C0 (but \t and \n), DEL, C1, and the Unicode controls that reorder or hide text
// (bidirectional overrides and isolates, line and paragraph separators).
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\r': '\\r', '\b': '\\b', '\f': '\\f', '\v': '\\v', '\u001b': '\\e' };

/** `text` with every control character but tab and newline written as an escape (\\e, \\r, \\x07, \\u202e). */
export function visibleControls(text: string): string {
  return text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return NAMED[c] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
  });
}

/**
 * JSON text with every such character (JSON.stringify leaves C1, DEL and the Unicode ones as they
 * are) written as a \u escape: still the same JSON, inert on a terminal.
 */
export function inertJson(json: string): string {
  return json.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
