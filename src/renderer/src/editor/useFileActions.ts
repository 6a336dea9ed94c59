// Open, Save, Save As, drop: through the lab's dialogs and paths where the door has them
// (Electron), else uploads and downloads (browser). Run files open as replays.
import { useCallback } from 'react';
import type { OpenedFile } from '../../../shared/run/api/api.js';
import type { RunRecord } from '../../../shared/run/record/record.js';
import type { LabClient } from '../client';
import { fileDocument, uploadedDocument } from './document';
import { downloadText, readFiles } from './file-io';
import type { ScenarioDocumentState } from './useScenarioDocument';

export interface FileActions {
  save(): Promise<void>;
  saveAs(): Promise<void>;
  /** Electron: the open dialog. Browser: null (the toolbar's file input does it). */
  openDialog: (() => Promise<void>) | null;
  openPicked(files: Iterable<File>): Promise<void>;
  openOpened(file: OpenedFile, byPath: boolean): void;
}

const downloadName = (name: string) => (/\.json$/i.test(name) ? name : `${name}.scenario.json`);

export function useFileActions(
  client: LabClient,
  scenario: ScenarioDocumentState,
  onRunRecord: (record: RunRecord, from: string) => void,
  /** A file refused (its message), or one opened (null: a notice about an earlier one is over). */
  onNotice: (message: string | null) => void,
): FileActions {
  const { doc, text, open, saved } = scenario;

  const openOpened = useCallback(
    (file: OpenedFile, byPath: boolean) => {
      onNotice(null);
      if (file.kind === 'run') onRunRecord(file.record, file.path);
      else open(byPath ? fileDocument(file.path, file.text) : uploadedDocument(file.path, file.text));
    },
    [open, onRunRecord, onNotice],
  );

  const saveTo = useCallback(
    async (path: string | null) => {
      if (!doc) return;
      if (!client.capabilities.fileDialogs) {
        downloadText(downloadName(doc.name), text);
        saved(doc);
        return;
      }
      const result = await client.call('saveScenario', { path, text });
      if (result) saved(fileDocument(result.path, text));
    },
    [client, doc, text, saved],
  );

  const guard = useCallback(
    (action: () => Promise<void>) => async () => {
      try {
        await action();
      } catch (e) {
        onNotice((e as Error).message);
      }
    },
    [onNotice],
  );

  const openPicked = useCallback(
    async (files: Iterable<File>) => {
      try {
        const paths = [...files].map((f) => [f, client.pathForFile(f)] as const);
        for (const [file, path] of paths) {
          if (path) openOpened(await client.call('openPath', { path }), true);
          else for (const opened of await readFiles([file])) openOpened(opened, false);
        }
      } catch (e) {
        onNotice((e as Error).message);
      }
    },
    [client, openOpened, onNotice],
  );

  return {
    save: guard(() => saveTo(doc?.path ?? null)),
    saveAs: guard(() => saveTo(null)),
    openDialog: client.capabilities.fileDialogs
      ? guard(async () => {
          const opened = await client.call('openFile', {});
          if (opened) openOpened(opened, true);
        })
      : null,
    openPicked,
    openOpened,
  };
}
