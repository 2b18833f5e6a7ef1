// The 2x2's image arms: a small ViT per arm trained from scratch as an image JEPA on the training scenes' images
// (never a caption), with good views (other renders of the same world state) or bad views (crops and colour changes
// of the dataset's render), then exported in the HF Dinov2 ONNX layout with a whitened read-out (CLS + region means,
// fitted on the training renders) and used to embed the fit and test photos through the same image
// path as any frozen encoder. Each arm's ONNX and record are written atomically, so a
// resumed experiment skips the arms already trained (and embedded).
import { existsSync, readFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import {
  ImageEncoderChoice,
  type ExperimentConfig,
  type ImageArmRecord,
  type ImageViewArm,
  type ImageViews,
} from '../../shared/experiment';
import { writeFileAtomic, writeJsonAtomic } from '../atomic';
import { fitVitPooler, sha256, type PoolerRecipe } from '../image';
import { readJson } from '../json-file';
import { exportVitOnnx, type ViTShape } from '../models';
import {
  IMAGE_JEPA_BASE,
  ImageJepaRecipe,
  firstRenders,
  imageLamb,
  initBackend,
  renderPool,
  trainImageJepa,
  type ImageStep,
  type RenderPool,
} from '../train';
import { embedImageSide, type ImageSide, type Photos } from './images';
import type { ExperimentLayout } from './layout';
import { PATCH, type RenderableWorld } from './world-scenes';

// Both arms train IMAGE_JEPA_BASE, the world encoder's first (crops-only) recipe: the 2x2 compares views, so the
// arms share one plain ViT recipe and differ only in what a view is (no conv stem, no object term: those are the
// shipped world encoder's, docs/world-encoder-log.md "Objects that keep shape and colour").
const ARM_WARMUP = 30; // steps, or a tenth of a shorter run

/** The image JEPA of both arms: IMAGE_JEPA_BASE at the config's size, batch, steps and seed, λ for that batch. */
function imageArmRecipe(v: ImageViews, imageSize: number): ImageJepaRecipe {
  const base = IMAGE_JEPA_BASE;
  const h = v.hidden;
  return ImageJepaRecipe.parse({
    ...base,
    vit: { imageSize, patchSize: PATCH, hidden: h, depth: v.depth, heads: h / 16, mlp: 4 * h },
    projector: { ...base.projector, dims: [4 * h, h] },
    batch: v.batch,
    steps: v.steps,
    warmupSteps: Math.min(ARM_WARMUP, Math.floor(v.steps / 10)),
    lamb: imageLamb({ V: base.V, batch: v.batch }),
    seed: v.seed,
  });
}

// The read-out of the crops-only ViT IMAGE_JEPA_BASE trains: CLS + 4x4 region means whitened to 192 (its best among
// grids 3/4/8 and dims 64-512, docs/world-encoder-log.md). Its own: the shipped world encoder's position-free
// read-out suits that encoder's object training, not scene views.
const ARM_POOLER = { grid: 4, dims: 192 } as const;

/** ARM_POOLER at this size: its region grid where it divides the patch grid (else 2, else 1), its width capped by
 *  the features and the n training scenes it is fitted on. */
function armPooler(patchGrid: number, hidden: number, n: number): PoolerRecipe {
  const grid = [ARM_POOLER.grid, 2, 1].find((g) => patchGrid % g === 0)!;
  return { grid, dims: Math.min(ARM_POOLER.dims, hidden * (1 + grid * grid), n - 1), scenes: n };
}

const ImageArmRecordSchema = z.object({
  arm: z.enum(['good', 'bad']),
  renders: z.number(),
  steps: z.number(),
  batch: z.number(),
  views: z.number(),
  seconds: z.number(),
  loss: z.object({ first: z.number(), last: z.number() }),
  sha256: z.string(),
  dim: z.number(),
  backend: z.string(),
});

export type ImageArms = { sides: Map<ImageViewArm, ImageSide>; records: ImageArmRecord[] };
type Hooks = {
  signal: AbortSignal;
  log(message: string): void;
  progress(done: number, total: number, message: string): void;
  metric(arm: ImageViewArm, s: ImageStep): void;
  cancelled(): Error; // what to throw when the signal fires
};

/** Trains (or finds, on resume) each image arm, then embeds the fit and test photos with it. */
export async function imageArms(
  c: ExperimentConfig & { imageViews: ImageViews },
  world: RenderableWorld,
  photos: Photos,
  layout: ExperimentLayout,
  hooks: Hooks,
): Promise<ImageArms> {
  const v = c.imageViews;
  const recipe = imageArmRecipe(v, world.imageSize);
  let pool: RenderPool | null = null;
  const sides = new Map<ImageViewArm, ImageSide>();
  const records: ImageArmRecord[] = [];
  for (const [n, arm] of v.arms.entries()) {
    const out = layout.imageArm(arm, n === 0);
    if (!existsSync(out.onnx) || !existsSync(out.training)) {
      const backend = await initBackend(c.train.backend);
      if (!pool) {
        const t0 = performance.now();
        pool = renderPool(world.seed, world.imageSize, world.train, v.renders);
        hooks.log(
          `image arms: ${v.renders} renders of each of ${pool.n} training scenes in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
        );
      }
      hooks.log(
        `image arm ${arm}: ${recipe.steps} steps of ${recipe.batch} scenes x ${recipe.V} ${arm === 'good' ? 'renders' : 'crops'} on ${backend.name}`,
      );
      const t0 = performance.now();
      let first: ImageStep | null = null,
        last: ImageStep | null = null;
      const renders0 = firstRenders(pool); // each scene's dataset render: the bad arm's crops and every arm's pooler fit
      const params = await trainImageJepa(recipe, arm === 'good' ? { pool, noise: recipe.views.noise } : renders0, {
        onStep: (s) => {
          if (hooks.signal.aborted) throw hooks.cancelled();
          first ??= s;
          last = s;
          hooks.metric(arm, s);
          hooks.progress(s.step + 1, recipe.steps, `training image arm ${arm}`);
        },
      });
      const shape = recipe.vit as ViTShape;
      const pooler = armPooler(world.imageSize / PATCH, shape.hidden, pool.n);
      const bytes = await exportVitOnnx(shape, params, (await fitVitPooler(shape, params, renders0, pooler)).head);
      tf.dispose([...params.values()]);
      const f = first as ImageStep | null,
        l = last as ImageStep | null;
      if (!f || !l) throw new Error(`image arm ${arm}: no training steps ran`);
      writeFileAtomic(out.onnx, bytes);
      const record: ImageArmRecord = {
        arm,
        renders: arm === 'good' ? v.renders : 1,
        steps: recipe.steps,
        batch: recipe.batch,
        views: recipe.V,
        seconds: (performance.now() - t0) / 1000,
        loss: { first: f.loss, last: l.loss },
        sha256: sha256(bytes),
        dim: pooler.dims,
        backend: backend.name,
      };
      writeJsonAtomic(out.training, record);
      hooks.log(
        `image arm ${arm}: loss ${f.loss.toFixed(3)} -> ${l.loss.toFixed(3)} in ${record.seconds.toFixed(0)} s`,
      );
    }
    const record = readJson(out.training, ImageArmRecordSchema, 'an image arm record');
    if (record.sha256 !== sha256(readFileSync(out.onnx)))
      throw new Error(`${out.onnx}: does not match its record ${out.training} (sha256)`);
    records.push(record);
    // The training pixels are the PNGs as they are: no resize before the crop.
    const choice = ImageEncoderChoice.parse({
      model: out.onnx,
      preset: 'dinov2',
      size: world.imageSize,
      resize: world.imageSize,
      device: 'cpu',
    });
    sides.set(
      arm,
      await embedImageSide(photos, choice, out.side, null, {
        signal: hooks.signal,
        log: hooks.log,
        onProgress: (d, t) => hooks.progress(d, t, `embedding photos (image arm ${arm})`),
      }),
    );
  }
  return { sides, records };
}
