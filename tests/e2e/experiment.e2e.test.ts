/// <reference lib="dom" />
// The experiment lab end to end in Chromium against `prh serve`: generate a world from the form, configure and run a
// tiny experiment (good, bad, ntp; one epoch), watch its evaluation points arrive, read the comparison, compare,
// sweep, drop an image and get each arm's captions, inspect views, export a figure, a table and the bundle.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateWorld } from '../../engine/data';
import { buildVitOnnx, randomVitWeights } from '../../engine/models/onnx';
import { noChromium, screensDir, startApp, type App } from './harness';

describe.skipIf(noChromium)('experiment lab in the browser', () => {
  let app: App;
  let world: string, vit: string, runId: string;
  const shot = (name: string) => app.page.screenshot({ path: join(screensDir, `${name}.png`), fullPage: true });
  const save = async (click: () => Promise<void>) => {
    const [d] = await Promise.all([app.page.waitForEvent('download'), click()]);
    const file = join(app.downloads, d.suggestedFilename());
    await d.saveAs(file);
    return { name: d.suggestedFilename(), bytes: readFileSync(file) };
  };

  beforeAll(async () => {
    app = await startApp();
    world = join(app.home, 'datasets', 'tiny-world');
    generateWorld(world, { seed: 2, splits: { train: 96, val: 40, test: 40 } });
    vit = join(app.home, 'vit.onnx'); // a small random DINOv2-layout ViT as the frozen image encoder
    const cfg = { imageSize: 64, patchSize: 8, hidden: 32, depth: 1, heads: 2, mlp: 64 };
    writeFileSync(vit, buildVitOnnx(cfg, randomVitWeights(cfg, 0)));
  });
  afterAll(async () => {
    await app?.close();
  });

  it('generates a world from the form and validates the config before starting', async () => {
    const { page } = app;
    await page.goto(app.url);
    await page.locator('[data-nav="new"]').click();
    await page.getByRole('heading', { name: 'New experiment' }).waitFor();
    // The default world is listed, not generated yet; generate a small one with live progress.
    await page.locator('#world-preset').selectOption('strong');
    await page.locator('#world-size').fill('30,10,10');
    await page.locator('#generate').click();
    await page.locator('#generate-status').getByText(/done|failed/).waitFor({ timeout: 60_000 });
    expect(await page.locator('#generate-status').innerText(), (await page.locator('.gen .error').allInnerTexts()).join()).toBe('done');
    await expect.poll(() => page.locator('#dataset option').allInnerTexts()).toEqual(expect.arrayContaining([expect.stringMatching(/30 \/ 10 \/ 10 photos/)]));

    await page.locator('#dataset').selectOption(world);
    await page.locator('.gallery [data-photo]').first().waitFor();
    expect(await page.locator('.gallery .tag').first().innerText()).toBe('eval');
    await page.getByLabel('an ONNX file').check();
    await page.locator('#onnx-path').fill(vit);
    await page.locator('#epochs').fill('1');
    await page.locator('#batch').fill('16');
    // λ_eff = λ·V·B·world_size, live.
    await expect.poll(() => page.locator('#lambda-readout').innerText()).toContain('= 0.02·128·1 = 2.56');
    await page.locator('#loss').selectOption('paper');
    await expect.poll(() => page.locator('#lambda-readout').innerText()).toContain('= 0.02·16·1 = 0.32');
    await page.locator('#loss').selectOption('sp');
    await page.locator('#bootstrap').fill('200');
    // A bad seed list names the offending path and blocks Start.
    await page.locator('#seeds').fill('0, x');
    await expect.poll(() => page.locator('#issues').innerText()).toContain('seeds.1');
    expect(await page.locator('#start').isDisabled()).toBe(true);
    await page.locator('#seeds').fill('0');
    await page.locator('#exp-name').fill('tiny e2e');
    await shot('experiment-new');
    // A template keeps the form in this browser: save it, change a field, load it back.
    await page.getByLabel('template name').fill('tiny');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.locator('#epochs').fill('3');
    await page.getByRole('button', { name: 'Load', exact: true }).click();
    expect(await page.locator('#epochs').inputValue()).toBe('1');
    await page.locator('#start').click();
    await page.waitForURL(/#\/experiment\//);
    runId = page.url().split('#/experiment/')[1];
  });

  it('streams the curves live and shows the comparison with CIs when done', async () => {
    const { page } = app;
    const counts = new Set<string>(), phases = new Set<string>();
    await page.exposeFunction('__seen', (count: string, phase: string) => { counts.add(count); phases.add(phase); });
    await page.evaluate(() => {
      new MutationObserver(() => {
        const count = document.querySelector('#eval-count')?.textContent ?? '';
        const phase = document.querySelector('#exp-progress')?.textContent ?? '';
        (window as unknown as { __seen: (c: string, p: string) => void }).__seen(count, phase);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await page.locator('#eval-count').getByText(/^[1-9]/).waitFor({ timeout: 150_000 });
    await shot('experiment-running');
    await page.locator('#exp-status').getByText(/done|failed/).waitFor({ timeout: 150_000 });
    expect(await page.locator('#exp-status').innerText(), (await page.locator('pre.error').allInnerTexts()).join()).toBe('done');
    expect([...counts].some((t) => /^[12] evaluation/.test(t))).toBe(true); // points arrived one by one, not all at the end
    expect([...phases].some((t) => /training arms \d+ \/ \d+/.test(t))).toBe(true); // with live progress
    await page.locator('#eval-count').getByText('3 evaluation point(s)').waitFor();
    const table = page.locator('[data-table="arms"]');
    await table.waitFor();
    expect(await table.locator('tbody tr').count()).toBe(3);
    expect(await table.innerText()).toMatch(/good[\s\S]*\[\d\.\d{3}, \d\.\d{3}\]/);
    expect(await page.locator('[data-table="differences"] tbody tr').count()).toBeGreaterThanOrEqual(3);
    await shot('experiment-done');

    const png = await save(() => page.locator('[data-export="experiment-r1.png"]').click());
    expect(png.name).toBe('experiment-r1.png');
    expect(png.bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    const pdf = await save(() => page.locator('[data-export="experiment-r1-bars.pdf"]').click());
    expect(pdf.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const csv = await save(() => page.locator('[data-export="arms.csv"]').click());
    expect(csv.bytes.toString()).toMatch(/^Arm,Seed,Epoch,R@1,/);
    expect(readdirSync(join(app.home, 'runs', runId, 'report'))).toEqual(expect.arrayContaining(['experiment-r1.png', 'arms.csv']));
    const zip = await save(() => page.locator('#bundle').click());
    expect(Object.keys(unzipSync(zip.bytes))).toContain(`${runId}/config.json`);
  });

  it('compares, sweeps, matches a dropped image per arm, and inspects views', async () => {
    const { page } = app;
    await page.locator('#comparison a', { hasText: 'Compare' }).click();
    await page.locator('#compare-results [data-table="compare-arms"]').waitFor();
    await page.locator('[data-figure="compare-r1-bars"] canvas').waitFor();
    await shot('experiment-compare');

    await page.goto(`${app.url.split('?')[0]}#/sweeps/${runId}`);
    await page.locator('[data-figure="sweep-r1-vs-pairs"] canvas').waitFor();
    expect(await page.locator('[data-table="sweep"] tbody tr').count()).toBeGreaterThan(3);
    await shot('experiment-sweeps');

    await page.locator('[data-nav="drop"]').click();
    await expect.poll(() => page.locator('#experiment-picker').inputValue()).toBe(runId);
    const scene = join(world, 'images', readdirSync(join(world, 'images')).sort()[0]);
    await page.locator('#drop-input').setInputFiles(scene);
    await page.locator('#matches [data-arm-result]').first().waitFor({ timeout: 90_000 });
    const arms = page.locator('#matches [data-arm-result]');
    expect(await arms.evaluateAll((els) => els.map((e) => e.getAttribute('data-arm-result')))).toEqual(['good', 'bad', 'ntp']);
    expect(await arms.first().locator('li').count()).toBe(5);
    expect(await arms.first().innerText()).toMatch(/-?\d\.\d{3} /);
    await shot('experiment-drop');

    await page.goto(`${app.url.split('?')[0]}#/views/${runId}`);
    await page.locator('.gallery [data-photo] button').first().click();
    await page.locator('#views [data-side="bad"] .view').nth(7).waitFor();
    expect(await page.locator('#views [data-side="good"] .kind.global').count()).toBe(2);
    expect(await page.locator('#views .masked').count()).toBeGreaterThan(0);
    await shot('experiment-views');

    await page.locator('[data-nav="settings"]').click();
    await page.locator('#theme').selectOption('dark');
    await page.goto(`${app.url.split('?')[0]}#/experiment/${runId}`);
    await page.locator('[data-table="arms"]').waitFor();
    await shot('experiment-done-dark');
  });
});
