// The renderer's one way to the backend: Electron IPC through the preload bridge when it exists,
// else the WebSocket of `prh serve` (same origin; the token cookie authenticates the upgrade).
import type { ApiInput, ApiMethod, ApiResults, Backend, WsReply } from '../../shared/api';
import type { RunEvent } from '../../shared/runs';

declare global {
  interface Window { prh?: Backend }
}

function wsBackend(): Backend {
  const listeners = new Set<(e: RunEvent) => void>();
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let socket: Promise<WebSocket> | null = null;

  const open = (): Promise<WebSocket> => {
    socket ??= new Promise((resolve, reject) => {
      const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api`);
      ws.onopen = () => resolve(ws);
      ws.onerror = () => reject(new Error('cannot reach the workbench server (is `prh serve` still running?)'));
      ws.onclose = () => {
        socket = null;
        pending.forEach((p) => p.reject(new Error('connection to the workbench server closed')));
        pending.clear();
      };
      ws.onmessage = (m) => {
        const msg = JSON.parse(String(m.data)) as WsReply;
        if ('event' in msg) return listeners.forEach((l) => l(msg.event));
        const p = pending.get(msg.id);
        pending.delete(msg.id);
        if ('error' in msg) p?.reject(new Error(msg.error));
        else p?.resolve(msg.result);
      };
    });
    return socket;
  };

  return {
    async call<M extends ApiMethod>(method: M, params: ApiInput<M>): Promise<ApiResults[M]> {
      const ws = await open();
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        ws.send(JSON.stringify({ id, method, params }));
      });
    },
    onEvent(listener) {
      listeners.add(listener);
      void open().catch(() => undefined); // events flow once connected
      return () => listeners.delete(listener);
    },
  };
}

export const backend: Backend = window.prh ?? wsBackend();
