// How the window is shared between the scenario editor and the side pane (run controls and the
// views): the editor's share of the width, or the editor collapsed so that the views take it all.
// Kept in localStorage, so a reload keeps the user's choice.

export interface WorkspaceLayout {
  /** Of the workspace's width, what the editor takes while shown. */
  editorShare: number;
  editorCollapsed: boolean;
}

/** The split the lab always had: 5 to 7. */
export const DEFAULT_LAYOUT: WorkspaceLayout = { editorShare: 5 / 12, editorCollapsed: false };
export const MIN_SHARE = 0.15;
export const MAX_SHARE = 0.75;
/** A drag that leaves the editor narrower than half the minimum collapses it. */
const COLLAPSE_BELOW = MIN_SHARE / 2;
const KEY_STEP = 0.02;
const BIG_KEY_STEP = 0.1;

export const LAYOUT_STORAGE_KEY = 'clab.workspace-layout';

export const clampShare = (share: number): number => Math.min(MAX_SHARE, Math.max(MIN_SHARE, share));

/** A stored layout, or the default where there is none or it is not one (a hand-edited value, an older lab's). */
export function parseLayout(text: string | null): WorkspaceLayout {
  if (!text) return DEFAULT_LAYOUT;
  try {
    const v = JSON.parse(text) as Partial<WorkspaceLayout> | null;
    const share = v?.editorShare;
    if (typeof share !== 'number' || !Number.isFinite(share)) return DEFAULT_LAYOUT;
    return { editorShare: clampShare(share), editorCollapsed: v?.editorCollapsed === true };
  } catch {
    return DEFAULT_LAYOUT;
  }
}

/** The separator's value (ARIA's window splitter): the editor's width in percent, 0 while collapsed. */
export const splitterValue = (layout: WorkspaceLayout): number => (layout.editorCollapsed ? 0 : Math.round(layout.editorShare * 100));

/**
 * A key on the separator, as the ARIA window splitter pattern has them: ←/→ move it (Shift: by
 * more), Home/End to the least and most, Enter collapses or restores the editor; null for other keys.
 */
export function splitterKey(layout: WorkspaceLayout, key: string, shift: boolean): WorkspaceLayout | null {
  const step = shift ? BIG_KEY_STEP : KEY_STEP;
  const to = (share: number): WorkspaceLayout => ({ editorShare: clampShare(share), editorCollapsed: false });
  switch (key) {
    // Left from the least width collapses the editor; right from collapsed shows it at the least.
    case 'ArrowLeft':
      if (layout.editorCollapsed) return layout;
      return layout.editorShare <= MIN_SHARE ? { ...layout, editorCollapsed: true } : to(layout.editorShare - step);
    case 'ArrowRight':
      return to(layout.editorCollapsed ? MIN_SHARE : layout.editorShare + step);
    case 'Home':
      return to(MIN_SHARE);
    case 'End':
      return to(MAX_SHARE);
    case 'Enter':
      return { ...layout, editorCollapsed: !layout.editorCollapsed };
    default:
      return null;
  }
}

/** A drag of the separator to `share` of the workspace's width. */
export const splitterDrag = (layout: WorkspaceLayout, share: number): WorkspaceLayout =>
  share < COLLAPSE_BELOW ? { ...layout, editorCollapsed: true } : { editorShare: clampShare(share), editorCollapsed: false };
