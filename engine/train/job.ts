// The run-store job: trains from ctx.config, streams per-step and per-epoch metrics, resumes from the last checkpoint.
import { writeJsonAtomic } from '../atomic';
import type { JobContext, JobOutcome } from '../runs/job';
import { Cancelled } from '../runs/job';
import type { TrainConfig } from '../../shared/train';
import { train, type TrainHooks } from './loop';

export type TrainJobContext = Omit<JobContext<TrainConfig>, 'checkpoint'>; // training keeps its own per-epoch checkpoints

export async function trainJob(
  ctx: TrainJobContext,
  hooks: Pick<TrainHooks, 'onEpoch' | 'valPairs'> = {},
): Promise<JobOutcome> {
  const out = await train(
    ctx.config,
    ctx.runDir,
    {
      log: (t) => ctx.log(t),
      warn: (t) => ctx.log(t, 'warn'),
      progress: (d, t, m) => ctx.progress(d, t, m),
      phase: (name) => ctx.time.enter(name),
      signal: ctx.signal,
      valPairs: hooks.valPairs,
      onStep: (step, v) =>
        ctx.metric('train', step, {
          loss: v.loss,
          inv: v.inv ?? null,
          sigreg: v.sigreg ?? null,
          lr: v.lr,
          gradNorm: v.gradNorm,
        }),
      onEpoch: async (epoch, emb, s) => {
        ctx.metric('epoch', epoch, {
          trainLoss: s.trainLoss,
          valLoss: s.valLoss,
          seconds: s.seconds,
          samplesPerSec: s.samplesPerSec,
        });
        await hooks.onEpoch?.(epoch, emb, s);
      },
    },
    ctx.resume,
  );
  const { setup } = out;
  writeJsonAtomic(ctx.path('resolved-config.json'), {
    ...setup.config,
    ...setup.lambda,
    encoder: setup.encoder,
    vocab: setup.vocab,
    backboneParams: setup.params,
    stepsPerEpoch: setup.stepsPerEpoch,
    totalSteps: setup.totalSteps,
    ...setup.schedule, // the warmup as resolved, the highest lr reached
    backend: setup.backend,
  });
  if (out.status === 'cancelled') throw new Cancelled('training cancelled');
  const last = out.epochs[out.epochs.length - 1];
  // A diverged run keeps a result too: the checkpoint its policy picks among the good ones, which an experiment scores.
  const result = {
    arm: setup.config.arm,
    lamb: setup.lambda.lamb,
    lambEff: setup.lambda.lambEff,
    backend: setup.backend.name,
    epochs: out.epochs.length,
    trainLoss: last?.trainLoss ?? null,
    valLoss: last?.valLoss ?? null,
    selected: out.selected,
    lrReached: setup.schedule?.lrReached ?? null,
    warnings: out.warnings,
  };
  if (out.status === 'diverged') return { status: 'diverged', message: out.message, result };
  return { status: 'done', result };
}
