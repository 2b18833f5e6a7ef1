// One bad request or frame must not take `prh serve` (and every job it runs) down: each gets a 400 or a close
// with a code, and the server answers the next good call. Then a seeded fuzz of every API method.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { connect as tcp, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ApiParams } from '../../shared/api';
import { RandomStream } from '../../engine/random';
import { RunStore } from '../../engine/runs';
import { RunConfig } from '../../shared/runs';

// The server runs in its own process, as `prh serve` does: a crash there is a dead server here. A test that
// kills it leaves the next one a fresh server, so each case stands on its own.
let server: ChildProcess;
let s: { port: number; token: string };
let stderr = '';
const home = mkdtempSync(join(tmpdir(), 'prh-faults-serve-'));
// One finished run in the server's runs folder, for the methods that take a run id.
const runStore = new RunStore(join(home, 'runs'));
const runId = runStore.create(
  RunConfig.parse({
    kind: 'theory.prop3',
    version: 1,
    params: { worlds: 2, states: 6, k: 2, m: 3, grid: 5, seed: 1, worldKind: 'uniform' },
  }),
).id;
runStore.update(runId, { status: 'done', result: {} });

async function start(): Promise<void> {
  stderr = '';
  server = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'serve-child.ts'), home], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stderr!.on('data', (d) => (stderr += d));
  s = await new Promise((resolve, reject) => {
    createInterface({ input: server.stdout! }).once('line', (l) => resolve(JSON.parse(l)));
    server.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
}
const listening = (): Promise<boolean> =>
  new Promise((resolve) => {
    const c = tcp(s.port, '127.0.0.1', () => {
      c.destroy();
      resolve(true);
    });
    c.on('error', () => resolve(false));
  });
beforeEach(async () => {
  if (server && !(await listening())) server.kill('SIGKILL');
  if (!server || !(await listening())) await start();
});
afterAll(() => {
  server?.kill('SIGKILL');
});

const cookie = () => `prh_token_${s.port}=${s.token}`;

// A raw HTTP exchange: what the server answers to bytes no well-behaved client sends.
const raw = (
  bytes: string | Buffer,
  until = (got: Buffer) => got.includes('\r\n\r\n'),
): Promise<{ text: string; socket: Socket }> =>
  new Promise((resolve, reject) => {
    const socket = tcp(s.port, '127.0.0.1');
    let got = Buffer.alloc(0);
    socket.on('data', (d) => {
      got = Buffer.concat([got, d]);
      if (until(got)) resolve({ text: got.toString('latin1'), socket });
    });
    socket.on('end', () => resolve({ text: got.toString('latin1'), socket }));
    socket.on('error', reject);
    socket.write(bytes);
  });

const openWs = (): Promise<WebSocket> =>
  new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${s.port}/api`, {
      headers: { Cookie: cookie() },
      maxPayload: 256 * 1024 * 1024,
    });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });

let nextId = 1;
const call = (ws: WebSocket, method: string, params: unknown): Promise<{ result?: unknown; error?: string }> =>
  new Promise((resolve, reject) => {
    const id = nextId++;
    const onMessage = (d: unknown) => {
      const m = JSON.parse(String(d));
      if (m.id !== id) return;
      ws.off('message', onMessage);
      ws.off('close', onClose);
      resolve(m);
    };
    const onClose = (code: number) => reject(new Error(`closed (${code}) during ${method}`));
    ws.on('message', onMessage);
    ws.once('close', onClose);
    ws.send(JSON.stringify({ id, method, params }));
  });

// The server is alive: a fresh connection answers a valid call.
async function alive(): Promise<void> {
  expect(server.exitCode, stderr).toBeNull();
  const ws = await openWs();
  const v = await call(ws, 'version', {});
  expect(v.error).toBeUndefined();
  ws.close();
}

// A handshake by hand, then one frame as given (a client must mask; a header may claim any length).
async function rawWsFrame(frame: Buffer): Promise<number> {
  const key = Buffer.from('0123456789abcdef').toString('base64');
  const { text, socket } = await raw(
    `GET /api HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\nCookie: ${cookie()}\r\n\r\n`,
  );
  expect(text).toMatch(/^HTTP\/1.1 101/);
  return new Promise((resolve) => {
    let got = Buffer.alloc(0);
    socket.on('data', (d) => {
      got = Buffer.concat([got, d]);
      // A server close frame: 0x88, length, 2-byte code.
      const at = got.indexOf(0x88);
      if (at >= 0 && got.length >= at + 4) resolve(got.readUInt16BE(at + 2));
    });
    socket.on('close', () => resolve(-1));
    socket.write(frame);
  });
}

describe('prh serve survives hostile requests and frames', () => {
  it('answers 400 to an unauthenticated request whose target is not a URL', async () => {
    const { text } = await raw('GET http://[::1 HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1.1 400/);
    await alive();
  });

  it('answers 400 to an upgrade whose target is not a URL', async () => {
    const { text } = await raw(
      'GET http://[::1 HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: AAAAAAAAAAAAAAAAAAAAAA==\r\nSec-WebSocket-Version: 13\r\n\r\n',
    );
    expect(text).toMatch(/^HTTP\/1.1 400/);
    await alive();
  });

  it('answers 400 to an authenticated path that is not valid percent-encoding', async () => {
    const { text } = await raw(`GET /%E0%A4%A HTTP/1.1\r\nHost: x\r\nCookie: ${cookie()}\r\n\r\n`);
    expect(text).toMatch(/^HTTP\/1.1 400/);
    await alive();
  });

  it('closes with 1002 on an unmasked frame', async () => {
    expect(await rawWsFrame(Buffer.from([0x81, 0x02, 0x68, 0x69]))).toBe(1002);
    await alive();
  });

  it('closes with 1009 on a frame over the size limit (65 MB announced)', async () => {
    const header = Buffer.alloc(14);
    header[0] = 0x82; // final binary frame
    header[1] = 0x80 | 127; // masked, 64-bit length follows
    header.writeBigUInt64BE(65n * 1024n * 1024n, 2);
    expect(await rawWsFrame(header)).toBe(1009);
    await alive();
  });

  it('closes with 1003 on a message that is not a request, and stays up', async () => {
    const ws = await openWs();
    const code = await new Promise<number>((resolve) => {
      ws.once('close', (c) => resolve(c));
      ws.send('{"id": "x"');
    });
    expect(code).toBe(1003);
    await alive();
  });
});

// --- fuzz -------------------------------------------------------------------------------------------------

// Random JSON, biased towards what breaks parsers and paths: huge and negative numbers, odd strings, deep nesting.
function randomValue(r: RandomStream, depth = 0): unknown {
  const strings = [
    '',
    ' ',
    '..',
    '../../etc/passwd',
    '/etc/passwd',
    '%E0%A4%A',
    '\u0000',
    'a'.repeat(5000),
    '__proto__',
    'constructor',
    'test',
    'train',
    '💥',
    'theory.prop3',
    'NaN',
  ];
  switch (r.int(0, depth > 2 ? 4 : 6)) {
    case 0:
      return null;
    case 1:
      return r.pick([0, -1, 1, 3, 1e308, -1e308, 2 ** 53, 0.5, 1e-300, 4096, 65536]);
    case 2:
      return r.chance(0.5)
        ? r.pick(strings)
        : String.fromCharCode(...Array.from({ length: r.int(0, 12) }, () => r.int(0, 0xffff)));
    case 3:
      return r.chance(0.5);
    case 4:
      return r.int(-1000, 1000);
    case 5:
      return Array.from({ length: r.int(0, 4) }, () => randomValue(r, depth + 1));
    default:
      return Object.fromEntries(
        Array.from({ length: r.int(0, 4) }, () => [
          r.pick(['id', 'path', 'config', 'kind', 'x', 'spec', '__proto__', 'seed', 'n']),
          randomValue(r, depth + 1),
        ]),
      );
  }
}

// Values of the right type for a known key, so calls get past validation into the methods: paths outside every
// allowed folder, the one stored run, run ids that do not exist, and so on.
const plausible = (key: string): unknown[] | undefined =>
  (
    ({
      id: [runId, 'nope', 'a'.repeat(128)],
      runId: [runId, 'nope'],
      path: ['/etc/passwd', '/', '/etc', home, join(home, 'runs'), join(home, 'runs', runId), '/proc/self/environ'],
      photo: ['x', ''],
      seed: [0, 1, 2 ** 31],
      format: ['png', 'svg', 'pdf', 'csv', 'latex', 'md'],
      pool: ['test', '/etc/passwd', join(home, 'runs', runId, 'config.json')],
      images: [[{ name: 'a.png', base64: 'AAAA' }], [{ name: '../x', base64: '' }]],
      topK: [1, 5],
      checkpoints: [true, false],
      table: [{ id: 't', columns: [], rows: [] }, { id: 't', columns: ['a'], rows: [['x', 'y']] }, 'x'],
      annotation: [{ tags: ['x'], note: 'n' }, { archived: true }, { tags: ['', 'x'.repeat(50)] }],
      from: [0, 5, 1e9],
      count: [1, 64],
      split: ['train', 'test'],
      query: ['', 'a'],
    }) as Record<string, unknown[]>
  )[key];

// Params for a method: its own keys, mostly with plausible values (so calls reach the methods), sometimes random
// ones; now and then anything at all.
function randomParams(r: RandomStream, method: keyof typeof ApiParams): unknown {
  if (r.chance(0.1)) return randomValue(r);
  const schema = ApiParams[method] as unknown as { shape?: Record<string, unknown> };
  const keys = Object.keys(schema.shape ?? {});
  return Object.fromEntries(
    keys
      .filter(() => r.chance(0.8))
      .map((k) => {
        const p = plausible(k);
        return [k, p && r.chance(0.75) ? r.pick(p) : randomValue(r)];
      }),
  );
}

// Raw zod output: a JSON array of issue objects ('[{"code": ...').
const RAW_ZOD = /\[\s*\{\s*"(code|expected|origin|path|message)"/;
// Starting jobs and deleting the one run are left to their own tests (a random valid config could start heavy work).
const SKIP = new Set(['startRun', 'deleteRun']);

describe('prh serve: a seeded fuzz of every API method', () => {
  it('answers >= 1,000 random calls with a result or a readable error, and stays up after every batch', async () => {
    const r = new RandomStream(xoroshiro128plus(20261201));
    const methods = (Object.keys(ApiParams) as (keyof typeof ApiParams)[]).filter((m) => !SKIP.has(m));
    const perMethod = Math.ceil(1000 / methods.length);
    let calls = 0;
    const bad: string[] = [];
    for (const method of methods) {
      const ws = await openWs();
      for (let i = 0; i < perMethod; i++) {
        const params = randomParams(r, method);
        const reply = await call(ws, method, params);
        calls++;
        if (process.env.PRH_FUZZ_LOG && reply.error) console.log(method, '→', reply.error.slice(0, 160));
        if (reply.error !== undefined && (RAW_ZOD.test(reply.error) || reply.error.length > 2000))
          bad.push(`${method}(${JSON.stringify(params).slice(0, 120)}): ${reply.error.slice(0, 200)}`);
      }
      ws.close();
      await alive();
    }
    expect(calls).toBeGreaterThanOrEqual(1000);
    expect(bad).toEqual([]);
  });

  it('closes with 1003 on 200 random messages that are not requests, and stays up', async () => {
    const r = new RandomStream(xoroshiro128plus(7));
    const codes = new Map<number, number>();
    for (let i = 0; i < 200; i++) {
      const bytes = Buffer.from(Array.from({ length: r.int(0, 64) }, () => r.int(0, 255)));
      const text = r.pick([
        '',
        'null',
        '[]',
        '{}',
        '{"id":1}',
        '{"id":1.5,"method":"version"}',
        '{"method":"version"}',
        '"x"',
        '1e999',
      ]);
      const ws = await openWs();
      const code = await new Promise<number>((resolve) => {
        ws.once('close', (c) => resolve(c));
        ws.send(r.chance(0.5) ? bytes : text);
      });
      codes.set(code, (codes.get(code) ?? 0) + 1);
    }
    expect([...codes.keys()]).toEqual([1003]);
    await alive();
  });
});
