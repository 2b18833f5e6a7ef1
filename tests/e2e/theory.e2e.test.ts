/// <reference lib="dom" />
// The theory slice end to end: open the app via `prh serve` in Chromium, explore a world (the β₁ = ρ line, exact
// read-outs, a cleared seed said in words, hover values by mouse and keys, log y, zoom), run the grid experiment
// as a stored run with live progress, export its figure as SVG with real text, find it in the run table (tags,
// notes, search, archive), and keep working through a restart of `prh serve` (same token: reconnect; new token:
// sign in again).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_AWAY, inkNear, noChromium, screensDir, shootAll, startApp, type App } from './harness';

describe.skipIf(noChromium)('theory lab in the browser', () => {
  let app: App;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.close();
  });
  const save = async (selector: string) => {
    const [d] = await Promise.all([app.page.waitForEvent('download'), app.page.locator(selector).click()]);
    const file = join(app.downloads, d.suggestedFilename());
    await d.saveAs(file);
    return { name: d.suggestedFilename(), text: readFileSync(file, 'utf8') };
  };

  it('explores a world live from the sliders', async () => {
    const { page } = app;
    await page.goto(app.url);
    await page.getByRole('heading', { name: 'Theory lab' }).waitFor();
    await page.getByText('lost directions r').waitFor();
    // The default ρ = .5 lies above every α_i of this world; its line is drawn all the same (#CC79A7).
    await expect.poll(() => inkNear(page, '[data-figure="theory-spectrum"] canvas', '#CC79A7')).toBeGreaterThan(100);
    // Move rho to 1: every world direction is beaten by a nuisance direction (r = k, error = 2k).
    const r = page.locator('[data-readout="r"]');
    const error = page.locator('[data-readout="error"]');
    await page.locator('#rho').fill('1');
    await expect.poll(() => r.innerText()).toMatch(/^4\b/);
    expect(Number((await error.innerText()).split(' ')[0])).toBeCloseTo(8, 9);
    // Good views (rho = 0) lose nothing, and an exact 0 reads as 0, not -3.55e-15.
    await page.locator('#rho').fill('0');
    await expect.poll(() => r.innerText()).toMatch(/^0\b/);
    expect((await error.innerText()).split(' ')[0]).toBe('0');
    await page.screenshot({ path: join(screensDir, 'theory.png'), fullPage: true });

    // A cleared seed is said next to the field, in words; no zod JSON anywhere.
    await page.locator('#seed').fill('');
    await page.locator('#seed-issue').getByText('seed: enter a whole number, 0 or more').waitFor();
    expect(await page.locator('.error').allInnerTexts()).not.toContainEqual(expect.stringMatching(/[{}]|invalid_type/));
    await page.locator('#seed').fill('0');
    await expect.poll(() => page.locator('#seed-issue').count()).toBe(0);
  });

  it('reads every series at the hovered x, by mouse and by arrow keys; log y and zoom', async () => {
    const { page } = app;
    const canvas = page.locator('[data-figure="theory-r-error-vs-rho"] canvas');
    const box = (await canvas.boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.5);
    const tip = page.locator('[data-figure="theory-r-error-vs-rho"] [data-tooltip]');
    await tip.waitFor();
    expect(await tip.innerText()).toMatch(/^ρ = β₁ 0\.\d+[\s\S]*error\s+\d[\s\S]*r\s+\d/); // the crosshair's x, then both series
    await page.mouse.move(box.x - 40, box.y);
    await expect.poll(() => tip.count()).toBe(0);
    await canvas.focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await tip.waitFor();
    expect(await tip.innerText()).toMatch(/ρ = β₁ 0\.0\d+/);
    await page.locator('#seed').focus(); // leaving the chart clears its read-out
    await expect.poll(() => tip.count()).toBe(0);

    // Drag to zoom, then reset; log y only where every value could be on one.
    await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.3);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.7, { steps: 8 });
    await page.mouse.up();
    await page.locator('[data-reset-zoom="theory-r-error-vs-rho"]').waitFor();
    const zoomed = await save('[data-export="theory-r-error-vs-rho.svg"]');
    // Tick labels sit at translate(x y); the x axis's are the lowest row. The export shows the zoomed ρ range.
    const ticks = [
      ...zoomed.text.matchAll(/<text fill="#57606A" transform="translate\(([\d.]+) ([\d.]+)\)"[^>]*>([\d.]+)<\/text>/g),
    ].map((m) => ({ y: Number(m[2]), v: Number(m[3]) }));
    const bottom = Math.max(...ticks.map((t) => t.y));
    const xTicks = ticks.filter((t) => t.y === bottom).map((t) => t.v);
    expect(xTicks.length).toBeGreaterThan(1);
    expect(Math.min(...xTicks)).toBeGreaterThan(0.15);
    expect(Math.max(...xTicks)).toBeLessThan(0.8);
    await page.locator('[data-reset-zoom="theory-r-error-vs-rho"]').click();
    await expect.poll(() => page.locator('[data-reset-zoom="theory-r-error-vs-rho"]').count()).toBe(0);
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
    expect(summary).toMatch(/rows \(world × ρ\)\s+820/); // readable names, not internal keys
    expect(summary).toMatch(/max \|error − 2r\| with ρ > α_k/);
    expect(summary).not.toMatch(/aboveMaxAbsErrMinus2r/);

    const canvas = page.locator('[data-figure="prop3-error-vs-rho"] canvas');
    await canvas.waitFor();
    expect(await inkNear(page, '[data-figure="prop3-error-vs-rho"] canvas', null)).toBeGreaterThan(5000);
    await page.screenshot({ path: join(screensDir, 'theory-grid.png'), fullPage: true });

    const runId = (await page.locator('.status-line .small').innerText()).trim();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('[data-export="prop3-error-vs-rho.png"]').click(),
    ]);
    const file = join(app.downloads, download.suggestedFilename());
    await download.saveAs(file);
    expect(download.suggestedFilename()).toBe(`${runId}.prop3-error-vs-rho.png`); // one naming scheme: <run>.<figure>.<ext>
    const png = readFileSync(file);
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(png.readUInt32BE(16)).toBe(1600); // 800 CSS px at 2x
    // SVG with real text: parsed back by the browser, the title is searchable text and the image renders.
    const svg = await save('[data-export="prop3-error-vs-rho.svg"]');
    const parsed = await page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
      return {
        error: doc.querySelector('parsererror')?.textContent ?? null,
        texts: Array.from(doc.querySelectorAll('text'), (t) => t.textContent),
      };
    }, svg.text);
    expect(parsed.error).toBeNull();
    expect(parsed.texts).toContain('Prop 3: lost directions cost exactly 2 each (error vs ρ, every world)');
    expect(parsed.texts).toContain('2r (r counted)');
    const width = await page.evaluate(
      (text) =>
        new Promise<number>((resolve) => {
          const img = new Image();
          img.onload = () => resolve(img.naturalWidth);
          img.onerror = () => resolve(-1);
          img.src = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
        }),
      svg.text,
    );
    expect(width).toBe(800);
    // The copy kept in the run goes to report/exports/, beside what the run wrote.
    expect(existsSync(join(app.home, 'runs', runId, 'report', 'exports', 'prop3-error-vs-rho.png'))).toBe(true);
  });

  it('lists the run in the run table: sort, filter, search, tags, note, archive; reopens its figures', async () => {
    const { page } = app;
    await page.locator('[data-nav="runs"]').click();
    const row = page.locator('tr[data-run]').first();
    await row.getByText('done').waitFor();
    await row.click();
    await page.locator('#run-detail [data-figure="prop3-error-vs-rho"] canvas').waitFor();
    await page.locator('#run-tags').fill('baseline, prop3');
    await page.locator('#run-tags').press('Tab');
    await page.locator('#run-note').fill('the uniform grid, 20 worlds');
    await page.locator('#run-note').press('Tab');
    await row.locator('.tag', { hasText: 'baseline' }).waitFor();
    await row.getByText('the uniform grid, 20 worlds').waitFor();
    // Search finds it by note and by tag; a search for something else hides it.
    await page.locator('#runs-search').fill('uniform grid');
    expect(await page.locator('tr[data-run]').count()).toBe(1);
    await page.locator('#runs-search').fill('no-such-run');
    await page.getByText('No run matches.').waitFor();
    await page.locator('#runs-search').fill('');
    await page.locator('#runs-tag').selectOption('prop3');
    expect(await page.locator('tr[data-run]').count()).toBe(1);
    await page.locator('#runs-tag').selectOption('');
    await page.locator('#runs-status').selectOption('failed');
    expect(await page.locator('tr[data-run]').count()).toBe(0);
    await page.locator('#runs-status').selectOption('');
    await page.locator('[data-sort="name"]').click();
    expect(await page.locator('th[aria-sort="ascending"]').innerText()).toMatch(/Name/);
    await page.screenshot({ path: join(screensDir, 'runs.png'), fullPage: true });
    // Archived runs leave the table unless asked for; the annotation is on disk, beside the run's own files.
    await page.locator('#archive').click();
    await expect.poll(() => page.locator('tr[data-run]').count()).toBe(0);
    await page.locator('#runs-archived').check();
    await expect.poll(() => page.locator('tr[data-run]').count()).toBe(1);
    await page.locator('#archive').click(); // unarchive
    await page.locator('#runs-archived').uncheck();
    const runId = await row.getAttribute('data-run');
    expect(JSON.parse(readFileSync(join(app.home, 'runs', runId!, 'annotation.json'), 'utf8'))).toEqual({
      tags: ['baseline', 'prop3'],
      note: 'the uniform grid, 20 worlds',
      archived: false,
    });
    await page.locator('[data-nav="settings"]').click();
    await page.locator('#theme').selectOption('dark');
    await page.locator('[data-nav="theory"]').click();
    await page.getByText('lost directions r').waitFor();
    await page.screenshot({ path: join(screensDir, 'theory-dark.png'), fullPage: true });
    await page.locator('[data-nav="settings"]').click();
    await page.locator('#theme').selectOption('system');
  });

  it('survives a restart of prh serve: a banner while it is away, the run table marked stale, state fetched again', async () => {
    const { page } = app;
    app.allowErrors(SERVER_AWAY);
    await page.goto(`${app.url.split('?')[0]}#/runs`);
    await page.locator('tr[data-run]').first().waitFor();
    await app.stop();
    await page
      .locator('#connection[data-link="offline"]')
      .getByText(/Disconnected/)
      .waitFor({ timeout: 15_000 });
    await page.locator('#runs-stale').waitFor();
    await shootAll(page, 'disconnected');
    // Same runs folder, same port: the same token, so the tab reconnects by itself and refetches.
    await app.restart();
    await page.locator('#connection[data-link="back"]').waitFor({ timeout: 30_000 });
    await expect.poll(() => page.locator('#runs-stale').count()).toBe(0);
    expect(await page.locator('tr[data-run]').count()).toBe(1);
    await page.locator('tr[data-run]').first().click();
    await page.locator('#run-detail [data-figure="prop3-error-vs-rho"] canvas').waitFor();

    // A new token signs the tab out: the banner says so and leads to a page that asks for the token.
    await app.stop();
    const url = await app.restart('--new-token');
    await page.locator('#connection[data-link="signed-out"]').waitFor({ timeout: 30_000 });
    await page.locator('#connection a', { hasText: 'Sign in again' }).click();
    await page.getByRole('heading', { name: 'This workbench needs its token' }).waitFor();
    await page.screenshot({ path: join(screensDir, 'sign-in.png'), fullPage: true });
    await page.locator('#token').fill(url);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('heading', { name: 'Theory lab' }).waitFor();
    app.url = url;
  });

  it('screens: theory and runs, light and dark, 1440 and 1024 wide', async () => {
    const { page } = app;
    await page.goto(`${app.url.split('?')[0]}#/theory`);
    await page.getByText('lost directions r').waitFor();
    await shootAll(page, 'theory');
    await page.goto(`${app.url.split('?')[0]}#/runs`);
    await page.locator('tr[data-run]').first().click();
    await page.locator('#run-detail').waitFor();
    await shootAll(page, 'runs-theory');
  });
});
