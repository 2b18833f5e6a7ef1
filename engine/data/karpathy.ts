// Karpathy's split files (dataset_flickr30k.json, dataset_coco.json): images with split and sentences.
import { basename } from 'node:path';
import { z } from 'zod';
import type { Dataset, Split } from '../../shared/dataset';
import { InputError } from '../errors';
import { readJson, type Warn } from '../json-file';

const KarpathyJson = z.object({
  dataset: z.string().optional(),
  images: z.array(
    z.object({
      filename: z.string().min(1),
      filepath: z.string().optional(), // COCO: train2014 / val2014
      split: z.enum(['train', 'val', 'test', 'restval']),
      sentences: z.array(z.object({ raw: z.string() })).min(1),
    }),
  ),
});

// evalCaption: which caption of each image is the evaluation caption (default 0); warn: hears lines that are not UTF-8.
export type CaptionChoice = { evalCaption?: number; warn?: Warn };

/** restval (COCO's extra Karpathy training images) is read as train, as Karpathy's own loaders do. */
export function readKarpathy(file: string, { evalCaption = 0, warn }: CaptionChoice = {}): Dataset {
  const j = readJson(file, KarpathyJson, undefined, warn);
  const images = j.images.map((im, i) => {
    const captions = im.sentences.map((s, k) => {
      const text = s.raw.trim();
      if (!text) throw new InputError(`${file}: images[${i}].sentences[${k}].raw is empty`);
      return { text };
    });
    if (evalCaption >= captions.length)
      throw new InputError(`${file}: images[${i}] has ${captions.length} sentences, no caption ${evalCaption}`);
    const split: Split = im.split === 'restval' ? 'train' : im.split;
    const file_ = im.filepath ? `${im.filepath}/${im.filename}` : im.filename;
    return { id: im.filename.replace(/\.[^.]+$/, ''), split, file: file_, captions, evalCaption };
  });
  return {
    version: 1,
    name: j.dataset ?? basename(file, '.json'),
    source: 'karpathy',
    params: { file: basename(file), evalCaption, restval: 'train' },
    images,
  };
}
