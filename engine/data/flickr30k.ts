// Flickr30k's own caption files, which carry no split:
//   results_20130124.token  `1000092795.jpg#0<TAB>Two young guys ...`
//   results.csv (Kaggle)    `image_name| comment_number| comment` header, `|`-separated
import { basename } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { Dataset } from '../../shared/dataset';
import { InputError } from '../errors';
import { readText, type Warn } from '../json-file';
import { groupRows, type CaptionRow } from './caption-rows';
import { seededSplit, type SplitOptions } from './split';

export type Flickr30kOptions = {
  evalCaption?: number; // default 0
  split?: SplitOptions; // the files have no split: a seeded one is drawn (split.ts)
  warn?: Warn; // hears lines that are not UTF-8
};

// csv-parse's typings do not model `info: true`, which wraps each record with its line number.
type Parsed = { record: string[]; info: { lines: number } }[];

export function tokenRows(file: string, text: string): CaptionRow[] {
  const rows = parse(text, {
    delimiter: '\t',
    quote: false,
    relax_column_count: true,
    skip_empty_lines: true,
    info: true,
  }) as unknown as Parsed;
  return rows.map(({ record, info }) => {
    const m = /^(.+)#(\d+)$/.exec(record[0] ?? '');
    if (record.length !== 2 || !m) throw new InputError(`${file}:${info.lines}: expected "<image>#<n><TAB><caption>"`);
    return { image: m[1], index: Number(m[2]), text: record[1], line: info.lines };
  });
}

function csvRows(file: string, text: string): CaptionRow[] {
  const rows = parse(text, {
    delimiter: '|',
    quote: false,
    trim: true,
    relax_column_count: true,
    skip_empty_lines: true,
    info: true,
  }) as unknown as Parsed;
  const head = rows.shift();
  if (!head || head.record.join('|') !== 'image_name|comment_number|comment')
    throw new InputError(`${file}:1: expected the header "image_name| comment_number| comment"`);
  return rows.map(({ record, info }) => {
    const image = record[0];
    let [, index, ...rest] = record;
    // The Kaggle copy has a known defect (one row lacks its second "|"): "<image>| 4   A dog runs ...".
    const merged = rest.length === 0 ? /^(\d+)\s+(.+)$/.exec(index ?? '') : null;
    if (merged) [index, rest] = [merged[1], [merged[2]]];
    if (!image || !/^\d+$/.test(index ?? '') || rest.length === 0)
      throw new InputError(
        `${file}:${info.lines}: expected 3 columns "image_name| comment_number| comment", got ${record.length}`,
      );
    return { image, index: Number(index), text: rest.join('|'), line: info.lines };
  });
}

export function readFlickr30k(
  file: string,
  { evalCaption = 0, split: splitOptions, warn }: Flickr30kOptions = {},
): Dataset {
  const text = readText(file, warn);
  const rows = file.endsWith('.csv') ? csvRows(file, text) : tokenRows(file, text);
  const images = groupRows(file, rows, evalCaption);
  const { split, params } = seededSplit(images.length, file, splitOptions);
  images.forEach((im, i) => (im.split = split[i]));
  return {
    version: 1,
    name: 'flickr30k',
    source: 'flickr30k',
    params: { file: basename(file), evalCaption, ...params },
    images,
  };
}
