// `prh data inspect`: what a dataset holds and what is wrong with it, without stopping at the first bad image.
import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { splitCounts, type Split } from '../../shared/dataset';
import { HEAD_BYTES, headIsEnough, imageFileProblem, SHORT_HEAD_BYTES, TAIL_BYTES } from './image-file';
import type { Format, OpenedDataset } from './open';

export type Inspection = {
  path: string;
  format: Format;
  name: string;
  source: string;
  splits: Record<Split, number>;
  splitFrom: string; // how the split was made: the files' own, official lists, or seeded (with its seed)
  images: number;
  captions: number;
  captionsPerImage: Record<string, number>; // count of captions -> images with that many
  evalCaption: Record<string, number>; // evaluation caption index -> images
  words: { min: number; mean: number; max: number; histogram: { from: number; to: number; count: number }[] };
  vocabulary: number; // distinct lower-cased words
  files: {
    imagesDir: string;
    present: boolean;
    listed: number;
    captionsOnly: number;
    missing: number;
    unreadable: number;
    problems: string[];
  };
  duplicates: { withinImage: number; acrossImages: number; examples: string[] };
  world: { objectsPerScene: Record<string, number>; annotators: number; styles: number } | null;
  warnings: string[]; // from reading (bytes that are not UTF-8)
};

const BIN = 5; // caption length histogram bin width, words
const MAX_PROBLEMS = 10;

// Words, not punctuation: Flickr30k writes "grass ." and the world writes "left , a".
export const words = (text: string): string[] =>
  text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) ?? [];

// Checks the first (4 KiB, 64 KiB for a JPEG with long metadata) and last bytes only (signature, header size,
// format end): decoding every photo would cost minutes on Flickr30k.
function fileProblem(path: string): 'missing' | string | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT'
      ? 'missing'
      : `cannot open (${(e as NodeJS.ErrnoException).code})`;
  }
  try {
    const size = fstatSync(fd).size;
    const read = (n: number) => {
      const b = Buffer.alloc(Math.min(n, size));
      readSync(fd, b, 0, b.length, 0);
      return b;
    };
    let head = read(SHORT_HEAD_BYTES);
    if (!headIsEnough(head, size)) head = read(HEAD_BYTES);
    const tail = Buffer.alloc(Math.min(TAIL_BYTES, size));
    readSync(fd, tail, 0, tail.length, size - tail.length);
    return imageFileProblem(head, tail, size);
  } catch (e) {
    return `cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
  } finally {
    closeSync(fd);
  }
}

// A seeded split can be redrawn (--split-seed) until `prh data import` freezes it into dataset.json.
function splitFrom(params: Record<string, unknown>, format: Format): string {
  if (params.split === 'seeded')
    return `seeded split (seed ${String(params.splitSeed)}${format === 'layout' ? ', frozen in dataset.json' : '; --split-seed changes it'})`;
  return params.split === 'lists' ? 'official split lists' : "the dataset's own split";
}

const bump = (h: Record<string, number>, k: string | number) => (h[k] = (h[k] ?? 0) + 1);

export function inspectDataset({ dataset: ds, format, path, imagesDir, warnings }: OpenedDataset): Inspection {
  const captionsPerImage: Record<string, number> = {},
    evalCaption: Record<string, number> = {};
  const vocab = new Set<string>();
  const lengths: number[] = [];
  const owners = new Map<string, Set<string>>(); // normalised caption -> image ids
  let withinImage = 0;
  for (const im of ds.images) {
    bump(captionsPerImage, im.captions.length);
    bump(evalCaption, im.evalCaption);
    const seen = new Set<string>();
    for (const c of im.captions) {
      const ws = words(c.text);
      lengths.push(ws.length);
      for (const w of ws) vocab.add(w);
      const key = ws.join(' ');
      if (seen.has(key)) withinImage++;
      seen.add(key);
      (owners.get(key) ?? owners.set(key, new Set()).get(key)!).add(im.id);
    }
  }
  const shared = [...owners].filter(([, ids]) => ids.size > 1);
  const maxLen = lengths.reduce((a, b) => Math.max(a, b), 0); // no spread: 155k arguments overflow the stack
  const histogram = Array.from({ length: Math.ceil((maxLen + 1) / BIN) }, (_, b) => ({
    from: b * BIN,
    to: b * BIN + BIN - 1,
    count: 0,
  }));
  for (const l of lengths) histogram[Math.floor(l / BIN)].count++;

  const present = existsSync(imagesDir);
  const listed = ds.images.filter((im) => im.file !== null);
  let missing = 0,
    unreadable = 0;
  const problems: string[] = [];
  if (!present) missing = listed.length;
  else
    for (const im of listed) {
      const p = fileProblem(join(imagesDir, im.file!));
      if (!p) continue;
      p === 'missing' ? missing++ : unreadable++;
      if (problems.length < MAX_PROBLEMS)
        problems.push(`${im.file}: ${p === 'missing' ? p : `not a readable image (${p})`}`);
    }

  const states = ds.images.flatMap((im) => (im.state ? [im] : []));
  const objectsPerScene: Record<string, number> = {};
  for (const im of states) bump(objectsPerScene, im.state!.objects.length);
  const ids = (f: 'annotator' | 'style') =>
    new Set(states.flatMap((im) => im.captions.map((c) => c[f]).filter((x) => x !== undefined))).size;

  return {
    path,
    format,
    name: ds.name,
    source: ds.source,
    splits: splitCounts(ds),
    splitFrom: splitFrom(ds.params, format),
    images: ds.images.length,
    captions: lengths.length,
    captionsPerImage,
    evalCaption,
    words: {
      min: lengths.reduce((a, b) => Math.min(a, b), maxLen),
      mean: lengths.reduce((a, b) => a + b, 0) / Math.max(1, lengths.length),
      max: maxLen,
      histogram,
    },
    vocabulary: vocab.size,
    files: {
      imagesDir,
      present,
      listed: listed.length,
      captionsOnly: ds.images.length - listed.length,
      missing,
      unreadable,
      problems,
    },
    duplicates: {
      withinImage,
      acrossImages: shared.length,
      examples: shared
        .slice(0, 5)
        .map(([text, ids]) => `"${text}" (${[...ids].slice(0, 3).join(', ')}${ids.size > 3 ? ', ...' : ''})`),
    },
    world: states.length ? { objectsPerScene, annotators: ids('annotator'), styles: ids('style') } : null,
    warnings,
  };
}

export function formatInspection(r: Inspection): string {
  const hist = (h: Record<string, number>) =>
    Object.entries(h)
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ');
  const peak = Math.max(1, ...r.words.histogram.map((b) => b.count));
  const f = r.files;
  const out = [
    `dataset      ${r.name} (${r.source}, read as ${r.format}) from ${r.path}`,
    `images       ${r.images}  (train ${r.splits.train} / val ${r.splits.val} / test ${r.splits.test}; ${r.splitFrom})`,
    `captions     ${r.captions}  (captions per image ${hist(r.captionsPerImage)})`,
    `eval caption ${hist(r.evalCaption)}  (index -> images)`,
    `words        min ${r.words.min} / mean ${r.words.mean.toFixed(1)} / max ${r.words.max} per caption`,
    ...r.words.histogram
      .filter((b) => b.count)
      .map(
        (b) =>
          `  ${String(b.from).padStart(3)}-${String(b.to).padEnd(3)} ${'#'.repeat(Math.ceil((40 * b.count) / peak)).padEnd(40)} ${b.count}`,
      ),
    `vocabulary   ${r.vocabulary} words`,
    f.present
      ? `image files  ${f.listed} listed under ${f.imagesDir}: ${f.missing} missing, ${f.unreadable} unreadable${f.captionsOnly ? `, ${f.captionsOnly} captions-only` : ''}`
      : `image files  none: ${f.imagesDir} does not exist (captions only; ${f.listed} images named)`,
    ...f.problems.map((p) => `  ${p}`),
    `duplicates   ${r.duplicates.withinImage} within an image, ${r.duplicates.acrossImages} caption texts shared by several images`,
    ...r.duplicates.examples.map((e) => `  ${e}`),
  ];
  if (r.world)
    out.push(
      `world        objects per scene ${hist(r.world.objectsPerScene)}; ${r.world.annotators} annotators, ${r.world.styles} nuisance styles`,
    );
  for (const w of r.warnings) out.push(`warning      ${w}`);
  return out.join('\n');
}
