// The Electron main process with `electron` mocked (its binary cannot run here): the window is locked down,
// IPC answers only our own page, and calls go through the validated service.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it, vi } from 'vitest';

const home = mkdtempSync(join(tmpdir(), 'prh-electron-'));
const h = vi.hoisted(() => ({
  handlers: new Map<string, (...a: unknown[]) => unknown>(),
  windows: [] as { opts: Record<string, unknown>; webContents: Record<string, unknown>; loaded?: string }[],
}));

vi.mock('electron', () => {
  class BrowserWindow {
    opts: Record<string, unknown>;
    webContents: Record<string, unknown>;
    loaded?: string;
    constructor(opts: Record<string, unknown>) {
      this.opts = opts;
      this.webContents = { send: vi.fn(), setWindowOpenHandler: vi.fn(), on: vi.fn() };
      h.windows.push(this);
    }
    once() {}
    show() {}
    async loadFile(f: string) {
      this.loaded = f;
    }
    async loadURL(u: string) {
      this.loaded = u;
    }
  }
  const app = {
    whenReady: async () => undefined,
    getPath: () => home,
    getVersion: () => '0.1.0',
    on: vi.fn(),
    quit: vi.fn(),
  };
  const ipcMain = { handle: (ch: string, fn: (...a: unknown[]) => unknown) => h.handlers.set(ch, fn), on: vi.fn() };
  const dialog = { showOpenDialog: vi.fn(async () => ({ canceled: false, filePaths: ['/data/flickr30k'] })) };
  const electron = { app, BrowserWindow, ipcMain, dialog, shell: { openExternal: vi.fn() } };
  return { ...electron, default: electron };
});

beforeAll(async () => {
  await import('../../electron/main/index');
  await vi.waitFor(() => expect(h.windows[0]?.loaded).toBeDefined());
});

describe('electron main', () => {
  it('opens a sandboxed, context-isolated window without Node in the renderer', () => {
    const prefs = h.windows[0].opts.webPreferences as Record<string, unknown>;
    expect(prefs).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true });
    expect(String(prefs.preload)).toMatch(/preload[\\/]index\.cjs$/);
    expect(h.windows[0].webContents.setWindowOpenHandler).toHaveBeenCalled();
  });

  it('answers IPC from its own page only, and validates what it is asked', async () => {
    const call = h.handlers.get('prh:call')!;
    const win = h.windows[0];
    const ours = { sender: win.webContents, senderFrame: { url: pathToFileURL(String(win.loaded)).href } };
    expect(await call(ours, 'listRuns', {})).toEqual([]);
    expect(() => call({ ...ours, senderFrame: { url: 'https://evil.example/' } }, 'listRuns', {})).toThrow(/untrusted/);
    expect(() => call({ ...ours, sender: {} }, 'listRuns', {})).toThrow(/untrusted/);
    await expect(call(ours, 'startRun', { config: { kind: 'rm', version: 1 } })).rejects.toThrow();
    await expect(call(ours, 'getRun', { id: '../x' })).rejects.toThrow();
    const settings = await call(ours, 'setSettings', { theme: 'dark' });
    expect(settings).toMatchObject({ theme: 'dark' });
    // saving another field keeps the theme (a patch fills no defaults)
    expect(await call(ours, 'setSettings', { threads: 1 })).toMatchObject({ theme: 'dark', threads: 1 });
  });

  it('opens the folder dialog for its own page only', async () => {
    const pick = h.handlers.get('prh:pick-folder')!;
    const win = h.windows[0];
    const ours = { sender: win.webContents, senderFrame: { url: pathToFileURL(String(win.loaded)).href } };
    expect(await pick(ours)).toBe('/data/flickr30k');
    await expect(pick({ ...ours, senderFrame: { url: 'https://evil.example/' } })).rejects.toThrow(/untrusted/);
  });
});
