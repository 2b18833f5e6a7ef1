// Which job runs each run kind, loaded lazily so a theory job never loads tfjs or ONNX Runtime.
// Adding a run kind = a schema in shared/runs.ts + one line here.
import type { RunConfig } from '../../shared/runs';
import type { Job } from './job';

type JobTable = { [K in RunConfig['kind']]: () => Promise<Job<Extract<RunConfig, { kind: K }>>> };
const jobs: JobTable = {
  'theory.prop3': async () => (await import('../theory')).prop3Job,
  train: async () => {
    const [{ trainJob }, { epochEvaluator }] = await Promise.all([import('../train'), import('../experiment')]);
    // Inside an experiment, every epoch also fits the map and scores the test pairs.
    return (ctx) => {
      const spec = ctx.config.evaluation;
      if (!spec) return trainJob(ctx);
      const score = epochEvaluator(spec);
      return trainJob(ctx, {
        onEpoch: async (epoch, emb) => {
          const v = await score(emb);
          if (v) ctx.metric('eval', epoch, v);
        },
      });
    };
  },
  experiment: async () => (await import('../experiment')).experimentJob,
  'world.generate': async () => (await import('../data')).worldJob,
};

export const jobFor = async (config: RunConfig): Promise<Job> => (await jobs[config.kind]()) as Job;
