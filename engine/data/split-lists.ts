// Official splits given as lists of image file names, one a line, beside the captions: Flickr8k's
// `Flickr_8k.{train,dev,test}Images.txt` (dev is the val split). Photos in no list are left out and counted,
// as the original Flickr8k.token.txt names 92 photos that are in none of its lists.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { DatasetImage, Split } from '../../shared/dataset';
import { InputError } from '../errors';
import { readText } from '../json-file';

const LISTS: [Split, string][] = [
  ['train', 'trainImages'],
  ['val', 'devImages'],
  ['test', 'testImages'],
];
const listFile = (dir: string, part: string) => join(dir, `Flickr_8k.${part}.txt`);

export const hasSplitLists = (dir: string): boolean => LISTS.some(([, p]) => existsSync(listFile(dir, p)));

/** Sets each photo's split from the lists; returns the photos kept and what was used. */
export function applySplitLists(
  dir: string,
  images: DatasetImage[],
): { images: DatasetImage[]; params: Record<string, unknown> } {
  const splitOf = new Map<string, { split: Split; where: string }>();
  const used: string[] = [];
  for (const [split, part] of LISTS) {
    const f = listFile(dir, part);
    if (!existsSync(f)) throw new InputError(`${dir}: has some Flickr_8k.*Images.txt split lists but not ${f}`);
    used.push(`Flickr_8k.${part}.txt`);
    readText(f)
      .split(/\r?\n/)
      .forEach((raw, i) => {
        const name = raw.trim();
        if (!name) return;
        const prev = splitOf.get(name);
        if (prev) throw new InputError(`${f}:${i + 1}: ${name} is already listed in ${prev.where}`);
        splitOf.set(name, { split, where: `${f}:${i + 1}` });
      });
  }
  const kept = images.flatMap((im) => {
    const s = im.file && splitOf.get(im.file);
    return s ? [{ ...im, split: s.split }] : [];
  });
  if (!kept.length)
    throw new InputError(`${dir}: none of the ${images.length} captioned photos is in the Flickr_8k.*Images.txt lists`);
  return { images: kept, params: { split: 'lists', splitLists: used, unlisted: images.length - kept.length } };
}
