// Between the editor and the side pane: a button that hides or shows the editor, and the
// separator that moves the split, by dragging or by keys (ARIA's window splitter: ← → Home End,
// Enter to collapse or restore). Its value is the editor's width in percent, 0 when collapsed.
import { useRef } from 'react';
import './workspace.css';
import { MAX_SHARE, splitterDrag, splitterKey, splitterValue, type WorkspaceLayout } from './workspace-layout';

interface Props {
  layout: WorkspaceLayout;
  onLayout(layout: WorkspaceLayout): void;
}

export function Splitter({ layout, onLayout }: Props) {
  const dragging = useRef(false);
  const shareAt = (e: React.PointerEvent<HTMLElement>) => {
    const workspace = e.currentTarget.closest('.workspace')!.getBoundingClientRect();
    return (e.clientX - workspace.left) / Math.max(1, workspace.width);
  };
  return (
    <div className="splitter-column">
      <button
        type="button"
        className="editor-toggle"
        data-testid="editor-toggle"
        aria-expanded={!layout.editorCollapsed}
        aria-controls="scenario-editor-pane"
        aria-label={layout.editorCollapsed ? 'Show the editor' : 'Hide the editor'}
        title={layout.editorCollapsed ? 'Show the editor' : 'Hide the editor: the views take the window'}
        onClick={() => onLayout({ ...layout, editorCollapsed: !layout.editorCollapsed })}
      >
        {layout.editorCollapsed ? '▸' : '◂'}
      </button>
      <div
        className="splitter"
        role="separator"
        aria-orientation="vertical"
        aria-label="Editor width"
        aria-controls="scenario-editor-pane"
        aria-valuenow={splitterValue(layout)}
        aria-valuemin={0}
        aria-valuemax={Math.round(MAX_SHARE * 100)}
        tabIndex={0}
        data-testid="splitter"
        onKeyDown={(e) => {
          const next = splitterKey(layout, e.key, e.shiftKey);
          if (!next) return;
          e.preventDefault();
          onLayout(next);
        }}
        onPointerDown={(e) => {
          if (e.button !== 0) return;
          dragging.current = true;
          e.currentTarget.setPointerCapture(e.pointerId);
        }}
        onPointerMove={(e) => {
          if (dragging.current) onLayout(splitterDrag(layout, shareAt(e)));
        }}
        onPointerUp={() => {
          dragging.current = false;
        }}
        onPointerCancel={() => {
          dragging.current = false;
        }}
      />
    </div>
  );
}
