/// <reference lib="dom" />
// What the screens say is what happened, in Chromium against a real `prh serve`: after the server stops and starts
// again under an open Experiment page, and after a kill -9 of it, every status there and in Runs is the one on disk
// (no arm "running, pid N" whose process is gone); the banner says what stopping the server does; progress never goes
// back, and a resumed run shows where it is; the resume text names exactly the arms that will run; the lr each arm
// reached is the one in its tables; the form says what training would take before it starts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { generateWorld } from '../../engine/data';
import { SERVER_AWAY, noChromium, startApp, type App } from './harness';

describe.skipIf(noChromium)('what the screens say is what happened', () => {
  let app: App;
  let world: string;
  const base = () => app.url.split('?')[0];
  const token = () => new URL(app.url).searchParams.get('token')!;
  // One API call over the server's WebSocket, as the page makes it.
  async function call<T>(method: string, params: unknown): Promise<T> {
    const port = new URL(app.url).port;
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api`, {
      headers: { Cookie: `prh_token_${port}=${token()}`, Origin: `http://127.0.0.1:${port}` },
    });
    await new Promise((r, j) => (ws.once('open', r), ws.once('error', j)));
    try {
      const reply = await new Promise<{ result?: T; error?: string }>((resolve) => {
        ws.on('message', (d) => {
          const m = JSON.parse(String(d));
          if (m.id === 1) resolve(m);
        });
        ws.send(JSON.stringify({ id: 1, method, params }));
      });
      if (reply.error) throw new Error(reply.error);
      return reply.result as T;
    } finally {
      ws.close();
    }
  }
  const experiment = (over: Record<string, unknown> = {}) =>
    call<{ id: string }>('startRun', {
      config: {
        kind: 'experiment',
        version: 1,
        data: world,
        arms: ['good', 'bad', 'ntp'],
        seeds: [0],
        parallel: 3,
        train: { epochs: 40, batch: 8, slices: 16, backend: 'wasm' },
        eval: { bootstrap: 100, sweepCounts: [4], sweepRepeats: 1 },
        ...over,
      },
    });
  const armTexts = () => app.page.locator('#arm-runs tbody tr').allInnerTexts();
  const pctNow = async () => {
    const m = /\((\d+)%\)/.exec(await app.page.locator('#exp-progress').innerText());
    return m ? Number(m[1]) : null;
  };
  const open = async (id: string) => {
    await app.page.goto(`${base()}#/experiment/${id}`);
    await app.page.locator('#exp-status').waitFor();
  };

  beforeAll(async () => {
    app = await startApp();
    world = join(app.home, 'datasets', 'truth-world');
    generateWorld(world, { seed: 4, splits: { train: 96, val: 24, test: 24 }, imageSize: 32 });
    await app.page.goto(app.url); // trades the token for the cookie
  });
  afterAll(async () => {
    await app?.close();
  });
  // Each test on a server that is up, whatever the one before left.
  beforeEach(async () => {
    if (app.proc.exitCode !== null || app.proc.signalCode !== null) await app.restart();
  });

  it('after prh serve stops and starts again under an open Experiment page, the page shows what is on disk', async () => {
    const { page } = app;
    const { id } = await experiment();
    await open(id);
    await expect
      .poll(async () => (await armTexts()).filter((t) => /running/.test(t) && /pid \d+/.test(t)).length, {
        timeout: 90_000,
      })
      .toBe(3);
    // Progress only goes forward.
    const seen: number[] = [];
    for (let i = 0; i < 20; i++) {
      const p = await pctNow();
      if (p !== null) seen.push(p);
      await page.waitForTimeout(200);
    }
    expect(seen.length).toBeGreaterThan(5);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    const before = seen[seen.length - 1];

    app.allowErrors(SERVER_AWAY); // a request the stop cuts may be reset rather than refused
    await app.stop(); // SIGTERM: prh serve cancels its runs and exits
    const banner = page.locator('#connection[data-link="offline"]');
    await banner.waitFor({ timeout: 30_000 });
    const text = await banner.innerText();
    expect.soft(text).not.toMatch(/keep going/); // before: "runs keep going on the server"
    expect.soft(text).toMatch(/Stopping prh serve cancels the runs it computes/);

    await app.restart();
    await page.locator('#connection[data-link="back"]').waitFor({ timeout: 60_000 });
    await expect.poll(() => page.locator('#exp-status').innerText(), { timeout: 30_000 }).toBe('cancelled');
    await expect
      .poll(async () => (await armTexts()).every((t) => /cancelled/.test(t) && !/pid/.test(t)), { timeout: 30_000 })
      .toBe(true);
    expect(await page.locator('body').innerText()).not.toMatch(/lost; reconnecting/);
    // The arms' own files say so too.
    const arms = await call<{ status: string; pid: number | null }[]>('childRuns', { id });
    expect(arms.map((a) => [a.status, a.pid])).toEqual([
      ['cancelled', null],
      ['cancelled', null],
      ['cancelled', null],
    ]);

    // Resumed, it shows where it is (before: "running 0%" for a run at 75%), and goes on from there.
    await page.locator('#resume').click();
    await expect.poll(() => page.locator('#exp-status').innerText(), { timeout: 30_000 }).toBe('running');
    await expect.poll(pctNow, { timeout: 60_000 }).not.toBeNull();
    expect((await pctNow())!).toBeGreaterThanOrEqual(before - 5);
    await call('cancelRun', { id });
    await expect.poll(() => page.locator('#exp-status').innerText(), { timeout: 60_000 }).toBe('cancelled');
  }, 300_000);

  it('after a kill -9 of prh serve, the experiment and its arms read interrupted, here and in Runs', async () => {
    const { page } = app;
    const { id } = await experiment();
    await open(id);
    await expect
      .poll(async () => (await armTexts()).filter((t) => /pid \d+/.test(t)).length, { timeout: 90_000 })
      .toBe(3);
    app.proc.kill('SIGKILL');
    await new Promise((r) => app.proc.once('exit', r));
    await app.restart();
    await page.reload();
    await expect.poll(() => page.locator('#exp-status').innerText(), { timeout: 60_000 }).toBe('interrupted');
    await expect
      .poll(async () => (await armTexts()).every((t) => /interrupted/.test(t) && !/pid/.test(t)), { timeout: 30_000 })
      .toBe(true);
    await page.goto(`${base()}#/runs/${id}`);
    await page.locator('#run-detail').waitFor();
    await expect
      .poll(async () => (await armTexts()).every((t) => /interrupted/.test(t) && !/pid/.test(t)), { timeout: 30_000 })
      .toBe(true);
  }, 300_000);

  it('names exactly the arms a resume will run, and where each restarts', async () => {
    const { page } = app;
    const { id } = await experiment({ seeds: [0, 1], train: { epochs: 3, batch: 8, slices: 16, backend: 'wasm' } });
    await open(id);
    // Some arms done, others training (view arms of both seeds first, then the NTP arms): cancel then.
    await expect
      .poll(
        async () => {
          const t = await armTexts();
          return t.some((x) => /\bdone\b/.test(x)) && t.some((x) => /\brunning\b/.test(x));
        },
        { timeout: 180_000, interval: 200 },
      )
      .toBe(true);
    await page.locator('#cancel').click();
    await expect.poll(() => page.locator('#exp-status').innerText(), { timeout: 60_000 }).toBe('cancelled');
    await expect
      .poll(async () => (await armTexts()).some((x) => /\b(running|queued)\b/.test(x)), { timeout: 60_000 })
      .toBe(false);
    // The arms done once it stopped (each row's name is "<arm> (seed <s>)"), and the others, started or not.
    const done = (await armTexts()).filter((x) => /\bdone\b/.test(x)).map((x) => x.split('\t')[0].trim());
    const all = [0, 1].flatMap((seed) => ['good', 'bad', 'ntp'].map((arm) => `${arm} (seed ${seed})`));
    expect(done.length).toBeGreaterThan(0);
    expect(done.every((d) => all.includes(d))).toBe(true);
    const resumed = all.filter((k) => !done.includes(k));
    const text = await page.locator('#resume-from').innerText();
    expect(text).toMatch(new RegExp(`Resume trains ${resumed.length} arm run\\(s\\)`));
    const named = (k: string) => new RegExp(`${k.replace(/[()]/g, '\\$&')} (at epoch \\d of 3|from the start)`);
    for (const k of resumed) expect(text).toMatch(named(k));
    for (const k of done) expect(text).not.toContain(k); // before: finished arms were listed, unfinished ones left out
  }, 300_000);

  it('shows the lr each arm reached, warns when a warmup never ended, and a finished run shows how it ended', async () => {
    const { page } = app;
    // 96 training photos, batch 32: 3 steps an epoch, 6 in all, under a 50-step warmup (as the reported run).
    const { id } = await experiment({
      arms: ['good', 'ntp'],
      train: { epochs: 2, batch: 32, slices: 16, backend: 'wasm', warmupSteps: 50 },
    });
    await open(id);
    await expect.poll(() => page.locator('#exp-status').innerText(), { timeout: 180_000 }).toBe('done');
    // lrAt(5) = 2e-3·(0.01 + 0.99·5/50) = 2.18e-4
    const arms = page.locator('#comparison table').first();
    await expect.poll(() => arms.innerText(), { timeout: 30_000 }).toMatch(/Peak lr reached/);
    expect(await arms.innerText()).toMatch(/2\.18e-4/);
    expect(await arms.innerText()).not.toMatch(/2\.00e-3/);
    expect(await page.locator('#warnings').innerText()).toMatch(
      /the warmup of 50 steps is not shorter than the run's 6 steps: the lr reaches 2\.18e-4, not its peak 2\.00e-3/,
    );
    // Result first: the verdicts above the curves.
    const y = async (sel: string) => (await page.locator(sel).boundingBox())!.y;
    expect(await y('#verdicts')).toBeLessThan(await y('[data-figure="experiment-r1"]'));
    // Done: how it ended, not its last progress ("done 1 / 1").
    expect(await page.locator('#exp-progress').innerText()).toMatch(/^done .* after/);
    expect(await page.locator('#exp-progress').innerText()).not.toMatch(/1 \/ 1/);
  }, 300_000);

  it('New experiment says what training takes before it starts, and reads no number out of bad input', async () => {
    const { page } = app;
    await page.goto(`${base()}#/new`);
    await page.getByRole('heading', { name: 'New experiment' }).waitFor();
    await expect
      .poll(() => page.locator('#dataset option').allInnerTexts())
      .toEqual(expect.arrayContaining([expect.stringMatching(/truth-world/)]));
    await page.locator('#dataset').selectOption(world);
    await page.locator('#epochs').fill('2');
    await page.locator('#batch').fill('8');
    await expect
      .poll(() => page.locator('#plan').innerText(), { timeout: 30_000 })
      .toMatch(
        /Each arm trains 12 steps per epoch \(96 training photos, batch 8\) × 2 epochs = 24 steps; the lr warms up over 3 steps/,
      );
    // A one-step run ends inside any warmup: said before it starts.
    await page.locator('#batch').fill('64');
    await page.locator('#epochs').fill('1');
    await expect
      .poll(() => page.locator('#plan-warning').innerText(), { timeout: 30_000 })
      .toMatch(/The run ends inside its warmup: the lr reaches only 2\.00e-5 of good's 2\.00e-3/);
    // A negative batch: no λ_eff computed from it (before: "0.02·-24·1 = -0.48").
    await page.locator('#batch').fill('-3');
    expect(await page.locator('#lambda-readout').innerText()).toMatch(/the batch must be a whole number of 2 or more/);
    expect(await page.locator('#lambda-readout').innerText()).not.toMatch(/-0\.48/);
    // Seeds that are not seeds are not counted (before: "a,b" counted as 2 seeds).
    await page.locator('#seeds').fill('a,b');
    expect(await page.locator('#seeds-issue').innerText()).toMatch(/a, b are not whole numbers/);
    expect(await page.locator('form').innerText()).toMatch(/× 0 seed\(s\) = 0 training runs/);
  }, 120_000);

  it("hides a series on every chart from one legend, opens a chart full window, sweeps from the GUI, and marks a dropped photo's own captions", async () => {
    const { page } = app;
    const dropWorld = join(app.home, 'datasets', 'drop-world');
    generateWorld(dropWorld, { seed: 6, splits: { train: 64, val: 12, test: 8 }, imageSize: 32 });
    const { id } = await experiment({
      data: dropWorld,
      arms: ['good', 'bad'],
      seeds: [0, 1],
      train: { epochs: 2, batch: 16, slices: 16, backend: 'wasm' },
      eval: { k: 3, bootstrap: 100, sweepCounts: [4], sweepRepeats: 1 },
    });
    await open(id);
    await expect.poll(() => page.locator('#exp-status').innerText(), { timeout: 180_000 }).toBe('done');

    // One visibility for every chart (before: hiding in one legend left the series in the six others).
    const item = (fig: string) => page.locator(`[data-figure="${fig}"] [data-legend="bad (seed 0)"]`);
    await item('experiment-r1').click();
    await expect.poll(() => item('experiment-mknn').getAttribute('aria-pressed')).toBe('false');
    await expect.poll(() => item('experiment-loss').getAttribute('aria-pressed')).toBe('false');
    await item('experiment-mknn').click();
    await expect.poll(() => item('experiment-r1').getAttribute('aria-pressed')).toBe('true');

    // Full window, and back.
    await page.locator('[data-fullscreen="experiment-r1"]').click();
    const box = (await page.locator('[data-figure="experiment-r1"]').boundingBox())!;
    expect(box.width).toBeGreaterThan(0.9 * page.viewportSize()!.width);
    await page.keyboard.press('Escape');
    await expect
      .poll(async () => (await page.locator('[data-figure="experiment-r1"]').boundingBox())!.width)
      .toBeLessThan(0.6 * page.viewportSize()!.width);

    // A sweep at other counts, from the Sweeps screen (before: only the CLI could).
    await page.goto(`${base()}#/sweeps/${id}`);
    await page.locator('#sweep-counts').fill('4, 8');
    await page.locator('#sweep-repeats').fill('2');
    await page.locator('#sweep-run').click();
    await expect
      .poll(() => page.locator('[data-table="sweep"] tbody').innerText(), { timeout: 60_000 })
      .toMatch(/good\s+0\s+8\s/);

    // The image drop: one seed at a time, a test photo's own captions marked where they rank.
    const ds = JSON.parse(readFileSync(join(dropWorld, 'dataset.json'), 'utf8'));
    const photo = ds.images.find((i: { split: string }) => i.split === 'test');
    await page.goto(`${base()}#/drop/${id}`);
    await page.locator('#topk').fill('50');
    await page.locator('#drop-input').setInputFiles(join(dropWorld, 'images', photo.file));
    await page.locator('#matches').waitFor({ timeout: 60_000 });
    expect(await page.locator('#drop-seed option').allInnerTexts()).toEqual(['0', '1']);
    expect(await page.locator('[data-arm-result]').count()).toBe(2); // good and bad of seed 0, not four columns
    expect(await page.locator('[data-arm-result="good"] li.truth').count()).toBe(5); // all 40 captions listed
  }, 300_000);
});
