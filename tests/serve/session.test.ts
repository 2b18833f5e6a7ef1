// The session side of `prh serve`: one token per runs folder kept across restarts (a new server on the same port
// accepts the old cookie), a page that asks for the token, the UI's builder found; and the API the run table
// and the dataset picker use: annotations, delete, the run index, the folder browser's roots, readable errors.
import { mkdirSync, mkdtempSync, statSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { Service } from '../../engine/api';
import { serve } from '../../engine/cli/serve';
import { electronViteBin, ensureRenderer, PROJECT, serveToken } from '../../engine/cli/serve-session';
import { InputError } from '../../engine/errors';
import { RunStore } from '../../engine/runs';
import { TrainConfig } from '../../shared/train';

const home = mkdtempSync(join(tmpdir(), 'prh-session-'));
const renderer = join(home, 'renderer');
mkdirSync(renderer);
writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>ok</title>');
let settings = { theme: 'system' as const, dataRoots: [] as string[] };
const service = new Service({
  runsDir: join(home, 'runs'),
  userData: home,
  transport: 'ws',
  settings: { get: () => settings, set: (p) => (settings = { ...settings, ...p } as typeof settings) },
});
afterAll(() => service.close());

const get = (
  port: number,
  path: string,
  cookie?: string,
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> =>
  new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, headers: cookie ? { Cookie: cookie } : {}, agent: false }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    })
      .on('error', reject)
      .end();
  });
const upgrade = (port: number, cookie: string) =>
  new Promise<void>((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api`, { headers: { Cookie: cookie } });
    ws.once('open', () => {
      ws.close();
      resolve();
    });
    ws.once('unexpected-response', (_q, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });

describe('a session that survives a restart', () => {
  it('keeps one private token per runs folder, and replaces it only when asked', () => {
    const runs = join(home, 'runs');
    const t = serveToken(runs);
    expect(t).toMatch(/^[0-9a-f]{48}$/);
    expect(serveToken(runs)).toBe(t);
    expect(statSync(join(runs, '.serve-token')).mode & 0o777).toBe(0o600);
    expect(service.store.ids()).toEqual([]); // not mistaken for a run
    const renewed = serveToken(runs, true);
    expect(renewed).not.toBe(t);
    expect(serveToken(runs)).toBe(renewed);
  });

  it('accepts the cookie of the previous server on the same port, and the WebSocket with it', async () => {
    const token = serveToken(service.store.root);
    const first = await serve({ service, rendererDir: renderer, token });
    const port = first.port;
    const login = await get(port, `/?token=${token}`);
    const cookie = String(login.headers['set-cookie']).split(';')[0];
    await first.close();
    const second = await serve({ service, rendererDir: renderer, port, token: serveToken(service.store.root) });
    expect((await get(port, '/', cookie)).status).toBe(200);
    await upgrade(port, cookie);
    await second.close();
  });

  it('asks for the token on a page of its own (form to itself only), and takes a pasted URL', async () => {
    const token = serveToken(service.store.root);
    const s = await serve({ service, rendererDir: renderer, token });
    const page = await get(s.port, '/');
    expect(page.status).toBe(401);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['content-security-policy']).toMatch(/default-src 'none'.*form-action 'self'/);
    expect(page.body).toMatch(/<form method="get" action="\/"><label for="token">/);
    expect((await get(s.port, '/?token=nope')).body).toMatch(/does not open this workbench/);
    const pasted = await get(s.port, `/?token=${encodeURIComponent(`http://127.0.0.1:${s.port}/?token=${token}`)}`);
    expect(pasted.status).toBe(302);
    await s.close();
  });

  it("finds this project's electron-vite (its package exports no bin path), and says which command builds the UI without it", () => {
    // The real first build from a clean clone runs in tests/readme (npx prh serve); here, the resolution it rests on.
    const bin = electronViteBin(PROJECT);
    expect(bin).toBe(join(PROJECT, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'));
    expect(existsSync(bin!)).toBe(true);
    const bare = join(home, 'installed-without-dev-dependencies');
    mkdirSync(bare);
    writeFileSync(join(bare, 'package.json'), '{"name": "prh-workbench", "type": "module"}');
    expect(electronViteBin(bare)).toBeNull();
    expect(() => ensureRenderer(bare)).toThrow(
      new RegExp(
        `no built UI in ${bare}/out/renderer, and electron-vite \\(a dev dependency\\) is not installed to build it: run \`npm install\` in ${bare} \\(with dev dependencies, not --omit=dev\\), then \`npm run build\``,
      ),
    );
  });
});

describe('the API of the run table and the dataset picker', () => {
  it('annotates, indexes and deletes a finished run, and refuses to delete a running one', async () => {
    const a = service.store.create({
      kind: 'world.generate',
      version: 1,
      out: join(home, 'w'),
      seed: 0,
      preset: 'paper-like',
    });
    service.store.update(a.id, { status: 'done' });
    expect(
      await service.dispatch('annotateRun', {
        id: a.id,
        annotation: { tags: ['baseline', 'baseline', ' x '], note: 'first' },
      }),
    ).toEqual({ tags: ['baseline', 'x'], note: 'first', archived: false });
    await service.dispatch('annotateRun', { id: a.id, annotation: { archived: true } });
    const [entry] = (await service.dispatch('runIndex', {})) as {
      id: string;
      config: { kind: string };
      annotation: unknown;
    }[];
    expect(entry).toMatchObject({
      id: a.id,
      config: { kind: 'world.generate' },
      annotation: { tags: ['baseline', 'x'], note: 'first', archived: true },
    });
    const b = service.store.create({
      kind: 'world.generate',
      version: 1,
      out: join(home, 'w2'),
      seed: 0,
      preset: 'paper-like',
    });
    service.store.update(b.id, { status: 'running' });
    await expect(service.dispatch('deleteRun', { id: b.id })).rejects.toThrow(/running: cancel it before deleting it/);
    await service.dispatch('deleteRun', { id: a.id });
    expect(existsSync(service.store.dir(a.id))).toBe(false);
  });

  it("lists an experiment's arm runs by seed, then arm in the paper's order", async () => {
    const e = service.store.create({
      kind: 'world.generate',
      version: 1,
      out: join(home, 'w3'),
      seed: 0,
      preset: 'paper-like',
    });
    const arms = new RunStore(join(service.store.dir(e.id), 'arms'));
    const made = [
      ['ntp', 1],
      ['good', 1],
      ['bad', 0],
      ['ntp', 0],
      ['bad', 1],
      ['good', 0],
    ] as const; // as random ids would list them
    for (const [arm, seed] of made)
      arms.create(
        TrainConfig.parse({ kind: 'train', version: 1, data: 'd', arm, seed, name: `${arm} (seed ${seed})` }),
      );
    const listed = (await service.dispatch('childRuns', { id: e.id })) as { name: string }[];
    expect(listed.map((r) => r.name)).toEqual([
      'good (seed 0)',
      'bad (seed 0)',
      'ntp (seed 0)',
      'good (seed 1)',
      'bad (seed 1)',
      'ntp (seed 1)',
    ]);
  });

  it('lists folders only under the allowed roots, datasets marked, and not out through a symlink', async () => {
    const data = join(home, 'data');
    mkdirSync(join(data, 'flickr', 'images'), { recursive: true });
    writeFileSync(join(data, 'flickr', 'results.csv'), 'image_name| comment_number| comment\n');
    symlinkSync('/etc', join(data, 'escape'));
    await expect(service.dispatch('browseFolder', { path: data })).rejects.toThrow(InputError);
    settings = { ...settings, dataRoots: [data] };
    const listing = (await service.dispatch('browseFolder', { path: data })) as {
      entries: { name: string; dataset: boolean }[];
      parent: string | null;
    };
    expect(listing.entries).toEqual([expect.objectContaining({ name: 'flickr', dataset: true })]);
    expect(listing.parent).toBeNull(); // a root: no way up
    await expect(service.dispatch('browseFolder', { path: join(data, 'escape') })).rejects.toThrow(
      /outside the folders/,
    );
    await expect(service.dispatch('browseFolder', { path: join(data, '..') })).rejects.toThrow(/outside the folders/);
  });

  it('answers a bad call in words, not zod JSON', async () => {
    await expect(service.dispatch('theoryExplore', { n: 10, k: 2, m: 3, rho: 0.5, seed: '' })).rejects.toThrow(
      /^theoryExplore: seed: expected a number$/,
    );
  });
});
