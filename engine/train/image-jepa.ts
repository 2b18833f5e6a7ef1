// The image JEPA: a small ViT (engine/models/vit.ts) trained with the LeJEPA loss on views of unlabelled images,
// no captions anywhere: invariance of every view's projection to the images' mean projection + λ·SIGReg over all
// V·B projections (stable-pretraining's form, every view global); optionally a second term on object-level views
// (renders of one object drawn alone, render-views.ts objectPool): LeJEPA again or InfoNCE. AdamW, warmup + cosine,
// seeded streams.
import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { DEFAULT_LAMB_EFF } from '../../shared/train';
import { SP_GRID } from '../metrics';
import {
  ProjectorConfig,
  STEM_PATCH_RULE,
  TrainRng,
  calibrateStem,
  initProjector,
  initVit,
  project,
  stemFitsPatch,
  vitForward,
  type Params,
  type ViTShape,
} from '../models';
import { ImageSet, ViewRecipe, imageViewBatch, normalised } from './image-views';
import { OBJECT_DRAWS, drawObjects, firstRenders, renderViewBatch, type RenderPool } from './render-views';
import { infoNce } from './infonce';
import { lejepaLoss, type JepaLoss, type JepaParts } from './lejepa';
import { createAdamW, lrAt, optimizerStep, type Schedule } from './optimizer';
import { resumeSteps, saveSteps, type StepCheckpoints } from './step-checkpoints';

export const ImageJepaRecipe = z
  .object({
    vit: z
      .object({
        imageSize: z.number().int().positive(),
        patchSize: z.number().int().positive(),
        hidden: z.number().int().positive(),
        depth: z.number().int().positive(),
        heads: z.number().int().positive(),
        mlp: z.number().int().positive(),
        // a conv stem of these widths in place of the patch embedding (3x3 stride-2 convs, BatchNorm, ReLU; engine/models/conv-stem.ts)
        stem: z.array(z.number().int().positive()).min(1).max(5).optional(),
      })
      .refine(stemFitsPatch, { message: STEM_PATCH_RULE }),
    posStd: z.number().positive(), // init std of the ViT's position table (see initVit)
    // how the ViT's attention is drawn (EncoderConfig.init; absent 'torch', as every recipe before it): 'torch-mha' as
    // torch's MultiheadAttention draws it, the torch twins' init (docs/world-encoder-log.md, "where the twin and the workbench part")
    vitInit: z.enum(['torch', 'torch-mha']).optional(),
    projector: ProjectorConfig,
    views: ViewRecipe,
    V: z.number().int().min(2), // views per image
    batch: z.number().int().min(2), // images per step
    steps: z.number().int().positive(),
    lr: z.number().positive(),
    warmupSteps: z.number().int().nonnegative(),
    minLr: z.number().min(0).max(1), // final lr as a fraction of lr
    weightDecay: z.number().min(0),
    lamb: z.number().positive(), // SIGReg weight; the statistic scales with N = V·B, so λ goes with 1/(V·B)
    slices: z.number().int().positive(),
    clip: z.number().positive().nullable(),
    seed: z.number().int().nonnegative(),
    // object-level views: each step also takes `views` renders of `batch` random objects (absent: the scenes' batch) of
    // the training scenes, each drawn alone anywhere in the image, and adds weight x their loss: LeJEPA (absent; the
    // same projector, λ and directions) or 'infonce' (infonce.ts; temperature τ, absent = 0.1). aloneSteps: the first
    // that many steps train the object term alone, no scene views (InfoNCE leaves its plateau on objects alone, where
    // beside the scene term from step 0 it did not: docs/world-encoder-log.md, "objects that keep shape and colour"); = steps:
    // scenes are only the pooler's and the stem statistics' images. draw: how a step's objects are drawn (drawObjects;
    // absent: 'uniform').
    objects: z
      .object({
        views: z.number().int().min(2),
        weight: z.number().positive(),
        batch: z.number().int().min(2).optional(),
        loss: z.enum(['lejepa', 'infonce']).optional(),
        temperature: z.number().positive().optional(),
        aloneSteps: z.number().int().positive().optional(),
        draw: z.enum(OBJECT_DRAWS).optional(),
      })
      .refine((o) => o.temperature === undefined || o.loss === 'infonce', {
        message: 'objects.temperature is InfoNCE\'s: it needs objects.loss "infonce"',
      })
      .optional(),
  })
  .refine((r) => (r.objects?.aloneSteps ?? 0) <= r.steps, {
    message: 'objects.aloneSteps is at most steps (= steps: the object term alone throughout)',
  });
export type ImageJepaRecipe = z.infer<typeof ImageJepaRecipe>;

// The crop-view image JEPA that the 2x2's image arms and the world encoder share: 4 views of 32 images a step, crops
// keeping ≥ 80% of the area (at 60% they zoom objects across size classes and shift them across cells), no flips
// (captions say left/right), no hue jitter (captions name colours), position table std 1 (at .02 the CLS carried no
// position). Size, steps, warmup, seed and object term are each user's own; λ comes from imageLamb.
export const IMAGE_JEPA_BASE = {
  posStd: 1,
  projector: { norm: [true, false], act: 'gelu' },
  views: { scale: [0.8, 1], ratio: [0.9, 1.1], flip: 0, brightness: 0.2, contrast: 0.2, noise: 0.04 },
  V: 4,
  batch: 32,
  lr: 2e-3,
  minLr: 0.05,
  weightDecay: 0.05,
  slices: 256,
  clip: 1,
} as const;

// λ of an image JEPA of V views of `batch` images: λ_eff / (V·batch), SIGReg's N being every projection of a step;
// λ_eff the text arms' (DEFAULT_LAMB_EFF, 10.24), so both sides' SIGReg weigh alike (4·32 images: λ = .08).
export const imageLamb = (r: { V: number; batch: number }, lambEff: number = DEFAULT_LAMB_EFF): number =>
  lambEff / (r.V * r.batch);

// objectNce: the object term's InfoNCE (an InfoNCE object term only)
export const ImageStep = z.object({
  step: z.number().int(),
  loss: z.number(),
  inv: z.number(),
  sigreg: z.number(),
  objectNce: z.number().optional(),
  lr: z.number(),
  gradNorm: z.number(),
  seconds: z.number(),
});
export type ImageStep = z.infer<typeof ImageStep>;
export type ImageLossParts = JepaParts & { objectNce?: tf.Scalar };

// A step checkpoint's record of the steps before it, for the build's manifest (its loss curve, its time).
const ImageJepaState = z.object({
  key: z.string(),
  step: z.number().int().positive(), // steps taken
  adamT: z.number().int().nonnegative(),
  losses: z.array(z.number()), // [step] each step's loss
  last: ImageStep, // the newest step's record (a build killed after its last step still has it)
  seconds: z.number().nonnegative(), // the steps' training time over every session
  resumed: z.array(z.number().int().positive()), // the steps at which earlier sessions took it up
});
export type ImageJepaHistory = Omit<z.infer<typeof ImageJepaState>, 'key' | 'adamT'>;
// onResume: once, before the first step, when training goes on from a checkpoint (history: the steps taken before)
export type ImageJepaHooks = { onStep?(s: ImageStep): void; onResume?(history: ImageJepaHistory): void };

// The recipe's ViT at its initial weights: the first draws of initImageJepa, and the probe's random-init baseline.
export const initImageVit = (r: ImageJepaRecipe, rng = TrainRng.seeded(r.seed, 'image-jepa-init')): Params =>
  initVit(r.vit as ViTShape, rng, r.posStd, r.vitInit);

export function initImageJepa(r: ImageJepaRecipe): Params {
  const rng = TrainRng.seeded(r.seed, 'image-jepa-init');
  const p = initImageVit(r, rng);
  initProjector(r.projector, r.vit.hidden, rng, p);
  return p;
}

// One step's loss on `pixels` = r.V views of the step's images, [V·B, 3, S, S] view-major; every view is global.
// With `objectPixels` (r.objects.views views of the step's objects, the same layout) + weight x the object loss on
// those. A LeJEPA object term adds into inv and sigreg (so loss = inv + λ·sigreg still holds); an InfoNCE one is
// objectNce (loss = inv + λ·sigreg + weight·objectNce). pixels null (an object-alone step): the scene term is 0.
export function imageJepaLoss(
  r: ImageJepaRecipe,
  p: Params,
  pixels: Float32Array | null,
  directionsKey: number,
  objectPixels?: Float32Array,
): ImageLossParts {
  const L: JepaLoss = { variant: 'sp', lamb: r.lamb, slices: r.slices, grid: SP_GRID, worldSize: 1 };
  const rows = (px: Float32Array) => px.length / (3 * r.vit.imageSize * r.vit.imageSize);
  const projected = (px: Float32Array) =>
    project(r.projector, p, vitForward(r.vit as ViTShape, p, px, rows(px), 'batch').cls);
  const scenes = pixels
    ? lejepaLoss(projected(pixels), r.V, L, directionsKey, r.V)
    : { loss: tf.scalar(0), inv: tf.scalar(0), sigreg: tf.scalar(0) };
  const o = r.objects;
  if (!objectPixels || !o) return scenes;
  if (o.loss === 'infonce') {
    const nce = infoNce(projected(objectPixels), o.views, o.temperature);
    return { ...scenes, loss: tf.add(scenes.loss, tf.mul(nce, o.weight)), objectNce: nce };
  }
  const objects = lejepaLoss(projected(objectPixels), o.views, L, directionsKey, o.views);
  const w = o.weight;
  return {
    loss: tf.add(scenes.loss, tf.mul(objects.loss, w)),
    inv: tf.add(scenes.inv, tf.mul(objects.inv, w)),
    sigreg: tf.add(scenes.sigreg, tf.mul(objects.sigreg, w)),
  };
}

// The image order of epoch e and the views of step s come from streams keyed by (seed, purpose, counter).
export function stepImages(r: ImageJepaRecipe, n: number, step: number): Int32Array {
  const perEpoch = Math.floor(n / r.batch);
  if (perEpoch < 1) throw new Error(`image JEPA: ${n} images is fewer than one batch of ${r.batch}`);
  const order = TrainRng.seeded(r.seed, 'image-order', Math.floor(step / perEpoch)).permutation(n);
  const i = step % perEpoch;
  return order.slice(i * r.batch, (i + 1) * r.batch);
}

// Where a step's views come from: crops and colour changes of one image each (r.views; the shipped world encoder's
// and the 2x2 experiment's "bad" image arm), or renders of the same scene state ({ pool, noise }: the "good" arm);
// objects: the object-level renders r.objects draws from (required with r.objects, pixel noise U(0, r.views.noise)).
export type ViewSource = (ImageSet | { pool: RenderPool; noise: number }) & { objects?: RenderPool };
const sourceSize = (s: ViewSource) => ('pool' in s ? s.pool.n : s.n);

// Step s's scene views: r.V views of the step's r.batch images.
function sceneViewBatch(r: ImageJepaRecipe, images: ViewSource, step: number): Float32Array {
  const ids = stepImages(r, sourceSize(images), step);
  const rng = TrainRng.seeded(r.seed, 'image-views', step);
  return 'pool' in images
    ? renderViewBatch(images.pool, ids, r.V, images.noise, rng)
    : imageViewBatch(images, ids, r.V, r.views, rng);
}

// Step s's object views: o.batch (absent: r.batch) objects of the pool (drawObjects, o.draw), o.views renders each.
function objectViewBatch(
  r: ImageJepaRecipe,
  o: NonNullable<ImageJepaRecipe['objects']>,
  objects: RenderPool,
  step: number,
): Float32Array {
  const rng = TrainRng.seeded(r.seed, 'object-views', step);
  return renderViewBatch(
    objects,
    drawObjects(objects, o.batch ?? r.batch, o.draw ?? 'uniform', rng),
    o.views,
    r.views.noise,
    rng,
  );
}

// A conv stem's BatchNorm statistics: measured after the last step on the first 1,000 of the training images,
// un-augmented (the scenes as the dataset renders them).
const STEM_CALIBRATION_IMAGES = 1000;
export async function calibrateStemOn(stem: number[], params: Params, src: ImageSet): Promise<void> {
  const n = Math.min(STEM_CALIBRATION_IMAGES, src.n);
  await calibrateStem(
    stem,
    params,
    normalised(
      src,
      Array.from({ length: n }, (_, i) => i),
    ),
    n,
    src.side,
  );
}

// r.steps AdamW steps from initImageJepa(r); returns the trained parameters (ViT + projector; with a conv stem, its
// population statistics). With checkpoints: every c.every steps and after the last, and a start from the newest one.
export async function trainImageJepa(
  r: ImageJepaRecipe,
  images: ViewSource,
  hooks: ImageJepaHooks = {},
  checkpoints?: StepCheckpoints,
): Promise<Params> {
  if (!r.objects !== !images.objects)
    throw new Error(
      `image JEPA: ${r.objects ? 'the recipe asks for object views but no object renders were given' : 'object renders were given but the recipe has no objects'}`,
    );
  const params = initImageJepa(r);
  const opt = createAdamW(params, r.weightDecay);
  const sched: Schedule = {
    lr: r.lr,
    warmupSteps: r.warmupSteps,
    warmupStart: 0.01,
    minLr: r.minLr,
    totalSteps: r.steps,
  };
  const from = checkpoints ? resumeSteps(checkpoints, ImageJepaState, params, opt) : null;
  const losses = from?.losses ?? [],
    resumed = from ? [...from.resumed, from.step] : [];
  let seconds = from?.seconds ?? 0,
    saved = from?.step ?? 0;
  if (from) hooks.onResume?.({ step: from.step, losses, last: from.last, seconds, resumed });
  for (let step = from?.step ?? 0; step < r.steps; step++) {
    const t0 = performance.now();
    const alone = step < (r.objects?.aloneSteps ?? 0);
    const pixels = alone ? null : sceneViewBatch(r, images, step);
    const objectPixels = r.objects && images.objects ? objectViewBatch(r, r.objects, images.objects, step) : undefined;
    const lr = lrAt(sched, step);
    const { values, gradNorm, finite } = await optimizerStep(
      opt,
      params,
      () => imageJepaLoss(r, params, pixels, step, objectPixels),
      r.clip,
      lr,
    );
    if (!finite)
      throw new Error(
        `image JEPA diverged at step ${step}: loss ${values.loss}, gradient norm ${gradNorm}${checkpoints && saved ? `; ${checkpoints.dir} keeps step ${saved}` : ''}`,
      );
    const last: ImageStep = { step, ...values, lr, gradNorm, seconds: (performance.now() - t0) / 1000 };
    losses.push(last.loss);
    seconds += last.seconds;
    hooks.onStep?.(last);
    if (checkpoints && ((step + 1) % checkpoints.every === 0 || step + 1 === r.steps)) {
      await saveSteps(checkpoints, params, opt, {
        key: checkpoints.key,
        step: step + 1,
        adamT: opt.t,
        losses,
        last,
        seconds,
        resumed,
      });
      saved = step + 1;
    }
    await new Promise((res) => setImmediate(res));
  }
  tf.dispose([...opt.m.values(), ...opt.v.values()]);
  if (r.vit.stem)
    await calibrateStemOn(
      r.vit.stem,
      params,
      'pool' in images ? firstRenders(images.pool, STEM_CALIBRATION_IMAGES) : images,
    );
  return params;
}
