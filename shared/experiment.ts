// The paper's experiment: one dataset, one frozen image encoder, several training arms (x seeds) trained with
// one config, and one evaluation protocol. Arms run as child train runs inside the experiment's run folder.
import { z } from 'zod';
import { ImageDevice } from './gpu';
import { ExecutorChoice } from './settings';
import { Arm, TrainSettings, type TrainConfigInput, type TrainEvaluation } from './train';

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
    train: TrainSettings.default(TrainSettings.parse({})), // the same for every arm
    eval: EvalProtocol.default(EvalProtocol.parse({})),
    parallel: z.number().int().min(1).optional(), // arms trained at once; default: number of cores (Slurm: all)
    executor: ExecutorChoice.optional(), // where the arms compute; default: the settings' executor
  })
  .refine((c) => new Set(c.arms).size === c.arms.length, { path: ['arms'], message: 'each arm once' });
export type ExperimentConfig = z.infer<typeof ExperimentConfig>;
export type ExperimentConfigInput = z.input<typeof ExperimentConfig>;

// The train run of one arm and seed (unparsed: TrainConfig.parse fills its defaults).
export function armConfig(c: Pick<ExperimentConfig, 'data' | 'images' | 'splitSeed' | 'eval' | 'train'>, arm: Arm, seed: number, evaluation?: TrainEvaluation): TrainConfigInput {
  return {
    ...c.train, kind: 'train', version: 1, name: `${arm} (seed ${seed})`, data: c.data, ...(c.images ? { images: c.images } : {}),
    split: experimentSplit(c), arm, seed, ...(evaluation ? { evaluation } : {}),
  };
}

// The seeded split an experiment opens its data with (used only by data without a split of its own).
export const experimentSplit = (c: Pick<ExperimentConfig, 'splitSeed' | 'eval'>) => ({
  seed: c.splitSeed, ...(c.eval.fitPairs ? { val: c.eval.fitPairs } : {}), ...(c.eval.testPairs ? { test: c.eval.testPairs } : {}),
});

// What an experiment run streams (metrics.jsonl of the experiment, relayed from its arms), all tagged {arm, seed}:
//   scope 'train' x = step  : loss, inv, sigreg, lr, gradNorm
//   scope 'epoch' x = epoch : trainLoss, valLoss, seconds, samplesPerSec
//   scope 'eval'  x = epoch : r1, r5, r10 (image->text), t2iR1, mknn, chanceR1, chanceMknn
// and what it leaves in its folder: image/{val,test}.npy (+ ids, encoder.json), arms/<train run>/ (checkpoints,
// embeddings, tokenizer), final/<arm>-s<seed>/{w.npy,image-mean.npy,text-mean.npy,alignment.json}, report/.

export type Interval = { estimate: number; lo: number; hi: number };
export type ArmResult = {
  arm: string;
  seed: number;
  runId: string; // the arm's train run, under arms/
  epoch: number; // the checkpoint scored (by the train config's selection policy; never test)
  diverged?: string; // set when the arm diverged (NaN/Inf): why; `epoch` is then its last good checkpoint's
  r1: Interval; r5: Interval; r10: Interval; t2iR1: Interval;
  mknn: Interval | null; // null when degenerate (zero-variance features)
  fitR1: number; // R@1 of the fit pairs among themselves: the overfitting gap
  controls: { random: number; shuffled: number }; // R@1 under a random orthonormal map / a map fitted on shuffled pairs
};
export type ArmDifference = { a: string; b: string; seed: number; metric: 'r1' | 'mknn'; estimate: number; lo: number; hi: number };
export type SeedSpread = { arm: string; seeds: number; meanR1: number; sdR1: number; minR1: number; maxR1: number };
export type SweepRow = { arm: string; seed: number; n: number; testR1: number; fitR1: number; sdTestR1: number };
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
};
