// Which job runs each run kind, loaded lazily so a theory job never loads tfjs or ONNX Runtime.
// Adding a run kind = a schema in shared/runs.ts + one line here.
import type { RunConfig } from '../../shared/runs';
import type { Job } from './job';

type JobTable = { [K in RunConfig['kind']]: () => Promise<Job<Extract<RunConfig, { kind: K }>>> };
const jobs: JobTable = {
  'theory.prop3': async () => (await import('../theory')).prop3Job,
  train: async () => {
    const { trainJob } = await import('../train');
    return (ctx) => trainJob(ctx);
  },
};

export const jobFor = async (config: RunConfig): Promise<Job> => (await jobs[config.kind]()) as Job;
