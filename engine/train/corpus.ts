// A dataset tokenised once: every caption's ids (no [CLS]/[SEP], truncated to fit), and the split's photo indices.
import type { Dataset, DatasetImage, Split } from '../../shared/dataset';
import { captionIds, type Tokenizer } from '../text';

export type Corpus = {
  images: Pick<DatasetImage, 'id' | 'split' | 'evalCaption'>[];
  tokens: number[][][]; // [photo][caption] -> ids, at most maxLen − 2 each
  splits: Record<Split, Int32Array>; // photo indices per split, in dataset order
};

export function buildCorpus(ds: Dataset, tk: Tokenizer, maxLen: number): Corpus {
  const tokens = ds.images.map((im) => im.captions.map((c) => captionIds(tk, c.text, maxLen)));
  const splits = { train: [] as number[], val: [] as number[], test: [] as number[] };
  ds.images.forEach((im, i) => splits[im.split].push(i));
  return {
    images: ds.images.map(({ id, split, evalCaption }) => ({ id, split, evalCaption })),
    tokens,
    splits: {
      train: Int32Array.from(splits.train),
      val: Int32Array.from(splits.val),
      test: Int32Array.from(splits.test),
    },
  };
}
