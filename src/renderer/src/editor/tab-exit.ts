// Esc then Tab leaves the editor (Shift+Tab backwards), as in VS Code's terminal and many web
// editors: Tab alone indents, so without this a keyboard could not get out.

const TABBABLE =
  'a[href], button:not([disabled]), input:not([disabled]):not([type=hidden]), select:not([disabled]), textarea:not([disabled]), [tabindex]';

/** The elements Tab stops at, in order, outside `inside`. */
function tabStops(inside: HTMLElement): HTMLElement[] {
  return Array.from(document.querySelectorAll<HTMLElement>(TABBABLE)).filter(
    (el) => el.tabIndex >= 0 && !inside.contains(el) && el.getClientRects().length > 0 && !el.closest('[hidden], [inert]'),
  );
}

/** The first stop after `from` in document order, or (backwards) the last before it; wraps around. */
export function nextStop(from: HTMLElement, backwards: boolean): HTMLElement | null {
  const stops = tabStops(from);
  const after = (el: HTMLElement) => (from.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
  if (backwards) return stops.filter((el) => !after(el)).pop() ?? stops[stops.length - 1] ?? null;
  return stops.find(after) ?? stops[0] ?? null;
}

/** Listens on `host` (before Monaco sees the keys) for Esc then Tab; returns the remover. */
export function leaveByTab(host: HTMLElement): () => void {
  let escaped = false;
  const keydown = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      escaped = true;
      return;
    }
    if (e.key === 'Tab' && escaped && !e.ctrlKey && !e.altKey && !e.metaKey) {
      const target = nextStop(host, e.shiftKey);
      if (target) {
        e.preventDefault();
        e.stopPropagation();
        target.focus();
      }
    }
    if (e.key !== 'Shift') escaped = false;
  };
  host.addEventListener('keydown', keydown, true);
  return () => host.removeEventListener('keydown', keydown, true);
}
