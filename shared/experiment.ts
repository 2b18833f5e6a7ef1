// The paper's experiment: one dataset, one frozen image encoder, several training arms (x seeds) trained with
// one config, and one evaluation protocol. Arms run as child train runs inside the experiment's run folder.
import { z } from 'zod';
import { ExecutorChoice } from './settings';
import { Arm, TrainSettings, type TrainConfigInput, type TrainEvaluation } from './train';

export const ImageEncoderChoice = z.object({
  model: z.string().min(1).default('world'), // 'world': the shipped world encoder (resources/); else a path to an .onnx file
  preset: z.enum(['dinov2', 'imagenet-cnn', 'custom']).optional(), // detected from the model's input/output names when absent
});
export type ImageEncoderChoice = z.infer<typeof ImageEncoderChoice>;

export const EvalProtocol = z.object({
  k: z.number().int().min(1).default(10), // mutual k-NN
  bootstrap: z.number().int().min(100).default(2000), // paired resamples
  seed: z.number().int().min(0).default(0),
  sweepCounts: z.array(z.number().int().min(2)).default([25, 50, 100, 200, 400, 800]), // plus all fit pairs
  sweepRepeats: z.number().int().min(1).default(5),
  everyEpoch: z.boolean().default(true), // fit + score after every epoch (the live curves)
});
export type EvalProtocol = z.infer<typeof EvalProtocol>;

export const ExperimentConfig = z
  .object({
    kind: z.literal('experiment'),
    version: z.literal(1),
    name: z.string().max(200).optional(),
    data: z.string().min(1), // dataset folder (dataset.json + images/)
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
export function armConfig(c: Pick<ExperimentConfig, 'data' | 'train'>, arm: Arm, seed: number, evaluation?: TrainEvaluation): TrainConfigInput {
  return { ...c.train, kind: 'train', version: 1, name: `${arm} (seed ${seed})`, data: c.data, arm, seed, ...(evaluation ? { evaluation } : {}) };
}

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
  image: { model: string; sha256: string; dim: number; preset: string };
  pairs: { fit: number; test: number; freeParameters: number };
  // Procedural worlds only: R@1 / mutual k-NN of the image side against an oracle text side that knows each
  // scene's facts; the most any text encoder could reach through this image encoder. null for real photos.
  ceiling: { r1: number; mknn: number | null; concepts: number; dim: number } | null;
  seconds: number;
  warnings?: string[]; // why some scores may not mean much (an under-determined map, empty embeddings); absent in older results
};
