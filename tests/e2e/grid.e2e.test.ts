/// <reference lib="dom" />
// The 2x2 in Chromium against `prh serve`: New experiment's image-views option (refusing NTP in words), a tiny 2x2
// run to the end, and the Experiment page's 2x2 card (verdict, grouped bars, the cells and differences tables).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateWorld } from '../../engine/data';
import { noChromium, screensDir, startApp, type App } from './harness';

describe.skipIf(noChromium)('the 2x2 in the browser', () => {
  let app: App;
  let world: string;
  beforeAll(async () => {
    app = await startApp();
    world = join(app.home, 'datasets', 'tiny-world');
    generateWorld(world, { seed: 2, splits: { train: 64, val: 30, test: 30 } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('starts a 2x2 from the form and shows its cells, differences and bars', async () => {
    const { page } = app;
    await page.goto(app.url);
    await page.locator('[data-nav="new"]').click();
    await page.getByRole('heading', { name: 'New experiment' }).waitFor();
    await page.locator('#browse-folder').click();
    await page.locator('#folder-browser [data-folder$="datasets"]').click();
    await page.locator('#folder-browser [data-pick-folder="tiny-world"]').click();
    await expect.poll(() => page.locator('#dataset').inputValue()).toBe(world);

    await page.locator('#image-views').check();
    await page.locator('#image-steps').fill('3');
    await expect.poll(() => page.locator('#issues').innerText()).toMatch(/compares JEPA text arms only.*no NTP/);
    expect(await page.locator('#start').isDisabled()).toBe(true);
    await page.locator('[data-arm="ntp"]').uncheck();
    await page.locator('#epochs').fill('1');
    await page.locator('#batch').fill('8');
    await page.locator('#bootstrap').fill('200');
    await page.locator('#exp-name').fill('tiny 2x2');
    await expect.poll(() => page.locator('#start').isDisabled()).toBe(false);
    await page.locator('#start').click();
    await page.waitForURL(/#\/experiment\//);

    await page
      .locator('#exp-status')
      .getByText(/done|failed/)
      .waitFor({ timeout: 300_000 });
    expect(
      await page.locator('#exp-status').innerText(),
      (await page.locator('pre.error').allInnerTexts()).join(),
    ).toBe('done');
    const card = page.locator('#grid');
    await card.waitFor();
    expect(await card.locator('[data-table="grid"] tbody tr').count()).toBe(4);
    expect(await card.locator('[data-table="grid"]').innerText()).toMatch(/good\s+bad[\s\S]*\[\d\.\d{3}, \d\.\d{3}\]/);
    expect(await card.locator('[data-table="grid-differences"] tbody tr').count()).toBeGreaterThanOrEqual(12); // 6 pairs x R@1, R@5 (+ mutual k-NN)
    expect(await card.locator('[data-table="image-arms"] tbody tr').count()).toBe(2);
    await card.locator('[data-figure="grid-bars-r1"] canvas').waitFor();
    await card.locator('[data-figure="grid-bars-mknn"] canvas').waitFor();
    const verdict = await card.locator('.verdict').allInnerTexts();
    expect(verdict[0]).toMatch(
      /^Seed 0, R@1 from image bad · text bad: good text views alone .*: (the text side gains more|the image side gains more|the two gains are not told apart)\.$/,
    );
    expect(verdict[verdict.length - 1]).toMatch(/^The paper \(MSR-VTT, R@1\) found \+0\.059/);
    expect(
      await card.locator('.notes').allInnerTexts(),
      'the verdict once, not again under the differences',
    ).not.toContainEqual(expect.stringMatching(/R@1 from image bad/));
    await page.locator('[data-figure="experiment-image-loss"] canvas').waitFor();
    await card.screenshot({ path: join(screensDir, 'experiment-grid.png') });
  }, 400_000);
});
