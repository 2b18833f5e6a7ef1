// Flickr8k's original caption file `Flickr8k.token.txt` (`IMAGE.jpg#N<TAB>caption`, the Flickr30k token format),
// split by the `Flickr_8k.{train,dev,test}Images.txt` lists beside it when present, else by a seeded split.
// (Kaggle's `captions.txt` is a plain caption table: caption-table.ts; Karpathy's dataset_flickr8k.json: karpathy.ts.)
import { basename, dirname } from 'node:path';
import type { Dataset } from '../../shared/dataset';
import { readText, type Warn } from '../json-file';
import { groupRows } from './caption-rows';
import { tokenRows } from './flickr30k';
import { seededSplit, type SplitOptions } from './split';
import { applySplitLists, hasSplitLists } from './split-lists';

export function readFlickr8k(
  file: string,
  { evalCaption = 0, split: splitOptions, warn }: { evalCaption?: number; split?: SplitOptions; warn?: Warn } = {},
): Dataset {
  const all = groupRows(file, tokenRows(file, readText(file, warn)), evalCaption);
  const params = { file: basename(file), evalCaption };
  if (hasSplitLists(dirname(file))) {
    const listed = applySplitLists(dirname(file), all);
    return {
      version: 1,
      name: 'flickr8k',
      source: 'flickr8k',
      params: { ...params, ...listed.params },
      images: listed.images,
    };
  }
  const s = seededSplit(all.length, file, splitOptions);
  all.forEach((im, i) => (im.split = s.split[i]));
  return { version: 1, name: 'flickr8k', source: 'flickr8k', params: { ...params, ...s.params }, images: all };
}
