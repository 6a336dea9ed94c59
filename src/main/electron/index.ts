// The Electron shell: one secure window over the renderer, the lab service behind window.lab,
// and the application menu. The lab core does the work; the pure parts (window options, IPC
// checks, menu, recent files) live beside this file and are tested without Electron.
import { app, BrowserWindow, dialog, ipcMain, Menu, session, shell, type OpenDialogOptions, type SaveDialogOptions } from 'electron';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ApiEvent, OpenedFile, Template } from '../../shared/run/api/api.js';
import { LAB_CALL_CHANNEL, LAB_EVENT_CHANNEL, LAB_OPEN_RUN_CHANNEL } from '../../shared/run/api/bridge.js';
import { contentSecurityPolicy } from '../core/service/content-security.js';
import { LabService, type FileDoor } from '../core/service/lab-service.js';
import { answerCall, answerOpenRun, isFromLabWindow } from './ipc.js';
import { buildMenuTemplate, type MenuHandlers } from './menu.js';
import { RecentFiles } from './recent.js';
import { windowOptions } from './window-options.js';

const RENDERER_INDEX = join(__dirname, '../renderer/index.html');
const DEV_SERVER_URL = process.env.ELECTRON_RENDERER_URL;
const RENDERER_URL = DEV_SERVER_URL ?? pathToFileURL(RENDERER_INDEX).href;
const LAB_FILES = [{ name: 'Scenarios and run records', extensions: ['json'] }];

let window: BrowserWindow | null = null;
let templates: Template[] = [];
const recent = new RecentFiles(join(app.getPath('userData'), 'recent.json'));

const send = (event: ApiEvent) => window?.webContents.send(LAB_EVENT_CHANNEL, event);

const showSave = (options: SaveDialogOptions) => (window ? dialog.showSaveDialog(window, options) : dialog.showSaveDialog(options));
const showOpen = (options: OpenDialogOptions) => (window ? dialog.showOpenDialog(window, options) : dialog.showOpenDialog(options));

const files: FileDoor = {
  async chooseSavePath() {
    const r = await showSave({ defaultPath: 'untitled.scenario.json', filters: LAB_FILES });
    return r.canceled || !r.filePath ? null : r.filePath;
  },
  async chooseOpenPath() {
    const r = await showOpen({ properties: ['openFile'], filters: LAB_FILES });
    return r.canceled ? null : (r.filePaths[0] ?? null);
  },
  fileUsed(path) {
    recent.add(path);
    refreshMenu();
  },
};

const service = new LabService({ runsDir: join(app.getPath('documents'), 'Collective Lab', 'runs'), files });

async function openInEditor(open: () => Promise<OpenedFile | null>, onError?: () => void): Promise<void> {
  try {
    const file = await open();
    if (file) send({ type: 'open-file', file });
  } catch (e) {
    onError?.();
    dialog.showErrorBox('Collective Lab could not open the file', (e as Error).message);
  }
}

const menuHandlers: MenuHandlers = {
  editorAction: (action, templateId) => send({ type: 'menu', action, ...(templateId ? { templateId } : {}) }),
  open: () => void openInEditor(() => service.openFile()),
  openRecent: (path) =>
    void openInEditor(
      () => service.openPath({ path }),
      () => {
        recent.remove(path);
        refreshMenu();
      },
    ),
  clearRecent: () => {
    recent.clear();
    refreshMenu();
  },
};

function refreshMenu(): void {
  Menu.setApplicationMenu(
    Menu.buildFromTemplate(buildMenuTemplate({ templates, recent: recent.list(), platform: process.platform }, menuHandlers)),
  );
}

function createWindow(): void {
  window = new BrowserWindow(windowOptions(join(__dirname, '../preload/index.cjs')));
  window.on('closed', () => {
    window = null;
  });
  if (DEV_SERVER_URL) void window.loadURL(DEV_SERVER_URL);
  else void window.loadFile(RENDERER_INDEX);
}

function secureSession(): void {
  const ses = session.defaultSession;
  ses.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  ses.setPermissionCheckHandler(() => false);
  // The dev server's page brings its own meta policy; a build gets the same policy as a header.
  if (!DEV_SERVER_URL) {
    const policy = contentSecurityPolicy(existsSync(RENDERER_INDEX) ? readFileSync(RENDERER_INDEX, 'utf8') : null);
    ses.webRequest.onHeadersReceived((details, callback) =>
      callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [policy] } }),
    );
  }
}

app.on('web-contents-created', (_event, contents) => {
  contents.on('will-navigate', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (url.startsWith('https://')) void shell.openExternal(url);
    return { action: 'deny' };
  });
});

ipcMain.handle(LAB_CALL_CHANNEL, (event, raw: unknown) =>
  answerCall(service, isFromLabWindow(event, window?.webContents, RENDERER_URL), raw),
);
ipcMain.handle(LAB_OPEN_RUN_CHANNEL, (event, raw: unknown) =>
  answerOpenRun(service, isFromLabWindow(event, window?.webContents, RENDERER_URL), raw),
);
service.onEvent(send);

void app.whenReady().then(async () => {
  secureSession();
  templates = await service.templates();
  refreshMenu();
  createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

// Quitting waits until every run has stopped, so no rank process outlives the app.
let disposed = false;
app.on('before-quit', (event) => {
  if (disposed) return;
  event.preventDefault();
  void service.dispose().finally(() => {
    disposed = true;
    app.quit();
  });
});
