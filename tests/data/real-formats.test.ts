// Flickr8k's three layouts, plain caption tables, the seeded and listed splits, the one image-file check, and
// `prh data import`, on the committed fixtures (tests/data/fixtures/make-flickr8k.mjs) and malformed copies.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  checkImageFiles,
  importDataset,
  inspectDataset,
  openDataset,
  readCaptionTable,
  readDataset,
  readFlickr8k,
  seededSplit,
} from '../../engine/data';
import { inputError } from './input-error';

const FIX = join(import.meta.dirname, 'fixtures');
const tmp = mkdtempSync(join(tmpdir(), 'prh-real-formats-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const files = (ids: { file: string | null }[]) => ids.map((im) => im.file);
const PHOTOS = Array.from({ length: 12 }, (_, i) => `${1000 + i}_f8k.jpg`);

describe('Flickr8k, three layouts', () => {
  it('Kaggle captions.txt (CSV image,caption, quoted commas and quotes) with images/ beside it; seeded split', () => {
    const o = openDataset(join(FIX, 'flickr8k-kaggle'));
    expect(o).toMatchObject({ format: 'table', imagesDir: join(FIX, 'flickr8k-kaggle', 'images') });
    expect(o.dataset.name).toBe('flickr8k-kaggle');
    expect(files(o.dataset.images)).toEqual(PHOTOS);
    expect(o.dataset.images[0].captions.map((c) => c.text)).toEqual([
      'A red square on white .',
      'A small red box , seen from above .',
      'The "red" shape sits in the middle .',
      'Photo 0 : one red block .',
      'Something red against a white wall .',
    ]);
    expect(o.dataset.params).toMatchObject({ split: 'seeded', splitSeed: 0, val: 1, test: 1 });
    const r = inspectDataset(o);
    expect(r).toMatchObject({
      images: 12,
      captions: 60,
      files: { present: true, listed: 12, missing: 0, unreadable: 0 },
    });
  });
  it('original Flickr8k.token.txt split by Flickr_8k.{train,dev,test}Images.txt; a photo in no list is left out and counted', () => {
    const o = openDataset(join(FIX, 'flickr8k-token'));
    expect(o.format).toBe('flickr8k');
    expect(o.dataset.images.map((im) => im.split)).toEqual([...Array(8).fill('train'), 'val', 'val', 'test', 'test']);
    expect(o.dataset.params).toMatchObject({ split: 'lists', unlisted: 1 });
    expect(o.dataset.images[3].captions[2].text).toBe('The "yellow" shape sits in the middle .');
    // the same photos through the token file alone (lists removed): a seeded split of all 13
    const bare = join(tmp, 'token-bare');
    mkdirSync(bare);
    cpSync(join(FIX, 'flickr8k-token', 'Flickr8k.token.txt'), join(bare, 'Flickr8k.token.txt'));
    expect(readFlickr8k(join(bare, 'Flickr8k.token.txt')).images).toHaveLength(13);
    // lists found beside a Kaggle captions.txt too
    const kaggleLists = join(tmp, 'kaggle-lists');
    cpSync(join(FIX, 'flickr8k-kaggle', 'captions.txt'), join(kaggleLists, 'captions.txt'));
    for (const f of readdirSync(join(FIX, 'flickr8k-token')).filter((f) => f.startsWith('Flickr_8k.')))
      cpSync(join(FIX, 'flickr8k-token', f), join(kaggleLists, f));
    expect(openDataset(kaggleLists).dataset.images.map((im) => im.split)).toEqual(
      o.dataset.images.map((im) => im.split),
    );
  });
  it("Karpathy's dataset_flickr8k.json: its split", () => {
    const o = openDataset(join(FIX, 'flickr8k-karpathy', 'dataset_flickr8k.json'), {
      imagesDir: join(FIX, 'flickr8k-kaggle', 'images'),
    });
    expect(o.format).toBe('karpathy');
    expect(o.dataset.images.map((im) => im.split)).toEqual([...Array(8).fill('train'), 'val', 'val', 'test', 'test']);
    expect(o.imagesDir).toBe(join(FIX, 'flickr8k-kaggle', 'images'));
  });
  it('malformed: a broken row names file:line', () => {
    expect(inputError(() => openDataset(join(FIX, 'flickr8k-bad-csv')))).toMatch(
      /flickr8k-bad-csv\/captions\.txt:3: 3 columns, the header has 2/,
    );
    expect(inputError(() => openDataset(join(FIX, 'flickr8k-bad-token')))).toMatch(
      /Flickr8k\.token\.txt:3: expected "<image>#<n><TAB><caption>"/,
    );
    const dir = join(tmp, 'bad-lists');
    cpSync(join(FIX, 'flickr8k-token'), dir, { recursive: true });
    writeFileSync(join(dir, 'Flickr_8k.testImages.txt'), `${PHOTOS[10]}\n${PHOTOS[0]}\n`);
    expect(inputError(() => openDataset(dir))).toMatch(
      /Flickr_8k\.testImages\.txt:2: 1000_f8k\.jpg is already listed in .*Flickr_8k\.trainImages\.txt:1/,
    );
    unlinkSync(join(dir, 'Flickr_8k.devImages.txt'));
    expect(inputError(() => openDataset(dir))).toMatch(
      /has some Flickr_8k\.\*Images\.txt split lists but not .*Flickr_8k\.devImages\.txt/,
    );
  });
});

describe('caption tables', () => {
  it('JSON Lines with caption or captions and a split column (dev -> val)', () => {
    const ds = readCaptionTable(join(FIX, 'table-jsonl', 'captions.jsonl'));
    expect(ds.images.map((im) => [im.file, im.split, im.captions.length])).toEqual([
      [PHOTOS[0], 'train', 5],
      [PHOTOS[1], 'train', 5],
      [PHOTOS[2], 'train', 5],
      [PHOTOS[3], 'val', 5],
      [PHOTOS[4], 'val', 5],
    ]);
    expect(ds.params).toMatchObject({ split: 'column' });
  });
  it('malformed: syntax and schema errors name file:line; a header without image/caption columns; a split on some rows only', () => {
    expect(inputError(() => openDataset(join(FIX, 'table-bad-jsonl')))).toMatch(
      /table-bad-jsonl\/captions\.jsonl:2: invalid JSON at column 48/,
    );
    writeFileSync(
      join(tmp, 'schema.jsonl'),
      '{"image": "a.jpg", "caption": "x"}\n\n{"file": "b.jpg", "caption": "y"}\n',
    );
    expect(inputError(() => readCaptionTable(join(tmp, 'schema.jsonl')))).toMatch(/schema\.jsonl:3: .*needs "image"/);
    writeFileSync(join(tmp, 'head.csv'), 'photo,text\na.jpg,x\n');
    expect(inputError(() => openDataset(join(tmp, 'head.csv')))).toMatch(/head\.csv:1: not a caption table/);
    writeFileSync(join(tmp, 'partial.csv'), 'image,caption,split\na.jpg,x,train\nb.jpg,y,\n');
    expect(inputError(() => readCaptionTable(join(tmp, 'partial.csv')))).toMatch(
      /partial\.csv:3: no split, while other rows give one/,
    );
    writeFileSync(join(tmp, 'badsplit.csv'), 'image,caption,split\na.jpg,x,holdout\n');
    expect(inputError(() => readCaptionTable(join(tmp, 'badsplit.csv')))).toMatch(
      /badsplit\.csv:2: split 'holdout' is not train, val or test/,
    );
    writeFileSync(join(tmp, 'empty.csv'), 'image,caption\na.jpg, \n');
    expect(inputError(() => readCaptionTable(join(tmp, 'empty.csv')))).toMatch(/empty\.csv:2: empty caption/);
  });
});

describe('the seeded split', () => {
  it('defaults to min(1,014, 10%) val and min(1,000, 10%) test; given sizes are taken; same options, same split', () => {
    const count = (s: string[], x: string) => s.filter((v) => v === x).length;
    const a = seededSplit(20_000, 'x').split;
    expect([count(a, 'train'), count(a, 'val'), count(a, 'test')]).toEqual([17_986, 1014, 1000]);
    const b = seededSplit(1000, 'x', { seed: 3, val: 300, test: 200 }).split;
    expect([count(b, 'val'), count(b, 'test')]).toEqual([300, 200]);
    expect(seededSplit(1000, 'x', { seed: 3, val: 300, test: 200 }).split).toEqual(b);
    expect(seededSplit(1000, 'x', { seed: 4, val: 300, test: 200 }).split).not.toEqual(b);
    expect(inputError(() => seededSplit(10, 'f.csv', { val: 5, test: 5 }))).toMatch(
      /f\.csv: 10 photos cannot hold 5 val \+ 5 test photos/,
    );
  });
});

describe('image files', () => {
  it('missing photos: the count and the first five names; a folder matching none of the captions says so; no folder', () => {
    const dir = join(tmp, 'missing');
    cpSync(join(FIX, 'flickr8k-kaggle'), dir, { recursive: true });
    for (const f of PHOTOS.slice(2, 9)) unlinkSync(join(dir, 'images', f));
    const o = openDataset(dir);
    expect(inputError(() => checkImageFiles(o, o.dataset.images, 'test'))).toMatch(
      /images: 7 of the 12 photos named in .*captions\.txt are missing: 1002_f8k\.jpg, 1003_f8k\.jpg, 1004_f8k\.jpg, 1005_f8k\.jpg, 1006_f8k\.jpg, \.\.\.; test$/,
    );
    const other = join(tmp, 'other');
    mkdirSync(join(other, 'images'), { recursive: true });
    cpSync(join(FIX, 'flickr8k-kaggle', 'captions.txt'), join(other, 'captions.txt'));
    cpSync(join(FIX, 'flickr8k-kaggle', 'images', PHOTOS[0]), join(other, 'images', 'holiday.jpg'));
    const o2 = openDataset(other);
    expect(inputError(() => checkImageFiles(o2, o2.dataset.images, 'test'))).toMatch(
      /images: none of the 12 photos named in .*captions\.txt is in this folder \(the captions name 1000_f8k\.jpg, .*, \.\.\.; the folder holds 1 image file\(s\): holiday\.jpg\)/,
    );
    const o3 = openDataset(join(FIX, 'flickr8k-token'));
    expect(inputError(() => checkImageFiles(o3, o3.dataset.images, 'test'))).toMatch(
      /image folder .*flickr8k-token\/images does not exist .*--images DIR/,
    );
    expect(inputError(() => openDataset(join(FIX, 'flickr8k-token'), { imagesDir: join(tmp, 'nope') }))).toMatch(
      /--images .*nope: no such folder/,
    );
  });
});

describe('COCO with its images', () => {
  const photo = join(FIX, 'flickr8k-kaggle', 'images', PHOTOS[0]);
  it('captions_val2017.json + val2017/: the folder is found, a seeded split drawn, the photos checked', () => {
    const dir = join(tmp, 'coco');
    cpSync(join(FIX, 'coco'), dir, { recursive: true });
    mkdirSync(join(dir, 'val2017'));
    for (const f of ['000000000001.jpg', '000000000002.jpg']) cpSync(photo, join(dir, 'val2017', f));
    const o = openDataset(dir);
    expect(o).toMatchObject({ format: 'coco', imagesDir: join(dir, 'val2017') });
    expect(o.dataset.params).toMatchObject({ split: 'seeded', withoutCaptions: 1 });
    expect(() => checkImageFiles(o, o.dataset.images, 'test')).not.toThrow();
  });
  it('a COCO download as it unpacks (annotations/captions_*.json beside val2017/), the folder given: the split whose photos are there', () => {
    const dir = join(tmp, 'coco-download');
    mkdirSync(join(dir, 'annotations'), { recursive: true });
    cpSync(join(FIX, 'coco', 'captions_val2017.json'), join(dir, 'annotations', 'captions_val2017.json'));
    cpSync(join(FIX, 'coco', 'captions_val2017.json'), join(dir, 'annotations', 'captions_train2017.json'));
    writeFileSync(join(dir, 'annotations', 'instances_val2017.json'), '{}');
    mkdirSync(join(dir, 'val2017'));
    for (const f of ['000000000001.jpg', '000000000002.jpg']) cpSync(photo, join(dir, 'val2017', f));
    const o = openDataset(dir); // before: "no dataset here"
    expect(o).toMatchObject({
      format: 'coco',
      file: join(dir, 'annotations', 'captions_val2017.json'),
      imagesDir: join(dir, 'val2017'),
    });
    expect(() => checkImageFiles(o, o.dataset.images, 'test')).not.toThrow();
  });
  it("Karpathy's dataset_coco.json: filepath/filename resolve under the folder holding val2014/ and train2014/", () => {
    const dir = join(tmp, 'karpathy-coco');
    mkdirSync(join(dir, 'val2014'), { recursive: true });
    mkdirSync(join(dir, 'train2014'));
    const im = (i: number, folder: string, split: string) => ({
      filepath: folder,
      filename: `COCO_${folder}_${i}.jpg`,
      split,
      sentences: [{ raw: `photo ${i} .` }],
    });
    const images = [
      im(1, 'train2014', 'train'),
      im(2, 'val2014', 'restval'),
      im(3, 'val2014', 'val'),
      im(4, 'val2014', 'test'),
    ];
    writeFileSync(join(dir, 'dataset_coco.json'), JSON.stringify({ dataset: 'coco', images }));
    for (const x of images) cpSync(photo, join(dir, x.filepath, x.filename));
    const o = openDataset(dir);
    expect(o.imagesDir).toBe(dir);
    expect(o.dataset.images.map((i) => [i.file, i.split])).toEqual([
      ['train2014/COCO_train2014_1.jpg', 'train'],
      ['val2014/COCO_val2014_2.jpg', 'train'],
      ['val2014/COCO_val2014_3.jpg', 'val'],
      ['val2014/COCO_val2014_4.jpg', 'test'],
    ]);
    expect(() => checkImageFiles(o, o.dataset.images, 'test')).not.toThrow();
  });
});

describe('prh data import', () => {
  it('writes the layout (dataset.json + images/) that reads back as the same dataset, split frozen', () => {
    const out = join(tmp, 'imported');
    const o = openDataset(join(FIX, 'flickr8k-token'), { imagesDir: join(FIX, 'flickr8k-kaggle', 'images') });
    expect(importDataset(o, out)).toEqual({ images: 12, copied: 12 });
    const back = readDataset(out);
    expect(back.images).toEqual(o.dataset.images);
    expect(back.params).toMatchObject({ split: 'lists', format: 'flickr8k' });
    expect(readdirSync(join(out, 'images')).sort()).toEqual(PHOTOS);
    expect(inputError(() => importDataset(o, out))).toMatch(/dataset\.json: exists \(--force replaces it\)/);
    expect(inputError(() => importDataset(openDataset(join(FIX, 'flickr8k-token')), join(tmp, 'imp2')))).toMatch(
      /does not exist .*--no-images writes the captions only/,
    );
    importDataset(openDataset(join(FIX, 'flickr8k-token')), join(tmp, 'imp3'), { images: false });
    expect(existsSync(join(tmp, 'imp3', 'images'))).toBe(false);
    expect(readDataset(join(tmp, 'imp3')).images).toHaveLength(12);
  });
});
