// The dataset folder every step reads: `<dir>/dataset.json` (shared/dataset.ts) + `<dir>/images/`.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Dataset } from '../../shared/dataset';
import { writeFileAtomic } from '../atomic';
import { readJson, type Warn } from '../json-file';
import { validateDataset } from './validate';

export const DATASET_FILE = 'dataset.json';
export const IMAGES_DIR = 'images';

export const isDatasetDir = (dir: string): boolean => existsSync(join(dir, DATASET_FILE));

export function readDataset(dir: string, warn?: Warn): Dataset {
  const file = join(dir, DATASET_FILE);
  return validateDataset(readJson(file, Dataset, undefined, warn), file);
}

/** Writes dataset.json with one image per line, so that line numbers and diffs point at images. */
export function writeDataset(dir: string, ds: Dataset): void {
  mkdirSync(dir, { recursive: true });
  const { images, ...head } = Dataset.parse(ds);
  const body = images.map((im) => JSON.stringify(im)).join(',\n');
  const text = `${JSON.stringify(head).slice(0, -1)},"images":[\n${body}\n]}\n`;
  writeFileAtomic(join(dir, DATASET_FILE), text);
}
