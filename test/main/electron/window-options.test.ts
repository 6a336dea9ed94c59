import { describe, expect, it } from 'vitest';
import { windowOptions } from '../../../src/main/electron/window-options';

describe('lab window options', () => {
  it('isolates the renderer: sandboxed, no Node, web security on, no webviews', () => {
    const prefs = windowOptions('/app/out/preload/index.cjs').webPreferences!;
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
    });
  });

  it('loads the given preload', () => {
    expect(windowOptions('/app/out/preload/index.cjs').webPreferences!.preload).toBe('/app/out/preload/index.cjs');
  });
});
