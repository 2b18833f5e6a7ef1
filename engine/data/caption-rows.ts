// Caption files that hold one caption a row (Flickr's `.token`, Kaggle CSVs, a plain image,caption table):
// rows grouped into photos, in order of first appearance, with file:line for every complaint.
import type { DatasetImage, Split } from '../../shared/dataset';
import { InputError } from '../errors';

// index: the caption number the file gives (`#3`), or null when rows are numbered by order within the photo.
export type CaptionRow = { image: string; index: number | null; text: string; line: number; split?: Split };

export const photoId = (file: string): string => file.replace(/\.[^./]+$/, '');

/** Photos with their captions (sorted by index), all in split 'train' unless the rows name one. */
export function groupRows(file: string, rows: CaptionRow[], evalCaption: number): DatasetImage[] {
  const byImage = new Map<string, { rows: CaptionRow[]; seen: Map<number, number>; split?: Split }>();
  for (const r of rows) {
    if (!r.image.trim()) throw new InputError(`${file}:${r.line}: empty image name`);
    if (!r.text.trim()) throw new InputError(`${file}:${r.line}: empty caption`);
    const g = byImage.get(r.image) ?? byImage.set(r.image, { rows: [], seen: new Map(), split: r.split }).get(r.image)!;
    if (r.index !== null) {
      const prev = g.seen.get(r.index);
      if (prev !== undefined)
        throw new InputError(`${file}:${r.line}: caption ${r.image}#${r.index} repeats line ${prev}`);
      g.seen.set(r.index, r.line);
    }
    if (r.split && g.split && r.split !== g.split)
      throw new InputError(
        `${file}:${r.line}: ${r.image} is in split '${r.split}' here but '${g.split}' on line ${g.rows[0].line}`,
      );
    g.rows.push(r);
  }
  if (!byImage.size) throw new InputError(`${file}: no captions`);
  const ids = new Map<string, string>();
  return [...byImage].map(([name, g]) => {
    const caps = g.rows
      .map((r, k) => ({ r, k: r.index ?? k }))
      .sort((a, b) => a.k - b.k)
      .map(({ r }) => r);
    if (evalCaption >= caps.length)
      throw new InputError(`${file}:${caps[0].line}: ${name} has ${caps.length} captions, no caption ${evalCaption}`);
    const id = photoId(name);
    const other = ids.get(id);
    if (other) throw new InputError(`${file}:${caps[0].line}: ${name} and ${other} would both be photo ${id}`);
    ids.set(id, name);
    return {
      id,
      split: g.split ?? 'train',
      file: name,
      captions: caps.map((c) => ({ text: c.text.trim() })),
      evalCaption,
    };
  });
}
