// Training runs: the config a user gives (CLI flags, GUI form) and what it resolves to (seeds, λ and λ_eff).
import { z } from 'zod';
import { SeededSplit } from './dataset';

export const ARMS = ['good', 'bad', 'ntp', 'pair-ntp'] as const;
export const Arm = z.enum(ARMS);
export type Arm = z.infer<typeof Arm>;
export const isJepaArm = (a: Arm): a is 'good' | 'bad' => a === 'good' || a === 'bad';

// tfjs backends a run can ask for; auto: tfjs-node-gpu when installed, else WebGPU on a real GPU adapter, else
// tfjs-node when installed, else wasm.
export const BACKENDS = ['auto', 'tensorflow-gpu', 'webgpu', 'tensorflow', 'wasm', 'cpu'] as const;
export type BackendChoice = (typeof BACKENDS)[number];

export const PRESET_NAMES = ['cpu', 'minilm-33m', 'bert-base-109m'] as const;
export const Preset = z.enum(PRESET_NAMES);

// Views (docs/reference.md#views): 2 global (50-100% span) first, then 6 local (15-50%), 15% masking.
export const ViewConfig = z.object({
  globals: z.number().int().min(1).default(2),
  locals: z.number().int().min(0).default(6),
  globalSpan: z.tuple([z.number().gt(0).max(1), z.number().gt(0).max(1)]).default([0.5, 1]),
  localSpan: z.tuple([z.number().gt(0).max(1), z.number().gt(0).max(1)]).default([0.15, 0.5]),
  maskRate: z.number().min(0).lt(1).default(0.15),
});
export type ViewConfig = z.infer<typeof ViewConfig>;

// Set by an experiment: the frozen image embeddings of the fit (val) and test photos, scored every epoch.
export const TrainEvaluation = z.object({
  images: z.object({ val: z.string(), test: z.string() }), // .npy with an ids sidecar (photo ids)
  k: z.number().int().min(1).default(10),
});
export type TrainEvaluation = z.infer<typeof TrainEvaluation>;

export const SELECT_POLICIES = ['last', 'val-loss', 'val-pairs'] as const;
export type SelectPolicy = (typeof SELECT_POLICIES)[number];
export const SELECTED_BY: Record<SelectPolicy, string> = {
  // in words, for the form and the arms table's note
  last: 'the last epoch',
  'val-loss': 'the lowest validation loss',
  'val-pairs': 'the best R@1 on the fit pairs in two folds (val-pairs)',
};

const TrainFields = z.object({
  kind: z.literal('train'),
  version: z.literal(1),
  name: z.string().max(200).optional(),
  data: z.string().min(1), // a dataset in any format engine/data opens: a folder (dataset.json, Flickr8k, ...) or a caption file
  images: z.string().min(1).optional(), // the image folder, when it is not beside the captions
  split: SeededSplit.optional(), // for caption files without a split: the seeded split's seed and held-out sizes
  arm: Arm,
  preset: Preset.default('cpu'),
  epochs: z.number().int().min(1).default(8),
  batch: z.number().int().min(2).default(64), // photos per step
  // SIGReg weight: give λ, or λ_eff = λ·N·world_size (N = samples in one SIGReg call) to keep the experiment when
  // the batch changes. Neither: DEFAULT_LAMB.
  lamb: z.number().positive().optional(),
  lambEff: z.number().positive().optional(),
  loss: z.enum(['sp', 'paper']).default('sp'), // sp: inv + λ·SIGReg(all views pooled); paper: (1−λ)inv + λ·mean_v SIGReg(view v)
  slices: z.number().int().min(1).default(1024),
  tMax: z.number().positive().default(3),
  points: z.number().int().min(2).default(17),
  worldSize: z.literal(1).default(1), // one process; the scaling is kept explicit for when data parallelism lands
  seed: z.number().int().nonnegative().default(0),
  lr: z.number().positive().default(2e-3),
  weightDecay: z.number().min(0).default(0.05),
  warmupSteps: z.number().int().min(0).optional(), // absent: warmupFor(the run's steps)
  warmupStart: z.number().min(0).max(1).default(0.01), // warmup starts at this fraction of lr
  minLr: z.number().min(0).default(0), // cosine ends here (fraction of lr)
  clip: z.number().positive().nullable().default(null), // global gradient-norm clip; off by default (docs/reference.md#optimiser)
  tokenizer: z.string().optional(), // a HF tokenizer.json; absent: WordPiece trained on the training captions
  vocabSize: z.number().int().min(16).optional(), // of the trained WordPiece; absent: chosen from the corpus (engine/text)
  maxLen: z.number().int().min(4).default(64), // tokens per sequence including [CLS]/[SEP]
  pool: z.enum(['mean', 'cls']).default('mean'),
  views: ViewConfig.default(ViewConfig.parse({})),
  // Checkpoint scored, never on test data: the last epoch, the lowest val loss, or (an experiment's arm) the best
  // map R@1 on the fit pairs, cross-validated in two folds.
  select: z.enum(SELECT_POLICIES).default('last'),
  backend: z.enum(BACKENDS).default('auto'),
  metricEvery: z.number().int().min(1).default(5),
  // Set by an experiment: fit the map and score R@1 / mutual k-NN against these image embeddings every epoch.
  evaluation: TrainEvaluation.optional(),
});
// The learning-rate schedule: linear warmup from warmupStart·lr to lr, then cosine to minLr·lr at totalSteps.
export type Schedule = { lr: number; warmupSteps: number; warmupStart: number; minLr: number; totalSteps: number };

// lr at 0-based step s.
export function lrAt(s: Schedule, step: number): number {
  if (step < s.warmupSteps) return s.lr * (s.warmupStart + ((1 - s.warmupStart) * step) / s.warmupSteps);
  const span = Math.max(1, s.totalSteps - s.warmupSteps);
  const p = Math.min(1, (step - s.warmupSteps) / span);
  const end = s.lr * s.minLr;
  return end + (s.lr - end) * 0.5 * (1 + Math.cos(Math.PI * p));
}

// The highest lr a run of totalSteps reaches: its peak when the warmup ends inside the run, else the lr of its last
// step (a short run with a long warmup never gets near the peak its config names).
export const lrReached = (s: Schedule): number => lrAt(s, Math.max(0, Math.min(s.warmupSteps, s.totalSteps - 1)));

// Steps an arm trains: whole batches of its training photos (the last partial batch dropped), every epoch.
export const armSteps = (trainPhotos: number, c: { batch: number; epochs: number }) => {
  const perEpoch = Math.floor(trainPhotos / c.batch);
  return { perEpoch, total: perEpoch * c.epochs };
};

// Warmup steps unless given: 50, or a tenth of a shorter run, so that a short run still reaches its peak lr.
export const DEFAULT_WARMUP = 50;
export const warmupFor = (c: { warmupSteps?: number }, totalSteps: number): number =>
  c.warmupSteps ?? Math.min(DEFAULT_WARMUP, Math.ceil(totalSteps / 10));

// λ or λ_eff, never both: the one statement of the rule, for config files, the form and the CLI's flags alike.
const oneLambda = (c: { lamb?: number; lambEff?: number }) => !(c.lamb !== undefined && c.lambEff !== undefined);
const ONE_LAMBDA = { message: 'λ_eff given with λ: give one, not both (λ_eff = λ·N·world_size)', path: ['lambEff'] };

export const TrainConfig = TrainFields.refine(oneLambda, ONE_LAMBDA).refine(
  (c) => c.select !== 'val-pairs' || c.evaluation !== undefined,
  {
    message:
      'select val-pairs scores each epoch on the photos the map is fitted on, which only an experiment gives its arms: use last or val-loss, or run an experiment',
    path: ['select'],
  },
);
export type TrainConfig = z.infer<typeof TrainConfig>;
export type TrainConfigInput = z.input<typeof TrainConfig>;

// The training settings an experiment gives all its arms: a train config less what the experiment sets per arm.
const PER_ARM = {
  kind: true,
  version: true,
  name: true,
  data: true,
  images: true,
  split: true,
  arm: true,
  seed: true,
  evaluation: true,
} as const;
export const TrainSettings = z
  .strictObject(TrainFields.omit(PER_ARM).shape, {
    error: (iss) =>
      iss.code === 'unrecognized_keys'
        ? `not training settings: ${iss.keys.join(', ')} (the experiment sets ${Object.keys(PER_ARM).join(', ')} per arm)`
        : undefined,
  })
  .refine(oneLambda, ONE_LAMBDA);
export type TrainSettings = z.infer<typeof TrainSettings>;

// N of one SIGReg call: all views pooled (sp) or one view (paper).
export const sigregN = (c: Pick<TrainConfig, 'loss' | 'batch' | 'views'>): number =>
  c.loss === 'sp' ? (c.views.globals + c.views.locals) * c.batch : c.batch;

// λ when neither λ nor λ_eff is given: stable-pretraining's default.
export const DEFAULT_LAMB = 0.02;

export type ResolvedLambda = { lamb: number; lambEff: number; sigregN: number; worldSize: number };
export type LambdaInput = Pick<TrainConfig, 'loss' | 'batch' | 'views' | 'worldSize' | 'lamb' | 'lambEff'>;
export function resolveLambda(c: LambdaInput): ResolvedLambda {
  const n = sigregN(c),
    ws = c.worldSize;
  const lamb = c.lamb ?? (c.lambEff !== undefined ? c.lambEff / (n * ws) : DEFAULT_LAMB);
  return { lamb, lambEff: lamb * n * ws, sigregN: n, worldSize: ws };
}

// The same resolution for train settings a form holds before they validate (docs/reference.md#effective-weight):
// views and world_size at their defaults unless given; V is returned for the read-out.
export type DraftLambda = Pick<TrainConfig, 'loss' | 'batch'> &
  Partial<Pick<TrainConfig, 'lamb' | 'lambEff' | 'views' | 'worldSize'>>;
export function resolveDraftLambda(s: DraftLambda): ResolvedLambda & { views: number } {
  const views = s.views ?? TRAIN_DEFAULTS.views;
  const worldSize = s.worldSize ?? TRAIN_DEFAULTS.worldSize;
  return { ...resolveLambda({ ...s, views, worldSize }), views: views.globals + views.locals };
}

// Every training setting at its default, read from the schema: what the form starts from and the CLI's help names.
export const TRAIN_DEFAULTS: TrainSettings = TrainSettings.parse({});
// λ_eff of the defaults (λ .02 · N 512 · world_size 1 = 10.24): what the form's λ_eff field starts at.
export const DEFAULT_LAMB_EFF = resolveLambda(TRAIN_DEFAULTS).lambEff;
