// Which job runs each run kind, loaded lazily so a theory job never loads tfjs or ONNX Runtime.
// Adding a run kind = a schema in shared/runs.ts + one line here.
import type { RunConfig, RunKind } from '../../shared/runs';
import type { Job } from '../runs';

type Config<K extends RunKind> = Extract<RunConfig, { kind: K }>;
type JobTable = { [K in RunKind]: (config: Config<K>) => Promise<Job<Config<K>>> };
const jobs: JobTable = {
  'theory.prop3': async () => (await import('../theory')).prop3Job,
  // An experiment's arm (evaluation set by the experiment) also fits the map and scores the test pairs every epoch.
  train: async (c) => (c.evaluation ? (await import('../experiment')).armJob : (await import('../train')).trainJob),
  experiment: async () => (await import('../experiment')).experimentJob,
  'world.generate': async () => (await import('../data')).worldJob,
};

export const jobFor = async (config: RunConfig): Promise<Job> => (await jobs[config.kind](config as never)) as Job;
