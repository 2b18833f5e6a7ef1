// A dataset tokenised once: every caption's ids (no [CLS]/[SEP], truncated to fit), and the split's photo indices.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Dataset, type DatasetImage, type Split } from '../../shared/dataset';
import { InputError } from '../errors';
import { captionIds, type Tokenizer } from '../text';

export type Corpus = {
  images: Pick<DatasetImage, 'id' | 'split' | 'evalCaption'>[];
  tokens: number[][][]; // [photo][caption] -> ids, at most maxLen − 2 each
  splits: Record<Split, Int32Array>; // photo indices per split, in dataset order
};

export function readDataset(dir: string): Dataset {
  const file = join(dir, 'dataset.json');
  if (!existsSync(file)) throw new InputError(`${dir}: no dataset.json (expected the layout of shared/dataset.ts)`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new InputError(`${file}: not valid JSON (${(err as Error).message})`);
  }
  const ds = Dataset.safeParse(raw);
  if (!ds.success) {
    const i = ds.error.issues[0];
    throw new InputError(`${file}: ${i.path.join('.')}: ${i.message}`);
  }
  for (const im of ds.data.images)
    if (im.evalCaption >= im.captions.length) throw new InputError(`${file}: image ${im.id} has evalCaption ${im.evalCaption} but ${im.captions.length} captions`);
  return ds.data;
}

export function buildCorpus(ds: Dataset, tk: Tokenizer, maxLen: number): Corpus {
  const tokens = ds.images.map((im) => im.captions.map((c) => captionIds(tk, c.text, maxLen)));
  const splits = { train: [] as number[], val: [] as number[], test: [] as number[] };
  ds.images.forEach((im, i) => splits[im.split].push(i));
  return {
    images: ds.images.map(({ id, split, evalCaption }) => ({ id, split, evalCaption })),
    tokens,
    splits: { train: Int32Array.from(splits.train), val: Int32Array.from(splits.val), test: Int32Array.from(splits.test) },
  };
}
