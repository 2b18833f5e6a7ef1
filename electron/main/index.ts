// The desktop shell's main process: one window, settings via electron-store, and IPC to the engine's service.
// The renderer is sandboxed (contextIsolation, sandbox, no nodeIntegration); every IPC call is checked for its
// sender and validated by the service before it runs. Jobs compute in worker processes, never here.
import { app, BrowserWindow, dialog, ipcMain, shell, type IpcMainInvokeEvent } from 'electron';
import Store from 'electron-store';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runsDirOf, Service, SETTINGS_FILE, settingsStore } from '../../engine/api';

const rendererUrl = process.env.ELECTRON_RENDERER_URL; // electron-vite dev server, in development only
const rendererFile = join(__dirname, '../renderer/index.html');
let win: BrowserWindow | null = null;

// Only our own page may call the backend.
function trusted(e: IpcMainInvokeEvent): boolean {
  const url = e.senderFrame?.url ?? '';
  const ours = rendererUrl ? url.startsWith(rendererUrl) : url.startsWith(pathToFileURL(rendererFile).href);
  return ours && e.sender === win?.webContents;
}

async function main(): Promise<void> {
  await app.whenReady();
  const userData = app.getPath('userData');
  const settings = settingsStore(new Store<Record<string, unknown>>({ name: SETTINGS_FILE, cwd: userData }));
  // Jobs run in the bundled worker.js, started by Electron's own binary as plain Node (engine/worker).
  const service = new Service({ runsDir: runsDirOf(settings.get(), userData), userData, settings, transport: 'ipc' });

  ipcMain.handle('prh:call', (e, method: unknown, params: unknown) => {
    if (!trusted(e)) throw new Error('untrusted sender');
    if (typeof method !== 'string') throw new Error('bad call');
    return service.dispatch(method, params);
  });
  // The dataset picker's "Browse…": the system's folder dialog, over our window; null when cancelled.
  ipcMain.handle('prh:pick-folder', async (e) => {
    if (!trusted(e) || !win) throw new Error('untrusted sender');
    const r = await dialog.showOpenDialog(win, { title: 'Choose a dataset folder', properties: ['openDirectory'] });
    return r.canceled ? null : (r.filePaths[0] ?? null);
  });
  service.subscribe((event) => win?.webContents.send('prh:event', event));

  win = new BrowserWindow({
    width: 1440,
    height: 960,
    title: 'prh-workbench',
    show: false,
    webPreferences: {
      preload: join(__dirname, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  });
  win.once('ready-to-show', () => win?.show());
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (/^https:\/\//.test(url)) void shell.openExternal(url); // links open in the user's browser, never in-app
    return { action: 'deny' };
  });
  win.webContents.on('will-navigate', (e, url) => {
    if (!(rendererUrl ? url.startsWith(rendererUrl) : url.startsWith('file://'))) e.preventDefault();
  });
  if (rendererUrl) await win.loadURL(rendererUrl);
  else await win.loadFile(rendererFile);

  app.on('window-all-closed', async () => {
    await service.close(); // cancels running jobs gracefully; they resume later
    app.quit();
  });
}

void main();
