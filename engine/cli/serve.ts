// `prh serve`: the built renderer over HTTP plus the API over WebSocket, on 127.0.0.1 only, behind a random
// token. The token arrives once in the printed URL, is swapped for an HttpOnly SameSite=Strict cookie, and
// every later request (files and the WebSocket upgrade) must carry it; WebSocket origins must be this server.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { WsRequest, type WsReply } from '../../shared/api';
import type { Service } from '../api';

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.ico': 'image/x-icon',
};
export const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

export type ServeOptions = { service: Service; rendererDir: string; host?: string; port?: number; token?: string };
export type Serving = { server: Server; url: string; port: number; token: string; close(): Promise<void> };

export async function serve(opts: ServeOptions): Promise<Serving> {
  const host = opts.host ?? '127.0.0.1';
  const token = opts.token ?? randomBytes(24).toString('hex');
  if (!existsSync(join(opts.rendererDir, 'index.html')))
    throw new Error(`no built renderer in ${opts.rendererDir}: run \`npm run build\` first`);
  let port = 0;
  const cookieName = () => `prh_token_${port}`;
  const sameToken = (given: string | null | undefined) =>
    !!given && given.length === token.length && timingSafeEqual(Buffer.from(given), Buffer.from(token));
  const cookieToken = (req: IncomingMessage) =>
    (req.headers.cookie ?? '')
      .split(';')
      .map((c) => c.trim().split('='))
      .find(([k]) => k === cookieName())?.[1];
  const allowedOrigins = () => [`http://${host}:${port}`, `http://localhost:${port}`, `http://127.0.0.1:${port}`];

  const server = createServer((req, res) => {
    try {
      answer(req, res);
    } catch (err) {
      // One request never takes the server (and the jobs it runs) down.
      if (!res.headersSent) deny(res, 500, `internal error: ${err instanceof Error ? err.message : String(err)}`);
      else res.destroy();
    }
  });
  const answer = (req: IncomingMessage, res: ServerResponse) => {
    const url = requestUrl(req, host);
    if (!url) return deny(res, 400, 'bad request target');
    const given = url.searchParams
      .get('token')
      ?.trim()
      .replace(/^.*[?&]token=/, ''); // the token, or the whole printed URL pasted
    if (sameToken(given)) {
      // First visit: trade the URL token for a cookie, then drop it from the address bar.
      res.writeHead(302, {
        'Set-Cookie': `${cookieName()}=${token}; HttpOnly; SameSite=Strict; Path=/`,
        Location: url.pathname,
      });
      return res.end();
    }
    if (!sameToken(cookieToken(req))) return signIn(res, given !== undefined);
    if (req.method !== 'GET' && req.method !== 'HEAD') return deny(res, 405, 'method not allowed');
    sendFile(res, opts.rendererDir, url.pathname);
  };

  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 * 1024 });
  server.on('upgrade', (req, socket, head) => {
    socket.on('error', () => socket.destroy()); // a peer that resets mid-handshake
    const url = requestUrl(req, host);
    if (!url) {
      socket.write('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
      return socket.destroy();
    }
    const origin = req.headers.origin;
    const authed = sameToken(cookieToken(req)) || sameToken(url.searchParams.get('token'));
    if (url.pathname !== '/api' || !authed || (origin !== undefined && !allowedOrigins().includes(origin))) {
      socket.write('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
      return socket.destroy();
    }
    wss.handleUpgrade(req, socket, head, (ws) => connect(ws, opts.service));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  port = (server.address() as { port: number }).port;
  return {
    server,
    port,
    token,
    url: `http://${host}:${port}/?token=${token}`,
    close: () =>
      new Promise((resolve) => {
        wss.clients.forEach((c) => c.terminate());
        server.close(() => resolve());
      }),
  };
}

// The request target as a URL, or null when it is none (`GET http://[::1`): a 400, never a throw.
function requestUrl(req: IncomingMessage, host: string): URL | null {
  try {
    return new URL(req.url ?? '/', `http://${host}`);
  } catch {
    return null;
  }
}

function connect(ws: WebSocket, service: Service): void {
  // A protocol error (an unmasked frame: 1002, a frame over maxPayload: 1009): ws has already sent the close
  // frame with its code and closes the socket; without a listener the 'error' event would throw and end the process.
  ws.on('error', () => undefined);
  const send = (m: WsReply) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(m));
  const unsubscribe = service.subscribe((event) => send({ event }));
  ws.on('close', unsubscribe);
  ws.on('message', async (data) => {
    let req: WsRequest;
    try {
      req = WsRequest.parse(JSON.parse(String(data)));
    } catch {
      return ws.close(1003, 'malformed request');
    }
    try {
      send({ id: req.id, result: await service.dispatch(req.method, req.params) });
    } catch (err) {
      send({ id: req.id, error: err instanceof Error ? err.message : String(err) });
    }
  });
}

function sendFile(res: ServerResponse, root: string, pathname: string): void {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return deny(res, 400, 'bad percent-encoding in the path');
  }
  const rel = normalize(decoded).replace(/^([/\\])+/, '');
  const real = realpathSync(root); // the UI folder itself may be reached through a link
  let file = join(real, rel);
  if (!file.startsWith(real + sep) && file !== real) return deny(res, 403, 'forbidden');
  if (!existsSync(file) || statSync(file).isDirectory()) file = join(real, 'index.html'); // single-page app
  // Only regular files whose real path is inside the UI folder: a symlink there never leads out of it.
  const target = realpathSync(file);
  if (!target.startsWith(real + sep) || !statSync(target).isFile()) return deny(res, 404, 'not found');
  const headers: Record<string, string> = {
    'Content-Type': MIME[extname(file)] ?? 'application/octet-stream',
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
  };
  if (file.endsWith('.html'))
    Object.assign(headers, {
      'Content-Security-Policy': CSP,
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'no-referrer',
    });
  res.writeHead(200, headers);
  res.end(readFileSync(target));
}

// Without a valid cookie (a new browser, or a server started with --new-token): a page that asks for the token.
const SIGN_IN_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
function signIn(res: ServerResponse, wrong: boolean): void {
  res.writeHead(401, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': SIGN_IN_CSP,
    'X-Frame-Options': 'DENY',
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
  });
  res.end(`<!doctype html><html lang="en"><meta charset="utf-8"><title>prh-workbench: sign in</title>
<style>body{font:15px system-ui,sans-serif;max-width:560px;margin:12vh auto;padding:0 20px;color:#1b1f24}input{font:inherit;width:100%;padding:6px 8px;margin:8px 0}button{font:inherit;padding:6px 14px}.e{color:#cf222e}</style>
<h1>This workbench needs its token</h1>
<p>Open the URL that <code>prh serve</code> printed, or paste it (or just its token) here. The token stays the same for this runs folder when the server restarts.</p>
${wrong ? '<p class="e" role="alert">That token does not open this workbench.</p>' : ''}
<form method="get" action="/"><label for="token">Token or URL</label><input id="token" name="token" autocomplete="off" autofocus spellcheck="false"><button type="submit">Open</button></form></html>\n`);
}

function deny(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(text + '\n');
}
