/// <reference lib="dom" />
// Real photos end to end in Chromium against `prh serve`: open ../shared/data/flickr8k-1k (Kaggle layout) by its path
// in New experiment, see its photos and captions, pick MobileNetV2's pooled feature from the model's tensors, run good
// + bad for one epoch, then drop one of the experiment's test photos and an image it never saw.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createCanvas } from '@napi-rs/canvas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExperimentConfig } from '../../shared/experiment';
import { openExperimentData } from '../../engine/experiment';
import { noChromium, root, screensDir, startApp, type App } from './harness';

const SHARED = resolve(root, '..', 'shared');
const f8k = join(SHARED, 'data', 'flickr8k-1k'),
  mobilenet = join(SHARED, 'models', 'mobilenetv2-12-int8.onnx');
const absent =
  !existsSync(join(f8k, 'captions.txt')) || !existsSync(mobilenet) ? `${f8k} or ${mobilenet} is absent` : false;
const skip = noChromium || absent;
if (skip) console.log(`skipping the real-photo end-to-end test: ${skip}`);

describe.skipIf(skip)('real photos (flickr8k-1k, MobileNetV2) in the browser', () => {
  let app: App, runId: string;
  const shot = (name: string) => app.page.screenshot({ path: join(screensDir, `${name}.png`), fullPage: true });
  beforeAll(async () => {
    app = await startApp({ dataRoots: [SHARED] });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('opens the Kaggle folder, shows its photos and captions, and runs good + bad on the pooled feature', async () => {
    const { page } = app;
    await page.goto(app.url);
    await page.locator('[data-nav="new"]').click();
    await page.locator('#dataset-path').fill(f8k);
    await page.locator('#dataset-path').press('Enter'); // opens the path; does not submit the form (start a run)
    const photo = page.locator('.gallery [data-photo]').first();
    await photo.waitFor({ timeout: 120_000 }); // seconds alone (5,000 caption lines, 4 thumbnails); more while the suite trains beside it
    expect(await photo.locator('ol li').count()).toBe(5); // Flickr8k: five captions per photo
    expect(await photo.locator('img').evaluate((im: HTMLImageElement) => im.complete && im.naturalWidth > 0)).toBe(
      true,
    );
    expect(await page.locator('.gallery').innerText()).toMatch(/of 1000/);
    expect(page.url()).not.toMatch(/#\/experiment\//);

    await page.getByLabel('an ONNX file').check();
    await page.locator('#onnx-path').fill(mobilenet);
    await page.locator('#onnx-path').blur();
    // The model's tensors are listed from the file: the 1,280-d feature before the classifier among them.
    await expect
      .poll(
        () => page.locator('#image-output option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value)),
        { timeout: 60_000 },
      )
      .toContain('464_quantized');
    await page.locator('#image-output').selectOption('464_quantized');
    await page.locator('[data-arm="ntp"]').uncheck();
    await page.locator('#epochs').fill('1');
    await page.locator('#bootstrap').fill('200');
    await page.locator('#exp-name').fill('flickr8k-1k e2e');
    await shot('real-new');
    await page.locator('#start').click();
    await page.waitForURL(/#\/experiment\//);
    runId = page.url().split('#/experiment/')[1];
    await page
      .locator('#exp-status')
      .getByText(/done|failed/)
      .waitFor({ timeout: 900_000 });
    expect(
      await page.locator('#exp-status').innerText(),
      (await page.locator('pre.error').allInnerTexts()).join(),
    ).toBe('done');
    expect(await page.locator('[data-table="arms"] tbody tr').count()).toBe(2);
    await shot('real-done');
  }, 1_500_000);

  it('drops a test photo (its own captions ranked) and an image it never saw, with captions from each arm', async () => {
    const { page } = app;
    const config = ExperimentConfig.parse(
      JSON.parse(readFileSync(join(app.home, 'runs', runId, 'config.json'), 'utf8')),
    );
    const { dataset, imagesDir } = openExperimentData(config);
    const test = dataset.images.find((im) => im.split === 'test')!;
    const unseen = join(app.home, 'unseen.png'); // a drawing, not a photo of the dataset
    const c = createCanvas(224, 224),
      g = c.getContext('2d');
    g.fillStyle = '#3a7bd5';
    g.fillRect(0, 0, 224, 224);
    g.fillStyle = '#f5d142';
    g.beginPath();
    g.arc(112, 112, 60, 0, 2 * Math.PI);
    g.fill();
    writeFileSync(unseen, c.toBuffer('image/png'));

    await page.locator('[data-nav="drop"]').click();
    await page.locator('#experiment-picker').selectOption(runId);
    await page.locator('#drop-input').setInputFiles([join(imagesDir, test.file!), unseen]);
    await expect.poll(() => page.locator('#matches [data-image]').count(), { timeout: 300_000 }).toBe(2);
    for (const i of [0, 1]) {
      const arms = page.locator('#matches [data-image]').nth(i).locator('[data-arm-result]');
      expect(await arms.evaluateAll((els) => els.map((e) => e.getAttribute('data-arm-result')))).toEqual([
        'good',
        'bad',
      ]);
      for (const a of await arms.all()) expect(await a.locator('li').count()).toBe(5);
    }
    const own = page.locator('#matches [data-image]').nth(0).locator('[data-own]');
    expect(await own.allInnerTexts()).toEqual(
      Array(2).fill(
        expect.stringMatching(
          new RegExp(
            `^own captions \\(${test.id.replace(/[.]/g, '\\.')}\\) rank (\\d+, ){4}\\d+ of \\d+; the photo ranks \\d+ of \\d+ photos$`,
          ),
        ),
      ),
    );
    expect(await page.locator('#matches [data-image]').nth(1).locator('[data-own]').count()).toBe(0);
    await shot('real-drop');
  });
});
