// The renderer's live view of the run store: states from listRuns + status events, metrics of the runs on screen.
import { reactive } from 'vue';
import type { MetricRecord, Progress, RunConfig, RunConfigInput, RunState } from '../../shared/runs';
import { backend } from './backend';

export const runs = reactive(new Map<string, RunState>());
export const metrics = reactive(new Map<string, MetricRecord[]>()); // only runs someone looks at
export const progress = reactive(new Map<string, Progress>());
export const configs = reactive(new Map<string, RunConfig>());

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
