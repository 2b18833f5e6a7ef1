// The renderer's one way to the backend: Electron IPC through the preload bridge when it exists, else the
// WebSocket of `prh serve` (same origin; the token cookie authenticates the upgrade). The WebSocket reconnects by
// itself with backoff; calls made while it is down wait for it, and state is fetched again once it is back.
import type { ApiInput, ApiMethod, ApiResults, Backend, WsReply } from '../../shared/api';
import type { RunEvent } from '../../shared/runs';
import { backoffMs, connection, notifyReconnected } from './connection';

declare global {
  interface Window {
    prh?: Backend;
  }
}

// Why a connection failed: the server is down (fetch fails), or it is up but this tab's cookie no longer opens it.
async function probe(): Promise<'offline' | 'signed-out' | 'up'> {
  try {
    const r = await fetch('/', { method: 'HEAD', cache: 'no-store', credentials: 'same-origin' });
    return r.status === 401 ? 'signed-out' : 'up';
  } catch {
    return 'offline';
  }
}

function wsBackend(): Backend {
  const listeners = new Set<(e: RunEvent) => void>();
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let socket: WebSocket | null = null;
  let waiting: { promise: Promise<WebSocket>; resolve: (ws: WebSocket) => void } | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let everConnected = false;
  let trying = false; // a socket is being opened

  const ready = (): Promise<WebSocket> => {
    if (socket?.readyState === WebSocket.OPEN) return Promise.resolve(socket);
    if (!waiting) {
      let resolve!: (ws: WebSocket) => void;
      waiting = { promise: new Promise((r) => (resolve = r)), resolve };
    }
    return waiting.promise;
  };

  function connect(): void {
    clearTimeout(timer);
    trying = true;
    connection.retryAt = null;
    const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api`);
    ws.onopen = () => {
      trying = false;
      socket = ws;
      const back = everConnected;
      everConnected = true;
      Object.assign(connection, { state: 'connected', attempt: 0, lostAt: null });
      waiting?.resolve(ws);
      waiting = null;
      if (back) {
        connection.reconnects++;
        notifyReconnected();
      }
    };
    ws.onclose = async () => {
      trying = false;
      if (socket === ws) socket = null;
      pending.forEach((p) => p.reject(new Error('the connection to the workbench server was lost; reconnecting')));
      pending.clear();
      connection.lostAt ??= Date.now();
      const why = await probe();
      if (trying || socket) return; // "Retry now" already started the next attempt
      connection.state = why === 'signed-out' ? 'signed-out' : 'offline';
      // Signed out: keep trying slowly, in case the page that asks for the token is used in another tab.
      const wait = why === 'signed-out' ? 10_000 : backoffMs(connection.attempt);
      connection.attempt++;
      connection.retryAt = Date.now() + wait;
      timer = setTimeout(connect, wait);
    };
    ws.onmessage = (m) => {
      const msg = JSON.parse(String(m.data)) as WsReply;
      if ('event' in msg) return listeners.forEach((l) => l(msg.event));
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      if ('error' in msg) p?.reject(new Error(msg.error));
      else p?.resolve(msg.result);
    };
  }
  connect();
  retryNow = () => {
    if (!trying && connection.state !== 'connected') connect();
  };

  return {
    async call<M extends ApiMethod>(method: M, params: ApiInput<M>): Promise<ApiResults[M]> {
      const ws = await ready();
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        ws.send(JSON.stringify({ id, method, params }));
      });
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

// "Retry now" in the banner: the next attempt starts at once.
export let retryNow: () => void = () => undefined;

function ipcBackend(bridge: Backend): Backend {
  connection.state = 'connected';
  return bridge;
}

export const backend: Backend = window.prh ? ipcBackend(window.prh) : wsBackend();
