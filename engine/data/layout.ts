// The dataset folder every step reads: `<dir>/dataset.json` (shared/dataset.ts) + `<dir>/images/`.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Dataset } from '../../shared/dataset';
import { InputError } from '../errors';
import { readJson, type Warn } from '../json-file';

export const DATASET_FILE = 'dataset.json';
export const IMAGES_DIR = 'images';

export const isDatasetDir = (dir: string): boolean => existsSync(join(dir, DATASET_FILE));

export function readDataset(dir: string, warn?: Warn): Dataset {
  const file = join(dir, DATASET_FILE);
  const ds = readJson(file, Dataset, undefined, warn);
  checkImages(file, ds);
  return ds;
}

// What the schema does not say: ids are unique (image and caption rows pair by id), every caption has a word,
// and the evaluation caption exists. `where`: the file read, for the message.
export function checkImages(where: string, ds: Dataset): void {
  const first = new Map<string, number>();
  ds.images.forEach((im, i) => {
    const j = first.get(im.id);
    if (j !== undefined) throw new InputError(`${where}: images[${i}] has the id '${im.id}' of images[${j}]; image ids must be unique (image and caption rows pair by id)`);
    first.set(im.id, i);
    const blank = im.captions.findIndex((c) => !c.text.trim());
    if (blank >= 0) throw new InputError(`${where}: images[${i}] (${im.id}) caption ${blank} is blank (${JSON.stringify(im.captions[blank].text)})`);
    if (im.evalCaption >= im.captions.length) throw new InputError(`${where}: image ${im.id} has evalCaption ${im.evalCaption} but ${im.captions.length} captions`);
  });
}

/** Writes dataset.json with one image per line, so that line numbers and diffs point at images. */
export function writeDataset(dir: string, ds: Dataset): void {
  mkdirSync(dir, { recursive: true });
  const { images, ...head } = Dataset.parse(ds);
  const body = images.map((im) => JSON.stringify(im)).join(',\n');
  const text = `${JSON.stringify(head).slice(0, -1)},"images":[\n${body}\n]}\n`;
  writeFileSync(join(dir, DATASET_FILE), text);
}
