// A world.generate run refused because its folder already holds a dataset must stay refused when resumed: only a
// `force` given at start overwrites.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Service } from '../../engine/api';
import { generateWorld } from '../../engine/data';

const home = mkdtempSync(join(tmpdir(), 'prh-world-'));
let settings = { theme: 'system' as const };
const service = new Service({
  runsDir: join(home, 'runs'),
  userData: home,
  transport: 'ws',
  concurrency: 1,
  settings: { get: () => settings, set: (p) => (settings = { ...settings, ...p } as typeof settings) },
});
afterAll(() => service.close());

const tiny = { splits: { train: 4, val: 2, test: 2 }, imageSize: 16 };
const mine = join(home, 'datasets', 'mine');
generateWorld(mine, { seed: 7, ...tiny }); // the user's dataset, seed 7
const datasetJson = () => readFileSync(join(mine, 'dataset.json'), 'utf8');

async function finish(
  method: 'startRun' | 'resumeRun',
  params: unknown,
): Promise<{ id: string; status: string; error: string | null }> {
  const s = (await service.dispatch(method, params)) as { id: string };
  await service.scheduler.idle();
  return service.store.get(s.id);
}

describe('world.generate over an existing dataset', () => {
  it('is refused at start, and still refused when resumed: the dataset stays as it was', async () => {
    const before = datasetJson();
    const run = await finish('startRun', {
      config: { kind: 'world.generate', version: 1, out: mine, seed: 1, ...tiny },
    });
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/already holds a dataset\.json/);
    const resumed = await finish('resumeRun', { id: run.id });
    expect(resumed.status).toBe('failed');
    expect(resumed.error).toMatch(/already holds a dataset\.json/);
    expect(datasetJson()).toBe(before);
  });

  it('overwrites when the run was started with force', async () => {
    const before = datasetJson();
    const run = await finish('startRun', {
      config: { kind: 'world.generate', version: 1, out: mine, seed: 1, force: true, ...tiny },
    });
    expect(run.status).toBe('done');
    expect(datasetJson()).not.toBe(before);
    expect(JSON.parse(datasetJson()).params.seed).toBe(1);
  });

  it('an interrupted generation (no dataset.json yet) resumes without force', async () => {
    const out = join(home, 'datasets', 'fresh');
    const run = await finish('startRun', { config: { kind: 'world.generate', version: 1, out, seed: 2, ...tiny } });
    expect(run.status).toBe('done');
    service.store.update(run.id, { status: 'interrupted' });
    // As a kill before dataset.json (written last) leaves the folder: images only.
    rmSync(join(out, 'dataset.json'));
    expect((await finish('resumeRun', { id: run.id })).status).toBe('done');
  });
});
