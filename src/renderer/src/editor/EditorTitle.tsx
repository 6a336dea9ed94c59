// Above the editor: the file's name, whether it has unsaved changes, and a way back.
export function EditorTitle({ name, dirty, onRevert }: { name: string; dirty: boolean; onRevert(): void }) {
  return (
    <div className="editor-title">
      <span className="file-name" data-testid="file-name" title={name}>
        {name}
      </span>
      {dirty && (
        <span className="dirty-marker" data-testid="dirty-marker" title="Unsaved changes (kept as a draft)">
          ● unsaved
        </span>
      )}
      <span className="spacer" />
      {dirty && (
        <button type="button" className="small" data-testid="revert" onClick={onRevert} title="Discard the unsaved changes">
          Revert
        </button>
      )}
    </div>
  );
}
