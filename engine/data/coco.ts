// COCO caption annotations (captions_val2017.json): a candidate pool of 5-7 captions per image.
import { basename } from 'node:path';
import { z } from 'zod';
import type { Dataset, DatasetImage, Split } from '../../shared/dataset';
import { InputError } from '../errors';
import { readJson, type Warn } from '../json-file';
import { seededSplit, type SplitOptions } from './split';

const CocoCaptions = z.object({
  images: z.array(z.object({ id: z.number().int(), file_name: z.string().min(1) })),
  annotations: z.array(z.object({ image_id: z.number().int(), caption: z.string() })),
});

// COCO caption files are one split: all images get `split` (default test; a caption pool), or, with `seeded`,
// a seeded train/val/test split (split.ts) so an experiment can run on COCO captions + images. `warn` hears lines
// that are not UTF-8.
export type CocoOptions = { split?: Split; evalCaption?: number; seeded?: SplitOptions; warn?: Warn };

/** Images without any caption are left out (counted in params.withoutCaptions). */
export function readCoco(file: string, { split = 'test', evalCaption = 0, seeded, warn }: CocoOptions = {}): Dataset {
  const j = readJson(file, CocoCaptions, undefined, warn);
  const caps = new Map<number, { text: string }[]>(j.images.map((im) => [im.id, []]));
  j.annotations.forEach((a, i) => {
    const list = caps.get(a.image_id);
    if (!list) throw new InputError(`${file}: annotations[${i}].image_id ${a.image_id} is not in images`);
    if (!a.caption.trim()) throw new InputError(`${file}: annotations[${i}].caption is empty`);
    list.push({ text: a.caption.trim() });
  });
  const images: DatasetImage[] = [];
  for (const im of j.images) {
    const captions = caps.get(im.id)!;
    if (!captions.length) continue;
    if (evalCaption >= captions.length)
      throw new InputError(`${file}: image ${im.id} has ${captions.length} captions, no caption ${evalCaption}`);
    images.push({ id: String(im.id), split, file: im.file_name, captions, evalCaption });
  }
  let splitParams: Record<string, unknown> = { split };
  if (seeded) {
    const s = seededSplit(images.length, file, seeded);
    images.forEach((im, i) => (im.split = s.split[i]));
    splitParams = s.params;
  }
  return {
    version: 1,
    name: basename(file, '.json'),
    source: 'coco',
    params: { file: basename(file), ...splitParams, evalCaption, withoutCaptions: j.images.length - images.length },
    images,
  };
}
