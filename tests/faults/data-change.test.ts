// A run records what it trains on when it starts (data-fingerprint.json); resumed after its captions, photos, split
// or tokenizer changed, it refuses, naming what changed, instead of training its last epochs on other data with the
// old tokenizer (the reported experiment ended `done` with good R@1 .00, unbroken .21).
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Service } from '../../engine/api';
import { FINGERPRINT_FILE, generateWorld } from '../../engine/data';

const home = mkdtempSync(join(tmpdir(), 'prh-data-change-'));
const runs = join(home, 'runs');
const prh = join(import.meta.dirname, '..', '..', 'bin', 'prh.js');
let settings: Record<string, unknown> = { theme: 'system' };
const service = new Service({
  runsDir: runs,
  userData: home,
  transport: 'ws',
  concurrency: 2,
  settings: { get: () => settings as never, set: (p) => (settings = { ...settings, ...p }) as never },
});
afterAll(() => service.close());

const errorOf = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected an error');
};

// A run started and cancelled at once: resumable, with its fingerprint recorded.
async function startedAndCancelled(config: Record<string, unknown>): Promise<string> {
  const { id } = (await service.dispatch('startRun', { config })) as { id: string };
  service.scheduler.cancel(id);
  await service.scheduler.idle();
  expect(service.store.get(id).status).toBe('cancelled');
  expect(existsSync(join(service.store.dir(id), FINGERPRINT_FILE))).toBe(true);
  return id;
}

const world = (name: string) => {
  const dir = join(home, name);
  generateWorld(dir, { seed: 2, splits: { train: 16, val: 12, test: 12 }, imageSize: 16 });
  return dir;
};
const editCaption = (dir: string, to: string) => {
  const file = join(dir, 'dataset.json');
  const before = readFileSync(file, 'utf8');
  const ds = JSON.parse(before);
  const im = ds.images.find((i: { split: string }) => i.split === 'train');
  im.captions[0].text = `${to} ${im.captions[0].text}`;
  writeFileSync(file, JSON.stringify(ds));
  return { id: im.id as string, restore: () => writeFileSync(file, before) };
};

describe('a resume after the data changed', () => {
  it('refuses an experiment whose captions were edited, naming the photo, and says how to go on', async () => {
    const data = world('w-exp');
    const id = await startedAndCancelled({
      kind: 'experiment',
      version: 1,
      data,
      seeds: [0],
      arms: ['good'],
      train: { epochs: 2, batch: 8, slices: 16 },
    });
    const edit = editCaption(data, 'edited');
    const msg = await errorOf(service.dispatch('resumeRun', { id }));
    expect(msg).toMatch(
      new RegExp(
        `^run ${id} cannot resume: its data changed since it started: 1 photo\\(s\\) with other captions \\(${edit.id}\\)`,
      ),
    );
    expect(msg).toMatch(/start a new run on the data as it is now, or put the data back as it was/);
    expect(service.store.get(id).status).toBe('cancelled'); // untouched

    // The CLI says the same, exit 2.
    const r = spawnSync(process.execPath, [prh, 'runs', 'resume', id, '--runs', runs], {
      env: { ...process.env, PRH_HOME: home },
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/cannot resume: its data changed since it started: 1 photo\(s\) with other captions/);

    // Put back, it resumes.
    edit.restore();
    await service.dispatch('resumeRun', { id });
    service.scheduler.cancel(id);
    await service.scheduler.idle();
  });

  it('refuses a train run whose photos were added, removed or rewritten, or whose split changed', async () => {
    const data = world('w-train');
    const id = await startedAndCancelled({ kind: 'train', version: 1, data, arm: 'good', epochs: 2, batch: 8 });
    const file = join(data, 'dataset.json');
    const ds = JSON.parse(readFileSync(file, 'utf8'));
    const [a, b] = ds.images.filter((i: { split: string }) => i.split === 'val');
    a.split = 'test';
    ds.images = ds.images.filter((i: { id: string }) => i.id !== b.id);
    writeFileSync(file, JSON.stringify(ds));
    const test = ds.images.find((i: { split: string; id: string }) => i.split === 'test' && i.id !== a.id);
    appendFileSync(join(data, 'images', test.file), Buffer.from([0])); // a photo rewritten
    const msg = await errorOf(service.dispatch('resumeRun', { id }));
    expect(msg).toContain(`1 photo(s) removed (${b.id})`);
    expect(msg).toContain(`1 photo(s) in another split (${a.id})`);
    expect(msg).toContain(`1 image file(s) of another size or gone (${test.id})`);
  });

  it('resumes a run from before runs recorded their data, as before', async () => {
    const data = world('w-old');
    const id = await startedAndCancelled({ kind: 'train', version: 1, data, arm: 'good', epochs: 1, batch: 8 });
    spawnSync('rm', [join(service.store.dir(id), FINGERPRINT_FILE)]);
    editCaption(data, 'edited');
    await service.dispatch('resumeRun', { id });
    await service.scheduler.idle();
    expect(service.store.get(id).status).toBe('done');
  });
});
