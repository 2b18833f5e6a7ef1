// A few scenes with their image and five captions, for the GUI's gallery and for a contact sheet PNG.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SKRSContext2D } from '@napi-rs/canvas';
import { skia } from '../../skia';
import type { Caption, Split, WorldState } from '../../../shared/dataset';
import { InputError } from '../../errors';
import type { OpenedDataset } from '../open';
import { datasetImage, worldScene } from './generate';
import { resolveWorld, type WorldOptions } from './params';
import { drawScenes } from './scene';

export type GalleryItem = {
  id: string;
  split: Split;
  captions: Caption[];
  evalCaption: number;
  state: WorldState | null;
  png: Buffer | null; // null: a captions-only dataset, or its image file is missing
};
export type GalleryRange = { count?: number; from?: number }; // default: the first 16

/** Scenes from..from+count-1 of the world these options generate, identical to what `generateWorld` writes. */
export function previewWorld(options: WorldOptions & GalleryRange): GalleryItem[] {
  const { count = 16, from = 0, ...world } = options;
  const params = resolveWorld(world);
  const total = params.splits.train + params.splits.val + params.splits.test;
  if (from + count > total)
    throw new InputError(`preview: scenes ${from}..${from + count - 1} do not exist in a world of ${total}`);
  const scenes = drawScenes(params.seed, from + count);
  return Array.from({ length: count }, (_, k) => {
    const s = worldScene(params, scenes, from + k);
    const im = datasetImage(s);
    return {
      id: im.id,
      split: im.split,
      captions: im.captions,
      evalCaption: im.evalCaption,
      state: s.state,
      png: s.png,
    };
  });
}

/** The same view of any opened dataset (real photos included); unreadable image files show as blank tiles. */
export function galleryFromDataset(
  { dataset, imagesDir }: OpenedDataset,
  { count = 16, from = 0 }: GalleryRange = {},
): GalleryItem[] {
  return dataset.images.slice(from, from + count).map((im) => {
    let png: Buffer | null;
    try {
      png = im.file === null ? null : readFileSync(join(imagesDir, im.file));
    } catch {
      png = null;
    }
    return {
      id: im.id,
      split: im.split,
      captions: im.captions,
      evalCaption: im.evalCaption,
      state: im.state ?? null,
      png,
    };
  });
}

/** JSON-safe form for the GUI and `--json`: the image as a data URL. */
export const galleryJson = (items: GalleryItem[]) =>
  items.map(({ png, ...rest }) => ({ ...rest, image: png ? `data:image/png;base64,${png.toString('base64')}` : null }));

const CELL_NAMES = ['top left', 'top', 'top right', 'left', 'centre', 'right', 'bottom left', 'bottom', 'bottom right'];
const truth = (s: WorldState) =>
  `${s.background} background; ${s.objects.map((o) => `${o.size} ${o.colour} ${o.shape} (${CELL_NAMES[o.cell]})`).join(', ')}`;

function wrap(ctx: SKRSContext2D, text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const w of text.split(' ')) {
    const next = line ? `${line} ${w}` : w;
    if (line && ctx.measureText(next).width > width) {
      lines.push(line);
      line = w;
    } else line = next;
  }
  return line ? [...lines, line] : lines;
}

// Layout, in pixels: a 192 px image (nearest-neighbour, so true pixels show) left of the captions.
const IMG = 192,
  PAD = 14,
  TEXT_W = 780,
  LINE = 21,
  TILE_W = PAD + IMG + PAD + TEXT_W + PAD;
const FONT = '16px sans-serif',
  BOLD = 'bold 16px sans-serif',
  SMALL = '14px sans-serif';

/** A contact sheet: per item its image, id/split, ground truth (world) and every caption, the evaluation one in
 *  bold and each tagged [annotator/style]. */
export async function contactSheet(items: GalleryItem[], columns = 2): Promise<Buffer> {
  const measure = skia().createCanvas(10, 10).getContext('2d');
  const tiles = items.map((it) => {
    measure.font = FONT;
    const rows: { text: string; font: string; colour: string }[] = [
      { text: `${it.id} · ${it.split}`, font: BOLD, colour: '#222' },
      ...(it.state
        ? wrap(measure, `truth: ${truth(it.state)}`, TEXT_W).map((t) => ({ text: t, font: SMALL, colour: '#1a5a1a' }))
        : []),
    ];
    it.captions.forEach((c, k) => {
      const tag =
        c.annotator === undefined ? `${k + 1}.` : `[a${c.annotator}${c.style === undefined ? '' : `/s${c.style}`}]`;
      const isEval = k === it.evalCaption;
      measure.font = isEval ? BOLD : FONT;
      wrap(measure, `${tag} ${c.text}${isEval ? '  (eval)' : ''}`, TEXT_W).forEach((t) =>
        rows.push({ text: t, font: isEval ? BOLD : FONT, colour: '#000' }),
      );
    });
    return { it, rows, height: Math.max(IMG, rows.length * LINE) + 2 * PAD };
  });
  const rowHeights = Array.from({ length: Math.ceil(tiles.length / columns) }, (_, r) =>
    Math.max(...tiles.slice(r * columns, r * columns + columns).map((t) => t.height)),
  );
  const canvas = skia().createCanvas(
    TILE_W * columns,
    rowHeights.reduce((a, b) => a + b, 0),
  );
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.textBaseline = 'top';
  ctx.imageSmoothingEnabled = false;
  let y = 0;
  for (let r = 0; r < rowHeights.length; r++) {
    for (let c = 0; c < columns && r * columns + c < tiles.length; c++) {
      const { it, rows } = tiles[r * columns + c];
      const x = c * TILE_W;
      if (it.png) ctx.drawImage(await skia().loadImage(it.png), x + PAD, y + PAD, IMG, IMG);
      else {
        ctx.fillStyle = '#ddd';
        ctx.fillRect(x + PAD, y + PAD, IMG, IMG);
      }
      rows.forEach((row, k) => {
        ctx.font = row.font;
        ctx.fillStyle = row.colour;
        ctx.fillText(row.text, x + PAD + IMG + PAD, y + PAD + k * LINE);
      });
    }
    y += rowHeights[r];
    ctx.fillStyle = '#bbb';
    ctx.fillRect(0, y - 1, canvas.width, 1);
  }
  return canvas.encodeSync('png');
}
