// The application menu, as a plain template so it can be tested without Electron. Editor actions
// go to the renderer as `menu` events; opening files is done here and sent as `open-file`.
import type { MenuItemConstructorOptions } from 'electron';
import type { ApiEvent, Template } from '../../shared/run/api/api.js';

export type MenuAction = Extract<ApiEvent, { type: 'menu' }>['action'];

export interface MenuHandlers {
  editorAction(action: MenuAction, templateId?: string): void;
  open(): void;
  openRecent(path: string): void;
  clearRecent(): void;
}

export interface MenuModel {
  templates: readonly Pick<Template, 'id' | 'name'>[];
  recent: readonly string[];
  platform: NodeJS.Platform;
}

export function buildMenuTemplate(model: MenuModel, handlers: MenuHandlers): MenuItemConstructorOptions[] {
  const mac = model.platform === 'darwin';
  const file: MenuItemConstructorOptions = {
    label: 'File',
    submenu: [
      {
        label: 'New from Template',
        submenu: model.templates.map((t) => ({ label: t.name, click: () => handlers.editorAction('new-from-template', t.id) })),
      },
      { label: 'Open…', accelerator: 'CmdOrCtrl+O', click: () => handlers.open() },
      {
        label: 'Open Recent',
        submenu: [
          ...model.recent.map((path) => ({ label: path, click: () => handlers.openRecent(path) })),
          ...(model.recent.length ? [{ type: 'separator' as const }] : []),
          { label: 'Clear Recent', enabled: model.recent.length > 0, click: () => handlers.clearRecent() },
        ],
      },
      { label: 'Save', accelerator: 'CmdOrCtrl+S', click: () => handlers.editorAction('save') },
      { label: 'Save As…', accelerator: 'CmdOrCtrl+Shift+S', click: () => handlers.editorAction('save-as') },
      { type: 'separator' },
      // On macOS Quit lives in the app menu and File ends with Close.
      mac ? { role: 'close' } : { label: 'Quit', role: 'quit', accelerator: 'CmdOrCtrl+Q' },
    ],
  };
  const run: MenuItemConstructorOptions = {
    label: 'Run',
    submenu: [
      { label: 'Run', accelerator: 'CmdOrCtrl+Enter', click: () => handlers.editorAction('run') },
      { label: 'Stop', accelerator: 'CmdOrCtrl+.', click: () => handlers.editorAction('stop') },
    ],
  };
  return [...(mac ? [{ role: 'appMenu' as const }] : []), file, { role: 'editMenu' }, run, { role: 'viewMenu' }, { role: 'windowMenu' }];
}
