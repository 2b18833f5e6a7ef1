// The paper's protocol on a dataset: which photos give the fit pairs (val) and the test pairs (test). Data without
// a split of its own was split with the held-out sizes asked for (shared/experiment.ts experimentSplit); an
// official split keeps every val / test photo unless fewer are asked, then a seeded subset is taken.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import type { ExperimentPlan } from '../../shared/api';
import { splitCounts, type DatasetImage, type Split } from '../../shared/dataset';
import { armLr, experimentSplit, type ExperimentConfig } from '../../shared/experiment';
import { armSteps, lrReached, warmupFor } from '../../shared/train';
import type { RunConfig } from '../../shared/runs';
import { checkImageFiles, openDataset, seededSubset, type OpenedDataset } from '../data';
import { idsPath } from '../embeddings';
import { InputError } from '../errors';
import { readJson } from '../json-file';
import { renderableWorld } from './world-scenes';

// Precomputed image embeddings: their ids sidecar must name every photo the experiment needs.
export function assertRows(file: string, ids: string[], want: DatasetImage[]): void {
  const has = new Set(ids);
  const missing = want.filter((im) => !has.has(im.id));
  if (missing.length)
    throw new InputError(
      `${file}: no row for ${missing.length} of the ${want.length} photos the experiment needs (ids sidecar ${idsPath(file)}), e.g. ${missing
        .slice(0, 5)
        .map((im) => im.id)
        .join(', ')}`,
    );
}

/** Before the run: the ids sidecar of precomputed embeddings names every photo the experiment needs. */
export function checkPrecomputed(file: string, want: DatasetImage[]): void {
  const path = resolve(file);
  if (!existsSync(path)) throw new InputError(`--image-embeddings ${file}: no such file`);
  if (!existsSync(idsPath(path)))
    throw new InputError(
      `${path}: precomputed image embeddings need an ids sidecar ${idsPath(path)} (photo ids, one per row)`,
    );
  assertRows(path, readJson(idsPath(path), z.array(z.string()), 'a JSON array of photo ids'), want);
}

export type ProtocolPhotos = { opened: OpenedDataset; fit: DatasetImage[]; test: DatasetImage[] };

export const openExperimentData = (
  c: Pick<ExperimentConfig, 'data' | 'images' | 'splitSeed' | 'eval'>,
): OpenedDataset => openDataset(c.data, { imagesDir: c.images, split: experimentSplit(c) });

// n of a split's photos, a seeded subset; `flag` and `source` name the request and the data in the error.
function take(
  photos: DatasetImage[],
  n: number | undefined,
  { split, flag, seed, source }: { split: Split; flag: string; seed: number; source: string },
): DatasetImage[] {
  if (n === undefined || n === photos.length) return photos;
  if (n > photos.length) throw new InputError(`${flag} ${n}: ${source} has ${photos.length} ${split} photos`);
  return seededSubset(photos.length, n, seed, split === 'val' ? 0 : 1).map((i) => photos[i]); // dataset order kept
}

/** Opens the data, picks the fit and test photos and, unless the image side is precomputed (or `files` is false: a
 * plan shown before anything runs), checks their files. */
export function protocolPhotos(
  c: Pick<ExperimentConfig, 'data' | 'images' | 'splitSeed' | 'eval' | 'image' | 'imageViews'>,
  { files = true }: { files?: boolean } = {},
): ProtocolPhotos {
  const opened = openExperimentData(c);
  // The 2x2 first: on real photos its cause is the data's kind, whatever the split sizes.
  if (c.imageViews) {
    const w = renderableWorld(opened.dataset, opened.file, opened.format);
    if (w.train.length < c.imageViews.batch)
      throw new InputError(
        `${c.data}: ${w.train.length} training scenes is fewer than one image-arm batch of ${c.imageViews.batch}`,
      );
  }
  const of = (s: Split) => opened.dataset.images.filter((im) => im.split === s);
  const fit = take(of('val'), c.eval.fitPairs, {
    split: 'val',
    flag: '--fit-pairs',
    seed: c.splitSeed,
    source: c.data,
  });
  const test = take(of('test'), c.eval.testPairs, {
    split: 'test',
    flag: '--test-pairs',
    seed: c.splitSeed,
    source: c.data,
  });
  if (fit.length < 2 || test.length <= c.eval.k)
    throw new InputError(
      `${c.data}: ${fit.length} fit (val) and ${test.length} test photos; an experiment needs at least 2 fit pairs and more test pairs than ` +
        `k = ${c.eval.k} (mutual k-NN)${opened.dataset.params.split === 'seeded' ? '; --fit-pairs / --test-pairs set the held-out sizes' : ''}`,
    );
  if (!of('train').length) throw new InputError(`${c.data}: no training photos`);
  if (!files) return { opened, fit, test };
  if (c.image.embeddings) checkPrecomputed(c.image.embeddings, [...fit, ...test]);
  else checkImageFiles(opened, [...fit, ...test], 'an experiment embeds the fit and test photos');
  return { opened, fit, test };
}

/** Before a run is created: its data opens, and an experiment's fit and test photos are there (InputError if not).
 * Returns the opened data of a run that has data (train, experiment), for its fingerprint. */
export function preflightRun(config: RunConfig): RunData | null {
  if (config.kind === 'experiment') return { opened: protocolPhotos(config).opened, tokenizer: config.train.tokenizer };
  if (config.kind === 'train')
    return {
      opened: openDataset(config.data, { imagesDir: config.images, split: config.split }),
      tokenizer: config.tokenizer,
    };
  return null;
}

/** What an experiment will train, before it starts: its photos as it splits them, each arm's steps, warmup and the
 * highest lr its schedule reaches (below the peak set when a warmup does not end inside the run). */
export function planExperiment(c: ExperimentConfig): ExperimentPlan {
  const { opened, fit, test } = protocolPhotos(c, { files: false });
  const photos = splitCounts(opened.dataset);
  const steps = armSteps(photos.train, c.train);
  const warmup = warmupFor(c.train, steps.total);
  return {
    photos,
    fit: fit.length,
    test: test.length,
    steps: { ...steps, warmup },
    arms: c.arms.map((arm) => {
      const lr = armLr(c, arm);
      const sched = {
        lr,
        warmupSteps: warmup,
        warmupStart: c.train.warmupStart,
        minLr: c.train.minLr,
        totalSteps: steps.total,
      };
      return { arm, lr, lrReached: steps.total ? lrReached(sched) : 0 };
    }),
  };
}

// The data a run trains on, opened as it opens it, and the tokenizer it was given (if any).
export type RunData = { opened: OpenedDataset; tokenizer?: string };
export function runData(config: RunConfig): RunData | null {
  if (config.kind === 'experiment') return { opened: openExperimentData(config), tokenizer: config.train.tokenizer };
  return preflightRun(config);
}
