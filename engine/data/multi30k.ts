// Multi30k-style split files: `{split}_images.txt` (one image file name a line) and `{split}.{1..5}.en[.gz]`,
// caption k of image i on line i of file k. Images are optional.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Dataset, DatasetImage, Split } from '../../shared/dataset';
import { InputError } from '../errors';
import { decodeUtf8, readText, type Warn } from '../json-file';

// Split file prefixes, first match wins; Multi30k's other test sets (2017, 2018, mscoco) are not Flickr30k's test.
const SPLITS: [Split, string[]][] = [
  ['train', ['train']],
  ['val', ['val']],
  ['test', ['test_2016_flickr', 'test_2016', 'test']],
];
const CAPTIONS_PER_IMAGE = 5;

export const isMulti30kDir = (dir: string): boolean => readdirSync(dir).some((f) => f.endsWith('_images.txt'));

function lines(file: string, text: string): string[] {
  const ls = text.split(/\r?\n/);
  if (ls.at(-1) === '') ls.pop();
  return ls;
}

function captionFile(dir: string, prefix: string, k: number, warn?: Warn): { file: string; lines: string[] } {
  const gz = join(dir, `${prefix}.${k}.en.gz`),
    plain = join(dir, `${prefix}.${k}.en`);
  if (existsSync(gz)) {
    let bytes: Buffer;
    try {
      bytes = gunzipSync(readFileSync(gz));
    } catch (e) {
      throw new InputError(`${gz}: not a readable gzip file (${(e as Error).message})`);
    }
    return { file: gz, lines: lines(gz, decodeUtf8(gz, bytes, warn)) };
  }
  if (existsSync(plain)) return { file: plain, lines: lines(plain, readText(plain, warn)) };
  throw new InputError(`${dir}: ${prefix}_images.txt has no caption file ${prefix}.${k}.en.gz`);
}

export function readMulti30k(
  dir: string,
  { evalCaption = 0, warn }: { evalCaption?: number; warn?: Warn } = {},
): Dataset {
  if (evalCaption >= CAPTIONS_PER_IMAGE)
    throw new InputError(`evalCaption ${evalCaption}: Multi30k has ${CAPTIONS_PER_IMAGE} captions per image`);
  const images: DatasetImage[] = [];
  const used: Record<string, string> = {};
  for (const [split, prefixes] of SPLITS) {
    const prefix = prefixes.find((p) => existsSync(join(dir, `${p}_images.txt`)));
    if (!prefix) continue;
    used[split] = prefix;
    const listFile = join(dir, `${prefix}_images.txt`);
    const names = lines(listFile, readText(listFile, warn));
    names.forEach((n, i) => {
      if (!n.trim()) throw new InputError(`${listFile}:${i + 1}: empty image name`);
    });
    const files = Array.from({ length: CAPTIONS_PER_IMAGE }, (_, k) => captionFile(dir, prefix, k + 1, warn));
    for (const f of files) {
      if (f.lines.length !== names.length)
        throw new InputError(
          `${f.file}: ${f.lines.length} lines, expected ${names.length} (one per line of ${basename(listFile)})`,
        );
      const blank = f.lines.findIndex((l) => !l.trim());
      if (blank >= 0) throw new InputError(`${f.file}:${blank + 1}: empty caption`);
    }
    names.forEach((name, i) =>
      images.push({
        id: name.trim().replace(/\.[^.]+$/, ''),
        split,
        file: name.trim(),
        captions: files.map((f) => ({ text: f.lines[i].trim() })),
        evalCaption,
      }),
    );
  }
  if (!images.length) throw new InputError(`${dir}: no train/val/test_2016 _images.txt split files`);
  return {
    version: 1,
    name: basename(dir),
    source: 'multi30k',
    params: { dir: basename(dir), splitFiles: used, evalCaption },
    images,
  };
}
