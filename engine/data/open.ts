// Opens any supported dataset by path: a dataset folder, or a real dataset's own files read into the layout.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Dataset } from '../../shared/dataset';
import { InputError } from '../errors';
import { readCoco } from './coco';
import { readFlickr30k } from './flickr30k';
import { readKarpathy } from './karpathy';
import { checkImages, IMAGES_DIR, isDatasetDir, readDataset } from './layout';
import { isMulti30kDir, readMulti30k } from './multi30k';

export type Format = 'layout' | 'karpathy' | 'flickr30k' | 'multi30k' | 'coco';
export type OpenedDataset = {
  dataset: Dataset;
  format: Format;
  path: string; // what was opened
  imagesDir: string; // where `file` paths resolve (may not exist: captions-only data)
  warnings: string[]; // what was read but may not be what the file meant (bytes that are not UTF-8)
};
export type OpenOptions = { imagesDir?: string; evalCaption?: number };

// Image folders next to real caption files, in the names their downloads use.
const IMAGE_DIR_NAMES = [IMAGES_DIR, 'flickr30k-images', 'flickr30k_images', 'Images', 'val2017', 'train2017'];

function fileFormat(file: string): Format {
  const name = basename(file);
  if (name === 'dataset.json') return 'layout';
  if (/^dataset_.*\.json$/.test(name)) return 'karpathy';
  if (name.endsWith('.token') || name.endsWith('.csv')) return 'flickr30k';
  if (name.endsWith('.json')) return 'coco';
  throw new InputError(`${file}: unknown dataset file (expected dataset.json, dataset_*.json, captions_*.json, *.token or *.csv)`);
}

function dirEntry(dir: string): { file: string; format: Format } {
  if (isDatasetDir(dir)) return { file: join(dir, 'dataset.json'), format: 'layout' };
  const names = readdirSync(dir).sort();
  const karpathy = names.find((n) => /^dataset_.*\.json$/.test(n));
  if (karpathy) return { file: join(dir, karpathy), format: 'karpathy' };
  const flickr = names.find((n) => n === 'results_20130124.token' || n === 'results.csv');
  if (flickr) return { file: join(dir, flickr), format: 'flickr30k' };
  if (isMulti30kDir(dir)) return { file: dir, format: 'multi30k' };
  const coco = names.find((n) => /^captions_.*\.json$/.test(n));
  if (coco) return { file: join(dir, coco), format: 'coco' };
  throw new InputError(`${dir}: no dataset.json, dataset_*.json, results_20130124.token, results.csv, *_images.txt or captions_*.json`);
}

export function openDataset(path: string, { imagesDir, evalCaption }: OpenOptions = {}): OpenedDataset {
  if (!existsSync(path)) throw new InputError(`${path}: no such file or folder`);
  const { file, format } = statSync(path).isDirectory() ? dirEntry(path) : { file: path, format: fileFormat(path) };
  const warnings: string[] = [];
  const opts = { ...(evalCaption === undefined ? {} : { evalCaption }), warn: (m: string) => void warnings.push(m) };
  const dataset =
    format === 'layout' ? readDataset(dirname(file), opts.warn)
    : format === 'karpathy' ? readKarpathy(file, opts)
    : format === 'flickr30k' ? readFlickr30k(file, opts)
    : format === 'multi30k' ? readMulti30k(file, opts)
    : readCoco(file, opts);
  if (format !== 'layout') checkImages(file, dataset);
  const base = format === 'multi30k' ? file : dirname(file);
  const found = IMAGE_DIR_NAMES.map((n) => join(base, n)).find((d) => existsSync(d));
  return { dataset, format, path, warnings, imagesDir: imagesDir ?? (format === 'layout' ? join(base, IMAGES_DIR) : found ?? join(base, IMAGES_DIR)) };
}
