/// <reference lib="dom" />
// The theory slice end to end: open the app via `prh serve` in Chromium, run the grid experiment from the
// Theory screen, watch its live progress and finished figure, export it, and find the run again in Runs.
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noChromium, screensDir, startApp, type App } from './harness';

describe.skipIf(noChromium)('theory lab in the browser', () => {
  let app: App;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('explores a world live from the sliders', async () => {
    const { page } = app;
    await page.goto(app.url);
    await page.getByRole('heading', { name: 'Theory lab' }).waitFor();
    await page.getByText('lost directions r').waitFor();
    // Move rho to 1: every world direction is beaten by a nuisance direction (r = k, error = 2k).
    const r = page.locator('[data-readout="r"]');
    const error = page.locator('[data-readout="error"]');
    await page.locator('#rho').fill('1');
    await expect.poll(() => r.innerText()).toMatch(/^4\b/);
    expect(Number((await error.innerText()).split(' ')[0])).toBeCloseTo(8, 9);
    // Good views (rho = 0) lose nothing.
    await page.locator('#rho').fill('0');
    await expect.poll(() => r.innerText()).toMatch(/^0\b/);
    expect(Math.abs(Number((await error.innerText()).split(' ')[0]))).toBeLessThan(1e-9);
    await page.screenshot({ path: join(screensDir, 'theory.png'), fullPage: true });
  });

  it('runs the grid experiment as a stored run with live progress, a figure, and export', async () => {
    const { page } = app;
    const seen = new Set<string>();
    await page.exposeFunction('__progress', (t: string) => seen.add(t));
    await page.evaluate(() => {
      new MutationObserver(() => {
        const t = document.querySelector('#grid-progress')?.textContent;
        if (t) (window as unknown as { __progress: (t: string) => void }).__progress(t);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await page.locator('#run-grid').click();
    await page.locator('#grid-status').getByText('done').waitFor({ timeout: 90_000 });
    expect([...seen].some((t) => /^\d+ \/ 20\b/.test(t) && !t.startsWith('20 /'))).toBe(true); // a live, partial count was shown
    await page.locator('#grid-summary').waitFor();
    const summary = await page.locator('#grid-summary').innerText();
    expect(summary).toMatch(/rows\s+820/);

    const canvas = page.locator('[data-figure="prop3-error-vs-rho"] canvas');
    await canvas.waitFor();
    const inked = await canvas.evaluate((c: HTMLCanvasElement) => {
      const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
      return n;
    });
    expect(inked).toBeGreaterThan(5000);
    await page.screenshot({ path: join(screensDir, 'theory-grid.png'), fullPage: true });

    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('[data-export="prop3-error-vs-rho.png"]').click()]);
    const file = join(app.downloads, download.suggestedFilename());
    await download.saveAs(file);
    expect(download.suggestedFilename()).toBe('prop3-error-vs-rho.png');
    const png = readFileSync(file);
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(png.readUInt32BE(16)).toBe(1600); // 800 CSS px at 2x
    const [svg] = await Promise.all([page.waitForEvent('download'), page.locator('[data-export="prop3-error-vs-rho.svg"]').click()]);
    const svgFile = join(app.downloads, svg.suggestedFilename());
    await svg.saveAs(svgFile);
    expect(readFileSync(svgFile, 'utf8')).toMatch(/^<\?xml|^<svg/);

    const runId = (await page.locator('.status-line .small').innerText()).trim();
    expect(existsSync(join(app.home, 'runs', runId, 'report', 'prop3-error-vs-rho.png'))).toBe(true);
  });

  it('lists the finished run in Runs and reopens its figures', async () => {
    const { page } = app;
    await page.locator('[data-nav="runs"]').click();
    const row = page.locator('tr[data-run]').first();
    await row.getByText('done').waitFor();
    await row.click();
    await page.locator('#run-detail [data-figure="prop3-error-vs-rho"] canvas').waitFor();
    await page.screenshot({ path: join(screensDir, 'runs.png'), fullPage: true });
    await page.locator('[data-nav="settings"]').click();
    await page.locator('#theme').selectOption('dark');
    await page.locator('[data-nav="theory"]').click();
    await page.getByText('lost directions r').waitFor();
    await page.screenshot({ path: join(screensDir, 'theory-dark.png'), fullPage: true });
  });
});
