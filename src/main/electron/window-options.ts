// The lab window's options. The renderer is treated as untrusted web content: no Node, its own
// JavaScript world, the OS sandbox; it reaches the lab only through the preload's window.lab.
import type { BrowserWindowConstructorOptions } from 'electron';

export const WINDOW_SECURITY = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  webviewTag: false,
  experimentalFeatures: false,
  // A dropped file is opened by the app (openPath), never navigated to.
  navigateOnDragDrop: false,
} as const;

export function windowOptions(preload: string): BrowserWindowConstructorOptions {
  return {
    width: 1280,
    height: 800,
    minWidth: 800,
    minHeight: 500,
    title: 'Collective Lab',
    webPreferences: { ...WINDOW_SECURITY, preload },
  };
}
