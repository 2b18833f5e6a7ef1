import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import {
  inspectDataset,
  openDataset,
  readCoco,
  readDataset,
  readFlickr30k,
  readKarpathy,
  readMulti30k,
  writeDataset,
} from '../../engine/data';
import { inputError } from './input-error';

const FIX = join(import.meta.dirname, 'fixtures');
const tmp = mkdtempSync(join(tmpdir(), 'prh-readers-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('Karpathy JSON', () => {
  it('reads splits (restval -> train), captions in order, caption 0 as evaluation caption', () => {
    const ds = readKarpathy(join(FIX, 'karpathy/dataset_flickr30k.json'));
    expect(ds.images.map((im) => [im.id, im.split, im.captions.length])).toEqual([
      ['100', 'train', 5],
      ['101', 'train', 5],
      ['102', 'val', 5],
      ['103', 'test', 6],
    ]);
    expect(ds.images[0].captions[2].text).toBe('Image 0 caption 2 : a dog runs .');
    expect(ds).toMatchObject({ name: 'flickr30k', source: 'karpathy', params: { evalCaption: 0 } });
    expect(inputError(() => readKarpathy(join(FIX, 'karpathy/dataset_flickr30k.json'), { evalCaption: 5 }))).toMatch(
      /images\[0\] has 5 sentences, no caption 5/,
    );
  });
  it('malformed: syntax error names file, line and column; schema error names file and JSON path', () => {
    expect(inputError(() => readKarpathy(join(FIX, 'karpathy-bad-syntax/dataset_flickr30k.json')))).toMatch(
      /karpathy-bad-syntax\/dataset_flickr30k\.json: invalid JSON at line 4, column 3/,
    );
    expect(inputError(() => readKarpathy(join(FIX, 'karpathy-bad-schema/dataset_coco.json')))).toMatch(
      /dataset_coco\.json: images\[1\]\.sentences: /,
    );
    expect(inputError(() => readKarpathy(join(FIX, 'nope.json')))).toMatch(/nope\.json: cannot read \(ENOENT\)/);
  });
});

describe('Flickr30k own files', () => {
  it("reads results_20130124.token and results.csv (including the Kaggle copy's merged-column row)", () => {
    const tok = readFlickr30k(join(FIX, 'flickr30k-token/results_20130124.token'));
    expect(tok.images).toHaveLength(3);
    expect(tok.images.every((im) => im.captions.length === 5 && im.file === `${im.id}.jpg`)).toBe(true);
    expect(tok.images[0].captions[1].text).toBe('Caption 1 of 1000092795.jpg .');
    const csv = readFlickr30k(join(FIX, 'flickr30k-csv/results.csv'));
    expect(csv.images.map((im) => im.captions.length)).toEqual([5, 5]);
    expect(csv.images[1].captions[4].text).toBe('A dog runs across the grass .');
    expect(csv.images[0].captions[0].text).toBe('Caption 0 of 1000092795.jpg , "quoted" .');
  });
  it('draws a seeded split (no split in the files): val 1,014 / test 1,000 at most 10% each', () => {
    const lines = Array.from({ length: 400 }, (_, i) =>
      Array.from({ length: 5 }, (_, k) => `${i}.jpg#${k}\tcap ${k}`).join('\n'),
    ).join('\n');
    writeFileSync(join(tmp, 'big.token'), lines);
    const a = readFlickr30k(join(tmp, 'big.token'));
    const count = (s: string) => a.images.filter((im) => im.split === s).length;
    expect([count('train'), count('val'), count('test')]).toEqual([320, 40, 40]);
    expect(readFlickr30k(join(tmp, 'big.token')).images.map((im) => im.split)).toEqual(a.images.map((im) => im.split));
  });
  it('malformed: file and line', () => {
    expect(inputError(() => readFlickr30k(join(FIX, 'flickr30k-bad-token/results_20130124.token')))).toMatch(
      /results_20130124\.token:3: expected "<image>#<n><TAB><caption>"/,
    );
    expect(inputError(() => readFlickr30k(join(FIX, 'flickr30k-bad-csv/results.csv')))).toMatch(
      /results\.csv:4: expected 3 columns/,
    );
    writeFileSync(join(tmp, 'dup.token'), 'a.jpg#0\tx\na.jpg#0\ty\n');
    expect(inputError(() => readFlickr30k(join(tmp, 'dup.token')))).toMatch(
      /dup\.token:2: caption a\.jpg#0 repeats line 1/,
    );
    writeFileSync(join(tmp, 'head.csv'), 'image| n| text\n');
    expect(inputError(() => readFlickr30k(join(tmp, 'head.csv')))).toMatch(/head\.csv:1: expected the header/);
  });
});

describe('Multi30k split files', () => {
  const gz = join(tmp, 'multi30k-gz');
  cpSync(join(FIX, 'multi30k'), gz, { recursive: true });
  for (const s of ['train', 'val', 'test_2016'])
    for (let k = 1; k <= 5; k++) {
      const f = join(gz, `${s}.${k}.en`);
      writeFileSync(`${f}.gz`, gzipSync(readFileSync(f)));
      unlinkSync(f);
    }

  it('reads .en.gz (and plain .en) line-aligned with {split}_images.txt; test_2016 is the test split', () => {
    for (const dir of [gz, join(FIX, 'multi30k')]) {
      const ds = readMulti30k(dir);
      expect(ds.images.map((im) => `${im.id}:${im.split}`)).toEqual([
        'a:train',
        'b:train',
        'c:train',
        'd:val',
        'e:val',
        'f:test',
        'g:test',
      ]);
      expect(ds.images[4].captions.map((c) => c.text)).toEqual(
        [1, 2, 3, 4, 5].map((k) => `val caption ${k} of e.jpg .`),
      );
    }
  });
  it('malformed: a caption file with a missing line, an empty caption, a missing file, a broken gzip', () => {
    const bad = join(tmp, 'multi30k-bad');
    cpSync(gz, bad, { recursive: true });
    writeFileSync(join(bad, 'val.3.en.gz'), gzipSync('one line only\n'));
    expect(inputError(() => readMulti30k(bad))).toMatch(
      /val\.3\.en\.gz: 1 lines, expected 2 \(one per line of val_images\.txt\)/,
    );
    writeFileSync(join(bad, 'val.3.en.gz'), gzipSync('first\n \n'));
    expect(inputError(() => readMulti30k(bad))).toMatch(/val\.3\.en\.gz:2: empty caption/);
    writeFileSync(join(bad, 'val.3.en.gz'), 'not gzip');
    expect(inputError(() => readMulti30k(bad))).toMatch(/val\.3\.en\.gz: not a readable gzip file/);
    unlinkSync(join(bad, 'val.3.en.gz'));
    expect(inputError(() => readMulti30k(bad))).toMatch(/val_images\.txt has no caption file val\.3\.en\.gz/);
  });
});

describe('COCO captions', () => {
  it('reads images with their 5-7 captions into one split; images without captions are counted, not kept', () => {
    const ds = readCoco(join(FIX, 'coco/captions_val2017.json'));
    expect(ds.images.map((im) => [im.id, im.captions.length, im.split])).toEqual([
      ['1', 6, 'test'],
      ['2', 5, 'test'],
    ]);
    expect(ds.params).toMatchObject({ withoutCaptions: 1 });
  });
  it('malformed: an annotation of an unknown image names its index', () => {
    expect(inputError(() => readCoco(join(FIX, 'coco-bad/captions_val2017.json')))).toMatch(
      /captions_val2017\.json: annotations\[11\]\.image_id 9 is not in images/,
    );
  });
});

describe('dataset folder and format detection', () => {
  it('round-trips dataset.json (one image per line) and rejects bad files with line or path', () => {
    const ds = readMulti30k(join(FIX, 'multi30k'));
    writeDataset(join(tmp, 'layout'), ds);
    expect(readDataset(join(tmp, 'layout'))).toEqual({ ...ds, params: ds.params });
    expect(readFileSync(join(tmp, 'layout', 'dataset.json'), 'utf8').split('\n')).toHaveLength(ds.images.length + 3);
    expect(inputError(() => readDataset(join(FIX, 'layout-bad-syntax')))).toMatch(
      /layout-bad-syntax\/dataset\.json: invalid JSON at line 3/,
    );
    expect(inputError(() => readDataset(join(FIX, 'layout-bad-schema')))).toMatch(
      /dataset\.json: images\[1\]\.split: .*; images\[1\]\.captions: /,
    );
    const im1 = ds.images[1];
    writeDataset(join(tmp, 'layout-eval'), {
      ...ds,
      images: ds.images.map((im) => (im === im1 ? { ...im, evalCaption: im.captions.length } : im)),
    });
    expect(inputError(() => readDataset(join(tmp, 'layout-eval')))).toMatch(
      new RegExp(
        `dataset\\.json: images\\[1\\]: image ${im1.id} has evalCaption ${im1.captions.length} but ${im1.captions.length} captions`,
      ),
    );
  });
  it('openDataset finds each format from a folder or a file; inspect reports a captions-only dataset without crashing', () => {
    expect(openDataset(join(FIX, 'karpathy')).format).toBe('karpathy');
    expect(openDataset(join(FIX, 'flickr30k-token')).format).toBe('flickr30k');
    expect(openDataset(join(FIX, 'flickr30k-csv', 'results.csv')).format).toBe('flickr30k');
    expect(openDataset(join(FIX, 'multi30k')).format).toBe('multi30k');
    expect(openDataset(join(FIX, 'coco')).format).toBe('coco');
    expect(openDataset(join(tmp, 'layout')).format).toBe('layout');
    expect(inputError(() => openDataset(join(FIX, 'nothing-here')))).toMatch(/no such file or folder/);
    expect(inputError(() => openDataset(FIX))).toMatch(/fixtures: no dataset here \(looked for dataset\.json, /);
    const r = inspectDataset(openDataset(join(FIX, 'flickr30k-token')));
    expect(r).toMatchObject({
      images: 3,
      captions: 15,
      files: { present: false, missing: 3 },
      duplicates: { withinImage: 0, acrossImages: 1 },
    });
    expect(r.duplicates.examples[0]).toMatch(/^"a child in a pink dress"/);
  });
});

// The real captions at hand (not in a user's clone): ../shared/data relative to the repository root.
const SHARED = resolve(import.meta.dirname, '..', '..', '..', 'shared', 'data');
const flickr = join(SHARED, 'flickr30k-captions'),
  coco = join(SHARED, 'coco', 'captions_val2017.json');
if (!existsSync(flickr)) console.log(`skipping shared-data reader tests: ${flickr} is absent`);
describe.skipIf(!existsSync(flickr))('../shared/data (real Flickr30k and COCO captions)', () => {
  it('Flickr30k (Multi30k files): 29,000 / 1,014 / 1,000 images x 5 captions', () => {
    const opened = openDataset(flickr);
    expect(opened.format).toBe('multi30k');
    const r = inspectDataset(opened);
    expect(r.splits).toEqual({ train: 29000, val: 1014, test: 1000 });
    expect(r).toMatchObject({
      images: 31014,
      captions: 155070,
      captionsPerImage: { 5: 31014 },
      files: { present: false },
    });
    expect(opened.dataset.images[0]).toMatchObject({
      id: '1000092795',
      file: '1000092795.jpg',
      split: 'train',
      evalCaption: 0,
    });
    expect(opened.dataset.images[0].captions[0].text).toBe(
      'Two young guys with shaggy hair look at their hands while hanging out in the yard.',
    );
  });
  it.skipIf(!existsSync(coco))('COCO val2017 captions: 5,000 images, 25,014 captions', () => {
    const ds = readCoco(coco);
    expect(ds.images).toHaveLength(5000);
    expect(ds.images.reduce((a, im) => a + im.captions.length, 0)).toBe(25014);
  });
});
