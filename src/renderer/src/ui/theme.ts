// The colour scheme the system asks for (prefers-color-scheme), for what CSS cannot colour:
// Monaco's theme, Chart.js and the canvases. The colours themselves are styles.css's variables.
import { useSyncExternalStore } from 'react';

export type ColourScheme = 'light' | 'dark';

const DARK = '(prefers-color-scheme: dark)';

export const colourScheme = (): ColourScheme => (window.matchMedia(DARK).matches ? 'dark' : 'light');

/** Calls `changed` whenever the system switches scheme; returns the unsubscribe. */
export function onColourScheme(changed: (scheme: ColourScheme) => void): () => void {
  const query = window.matchMedia(DARK);
  const listener = () => changed(colourScheme());
  query.addEventListener('change', listener);
  return () => query.removeEventListener('change', listener);
}

/** The scheme now; the component renders again when it changes. */
export const useColourScheme = (): ColourScheme => useSyncExternalStore(onColourScheme, colourScheme);

/** A colour variable of styles.css as the page has it now, e.g. themeColour('--text'). */
export const themeColour = (name: `--${string}`): string => getComputedStyle(document.documentElement).getPropertyValue(name).trim();
