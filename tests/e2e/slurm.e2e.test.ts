// The Slurm executor in the browser, against the private single-node Slurm of tests/slurm/harness.ts and a real
// `prh serve`: Settings saves the executor and the cluster block (fields typed one after another all stick), New
// experiment offers the executor with inline errors, and an experiment started with `prh experiment` on the same runs
// folder shows its arms' jobs (pending vs running, job id, node) in Runs and on its Experiment page.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateWorld } from '../../engine/data';
import { buildVitOnnx, randomVitWeights } from '../../engine/models/onnx';
import { startCluster, unavailable, type Cluster } from '../slurm/harness';
import { noChromium, root, shootAll, startApp, type App } from './harness';

const skip = noChromium || unavailable();

describe.skipIf(skip)(`the Slurm executor in the browser${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let c: Cluster;
  let app: App;
  const go = (hash: string) => app.page.goto(`${app.url.replace(/#.*$/, '')}#/${hash}`);

  beforeAll(async () => {
    c = await startCluster();
    process.env.SLURM_CONF = c.conf; // prh serve and prh experiment submit to it
    app = await startApp();
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await c?.stop();
  });

  it('saves the executor and the cluster block from Settings, and offers the executor in New experiment', async () => {
    const { page } = app;
    await go('settings');
    await page.locator('#executor').selectOption('slurm');
    for (const [key, value] of [
      ['pollSeconds', '1'],
      ['time', '30'],
      ['partition', c.partition],
    ]) {
      await page.locator(`[data-slurm="${key}"]`).fill(value);
      await page.locator(`[data-slurm="${key}"]`).dispatchEvent('change');
    }
    const stored = () =>
      JSON.parse(readFileSync(join(app.home, 'config.json'), 'utf8')) as {
        executor?: string;
        slurm?: Record<string, unknown>;
      };
    await expect
      .poll(stored)
      .toMatchObject({ executor: 'slurm', slurm: { pollSeconds: 1, time: '30', partition: c.partition } });
    await shootAll(page, 'settings-slurm');

    await go('new');
    await page.locator('input[name="executor"][value="slurm"]').check();
    await page.locator('#slurm-time').fill('soon');
    await expect
      .poll(() => page.locator('#issues').innerText())
      .toMatch(/time limit: a Slurm time limit: minutes, H:MM:SS or D-HH:MM:SS/);
    await shootAll(page, 'new-experiment-slurm');
  });

  it("shows each arm's job, node and queue state in Runs and on the Experiment page", async () => {
    const { page } = app;
    const world = join(app.home, 'world');
    generateWorld(world, { seed: 3, splits: { train: 120, val: 40, test: 40 } });
    const vit = join(app.home, 'vit.onnx');
    const cfg = { imageSize: 64, patchSize: 8, hidden: 32, depth: 1, heads: 2, mlp: 64 };
    writeFileSync(vit, buildVitOnnx(cfg, randomVitWeights(cfg, 0)));
    // Three arms on a node with (at most) two cores: two jobs run, the third waits in the queue.
    const cli = spawn(
      process.execPath,
      [
        join(root, 'bin', 'prh.js'),
        'experiment',
        '--data',
        world,
        '--image-model',
        vit,
        '--arms',
        'good,bad,ntp',
        '--epochs',
        '2',
        '--batch',
        '16',
        '--runs',
        join(app.home, 'runs'),
        '--json',
      ],
      { env: { ...process.env, PRH_HOME: app.home }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    cli.stdout!.on('data', (b: Buffer) => (out += String(b)));
    const exited = new Promise((r) => cli.once('exit', r));
    const runs = join(app.home, 'runs');
    await expect
      .poll(() => existsSync(runs) && readdirSync(runs).some((f) => f.includes('experiment')), { timeout: 60_000 })
      .toBe(true);

    await go('runs');
    await page.reload(); // a run another process started
    await page.locator('tr[data-run]').first().click();
    expect(await page.locator('tr[data-run]').first().innerText()).toMatch(/slurm/);
    await page.locator('#arm-runs [data-queue="running"]').first().waitFor({ timeout: 120_000 });
    const text = await page.locator('#arm-runs').innerText();
    expect(text).toMatch(new RegExp(`running Slurm job \\d+ on ${c.node}`));
    if (await page.locator('#arm-runs [data-queue="pending"]').count())
      expect(text).toMatch(/queued\s+pending Slurm job \d+/);
    await shootAll(page, 'runs-slurm');

    const id = await page.locator('tr[data-run]').first().getAttribute('data-run');
    await go(`experiment/${id}`);
    await page.locator('#arm-runs').waitFor();
    await exited;
    expect(JSON.parse(out)).toMatchObject({ status: 'done' });
    await expect.poll(() => page.locator('#arm-runs [data-queue="completed"]').count(), { timeout: 15_000 }).toBe(3);
    expect(await page.locator('#arm-runs').innerText()).toMatch(
      new RegExp(`done\\s+completed Slurm job \\d+ on ${c.node}`),
    );
    await shootAll(page, 'experiment-slurm');
  }, 400_000);
});
