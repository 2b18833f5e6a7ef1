// Runs: what is stored on disk under runs/<id>/ and streamed to the GUI while a job works.
import { z } from 'zod';
import { Prop3GridParams } from './theory';
import { TrainConfig } from './train';
import { ExperimentConfig } from './experiment';

// Run configs: a discriminated union by run kind; `version` lets old runs stay readable as kinds evolve.
export const TheoryProp3Config = z.object({
  kind: z.literal('theory.prop3'),
  version: z.literal(1),
  name: z.string().max(200).optional(),
  params: Prop3GridParams,
});
export type TheoryProp3Config = z.infer<typeof TheoryProp3Config>;

// Generate the procedural world into a dataset folder (options as `prh world generate`).
export const WorldGenerateConfig = z.object({
  kind: z.literal('world.generate'),
  version: z.literal(1),
  name: z.string().max(200).optional(),
  out: z.string().min(1),
  seed: z.number().int().min(0).default(0),
  preset: z.enum(['paper-like', 'strong', 'null']).default('paper-like'),
  diversity: z.boolean().optional(),
  nuisance: z.enum(['none', 'weak', 'medium', 'strong']).optional(),
  splits: z
    .object({ train: z.number().int().min(0), val: z.number().int().min(0), test: z.number().int().min(0) })
    .optional(),
  imageSize: z.number().int().min(16).max(1024).optional(),
  force: z.boolean().optional(), // overwrite a dataset already in `out`; only as given at start, never implied by a resume
});
export type WorldGenerateConfig = z.infer<typeof WorldGenerateConfig>;

export const RunConfig = z.discriminatedUnion('kind', [
  TheoryProp3Config,
  TrainConfig,
  ExperimentConfig,
  WorldGenerateConfig,
]);
export type RunConfig = z.infer<typeof RunConfig>;
export type RunConfigInput = z.input<typeof RunConfig>; // defaults not yet filled in
export type RunKind = RunConfig['kind'];

// `unreadable` is never written: the store lists a run whose status.json it cannot read that way (`error` says why).
export const RunStatus = z.enum([
  'queued',
  'running',
  'done',
  'failed',
  'cancelled',
  'interrupted',
  'diverged',
  'unreadable',
]);
export type RunStatus = z.infer<typeof RunStatus>;
export const RESUMABLE: readonly RunStatus[] = ['failed', 'cancelled', 'interrupted', 'diverged'];

export const Progress = z.object({ done: z.number(), total: z.number(), message: z.string().optional() });
export type Progress = z.infer<typeof Progress>;

// One line of metrics.jsonl. `scope` names the series (e.g. 'prop3', 'train', 'eval'); x is step/epoch/row.
export const MetricRecord = z.object({
  t: z.number(), // ms since epoch
  scope: z.string(),
  x: z.number(),
  values: z.record(z.string(), z.number().nullable()),
  tags: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
});
export type MetricRecord = z.infer<typeof MetricRecord>;

export const SlurmPlacement = z.object({
  jobId: z.string(),
  node: z.string().nullable(),
  state: z.string(),
  resubmits: z.number().int().min(0).default(0),
});
export type SlurmPlacement = z.infer<typeof SlurmPlacement>;

// status.json: everything the list view needs, rewritten atomically on every change.
export const RunState = z.object({
  id: z.string(),
  kind: z.string(),
  name: z.string(),
  status: RunStatus,
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  progress: Progress.nullable(),
  error: z.string().nullable(), // a human message; for crashes, the stderr tail
  pid: z.number().nullable(),
  attempts: z.number().int(),
  result: z.record(z.string(), z.unknown()).nullable(), // the job's summary when done
  // A run computed as a Slurm batch job: its current job, the node it runs on (null while pending), Slurm's state
  // (PENDING, RUNNING, COMPLETED, TIMEOUT, ...) and how often it was resubmitted after the cluster ended a job.
  slurm: SlurmPlacement.nullable().optional(),
});
export type RunState = z.infer<typeof RunState>;

export const RunEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('status'), runId: z.string(), state: RunState }),
  z.object({ type: z.literal('progress'), runId: z.string(), progress: Progress }),
  z.object({ type: z.literal('metric'), runId: z.string(), record: MetricRecord }),
  z.object({ type: z.literal('log'), runId: z.string(), level: z.enum(['info', 'warn', 'error']), text: z.string() }),
]);
export type RunEvent = z.infer<typeof RunEvent>;
