// Flickr30k's own caption files, which carry no split:
//   results_20130124.token  `1000092795.jpg#0<TAB>Two young guys ...`
//   results.csv (Kaggle)    `image_name| comment_number| comment` header, `|`-separated
import { basename } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { Dataset, DatasetImage, Split } from '../../shared/dataset';
import { InputError } from '../errors';
import { readText, type Warn } from '../json-file';
import { WorldRng } from './world/rng';

export type Flickr30kOptions = {
  evalCaption?: number; // default 0
  splitSeed?: number; // the files have no split: a seeded one is drawn (val 1,014 / test 1,000, at most 10% each)
  warn?: Warn; // hears lines that are not UTF-8
};

type Row = { image: string; index: number; text: string; line: number };
// csv-parse's typings do not model `info: true`, which wraps each record with its line number.
type Parsed = { record: string[]; info: { lines: number } }[];

function tokenRows(file: string, text: string): Row[] {
  const rows = parse(text, { delimiter: '\t', quote: false, relax_column_count: true, skip_empty_lines: true, info: true }) as unknown as Parsed;
  return rows.map(({ record, info }) => {
    const m = /^(.+)#(\d+)$/.exec(record[0] ?? '');
    if (record.length !== 2 || !m) throw new InputError(`${file}:${info.lines}: expected "<image>#<n><TAB><caption>"`);
    return { image: m[1], index: Number(m[2]), text: record[1], line: info.lines };
  });
}

function csvRows(file: string, text: string): Row[] {
  const rows = parse(text, { delimiter: '|', quote: false, trim: true, relax_column_count: true, skip_empty_lines: true, info: true }) as unknown as Parsed;
  const head = rows.shift();
  if (!head || head.record.join('|') !== 'image_name|comment_number|comment')
    throw new InputError(`${file}:1: expected the header "image_name| comment_number| comment"`);
  return rows.map(({ record, info }) => {
    let [image, index, ...rest] = record;
    // The Kaggle copy has a known defect (one row lacks its second "|"): "<image>| 4   A dog runs ...".
    const merged = rest.length === 0 ? /^(\d+)\s+(.+)$/.exec(index ?? '') : null;
    if (merged) [index, rest] = [merged[1], [merged[2]]];
    if (!image || !/^\d+$/.test(index ?? '') || rest.length === 0)
      throw new InputError(`${file}:${info.lines}: expected 3 columns "image_name| comment_number| comment", got ${record.length}`);
    return { image, index: Number(index), text: rest.join('|'), line: info.lines };
  });
}

export function readFlickr30k(file: string, { evalCaption = 0, splitSeed = 0, warn }: Flickr30kOptions = {}): Dataset {
  const text = readText(file, warn);
  const rows = file.endsWith('.csv') ? csvRows(file, text) : tokenRows(file, text);
  const byImage = new Map<string, Map<number, Row>>();
  for (const r of rows) {
    if (!r.text.trim()) throw new InputError(`${file}:${r.line}: empty caption`);
    const caps = byImage.get(r.image) ?? byImage.set(r.image, new Map()).get(r.image)!;
    const prev = caps.get(r.index);
    if (prev) throw new InputError(`${file}:${r.line}: caption ${r.image}#${r.index} repeats line ${prev.line}`);
    caps.set(r.index, r);
  }
  const names = [...byImage.keys()];
  const nHeld = (k: number) => Math.min(k, Math.floor(names.length / 10));
  const order = new WorldRng(splitSeed, 7).shuffled(names.map((_, i) => i));
  const split = new Array<Split>(names.length).fill('train');
  order.slice(0, nHeld(1014)).forEach((i) => (split[i] = 'val'));
  order.slice(nHeld(1014), nHeld(1014) + nHeld(1000)).forEach((i) => (split[i] = 'test'));
  const images: DatasetImage[] = names.map((name, i) => {
    const caps = [...byImage.get(name)!.values()].sort((a, b) => a.index - b.index);
    if (evalCaption >= caps.length) throw new InputError(`${file}:${caps[0].line}: ${name} has ${caps.length} captions, no caption ${evalCaption}`);
    return { id: name.replace(/\.[^.]+$/, ''), split: split[i], file: name, captions: caps.map((c) => ({ text: c.text.trim() })), evalCaption };
  });
  return { version: 1, name: 'flickr30k', source: 'flickr30k', params: { file: basename(file), evalCaption, split: 'seeded', splitSeed }, images };
}
