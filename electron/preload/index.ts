// The only bridge between the sandboxed renderer and the main process: a typed `window.prh` with three verbs.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { Backend } from '../../shared/api';
import type { RunEvent } from '../../shared/runs';

const prh: Backend = {
  call: (method, params) => ipcRenderer.invoke('prh:call', method, params),
  pickFolder: () => ipcRenderer.invoke('prh:pick-folder'),
  onEvent(listener) {
    const handler = (_e: IpcRendererEvent, event: RunEvent) => listener(event);
    ipcRenderer.on('prh:event', handler);
    return () => ipcRenderer.off('prh:event', handler);
  },
};

contextBridge.exposeInMainWorld('prh', prh);
