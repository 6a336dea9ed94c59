// The file actions (in the title bar): New from template, Open, Save / Save As or Download.
import { useRef, type RefObject } from 'react';
import type { Template } from '../../../shared/run/api/api.js';
import type { FileActions } from './useFileActions';

interface Props {
  templates: Template[];
  fileDialogs: boolean;
  templatePicker: RefObject<HTMLSelectElement | null>;
  files: FileActions;
  onTemplate(id: string): void;
}

/** Templates from a folder of scenarios/ (the mistakes gallery) are listed as a group. */
const folderOf = (id: string) => (id.includes('/') ? id.slice(0, id.lastIndexOf('/')) : '');
const templateOption = (t: Template) => (
  <option key={t.id} value={t.id} title={t.description}>
    {t.name}
  </option>
);

export function EditorToolbar({ templates, fileDialogs, templatePicker, files, onTemplate }: Props) {
  const upload = useRef<HTMLInputElement>(null);
  return (
    <div className="editor-toolbar">
      <select
        ref={templatePicker}
        data-testid="template-picker"
        aria-label="New from template"
        value=""
        onChange={(e) => e.target.value && onTemplate(e.target.value)}
        title="Start a new scenario from a template"
      >
        <option value="">New from template…</option>
        {templates.filter((t) => !t.id.includes('/')).map(templateOption)}
        {[...new Set(templates.map((t) => folderOf(t.id)).filter((f) => f !== ''))].map((folder) => (
          <optgroup key={folder} label={`${folder}/`}>
            {templates.filter((t) => folderOf(t.id) === folder).map(templateOption)}
          </optgroup>
        ))}
      </select>
      {files.openDialog ? (
        <button type="button" onClick={() => void files.openDialog?.()}>
          Open…
        </button>
      ) : (
        <button type="button" data-testid="open-file" onClick={() => upload.current?.click()} title="Open a scenario or run file">
          Open…
        </button>
      )}
      <input
        ref={upload}
        type="file"
        hidden
        data-testid="open-file-input"
        accept=".json,application/json"
        multiple
        onChange={(e) => {
          if (e.target.files) void files.openPicked(Array.from(e.target.files));
          e.target.value = '';
        }}
      />
      {fileDialogs ? (
        <>
          <button type="button" data-testid="save" onClick={() => void files.save()} title="Save (Ctrl+S)">
            Save
          </button>
          <button type="button" data-testid="save-as" onClick={() => void files.saveAs()}>
            Save As…
          </button>
        </>
      ) : (
        <button type="button" data-testid="download" onClick={() => void files.save()} title="Download the scenario (Ctrl+S)">
          Download
        </button>
      )}
    </div>
  );
}
