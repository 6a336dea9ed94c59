// The timeline's keys, in one table: what input.ts acts on and what the `?` help lists. Where a key
// means something in Perfetto it means that here (W/S zoom, A/D pan, F zooms to the selection, M
// marks), and what users of other tools reach for besides: arrows, + and -, Home and End, [ and ]
// through a lane's slices, Ctrl+F or / to search, Shift+F for full screen.

export type TimelineAction =
  | 'zoom-in'
  | 'zoom-out'
  | 'pan-left'
  | 'pan-right'
  | 'next-slice'
  | 'previous-slice'
  | 'lane-up'
  | 'lane-down'
  | 'search'
  | 'next-match'
  | 'previous-match'
  | 'measure'
  | 'zoom-selection'
  | 'run-start'
  | 'run-end'
  | 'fullscreen'
  | 'help'
  | 'escape';

export interface KeyBinding {
  action: TimelineAction;
  /** As `keyName` names a key press. */
  codes: readonly string[];
  /** As the help shows them. */
  keys: string;
  what: string;
}

export const KEY_BINDINGS: readonly KeyBinding[] = [
  { action: 'zoom-in', codes: ['w', '+', '='], keys: 'W  +', what: 'zoom in (around the pointer)' },
  { action: 'zoom-out', codes: ['s', '-', '_'], keys: 'S  −', what: 'zoom out' },
  { action: 'pan-left', codes: ['a', 'ArrowLeft'], keys: 'A  ←', what: 'pan to earlier' },
  { action: 'pan-right', codes: ['d', 'ArrowRight'], keys: 'D  →', what: 'pan to later' },
  { action: 'run-start', codes: ['Home'], keys: 'Home', what: "go to the run's start (the same zoom)" },
  { action: 'run-end', codes: ['End'], keys: 'End', what: "go to the run's end (the same zoom)" },
  { action: 'zoom-selection', codes: ['f'], keys: 'F', what: 'zoom to the selected slice, else to the measured range' },
  { action: 'next-slice', codes: [']'], keys: ']', what: 'select the next slice in the lane (its step below)' },
  { action: 'previous-slice', codes: ['['], keys: '[', what: 'select the previous slice in the lane' },
  { action: 'lane-up', codes: ['ArrowUp'], keys: '↑', what: 'select the nearest slice in the lane above' },
  { action: 'lane-down', codes: ['ArrowDown'], keys: '↓', what: 'select the nearest slice in the lane below' },
  { action: 'search', codes: ['Ctrl+f', '/'], keys: 'Ctrl+F  /', what: 'search slices by name (or #step)' },
  { action: 'next-match', codes: ['Enter'], keys: 'Enter', what: 'select the next match of the search' },
  { action: 'previous-match', codes: ['Shift+Enter'], keys: 'Shift+Enter', what: 'select the previous match' },
  { action: 'measure', codes: ['m'], keys: 'M', what: "mark a measure's start, then its end: at the pointer, else the selected slice" },
  { action: 'fullscreen', codes: ['Shift+f'], keys: 'Shift+F', what: 'full screen timeline, on and off' },
  { action: 'help', codes: ['?'], keys: '?', what: 'this list of keys' },
  { action: 'escape', codes: ['Escape'], keys: 'Esc', what: 'close this list, leave full screen, or clear the selection and measure' },
];

export const POINTER_GESTURES: readonly (readonly [string, string])[] = [
  ['wheel', 'zoom around the pointer; sideways: pan'],
  ['drag', 'pan'],
  ['Shift+drag', 'measure a range'],
  ['click a slice', 'select it and show its step'],
  ['click a group header', 'collapse or expand its lanes'],
];

export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
}

/**
 * A key press as the table names it: letters in lower case (Shift+W is still W, unless the table
 * names Shift+ with that letter: actionOf), a printable key as it prints (`?`, `]`), a named key
 * with Shift+ when shifted, Ctrl+ for Ctrl or Cmd; null with Alt.
 */
export function keyName(e: KeyPress): string | null {
  if (e.altKey) return null;
  const printable = e.key.length === 1;
  const key = printable ? e.key.toLowerCase() : e.key;
  return `${e.ctrlKey || e.metaKey ? 'Ctrl+' : ''}${e.shiftKey && !printable ? 'Shift+' : ''}${key}`;
}

const ACTION_OF = new Map(KEY_BINDINGS.flatMap((b) => b.codes.map((c) => [c, b.action] as const)));

export function actionOf(e: KeyPress): TimelineAction | null {
  const name = keyName(e);
  if (name === null) return null;
  // Shift with a letter: its own binding where the table has one (Shift+F), else the letter's.
  const shifted = e.shiftKey && /^[a-z]$/.test(name) ? ACTION_OF.get(`Shift+${name}`) : undefined;
  return shifted ?? ACTION_OF.get(name) ?? null;
}
