// The dataset folder every step reads: `<dir>/dataset.json` (shared/dataset.ts) + `<dir>/images/`.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Dataset } from '../../shared/dataset';
import { InputError } from '../errors';
import { readJson } from '../json-file';

export const DATASET_FILE = 'dataset.json';
export const IMAGES_DIR = 'images';

export const isDatasetDir = (dir: string): boolean => existsSync(join(dir, DATASET_FILE));

export function readDataset(dir: string): Dataset {
  const file = join(dir, DATASET_FILE);
  const ds = readJson(file, Dataset);
  for (const im of ds.images)
    if (im.evalCaption >= im.captions.length) throw new InputError(`${file}: image ${im.id} has evalCaption ${im.evalCaption} but ${im.captions.length} captions`);
  return ds;
}

/** Writes dataset.json with one image per line, so that line numbers and diffs point at images. */
export function writeDataset(dir: string, ds: Dataset): void {
  mkdirSync(dir, { recursive: true });
  const { images, ...head } = Dataset.parse(ds);
  const body = images.map((im) => JSON.stringify(im)).join(',\n');
  const text = `${JSON.stringify(head).slice(0, -1)},"images":[\n${body}\n]}\n`;
  writeFileSync(join(dir, DATASET_FILE), text);
}
