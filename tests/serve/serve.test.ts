import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { Service } from '../../engine/api';
import { serve, type Serving } from '../../engine/cli/serve';

let s: Serving;
let service: Service;
const secret = join(mkdtempSync(join(tmpdir(), 'prh-secret-')), 'secret.txt');

beforeAll(async () => {
  const home = mkdtempSync(join(tmpdir(), 'prh-serve-'));
  const renderer = join(home, 'renderer');
  mkdirSync(join(renderer, 'assets'), { recursive: true });
  writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>ok</title>');
  writeFileSync(join(renderer, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(secret, 'do not serve me');
  let settings = { theme: 'system' as const };
  service = new Service({
    runsDir: join(home, 'runs'),
    userData: home,
    transport: 'ws',
    settings: { get: () => settings, set: (p) => (settings = { ...settings, ...p } as typeof settings) },
  });
  s = await serve({ service, rendererDir: renderer });
});
afterAll(async () => {
  await s.close();
  await service.close();
});

type Res = { status: number; headers: Record<string, string | string[] | undefined>; body: string };
const get = (path: string, headers: Record<string, string> = {}): Promise<Res> =>
  new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port: s.port, path, headers }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    })
      .on('error', reject)
      .end();
  });
const cookie = () => `prh_token_${s.port}=${s.token}`;
const connect = (headers: Record<string, string>, query = ''): Promise<WebSocket> =>
  new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${s.port}/api${query}`, { headers });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
const call = (ws: WebSocket, method: string, params: unknown) =>
  new Promise<Record<string, unknown>>((resolve) => {
    ws.on('message', (d) => {
      const m = JSON.parse(String(d));
      if (m.id === 7) resolve(m);
    });
    ws.send(JSON.stringify({ id: 7, method, params }));
  });

describe('prh serve transport', () => {
  it('binds 127.0.0.1 and prints a URL carrying a long random token', () => {
    expect((s.server.address() as { address: string }).address).toBe('127.0.0.1');
    expect(s.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${s.port}/\\?token=[0-9a-f]{48}$`));
  });

  it('refuses pages without the token, and with a wrong one', async () => {
    expect((await get('/')).status).toBe(401);
    expect((await get('/?token=' + 'f'.repeat(48))).status).toBe(401);
    expect((await get('/', { Cookie: `prh_token_${s.port}=nope` })).status).toBe(401);
  });

  it('trades the URL token for an HttpOnly SameSite=Strict cookie, then serves with a strict CSP', async () => {
    const first = await get(`/?token=${s.token}`);
    expect(first.status).toBe(302);
    expect(first.headers.location).toBe('/');
    expect(String(first.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Strict/);
    const page = await get('/', { Cookie: cookie() });
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self'/);
    expect((await get('/assets/app.js', { Cookie: cookie() })).headers['content-type']).toMatch(/javascript/);
  });

  it('never serves files outside the renderer folder', async () => {
    for (const p of ['/../secret.txt', '/%2e%2e/%2e%2e/secret.txt', '/..%2f..%2fetc%2fpasswd']) {
      const r = await get(p, { Cookie: cookie() });
      expect(r.body).not.toContain('do not serve me');
      expect(r.body).not.toContain('root:');
    }
  });

  it('accepts the WebSocket only with the token and from its own origin', async () => {
    await expect(connect({ Origin: `http://127.0.0.1:${s.port}` })).rejects.toThrow(/403/);
    await expect(connect({ Cookie: cookie(), Origin: 'http://evil.example' })).rejects.toThrow(/403/);
    const ws = await connect({ Cookie: cookie(), Origin: `http://127.0.0.1:${s.port}` });
    const reply = await call(ws, 'listRuns', {});
    expect(reply.result).toEqual([]);
    ws.close();
  });

  it('validates every call: unknown methods and bad params are errors, not crashes', async () => {
    const ws = await connect({ Cookie: cookie(), Origin: `http://localhost:${s.port}` });
    expect((await call(ws, 'rm -rf', {})).error).toMatch(/unknown method/);
    const ws2 = await connect({ Cookie: cookie() });
    expect(String((await call(ws2, 'getRun', { id: '../../etc' })).error)).toMatch(/Invalid|regex|pattern/i);
    ws.close();
    ws2.close();
  });
});
