// Per-epoch evaluation inside an arm's train run: fit the map on the fit pairs, score R@1 and mutual k-NN on the
// test pairs, stream the point; and the fit pairs' own two-fold R@1, which select val-pairs picks the checkpoint by.
// The image side is read once per process.
import type { TrainConfig, TrainEvaluation } from '../../shared/train';
import { evaluate, foldR1 } from '../align';
import type { Job } from '../runs';
import { trainJob, type EpochEmbeddings } from '../train';
import { pairSplits, readSide, type Side } from './pairs';

export type EvalValues = {
  r1: number;
  r5: number;
  r10: number;
  t2iR1: number;
  mknn: number | null;
  chanceR1: number;
  chanceMknn: number;
  foldR1: number;
};

export function epochEvaluator(spec: TrainEvaluation) {
  let images: { val: Side; test: Side } | null = null;
  return async (emb: EpochEmbeddings): Promise<EvalValues | null> => {
    if (!emb.val || !emb.test) return null;
    images ??= { val: readSide(spec.images.val), test: readSide(spec.images.test) };
    const side = (s: NonNullable<EpochEmbeddings['val']>): Side => ({ emb: s.last, ids: s.ids });
    const p = pairSplits(images, { val: side(emb.val), test: side(emb.test) });
    const e = await evaluate({ image: p.image, text: p.text, fit: p.fit, test: p.test, k: spec.k });
    return {
      r1: e.imageToText.r1,
      r5: e.imageToText.r5,
      r10: e.imageToText.r10,
      t2iR1: e.textToImage.r1,
      mknn: e.mknn.degenerate ? null : e.mknn.score,
      chanceR1: e.chance.r1,
      chanceMknn: e.chance.mknn,
      foldR1: await foldR1(p.image, p.text, p.fit),
    };
  };
}

// An experiment's arm: a train run (config.evaluation set by the experiment) that also scores itself every epoch.
export const armJob: Job<TrainConfig> = (ctx) => {
  const spec = ctx.config.evaluation;
  if (!spec) throw new Error(`${ctx.runDir}: an experiment arm's train config has no evaluation`);
  const score = epochEvaluator(spec);
  let scored: EvalValues | null = null; // the epoch's values: scored before its checkpoint is written, streamed after
  return trainJob(ctx, {
    valPairs: async (emb) => (scored = await score(emb))?.foldR1 ?? null,
    onEpoch: async (epoch) => {
      if (scored) ctx.metric('eval', epoch, scored);
    },
  });
};
