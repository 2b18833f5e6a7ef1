// What `prh serve` reads: the UI folder's regular files only (a symlink there never leads out of it), and for the
// API the runs folder, the lab's datasets, the dataRoots and, for each dataset a run used, that dataset's own folder
// and image folder: never the folder around it (a dataset kept at ~/flickr8k must not open the home folder).
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Service } from '../../engine/api';
import { serve, type Serving } from '../../engine/cli/serve';
import { generateWorld } from '../../engine/data';
import { RunConfig } from '../../shared/runs';

const home = mkdtempSync(join(tmpdir(), 'prh-roots-')); // stands for the user's home folder
const SECRET = 'root:x:0:0:SECRET-MARKER\n';
writeFileSync(join(home, 'secret.txt'), SECRET);
mkdirSync(join(home, 'private'));
writeFileSync(join(home, 'private', 'dataset.json'), SECRET);
const tiny = { splits: { train: 4, val: 2, test: 2 }, imageSize: 16 };
generateWorld(join(home, 'W4'), { seed: 4, ...tiny }); // a dataset kept straight in the home folder
generateWorld(join(home, 'elsewhere', 'W5'), { seed: 5, ...tiny });

let settings: Record<string, unknown> = { theme: 'system', dataRoots: [join(home, 'W4')] };
const service = new Service({
  runsDir: join(home, 'app', 'runs'),
  userData: join(home, 'app'),
  transport: 'ws',
  concurrency: 1,
  confine: true,
  settings: { get: () => settings as never, set: (p) => (settings = { ...settings, ...p }) as never },
});
// One stored experiment on W4 and one train run on W5 (the folder of datasets runs used).
const experiment = (data: string) =>
  service.store.create(RunConfig.parse({ kind: 'experiment', version: 1, data, seeds: [0] }));
experiment(join(home, 'W4'));
service.store.create(RunConfig.parse({ kind: 'train', version: 1, data: join(home, 'elsewhere', 'W5'), arm: 'good' }));

const errorOf = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected an error');
};

describe("the served API's read roots", () => {
  it("lists each dataset's own folder as a root, never the folder around it", async () => {
    const { roots } = (await service.dispatch('browseFolder', {})) as { roots: string[] };
    expect(roots).toContain(join(home, 'W4'));
    expect(roots).toContain(join(home, 'elsewhere', 'W5'));
    expect(roots).not.toContain(home);
    expect(roots).not.toContain(join(home, 'elsewhere'));
  });

  it('refuses a folder or file beside a dataset a run used', async () => {
    for (const [method, params] of [
      ['browseFolder', { path: home }],
      ['browseFolder', { path: join(home, 'elsewhere') }],
      ['datasetGallery', { path: join(home, 'private') }],
      ['imageModel', { path: join(home, 'secret.txt') }],
    ] as const) {
      const msg = await errorOf(service.dispatch(method, params));
      expect(msg, method).toMatch(/outside the folders this server may (read|list)/);
      expect(msg).not.toMatch(/SECRET/);
    }
  });

  it('still reads the datasets themselves', async () => {
    for (const d of [join(home, 'W4'), join(home, 'elsewhere', 'W5')])
      expect(((await service.dispatch('datasetGallery', { path: d })) as { total: number }).total).toBe(8);
  });
});

describe("the served UI folder's files", () => {
  let s: Serving;
  const ui = join(home, 'renderer');
  beforeAll(async () => {
    mkdirSync(join(ui, 'assets'), { recursive: true });
    writeFileSync(join(ui, 'index.html'), '<!doctype html><title>ok</title>');
    writeFileSync(join(ui, 'assets', 'app.js'), 'console.log(1)');
    symlinkSync('/etc', join(ui, 'evil-link'));
    symlinkSync(join(home, 'secret.txt'), join(ui, 'assets', 'secret.js'));
    symlinkSync(join(ui, 'assets', 'app.js'), join(ui, 'assets', 'alias.js')); // inside: fine
    s = await serve({ service, rendererDir: ui });
  });
  afterAll(async () => {
    await s.close();
    await service.close();
  });
  const get = (path: string): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      request(
        { host: '127.0.0.1', port: s.port, path, headers: { Cookie: `prh_token_${s.port}=${s.token}` } },
        (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      )
        .on('error', reject)
        .end();
    });

  it('follows no symlink out of the folder (the reported out/renderer/evil-link -> /etc)', async () => {
    for (const p of ['/evil-link/passwd', '/evil-link/hostname', '/assets/secret.js']) {
      const r = await get(p);
      expect(r.status, p).toBe(404);
      expect(r.body).not.toMatch(/root:|SECRET/);
    }
  });

  it('serves its own files, and a link that stays inside', async () => {
    expect((await get('/assets/app.js')).body).toBe('console.log(1)');
    expect((await get('/assets/alias.js')).body).toBe('console.log(1)');
    expect((await get('/runs/some-id')).body).toContain('<title>ok</title>'); // the single-page app's routes
  });
});
