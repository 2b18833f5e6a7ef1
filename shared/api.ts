// The backend contract: one service (engine/api) behind two transports (Electron IPC, `prh serve` WebSocket).
// Every request is validated against these schemas on the backend side of each transport.
import { z } from 'zod';
import { FigureFormat, FigureSpec } from './figures';
import type { SweepRow } from './experiment';
import { RunConfig, type MetricRecord, type RunEvent, type RunState } from './runs';
import { Settings, SettingsPatch } from './settings';
import { ExploreParams, Prop2Params, Thm1Params, type ExploreResult, type Prop2Demo, type Thm1Demo } from './theory';

const RunId = z.object({ id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/) });

// What a researcher keeps on a run beside the job's own files: tags, a note, and whether it is archived (hidden
// from the run table unless asked for).
const annotationFields = {
  tags: z.array(z.string().trim().min(1).max(40)).max(20),
  note: z.string().max(4000),
  archived: z.boolean(),
};
export const RunAnnotation = z.object({
  tags: annotationFields.tags.default([]),
  note: annotationFields.note.default(''),
  archived: annotationFields.archived.default(false),
});
export type RunAnnotation = z.infer<typeof RunAnnotation>;
// A change to some of them (no defaults: a field left out stays as it is).
const RunAnnotationPatch = z.object(annotationFields).partial();

// Interactive theory queries are capped so they answer within a slider drag (< ~50 ms); bigger work is a run.
const small = (max: number) => z.number().int().min(3).max(max);
export const ExploreQuery = ExploreParams;
export const Thm1Query = Thm1Params.extend({
  n: small(40).default(12),
  observationsA: small(120).default(20),
  observationsB: small(120).default(24),
});
export const Prop2Query = Prop2Params.extend({ n: small(60).default(12) });

export const ApiParams = {
  version: z.object({}),
  listRuns: z.object({}),
  getRun: RunId,
  startRun: z.object({ config: RunConfig }),
  planExperiment: z.object({ config: RunConfig }), // an experiment's photos, steps, warmup and lr reached, before it starts
  cancelRun: RunId,
  resumeRun: RunId,
  deleteRun: RunId, // a finished run's folder, gone for good
  runIndex: z.object({}), // every run's config and annotation, for the run table
  childRuns: RunId, // an experiment's arm runs (arms/), with where each computes (pid, or Slurm job, node, queue state)
  annotateRun: RunId.extend({ annotation: RunAnnotationPatch }),
  theoryExplore: ExploreQuery,
  theoryThm1: Thm1Query,
  theoryProp2: Prop2Query,
  exportFigure: z.object({ spec: FigureSpec, format: FigureFormat, runId: z.string().optional() }),
  // The experiment lab: datasets and their gallery, the view inspector, image drop, exports.
  datasets: z.object({}),
  imageModel: z.object({ path: z.string().min(1) }), // an ONNX image model's inputs, outputs and feature tensors
  datasetGallery: z.object({
    path: z.string().min(1),
    from: z.number().int().min(0).default(0),
    count: z.number().int().min(1).max(64).default(12),
    split: z.enum(['train', 'val', 'test']).optional(),
    query: z.string().max(200).optional(), // photos whose id or any caption contains it (case-insensitive)
  }),
  browseFolder: z.object({ path: z.string().optional() }), // a folder under the allowed roots; none: the roots themselves
  photoViews: z.object({
    path: z.string().min(1),
    photo: z.string().min(1),
    seed: z.number().int().min(0).default(0),
    runId: z.string().optional(),
  }),
  matchImages: z.object({
    runId: z.string().min(1),
    images: z
      .array(z.object({ name: z.string().max(300), base64: z.string().max(40_000_000) }))
      .min(1)
      .max(16),
    pool: z.union([z.literal('test'), z.string().min(1)]).default('test'), // 'test': the dataset's test captions; else a COCO captions JSON path
    topK: z.number().int().min(1).max(50).default(5),
    perPhoto: z.boolean().default(false), // list each pool photo once, at its best caption (its 5 captions say one scene)
  }),
  exportTable: z.object({ table: z.unknown(), format: z.enum(['csv', 'latex', 'md']), runId: z.string().optional() }),
  exportBundle: RunId.extend({ checkpoints: z.boolean().default(false) }),
  // A finished experiment's pair-count sweep at other counts and repeats (the map refitted on n random fit pairs).
  sweepExperiment: RunId.extend({
    counts: z.array(z.number().int().min(2).max(1_000_000)).min(1).max(24),
    repeats: z.number().int().min(1).max(100).default(5),
  }),
  exportMetrics: RunId,
  getSettings: z.object({}),
  setSettings: SettingsPatch,
} as const;
export type ApiMethod = keyof typeof ApiParams;
export type ApiInput<M extends ApiMethod> = z.input<(typeof ApiParams)[M]>; // what a caller sends
export type ApiArgs<M extends ApiMethod> = z.output<(typeof ApiParams)[M]>; // what the service's methods get, parsed once

// What an experiment will train (engine/experiment/protocol.ts planExperiment): per arm, steps per epoch and in all,
// the warmup, and the highest lr its schedule reaches.
export type ExperimentPlan = {
  photos: { train: number; val: number; test: number };
  fit: number;
  test: number;
  steps: { perEpoch: number; total: number; warmup: number };
  arms: { arm: string; lr: number; lrReached: number }[];
};

export type RunDetail = { state: RunState; config: RunConfig; metrics: MetricRecord[] };
export type ExportedFile = { filename: string; mime: string; base64: string; savedTo: string | null };
export type VersionInfo = { app: string; node: string; runsDir: string; concurrency: number; transport: 'ipc' | 'ws' };

// An image model as the New experiment screen lists it: outputs, and the intermediate tensors a classifier reads
// its features from (MobileNetV2 int8: 464_quantized, the 1,280-d pooled feature); detail: shape, or producing op.
export type ModelTensor = { name: string; detail: string };
export type ImageModelInfo = {
  path: string;
  preset: 'dinov2' | 'imagenet-cnn' | 'custom';
  inputs: ModelTensor[];
  outputs: ModelTensor[];
  features: ModelTensor[];
};
// Datasets the lab knows: the default procedural world (generated on demand) and folders the user opened.
export type DatasetInfo = {
  path: string;
  name: string;
  source: string;
  exists: boolean;
  counts: { train: number; val: number; test: number } | null;
  params: Record<string, unknown>;
};
export type GalleryItem = {
  id: string;
  split: 'train' | 'val' | 'test';
  image: string | null /* data: URL */;
  captions: string[];
  evalCaption: number;
};
export type Gallery = { path: string; total: number; items: GalleryItem[] };
// One view: the whole source caption's tokens (index `caption` into the photo's captions), the kept span
// [start, end) of them, and which of them were replaced by [MASK].
export type InspectedView = {
  index: number;
  global: boolean;
  caption: number;
  tokens: string[];
  span: [number, number];
  masked: boolean[];
};
export type PhotoViews = {
  photo: string;
  captions: string[];
  good: InspectedView[];
  bad: InspectedView[];
  seed: number;
};
export type Match = { caption: string; cosine: number; photo: string | null };
// The server-side folder browser of `prh serve` (the desktop app uses the native dialog): sub-folders of one folder
// under the allowed roots, those holding a dataset marked.
export type FolderEntry = { name: string; path: string; dataset: boolean };
export type FolderListing = { path: string | null; parent: string | null; roots: string[]; entries: FolderEntry[] };
// executor: where an experiment's arms compute (its executor.json), null for other runs and older experiments.
export type RunIndexEntry = {
  id: string;
  config: RunConfig | null;
  annotation: RunAnnotation;
  executor: 'local' | 'slurm' | null;
};
// A dropped image that is one of the dataset's photos (same bytes): where each of its own captions ranks in the pool,
// and where the photo ranks among the pool's photos, each at its best caption (null when its captions are not ranked).
export type OwnCaptions = { photo: string; split: string; ranks: (number | null)[] | null; photoRank: number | null };
// How near a dropped image lies to the experiment's test photos in the image encoder's space (cosines after the fit
// photos' mean is taken off): its nearest photo, against the range of the test photos' own nearest neighbours (5th
// to 95th percentile). Below that range, no arm's matches say much about it.
export type Nearness = { name: string; photo: string; cosine: number; typical: { lo: number; hi: number } };
// Per arm (and seed) of the experiment, each readable dropped image's top-k pool captions; unreadable files are listed.
export type MatchResult = {
  pool: { name: string; size: number; photos: number }; // size: captions; photos: distinct photos (a caption without one counts alone)
  arms: { arm: string; seed: number; images: { name: string; top: Match[]; own: OwnCaptions | null }[] }[];
  nearness?: Nearness[]; // per dropped image (absent from older servers)
  skipped: { name: string; reason: string }[];
};

// Result types.
export type ApiResults = {
  version: VersionInfo;
  listRuns: RunState[];
  getRun: RunDetail;
  startRun: RunState;
  planExperiment: ExperimentPlan;
  cancelRun: RunState;
  resumeRun: RunState;
  deleteRun: { id: string };
  runIndex: RunIndexEntry[];
  childRuns: RunState[];
  annotateRun: RunAnnotation;
  theoryExplore: ExploreResult;
  theoryThm1: Thm1Demo;
  theoryProp2: Prop2Demo;
  exportFigure: ExportedFile;
  datasets: DatasetInfo[];
  imageModel: ImageModelInfo;
  datasetGallery: Gallery;
  browseFolder: FolderListing;
  photoViews: PhotoViews;
  matchImages: MatchResult;
  exportTable: ExportedFile;
  exportBundle: ExportedFile;
  sweepExperiment: SweepRow[];
  exportMetrics: ExportedFile;
  getSettings: Settings;
  setSettings: Settings;
};

// The service's methods, one per API method, on the parameters as parsed by its dispatch.
export type Api = { [M in ApiMethod]: (params: ApiArgs<M>) => Promise<ApiResults[M]> };

// The renderer's view of a transport: call a method, listen to run events; the desktop app also opens the
// system's folder dialog (`prh serve` has its server-side browser instead).
export type Backend = {
  call<M extends ApiMethod>(method: M, params: ApiInput<M>): Promise<ApiResults[M]>;
  onEvent(listener: (e: RunEvent) => void): () => void;
  pickFolder?(): Promise<string | null>;
};

// Wire messages of the WebSocket transport.
export const WsRequest = z.object({ id: z.number().int(), method: z.string(), params: z.unknown() });
export type WsRequest = z.infer<typeof WsRequest>;
export type WsReply = { id: number; result: unknown } | { id: number; error: string } | { event: RunEvent };
