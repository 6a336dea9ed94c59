import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it, vi } from 'vitest';
import { buildMenuTemplate, type MenuHandlers } from '../../../src/main/electron/menu';

const handlers = (): MenuHandlers => ({ editorAction: vi.fn(), open: vi.fn(), openRecent: vi.fn(), clearRecent: vi.fn() });
const templates = [
  { id: 'all-in-one.scenario.json', name: 'All-in-one collectives' },
  { id: 'overlap.scenario.json', name: 'Overlap on/off' },
];

const submenu = (item: MenuItemConstructorOptions | undefined) => (item?.submenu ?? []) as MenuItemConstructorOptions[];
const named = (items: MenuItemConstructorOptions[], label: string) => items.find((i) => i.label === label);
const click = (item: MenuItemConstructorOptions | undefined) => (item!.click as () => void)();

describe('application menu', () => {
  it('File offers templates, Open, Open Recent, Save, Save As and Quit with their shortcuts', () => {
    const h = handlers();
    const file = submenu(named(buildMenuTemplate({ templates, recent: [], platform: 'linux' }, h), 'File'));
    expect(file.map((i) => i.label ?? i.type)).toEqual([
      'New from Template',
      'Open…',
      'Open Recent',
      'Save',
      'Save As…',
      'separator',
      'Quit',
    ]);
    expect(named(file, 'Open…')!.accelerator).toBe('CmdOrCtrl+O');
    expect(named(file, 'Save')!.accelerator).toBe('CmdOrCtrl+S');
    expect(named(file, 'Save As…')!.accelerator).toBe('CmdOrCtrl+Shift+S');
    expect(named(file, 'Quit')!.role).toBe('quit');
    click(named(file, 'Save'));
    click(named(file, 'Save As…'));
    click(named(file, 'Open…'));
    expect(h.editorAction).toHaveBeenNthCalledWith(1, 'save');
    expect(h.editorAction).toHaveBeenNthCalledWith(2, 'save-as');
    expect(h.open).toHaveBeenCalledOnce();
  });

  it('New from Template has one item per template, each sending its id', () => {
    const h = handlers();
    const file = submenu(named(buildMenuTemplate({ templates, recent: [], platform: 'linux' }, h), 'File'));
    const items = submenu(named(file, 'New from Template'));
    expect(items.map((i) => i.label)).toEqual(['All-in-one collectives', 'Overlap on/off']);
    click(items[1]);
    expect(h.editorAction).toHaveBeenCalledWith('new-from-template', 'overlap.scenario.json');
  });

  it('Open Recent lists the recent files and can be cleared; Clear is disabled when empty', () => {
    const h = handlers();
    const recentOf = (recent: string[]) =>
      submenu(named(submenu(named(buildMenuTemplate({ templates, recent, platform: 'linux' }, h), 'File')), 'Open Recent'));
    const full = recentOf(['/a.scenario.json', '/b.run.json']);
    expect(full.map((i) => i.label ?? i.type)).toEqual(['/a.scenario.json', '/b.run.json', 'separator', 'Clear Recent']);
    click(full[1]);
    expect(h.openRecent).toHaveBeenCalledWith('/b.run.json');
    click(named(full, 'Clear Recent'));
    expect(h.clearRecent).toHaveBeenCalledOnce();
    expect(named(full, 'Clear Recent')!.enabled).toBe(true);
    expect(named(recentOf([]), 'Clear Recent')!.enabled).toBe(false);
  });

  it('Run runs with CmdOrCtrl+Enter and stops', () => {
    const h = handlers();
    const run = submenu(named(buildMenuTemplate({ templates, recent: [], platform: 'linux' }, h), 'Run'));
    expect(named(run, 'Run')!.accelerator).toBe('CmdOrCtrl+Enter');
    click(named(run, 'Run'));
    click(named(run, 'Stop'));
    expect(h.editorAction).toHaveBeenNthCalledWith(1, 'run');
    expect(h.editorAction).toHaveBeenNthCalledWith(2, 'stop');
  });

  it('has the usual Edit, View and Window menus, and the app menu on macOS', () => {
    const roles = (platform: NodeJS.Platform) =>
      buildMenuTemplate({ templates, recent: [], platform }, handlers()).map((m) => m.role ?? m.label);
    expect(roles('linux')).toEqual(['File', 'editMenu', 'Run', 'viewMenu', 'windowMenu']);
    expect(roles('darwin')).toEqual(['appMenu', 'File', 'editMenu', 'Run', 'viewMenu', 'windowMenu']);
    const macFile = submenu(buildMenuTemplate({ templates, recent: [], platform: 'darwin' }, handlers())[1]);
    expect(macFile.at(-1)!.role).toBe('close');
  });
});
