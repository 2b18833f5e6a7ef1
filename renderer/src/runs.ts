// The renderer's live view of the run store: states from listRuns + status events, metrics of the runs on screen,
// every run's config and annotation for the run table; all fetched again when a lost server link comes back.
import { reactive } from 'vue';
import type { RunAnnotation, RunIndexEntry } from '../../shared/api';
import type { MetricRecord, Progress, RunConfig, RunConfigInput, RunState } from '../../shared/runs';
import { backend } from './backend';
import { onReconnect } from './connection';

export const runs = reactive(new Map<string, RunState>());
export const metrics = reactive(new Map<string, MetricRecord[]>()); // only runs someone looks at
export const progress = reactive(new Map<string, Progress>());
export const configs = reactive(new Map<string, RunConfig>());
export const index = reactive(new Map<string, RunIndexEntry>()); // filled by refreshIndex (the run table)

backend.onEvent((e) => {
  if (e.type === 'status') runs.set(e.runId, e.state);
  else if (e.type === 'progress') progress.set(e.runId, e.progress);
  else if (e.type === 'metric') metrics.get(e.runId)?.push(e.record);
});

// The runs `keep` accepts (all by default), newest first: how every list and picker orders them.
export const newestFirst = (keep: (s: RunState) => boolean = () => true): RunState[] =>
  [...runs.values()].filter(keep).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
export const isExperiment = (s: RunState): boolean => s.kind === 'experiment';

export async function refreshRuns(): Promise<void> {
  const list = await backend.call('listRuns', {});
  runs.clear();
  for (const s of list) runs.set(s.id, s);
}

// Load a run's stored metrics, then keep appending live ones.
export async function openRun(id: string): Promise<void> {
  metrics.set(id, []);
  const detail = await backend.call('getRun', { id });
  runs.set(id, detail.state);
  configs.set(id, detail.config);
  const live = metrics.get(id) ?? [];
  const seen = new Set(detail.metrics.map((m) => `${m.scope}:${m.x}:${m.t}`));
  metrics.set(id, [...detail.metrics, ...live.filter((m) => !seen.has(`${m.scope}:${m.x}:${m.t}`))]);
}

export async function startRun(config: RunConfigInput): Promise<RunState> {
  const state = await backend.call('startRun', { config });
  runs.set(state.id, state);
  metrics.set(state.id, []);
  return state;
}

export async function refreshIndex(): Promise<void> {
  const list = await backend.call('runIndex', {});
  index.clear();
  for (const e of list) index.set(e.id, e);
}

export async function annotate(id: string, patch: Partial<RunAnnotation>): Promise<void> {
  const annotation = await backend.call('annotateRun', { id, annotation: patch });
  const e = index.get(id);
  if (e) e.annotation = annotation;
}

export async function deleteRun(id: string): Promise<void> {
  await backend.call('deleteRun', { id });
  for (const m of [runs, metrics, progress, configs, index]) m.delete(id);
}

// Events sent while the link was down are lost: fetch the list, the table and every followed run again.
onReconnect(() => {
  void refreshRuns().catch(() => undefined);
  if (index.size) void refreshIndex().catch(() => undefined);
  for (const id of metrics.keys()) void openRun(id).catch(() => undefined);
});
