// The paper's experiment: one dataset, one frozen image encoder, several training arms (x seeds) trained with
// one config, and one evaluation protocol. Arms run as child train runs inside the experiment's run folder.
import { z } from 'zod';
import { ImageDevice } from './gpu';
import { ExecutorChoice } from './settings';
import type { TimeTable } from './timing';
import { ARMS, Arm, TrainSettings, type SelectPolicy, type TrainConfigInput, type TrainEvaluation } from './train';

const Rgb = z.tuple([z.number(), z.number(), z.number()]);
const Px = z.number().int().positive();

// How the photos become image embeddings: an ONNX model with its preset and any of `prh embed`'s overrides of the
// preset's spec (engine/image/spec.ts), or embeddings computed elsewhere (an .npy whose ids sidecar names photo ids).
export const ImageEncoderChoice = z.object({
  model: z.string().min(1).default('world'), // 'world': the shipped world encoder (resources/); else a path to an .onnx file
  preset: z.enum(['dinov2', 'imagenet-cnn', 'custom']).optional(), // detected from the model's input/output names when absent
  input: z.string().min(1).optional(), // graph input to feed
  output: z.string().min(1).optional(), // tensor holding the embedding: a graph output or any intermediate tensor
  pool: z.enum(['none', 'cls', 'mean-patches']).optional(), // none: flatten; cls: token 0 of [N,T,D]; mean-patches
  prefixTokens: z.number().int().nonnegative().optional(), // CLS (+ registers) before the patch tokens
  size: Px.optional(), // centre-crop side fed to the model, px
  resize: Px.optional(), // shorter side after resizing, before the crop, px
  interpolation: z.enum(['nearest', 'bilinear', 'bicubic']).optional(),
  mean: Rgb.optional(), // per channel, in the units of range
  std: Rgb.optional(),
  channels: z.enum(['rgb', 'bgr']).optional(),
  range: z.enum(['0-1', '0-255']).optional(),
  embeddings: z.string().min(1).optional(), // precomputed [photos, D] .npy + <file>.ids.json; model and spec unused
  device: ImageDevice.default('auto'), // where the encoder runs (shared/gpu.ts)
});
export type ImageEncoderChoice = z.infer<typeof ImageEncoderChoice>;

export const EvalProtocol = z.object({
  k: z.number().int().min(1).default(10), // mutual k-NN
  bootstrap: z.number().int().min(100).default(2000), // paired resamples
  seed: z.number().int().min(0).default(0),
  sweepCounts: z.array(z.number().int().min(2)).default([25, 50, 100, 200, 400, 800]), // plus all fit pairs
  sweepRepeats: z.number().int().min(1).default(5),
  everyEpoch: z.boolean().default(true), // fit + score after every epoch (the live curves)
  // The paper's protocol: the map is fitted on fit pairs (val photos) and scored on test pairs (test photos).
  // Absent: every val / test photo (Flickr30k's official val is 1,014, test 1,000). Given: a seeded subset of an
  // official split, or the held-out sizes of a seeded split (data without one).
  fitPairs: z.number().int().min(2).optional(),
  testPairs: z.number().int().min(2).optional(),
});
export type EvalProtocol = z.infer<typeof EvalProtocol>;

// The paper's 2x2 (its MSR-VTT table): image arms x text arms. Each image arm is a small ViT trained from scratch
// inside the experiment as an image JEPA on the training scenes' images (never a caption), with good views (other
// renders of the same world state: the world's video) or bad views (crops and colour changes of the one dataset
// render, as DINOv2). Procedural worlds only; same ViT, steps, batch and seed for both arms (equal compute).
export const IMAGE_VIEW_ARMS = ['good', 'bad'] as const;
export type ImageViewArm = (typeof IMAGE_VIEW_ARMS)[number];
export const ImageViews = z.object({
  arms: z.array(z.enum(IMAGE_VIEW_ARMS)).min(1).default(['good', 'bad']),
  renders: z.number().int().min(2).max(64).default(4), // renders of each training scene the good arm draws its views from
  steps: z.number().int().positive().default(300), // AdamW steps per image arm
  batch: z.number().int().min(2).default(32), // scenes per step (x 4 views)
  hidden: z.number().int().min(16).multipleOf(16).default(64), // ViT width (16 per head; MLP 4x); 64 as the shipped world encoder
  depth: z.number().int().min(1).default(2), // ViT blocks
  seed: z.number().int().nonnegative().default(0), // init, batch order and views of both image arms
});
export type ImageViews = z.infer<typeof ImageViews>;

const Rate = z.number().positive();
const ARM_RATES = {
  good: Rate.optional(),
  bad: Rate.optional(),
  ntp: Rate.optional(),
  'pair-ntp': Rate.optional(),
} satisfies Record<Arm, unknown>;
const ArmRates = z.strictObject(ARM_RATES, {
  error: (iss) =>
    iss.code === 'unrecognized_keys' ? `not arms: ${iss.keys.join(', ')} (arms: ${ARMS.join(', ')})` : undefined,
});

// Arms x seeds one experiment trains, each its own run folder and process: more is a typo or a job for several
// experiments (the paper reports 3 seeds).
export const MAX_ARM_RUNS = 64;

export const ExperimentConfig = z
  .object({
    kind: z.literal('experiment'),
    version: z.literal(1),
    name: z.string().max(200).optional(),
    data: z.string().min(1), // a dataset in any format engine/data opens: a folder (dataset.json, Flickr8k, ...) or a caption file
    images: z.string().min(1).optional(), // the image folder, when it is not beside the captions
    splitSeed: z.number().int().nonnegative().default(0), // the seeded split of data without one (and of fit/test subsets)
    image: ImageEncoderChoice.default(ImageEncoderChoice.parse({})),
    arms: z.array(Arm).min(1).default(['good', 'bad', 'ntp']),
    seeds: z.array(z.number().int().min(0)).min(1).default([0]), // replicates: training noise can exceed the bootstrap CI
    train: TrainSettings.default(TrainSettings.parse({})), // the same for every arm, but for armLr
    // Each arm's peak learning rate over train.lr: arms differ in their best rate (docs/reference.md#optimiser),
    // and one shared rate tilts the comparison toward the arm it suits.
    armLr: ArmRates.optional(),
    eval: EvalProtocol.default(EvalProtocol.parse({})),
    parallel: z.number().int().min(1).optional(), // arms trained at once; default: number of cores, at least the arms of one seed (Slurm: all)
    executor: ExecutorChoice.optional(), // where the arms compute; default: the settings' executor
    imageViews: ImageViews.optional(), // set: the 2x2 (image arms x text arms) instead of one frozen image encoder
  })
  .refine((c) => new Set(c.arms).size === c.arms.length, { path: ['arms'], message: 'each arm once' })
  .refine((c) => new Set(c.seeds).size === c.seeds.length, { path: ['seeds'], message: 'each seed once' })
  .superRefine((c, ctx) => {
    const n = c.arms.length * c.seeds.length;
    if (n > MAX_ARM_RUNS)
      ctx.addIssue({
        code: 'custom',
        path: ['seeds'],
        message: `${n} arm runs (${c.arms.length} arms x ${c.seeds.length} seeds) is more than the ${MAX_ARM_RUNS} one experiment trains: run the seeds as several experiments`,
      });
  })
  .refine((c) => Object.keys(c.armLr ?? {}).every((a) => c.arms.includes(a as Arm)), {
    path: ['armLr'],
    message: 'a learning rate for an arm the experiment does not train',
  })
  .refine((c) => new Set(c.imageViews?.arms ?? []).size === (c.imageViews?.arms.length ?? 0), {
    path: ['imageViews', 'arms'],
    message: 'each image arm once',
  })
  .refine((c) => !c.imageViews || c.arms.every((a) => a === 'good' || a === 'bad'), {
    path: ['arms'],
    message:
      'the 2x2 experiment (image views) compares JEPA text arms only, as the paper (no NTP): use text arms good and/or bad',
  })
  .refine((c) => !c.imageViews || (c.image.model === 'world' && !c.image.embeddings), {
    path: ['image'],
    message:
      'the 2x2 experiment (image views) trains its own image encoders: an image model or precomputed image embeddings do not apply',
  });
export type ExperimentConfig = z.infer<typeof ExperimentConfig>;
export type ExperimentConfigInput = z.input<typeof ExperimentConfig>;

// The name of an arm's train run, under which the experiment's pages find it.
export const armRunName = (arm: string, seed: number): string => `${arm} (seed ${seed})`;

// The train run of one arm and seed (unparsed: TrainConfig.parse fills its defaults).
export function armConfig(
  c: Pick<ExperimentConfig, 'data' | 'images' | 'splitSeed' | 'eval' | 'train' | 'armLr'>,
  arm: Arm,
  seed: number,
  evaluation?: TrainEvaluation,
): TrainConfigInput {
  return {
    ...c.train,
    lr: armLr(c, arm),
    kind: 'train',
    version: 1,
    name: armRunName(arm, seed),
    data: c.data,
    ...(c.images ? { images: c.images } : {}),
    split: experimentSplit(c),
    arm,
    seed,
    ...(evaluation ? { evaluation } : {}),
  };
}

// Each text arm's rate on the default world, picked on its val pairs (the map's R@1 on its fit pairs; no test
// data): `prh demo`'s defaults (docs/reference.md#this-workbench).
export const WORLD_ARM_LR = { good: 4e-3, bad: 1e-3, ntp: 1e-3 } as const satisfies Partial<Record<Arm, number>>;
// `prh demo`'s epochs: the good arm still gains after 8 (R@1 .387 -> .448, 3 seeds) and 12 fit the demo's 10 minutes (529 s on 2 cores).
export const DEMO_EPOCHS = 12;
export const ratesText = (rates: Partial<Record<Arm, number>>) =>
  Object.entries(rates)
    .map(([a, x]) => `${a} ${x.toExponential()}`)
    .join(', ');

// The peak learning rate one arm trains at.
export const armLr = (c: Pick<ExperimentConfig, 'train' | 'armLr'>, arm: Arm): number => c.armLr?.[arm] ?? c.train.lr;

// The seeded split an experiment opens its data with (used only by data without a split of its own).
export const experimentSplit = (c: Pick<ExperimentConfig, 'splitSeed' | 'eval'>) => ({
  seed: c.splitSeed,
  ...(c.eval.fitPairs ? { val: c.eval.fitPairs } : {}),
  ...(c.eval.testPairs ? { test: c.eval.testPairs } : {}),
});

// What an experiment run streams (metrics.jsonl of the experiment, relayed from its arms), all tagged {arm, seed}:
//   scope 'train' x = step  : loss, inv, sigreg, lr, gradNorm
//   scope 'epoch' x = epoch : trainLoss, valLoss, seconds, samplesPerSec
//   scope 'eval'  x = epoch : r1, r5, r10 (image->text), t2iR1, mknn, chanceR1, chanceMknn (test pairs);
//                             foldR1 (the fit pairs in two folds: what select val-pairs picks by)
//   scope 'image' x = step  : loss, inv, sigreg, lr (the 2x2's image arms, tagged {arm: 'image <arm>', seed})
// and what it leaves in its folder: image/{val,test}.npy (+ ids, encoder.json), arms/<train run>/ (checkpoints,
// embeddings, tokenizer), final/<arm>-s<seed>/{w.npy,image-mean.npy,text-mean.npy,alignment.json}, report/;
// a 2x2 also image-arms/<arm>/ (engine/experiment/layout.ts).

export type Interval = { estimate: number; lo: number; hi: number };
export type ArmResult = {
  arm: string;
  seed: number;
  runId: string; // the arm's train run, under arms/
  epoch: number; // the checkpoint scored (by the train config's selection policy; never test)
  select?: SelectPolicy; // that policy (absent in older results: last)
  lr?: number; // the peak learning rate of its schedule (absent in older results)
  lrReached?: number; // the highest lr it reached: below lr when its warmup did not finish (absent in older results)
  lambEff?: number; // the λ_eff its training resolved and recorded (JEPA arms; absent for NTP and in older results)
  diverged?: string; // set when the arm diverged (NaN/Inf): why; `epoch` is then its last good checkpoint's
  r1: Interval;
  r5: Interval;
  r10: Interval;
  t2iR1: Interval;
  mknn: Interval | null; // null when degenerate (zero-variance features)
  fitR1: number; // R@1 of the fit pairs among themselves: the overfitting gap
  controls: { random: number; shuffled: number }; // R@1 under a random orthonormal map / a map fitted on shuffled pairs
};
export type ArmDifference = {
  a: string;
  b: string;
  seed: number;
  metric: 'r1' | 'mknn';
  estimate: number;
  lo: number;
  hi: number;
};
export type SeedSpread = { arm: string; seeds: number; meanR1: number; sdR1: number; minR1: number; maxR1: number };
export type SweepRow = { arm: string; seed: number; n: number; testR1: number; fitR1: number; sdTestR1: number };
// The 2x2: each image arm's training, every (image arm x text arm x seed) cell on the same test pairs, and the paired
// differences between cells (per seed, the same resampled test queries for all four). `varies` says which side
// differs between a and b: text (same image arm), image (same text arm), both (the diagonal) or crossed.
export type ImageArmRecord = {
  arm: ImageViewArm;
  renders: number;
  steps: number;
  batch: number;
  views: number;
  seconds: number;
  loss: { first: number; last: number };
  sha256: string;
  dim: number;
  backend: string;
};
export type GridCell = {
  image: ImageViewArm;
  text: string;
  seed: number;
  r1: Interval;
  r5: Interval;
  mknn: Interval | null;
};
export type GridDifference = {
  seed: number;
  metric: 'r1' | 'r5' | 'mknn';
  varies: 'text' | 'image' | 'both' | 'crossed';
  a: { image: ImageViewArm; text: string };
  b: { image: ImageViewArm; text: string };
  estimate: number;
  lo: number;
  hi: number;
};
// ceilings: each image arm's image-side ceiling (R@1 against the oracle text side; absent in older results).
export type GridResult = {
  imageArms: ImageArmRecord[];
  cells: GridCell[];
  differences: GridDifference[];
  ceilings?: { image: ImageViewArm; r1: number; mknn: number | null }[];
};

export type ExperimentResult = {
  arms: ArmResult[];
  differences: ArmDifference[];
  spread: SeedSpread[];
  sweep: SweepRow[];
  chance: { r1: number; mknn: number };
  rankHistograms: { arm: string; seed: number; edges: number[]; counts: number[] }[]; // image->text ranks of the test queries
  image: { model: string; sha256: string; dim: number; preset: string; tensor?: string; pool?: string };
  pairs: { fit: number; test: number; freeParameters: number };
  // Procedural worlds only: R@1 / mutual k-NN of the image side against an oracle text side that knows each
  // scene's facts; the most any text encoder could reach through this image encoder. null for real photos.
  ceiling: { r1: number; mknn: number | null; concepts: number; dim: number } | null;
  seconds: number;
  warnings?: string[]; // why some scores may not mean much (an under-determined map, empty embeddings); absent in older results
  grid?: GridResult; // the 2x2 (config.imageViews); the other fields then hold the text arms through the first image arm
  time?: TimeTable; // where the time went (absent in results written before it was recorded)
};
