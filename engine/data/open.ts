// Opens any supported dataset by path, for every command and screen (train, experiment, embed, inspect, import,
// the GUI's dataset picker and the image drop's caption pool): a dataset folder, or a real dataset's own files
// (by folder or by file) read into the layout and validated the one way (validate.ts).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Dataset } from '../../shared/dataset';
import { InputError } from '../errors';
import { readText } from '../json-file';
import { isCaptionCsv, readCaptionTable } from './caption-table';
import { readCoco } from './coco';
import { readFlickr30k } from './flickr30k';
import { readFlickr8k } from './flickr8k';
import { readKarpathy } from './karpathy';
import { DATASET_FILE, IMAGES_DIR, isDatasetDir, readDataset } from './layout';
import { isMulti30kDir, readMulti30k } from './multi30k';
import type { SplitOptions } from './split';
import { validateDataset } from './validate';

export type Format = 'layout' | 'karpathy' | 'flickr30k' | 'flickr8k' | 'multi30k' | 'coco' | 'table';
export type OpenedDataset = {
  dataset: Dataset;
  format: Format;
  path: string; // what was opened
  file: string; // the caption file read (the folder, for Multi30k)
  imagesDir: string; // where `file` paths resolve (may not exist: captions-only data)
  warnings: string[]; // what was read but may not be what the file meant (bytes that are not UTF-8)
};
export type OpenOptions = {
  imagesDir?: string; // the image folder, when it is not beside the captions
  evalCaption?: number;
  split?: SplitOptions; // for files without a split: the seeded split's seed and held-out sizes
};

// Image folders next to (or one level above) real caption files, in the names their downloads use.
const IMAGE_DIR_NAMES = [
  IMAGES_DIR,
  'Images',
  'flickr30k-images',
  'flickr30k_images',
  'Flicker8k_Dataset',
  'Flickr8k_Dataset/Flicker8k_Dataset',
  'Flickr8k_Dataset',
  'val2017',
  'train2017',
  'val2014',
  'train2014',
];
const FLICKR8K_TOKEN = 'Flickr8k.token.txt';
const KNOWN =
  'dataset.json, dataset_*.json (Karpathy), Flickr8k.token.txt, results_20130124.token, results.csv, *_images.txt (Multi30k), captions_*.json or annotations/captions_*.json (COCO), or an image,caption table (.csv / .txt with a header, .jsonl)';

function fileFormat(file: string): Format {
  const name = basename(file);
  if (name === DATASET_FILE) return 'layout';
  if (/^dataset_.*\.json$/.test(name)) return 'karpathy';
  if (/\.token(\.txt)?$/.test(name) && /^flickr8k/i.test(name)) return 'flickr8k';
  if (name.endsWith('.token')) return 'flickr30k';
  if (name.endsWith('.jsonl')) return 'table';
  if (/\.(csv|txt)$/.test(name)) {
    const text = readText(file);
    if (text.startsWith('image_name|')) return 'flickr30k';
    if (isCaptionCsv(text)) return 'table';
    throw new InputError(
      `${file}:1: not a caption table (its first line must name an image column and a caption column, e.g. "image,caption")`,
    );
  }
  if (name.endsWith('.json')) return 'coco';
  throw new InputError(`${file}: unknown dataset file (expected ${KNOWN})`);
}

function dirEntry(dir: string): { file: string; format: Format } {
  if (isDatasetDir(dir)) return { file: join(dir, DATASET_FILE), format: 'layout' };
  const names = readdirSync(dir).sort();
  const pick = (test: (n: string) => boolean) => names.find(test);
  const karpathy = pick((n) => /^dataset_.*\.json$/.test(n));
  if (karpathy) return { file: join(dir, karpathy), format: 'karpathy' };
  if (names.includes(FLICKR8K_TOKEN)) return { file: join(dir, FLICKR8K_TOKEN), format: 'flickr8k' };
  const flickr = pick((n) => n === 'results_20130124.token' || n === 'results.csv');
  if (flickr) return { file: join(dir, flickr), format: 'flickr30k' };
  if (isMulti30kDir(dir)) return { file: dir, format: 'multi30k' };
  const coco = pick((n) => /^captions_.*\.json$/.test(n));
  if (coco) return { file: join(dir, coco), format: 'coco' };
  const annotations = cocoAnnotations(dir);
  if (annotations) return { file: annotations, format: 'coco' };
  const table = pick((n) => n === 'captions.txt' || n === 'captions.csv' || n === 'captions.jsonl');
  if (table) return { file: join(dir, table), format: 'table' };
  if (names.includes('Flickr8k_text')) return dirEntry(join(dir, 'Flickr8k_text')); // the original Flickr8k download
  throw new InputError(`${dir}: no dataset here (looked for ${KNOWN})`);
}

// COCO as downloaded: annotations/captions_<split>.json beside the image folders <split>/; the captions of a split
// whose photos are there come first (a download of val2017 alone, or both).
function cocoAnnotations(dir: string): string | null {
  const folder = join(dir, 'annotations');
  if (!existsSync(folder) || !statSync(folder).isDirectory()) return null;
  const files = readdirSync(folder)
    .filter((n) => /^captions_.*\.json$/.test(n))
    .sort();
  const withPhotos = files.find((n) => existsSync(join(dir, n.slice('captions_'.length, -'.json'.length))));
  const file = withPhotos ?? files[0];
  return file ? join(folder, file) : null;
}

/** Does this folder hold a dataset openDataset finds (by file names only; nothing is parsed)? */
export function isDatasetFolder(dir: string): boolean {
  try {
    dirEntry(dir);
    return true;
  } catch {
    return false;
  }
}

// The image folder: given, or the layout's images/, or the folder beside or above the captions (the caption
// folder itself, or one in the names downloads use) that holds the first photos named; else the first such folder.
function findImagesDir(base: string, format: Format, ds: Dataset, given?: string): string {
  if (given) {
    if (!existsSync(given) || !statSync(given).isDirectory()) throw new InputError(`--images ${given}: no such folder`);
    return resolve(given);
  }
  if (format === 'layout') return join(base, IMAGES_DIR);
  const dirs = [
    ...IMAGE_DIR_NAMES.map((n) => join(base, n)),
    base,
    ...IMAGE_DIR_NAMES.map((n) => join(dirname(base), n)),
  ].filter((d) => existsSync(d) && statSync(d).isDirectory());
  const probe = ds.images.flatMap((im) => (im.file ? [im.file] : [])).slice(0, 5);
  const holds = dirs.find((d) => probe.some((f) => existsSync(join(d, f))));
  return holds ?? dirs.find((d) => d !== base) ?? join(base, IMAGES_DIR);
}

export function openDataset(path: string, { imagesDir, evalCaption, split }: OpenOptions = {}): OpenedDataset {
  if (!existsSync(path)) throw new InputError(`${path}: no such file or folder`);
  const { file, format } = statSync(path).isDirectory() ? dirEntry(path) : { file: path, format: fileFormat(path) };
  const warnings: string[] = [];
  const warn = (m: string) => void warnings.push(m);
  const opts = { ...(evalCaption === undefined ? {} : { evalCaption }), ...(split ? { split } : {}), warn };
  const dataset =
    format === 'layout'
      ? readDataset(dirname(file), opts.warn)
      : format === 'karpathy'
        ? readKarpathy(file, opts)
        : format === 'flickr30k'
          ? readFlickr30k(file, opts)
          : format === 'flickr8k'
            ? readFlickr8k(file, opts)
            : format === 'multi30k'
              ? readMulti30k(file, opts)
              : format === 'table'
                ? readCaptionTable(file, opts)
                : readCoco(file, { evalCaption, seeded: split ?? {}, warn });
  validateDataset(dataset, file);
  const base = format === 'multi30k' ? file : dirname(file);
  return { dataset, format, path, file, warnings, imagesDir: findImagesDir(base, format, dataset, imagesDir) };
}
