// The one dataset layout every step reads: `<dir>/dataset.json` + `<dir>/images/`.
// Real data (Flickr8k, Flickr30k, COCO, caption tables) is read into it (engine/data/open.ts); the procedural world is generated into it.
import { z } from 'zod';

export const Split = z.enum(['train', 'val', 'test']);
export type Split = z.infer<typeof Split>;

// One annotator's caption; world captions also record who wrote it and its nuisance style.
export const Caption = z.object({
  text: z.string().min(1),
  annotator: z.number().int().nonnegative().optional(),
  style: z.number().int().nonnegative().optional(),
});
export type Caption = z.infer<typeof Caption>;

// Ground truth of a procedural-world scene (absent for real photos).
export const WorldObject = z.object({
  shape: z.string(),
  colour: z.string(),
  size: z.string(),
  cell: z.number().int().min(0).max(8), // 3x3 grid, row-major
});
export const WorldState = z.object({ background: z.string(), objects: z.array(WorldObject).min(1) });
export type WorldState = z.infer<typeof WorldState>;

export const DatasetImage = z.object({
  id: z.string().min(1),
  split: Split,
  file: z.string().nullable(), // relative to images/; null when the dataset ships captions only
  captions: z.array(Caption).min(1),
  evalCaption: z.number().int().nonnegative(), // index into captions used for retrieval evaluation
  state: WorldState.optional(),
});
export type DatasetImage = z.infer<typeof DatasetImage>;

export const Dataset = z.object({
  version: z.literal(1),
  name: z.string(),
  source: z.enum(['world', 'karpathy', 'flickr30k', 'flickr8k', 'multi30k', 'coco', 'table']),
  createdAt: z.string().optional(),
  // The generator's resolved parameters (world) or the reader's options (real data), for provenance.
  params: z.record(z.string(), z.unknown()).default({}),
  images: z.array(DatasetImage),
});
export type Dataset = z.infer<typeof Dataset>;

export const splitCounts = (d: Dataset): Record<Split, number> => {
  const c = { train: 0, val: 0, test: 0 };
  for (const im of d.images) c[im.split]++;
  return c;
};

// For caption files without a split: the seeded split's seed and held-out photo counts (engine/data/split.ts).
// Every process that opens the dataset with the same options gets the same split.
export const SeededSplit = z.object({
  seed: z.number().int().nonnegative().default(0),
  val: z.number().int().min(1).optional(), // photos held out as val (the fit pairs); default min(1,014, 10%)
  test: z.number().int().min(1).optional(), // photos held out as test; default min(1,000, 10%)
});
export type SeededSplit = z.input<typeof SeededSplit>;
