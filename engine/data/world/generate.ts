// `prh world generate`: the procedural world written in the dataset layout, scenes in split order
// (train, val, test), so scene i is the same whatever the split sizes.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Dataset, DatasetImage, Split } from '../../../shared/dataset';
import { InputError } from '../../errors';
import { DATASET_FILE, IMAGES_DIR, writeDataset } from '../layout';
import { ANNOTATORS, captionScene, type WorldCaption } from './captions';
import { NUISANCE, STYLES } from './nuisance';
import { resolveWorld, type WorldOptions, type WorldParams } from './params';
import { IMAGE_NUISANCE, renderScene } from './render';
import { drawScenes, type Scene } from './scene';

export const GENERATOR = 'prh-world/1';

export type WorldScene = {
  index: number;
  id: string;
  split: Split;
  state: Scene;
  captions: WorldCaption[];
  evalCaption: number;
  png: Buffer;
};

export const sceneId = (i: number, total: number) =>
  `w${String(i).padStart(Math.max(5, String(total - 1).length), '0')}`;

export function splitOf(i: number, { train, val }: WorldParams['splits']): Split {
  return i < train ? 'train' : i < train + val ? 'val' : 'test';
}

/** Scene i, captioned and rendered. `scenes` is drawScenes(params.seed, n) for any n > i. */
export function worldScene(params: WorldParams, scenes: Scene[], i: number): WorldScene {
  const total = params.splits.train + params.splits.val + params.splits.test;
  const { captions, evalCaption } = captionScene(scenes[i], params.seed, i, {
    diversity: params.diversity,
    nuisance: NUISANCE[params.nuisance],
  });
  return {
    index: i,
    id: sceneId(i, total),
    split: splitOf(i, params.splits),
    state: scenes[i],
    captions,
    evalCaption,
    png: renderScene(scenes[i], params.imageSize, params.seed, i),
  };
}

export const datasetImage = (s: WorldScene): DatasetImage => ({
  id: s.id,
  split: s.split,
  file: `${s.id}.png`,
  captions: s.captions.map((c) => ({
    text: c.text,
    annotator: c.annotator,
    ...(c.style === null ? {} : { style: c.style }),
  })),
  evalCaption: s.evalCaption,
  state: s.state,
});

export const worldName = (p: WorldParams) => `world-${p.preset}-s${p.seed}`;

export const provenance = (p: WorldParams): Record<string, unknown> => ({
  generator: GENERATOR,
  ...p,
  annotators: ANNOTATORS,
  styles: STYLES.length,
  imageNuisance: IMAGE_NUISANCE,
});

export type GenerateResult = { dir: string; dataset: Dataset; params: WorldParams; seconds: number };

/** Writes `<out>/images/*.png` and then `<out>/dataset.json` (last, so a folder without it is unfinished). */
export function generateWorld(
  out: string,
  options: WorldOptions,
  { force = false, onProgress }: { force?: boolean; onProgress?: (done: number, total: number) => void } = {},
): GenerateResult {
  const params = resolveWorld(options);
  if (existsSync(join(out, DATASET_FILE)) && !force)
    throw new InputError(`${out}: already holds a ${DATASET_FILE} (use --force to overwrite)`);
  const t0 = performance.now();
  const total = params.splits.train + params.splits.val + params.splits.test;
  const scenes = drawScenes(params.seed, total);
  const imagesDir = join(out, IMAGES_DIR);
  mkdirSync(imagesDir, { recursive: true });
  const images: DatasetImage[] = [];
  for (let i = 0; i < total; i++) {
    const s = worldScene(params, scenes, i);
    writeFileSync(join(imagesDir, `${s.id}.png`), s.png);
    images.push(datasetImage(s));
    if (onProgress && (i % 200 === 199 || i === total - 1)) onProgress(i + 1, total);
  }
  const dataset: Dataset = {
    version: 1,
    name: worldName(params),
    source: 'world',
    createdAt: new Date().toISOString(),
    params: provenance(params),
    images,
  };
  writeDataset(out, dataset);
  return { dir: out, dataset, params, seconds: (performance.now() - t0) / 1000 };
}
