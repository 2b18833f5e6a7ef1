// A plain caption table, one caption a row: CSV with a header naming an image column and a caption column (the
// Kaggle Flickr8k `captions.txt` is `image,caption`), or JSON Lines with `image` and `caption` (or `captions`: a
// list). An optional `split` column (train / val / test) gives the split; else Flickr8k's split lists beside the
// file (split-lists.ts), else split.ts draws a seeded one.
import { basename, dirname } from 'node:path';
import { parse } from 'csv-parse/sync';
import { z } from 'zod';
import { Split, type Dataset } from '../../shared/dataset';
import { InputError } from '../errors';
import { parseJson, readText, type Warn } from '../json-file';
import { groupRows, type CaptionRow } from './caption-rows';
import { seededSplit, type SplitOptions } from './split';
import { applySplitLists, hasSplitLists } from './split-lists';

export type TableOptions = { evalCaption?: number; split?: SplitOptions; warn?: Warn }; // warn: hears lines that are not UTF-8

const IMAGE_COLUMNS = ['image', 'image_name', 'filename', 'file_name', 'file'];
const CAPTION_COLUMNS = ['caption', 'comment', 'text', 'sentence'];
const SPLITS = new Map<string, Split>([
  ['train', 'train'],
  ['val', 'val'],
  ['dev', 'val'],
  ['valid', 'val'],
  ['validation', 'val'],
  ['test', 'test'],
  ['restval', 'train'],
]);
type Parsed = { record: string[]; info: { lines: number } }[]; // csv-parse with `info: true`

// Is this CSV a caption table? (its first line names an image and a caption column)
export function isCaptionCsv(text: string): boolean {
  const head = text
    .slice(0, text.indexOf('\n') >>> 0)
    .toLowerCase()
    .split(',')
    .map((s) => s.trim().replace(/^"|"$/g, ''));
  return head.some((h) => IMAGE_COLUMNS.includes(h)) && head.some((h) => CAPTION_COLUMNS.includes(h));
}

function splitOf(file: string, line: number, v: string | undefined): Split | undefined {
  if (v === undefined || v === '') return undefined;
  const s = SPLITS.get(v.trim().toLowerCase());
  if (!s) throw new InputError(`${file}:${line}: split '${v}' is not train, val or test`);
  return s;
}

function csvRows(file: string, text: string): CaptionRow[] {
  let rows: Parsed;
  try {
    rows = parse(text, { bom: true, relax_quotes: true, skip_empty_lines: true, info: true }) as unknown as Parsed;
  } catch (e) {
    const err = e as Error & { lines?: number };
    const n = /expect (\d+), got (\d+)/.exec(err.message); // a row with more or fewer columns than the header
    throw new InputError(
      `${file}:${err.lines ?? '?'}: ${n ? `${n[2]} columns, the header has ${n[1]} (quote a caption that holds a comma)` : `not readable as CSV (${err.message})`}`,
    );
  }
  const head = rows.shift()?.record.map((h) => h.trim().toLowerCase()) ?? [];
  const col = (names: string[]) => head.findIndex((h) => names.includes(h));
  const [ci, cc, cs] = [col(IMAGE_COLUMNS), col(CAPTION_COLUMNS), col(['split'])];
  if (ci < 0 || cc < 0)
    throw new InputError(
      `${file}:1: expected a header with an image column (${IMAGE_COLUMNS.join(' / ')}) and a caption column (${CAPTION_COLUMNS.join(' / ')}), got "${head.join(',')}"`,
    );
  return rows.map(({ record, info }) => {
    if (record.length !== head.length)
      throw new InputError(`${file}:${info.lines}: ${record.length} columns, the header has ${head.length}`);
    return {
      image: record[ci].trim(),
      index: null,
      text: record[cc],
      line: info.lines,
      split: splitOf(file, info.lines, cs < 0 ? undefined : record[cs]),
    };
  });
}

const JsonlRow = z
  .object({
    image: z.string().optional(),
    file_name: z.string().optional(),
    filename: z.string().optional(),
    caption: z.string().optional(),
    captions: z.array(z.string()).min(1).optional(),
    split: z.string().optional(),
  })
  .refine((r) => (r.image ?? r.file_name ?? r.filename) !== undefined, { message: 'needs "image" (or "file_name")' })
  .refine((r) => (r.caption === undefined) !== (r.captions === undefined), {
    message: 'needs "caption" or "captions" (one of them)',
  });

function jsonlRows(file: string, text: string): CaptionRow[] {
  return text.split(/\r?\n/).flatMap((raw, i) => {
    if (!raw.trim()) return [];
    const line = i + 1;
    let r: z.infer<typeof JsonlRow>;
    try {
      r = parseJson(`${file}:${line}`, raw, JsonlRow);
    } catch (e) {
      throw new InputError((e as Error).message.replace(/ at line 1, column/, ' at column'));
    }
    const image = (r.image ?? r.file_name ?? r.filename)!.trim();
    const split = splitOf(file, line, r.split);
    return (r.captions ?? [r.caption!]).map((text) => ({ image, index: null, text, line, split }));
  });
}

export function readCaptionTable(
  file: string,
  { evalCaption = 0, split: splitOptions, warn }: TableOptions = {},
): Dataset {
  const text = readText(file, warn);
  const rows = /\.jsonl$/i.test(file) ? jsonlRows(file, text) : csvRows(file, text);
  const images = groupRows(file, rows, evalCaption);
  const given = rows.filter((r) => r.split).length;
  if (given && given < rows.length)
    throw new InputError(`${file}:${rows.find((r) => !r.split)!.line}: no split, while other rows give one`);
  let params: Record<string, unknown> = { split: 'column' };
  let kept = images;
  if (!given && hasSplitLists(dirname(file))) ({ images: kept, params } = applySplitLists(dirname(file), images));
  else if (!given) {
    const s = seededSplit(images.length, file, splitOptions);
    images.forEach((im, i) => (im.split = s.split[i]));
    params = s.params;
  }
  // A generic file name (Kaggle's captions.txt) says less than the folder it is in.
  const stem = basename(file).replace(/\.[^.]+$/, '');
  const name = stem === 'captions' ? basename(dirname(file)) : stem;
  return { version: 1, name, source: 'table', params: { file: basename(file), evalCaption, ...params }, images: kept };
}
