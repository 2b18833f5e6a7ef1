// The backend contract: one service (engine/api) behind two transports (Electron IPC, `prh serve` WebSocket).
// Every request is validated against these schemas on the backend side of each transport.
import { z } from 'zod';
import { FigureFormat, FigureSpec } from './figures';
import { RunConfig, type MetricRecord, type RunEvent, type RunState } from './runs';
import { Settings } from './settings';

const RunId = z.object({ id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/) });

// Interactive theory queries are small by construction (bounded n), so they answer within a slider drag.
export const ExploreQuery = z.object({
  n: z.number().int().min(3).max(60).default(30),
  k: z.number().int().min(1).max(12).default(4),
  m: z.number().int().min(2).max(12).default(6),
  rho: z.number().min(0).max(1).default(0.5),
  worldKind: z.enum(['uniform', 'clustered']).default('uniform'),
  seed: z.number().int().min(0).max(2 ** 31 - 1).default(0),
}).refine((q) => q.k < q.n, { message: 'k must be below n', path: ['k'] });
export type ExploreQuery = z.input<typeof ExploreQuery>;

export const ApiParams = {
  version: z.object({}),
  listRuns: z.object({}),
  getRun: RunId,
  startRun: z.object({ config: RunConfig }),
  cancelRun: RunId,
  resumeRun: RunId,
  theoryExplore: ExploreQuery,
  theoryThm1: z.object({ n: z.number().int().min(3).max(60).default(12), k: z.number().int().min(1).max(8).default(3), seed: z.number().int().min(0).default(0) }),
  theoryProp2: z.object({ k: z.number().int().min(2).max(8).default(3), n: z.number().int().min(4).max(200).default(40), seed: z.number().int().min(0).default(0) }),
  exportFigure: z.object({ spec: FigureSpec, format: FigureFormat, runId: z.string().optional() }),
  getSettings: z.object({}),
  setSettings: Settings.partial(),
} as const;
export type ApiMethod = keyof typeof ApiParams;
export type ApiInput<M extends ApiMethod> = z.input<(typeof ApiParams)[M]>;

export type RunDetail = { state: RunState; config: RunConfig; metrics: MetricRecord[] };
export type ExportedFile = { filename: string; mime: string; base64: string; savedTo: string | null };
export type VersionInfo = { app: string; node: string; runsDir: string; concurrency: number; transport: 'ipc' | 'ws' };

// Result types (theory results are plain JSON produced by engine/theory).
export type ApiResults = {
  version: VersionInfo;
  listRuns: RunState[];
  getRun: RunDetail;
  startRun: RunState;
  cancelRun: RunState;
  resumeRun: RunState;
  theoryExplore: Record<string, unknown>;
  theoryThm1: Record<string, unknown>;
  theoryProp2: Record<string, unknown>;
  exportFigure: ExportedFile;
  getSettings: Settings;
  setSettings: Settings;
};

export type Api = { [M in ApiMethod]: (params: ApiInput<M>) => Promise<ApiResults[M]> };

// The renderer's view of a transport: call a method, listen to run events.
export type Backend = {
  call<M extends ApiMethod>(method: M, params: ApiInput<M>): Promise<ApiResults[M]>;
  onEvent(listener: (e: RunEvent) => void): () => void;
};

// Wire messages of the WebSocket transport.
export const WsRequest = z.object({ id: z.number().int(), method: z.string(), params: z.unknown() });
export type WsRequest = z.infer<typeof WsRequest>;
export type WsReply = { id: number; result: unknown } | { id: number; error: string } | { event: RunEvent };
