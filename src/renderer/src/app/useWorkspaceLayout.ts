// The workspace layout as React state, read from localStorage once and written back on each change.
import { useCallback, useState } from 'react';
import { LAYOUT_STORAGE_KEY, parseLayout, type WorkspaceLayout } from './workspace-layout';

function stored(): string | null {
  try {
    return localStorage.getItem(LAYOUT_STORAGE_KEY);
  } catch {
    return null; // storage refused (a locked-down profile): the default layout, not a broken page
  }
}

export function useWorkspaceLayout(): [WorkspaceLayout, (layout: WorkspaceLayout) => void] {
  const [layout, setLayout] = useState(() => parseLayout(stored()));
  const change = useCallback((next: WorkspaceLayout) => {
    setLayout(next);
    try {
      localStorage.setItem(LAYOUT_STORAGE_KEY, JSON.stringify(next));
    } catch {
      // As above: the layout holds for this page, not across reloads.
    }
  }, []);
  return [layout, change];
}
