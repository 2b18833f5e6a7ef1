// What a run trains on, recorded when it starts (`<run>/data-fingerprint.json`) and compared when it resumes: a
// resume after the captions, the split, the photos or the tokenizer changed would train its last epochs on other
// data than its first (with the tokenizer of the old captions) and end `done` with a number that means nothing.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { writeJsonAtomic } from '../atomic';
import type { OpenedDataset } from './open';

export const FINGERPRINT_FILE = 'data-fingerprint.json';

// One row per photo: [id, split, the first 16 hex of the sha256 of its captions (and which one is evaluated),
// the bytes of its image file (null: no file, or not there)].
const PhotoRow = z.tuple([z.string(), z.string(), z.string(), z.number().nullable()]);
export const DataFingerprint = z.object({
  version: z.literal(1),
  data: z.string(), // the dataset's path, resolved
  format: z.string(),
  captionFile: z.string(), // the caption file read (a folder for Multi30k)
  imagesDir: z.string(), // where the photos were found
  tokenizer: z.object({ file: z.string(), sha256: z.string() }).nullable(), // a given tokenizer.json
  photos: z.array(PhotoRow),
});
export type DataFingerprint = z.infer<typeof DataFingerprint>;

const hex = (s: string | Uint8Array) => createHash('sha256').update(s).digest('hex');
const fileBytes = (path: string): number | null => {
  try {
    return statSync(path).size;
  } catch {
    return null;
  }
};

export function fingerprint(opened: OpenedDataset, tokenizer?: string): DataFingerprint {
  const { dataset, imagesDir } = opened;
  return {
    version: 1,
    data: resolve(opened.path),
    format: opened.format,
    captionFile: resolve(opened.file),
    imagesDir: resolve(imagesDir),
    tokenizer: tokenizer ? { file: resolve(tokenizer), sha256: hex(readFileSync(tokenizer)) } : null,
    photos: dataset.images.map((im) => [
      im.id,
      im.split,
      hex(JSON.stringify([im.captions.map((c) => c.text), im.evalCaption])).slice(0, 16),
      im.file === null ? null : fileBytes(join(imagesDir, im.file)),
    ]),
  };
}

export const writeFingerprint = (runDir: string, f: DataFingerprint): void =>
  writeJsonAtomic(join(runDir, FINGERPRINT_FILE), f);

// The run's recorded fingerprint, or null for a run started before runs recorded one (or one that has no data).
export function readFingerprint(runDir: string): DataFingerprint | null {
  const file = join(runDir, FINGERPRINT_FILE);
  if (!existsSync(file)) return null;
  const parsed = DataFingerprint.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  return parsed.success ? parsed.data : null;
}

const examples = (ids: string[]) => `${ids.slice(0, 3).join(', ')}${ids.length > 3 ? ', …' : ''}`;
const counted = (n: number, what: string, ids: string[]) => `${n} ${what} (${examples(ids)})`;

// What differs between the data a run started on and the data now, in words; [] when nothing does.
export function fingerprintChanges(was: DataFingerprint, now: DataFingerprint): string[] {
  const out: string[] = [];
  if (was.data !== now.data) out.push(`the dataset is now ${now.data} (was ${was.data})`);
  if (was.captionFile !== now.captionFile || was.format !== now.format)
    out.push(`the captions are read from ${now.captionFile} (${now.format}; was ${was.captionFile}, ${was.format})`);
  if (was.imagesDir !== now.imagesDir) out.push(`the photos are found in ${now.imagesDir} (was ${was.imagesDir})`);
  if (JSON.stringify(was.tokenizer) !== JSON.stringify(now.tokenizer))
    out.push(`the tokenizer ${now.tokenizer?.file ?? was.tokenizer?.file} changed`);
  const before = new Map(was.photos.map((r) => [r[0], r]));
  const after = new Map(now.photos.map((r) => [r[0], r]));
  const ids = (test: (a: z.infer<typeof PhotoRow>, b: z.infer<typeof PhotoRow>) => boolean) =>
    [...after.values()].filter((b) => before.has(b[0]) && test(before.get(b[0])!, b)).map((r) => r[0]);
  const added = [...after.keys()].filter((id) => !before.has(id));
  const removed = [...before.keys()].filter((id) => !after.has(id));
  const captions = ids((a, b) => a[2] !== b[2]);
  const split = ids((a, b) => a[1] !== b[1]);
  const files = ids((a, b) => a[3] !== b[3]);
  if (added.length) out.push(counted(added.length, 'photo(s) added', added));
  if (removed.length) out.push(counted(removed.length, 'photo(s) removed', removed));
  if (captions.length) out.push(counted(captions.length, 'photo(s) with other captions', captions));
  if (split.length) out.push(counted(split.length, 'photo(s) in another split', split));
  if (files.length) out.push(counted(files.length, 'image file(s) of another size or gone', files));
  return out;
}
