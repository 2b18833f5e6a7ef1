// What one training step computes for each arm: the batch it draws and the loss it differentiates.
import * as tf from '@tensorflow/tfjs';
import type { Arm, ViewConfig } from '../../shared/train';
import { encode, packBatch, pool, project, type EncoderConfig, type Params, type TrainRng, type TokenBatch } from '../models';
import { makeViews, type SpecialIds } from '../text';
import type { Corpus } from './corpus';
import { invariance } from './invariance';
import { ntpLoss } from './ntp';
import type { EppsPulleyGrid } from '../metrics';
import { sigreg, sigregDirections } from './sigreg';

export type Model = { cfg: EncoderConfig; params: Params };

// JEPA batch: the V views of B photos as packed sequences, sequence v·B + b (globals first).
export type ViewBatch = { B: number; V: number; tokens: TokenBatch };
// Causal-LM batch: one ([CLS] caption [SEP]) or two ([CLS] c1 [SEP] c2 [SEP]) captions of each photo.
export type StepBatch = { kind: 'views'; views: ViewBatch } | { kind: 'text'; text: TokenBatch };

export type Special = SpecialIds & { pad: number };

export function viewBatch(corpus: Corpus, photos: ArrayLike<number>, arm: 'good' | 'bad', cfg: ViewConfig, rng: TrainRng, sp: Special): ViewBatch {
  const B = photos.length, V = cfg.globals + cfg.locals;
  const views = Array.from(photos, (p) => makeViews(rng, corpus.tokens[p], arm, cfg, sp));
  const seqs: number[][] = [];
  for (let v = 0; v < V; v++) for (let b = 0; b < B; b++) seqs.push(views[b][v].ids);
  return { B, V, tokens: packBatch(seqs) };
}

// Bad views and NTP read one caption per photo per visit, drawn uniformly (reference-spec §A); pair-NTP two distinct ones.
export function textBatch(corpus: Corpus, photos: ArrayLike<number>, pair: boolean, rng: TrainRng, sp: Special, maxLen: number): TokenBatch {
  const seqs = Array.from(photos, (p) => {
    const caps = corpus.tokens[p];
    const i = rng.int(0, caps.length - 1);
    if (!pair) return [sp.cls, ...caps[i], sp.sep];
    let j = caps.length > 1 ? rng.int(0, caps.length - 2) : i;
    if (caps.length > 1 && j >= i) j++;
    // both captions share maxLen: each keeps at most half of what remains after 3 specials
    const half = Math.floor((maxLen - 3) / 2);
    return [sp.cls, ...caps[i].slice(0, half), sp.sep, ...caps[j].slice(0, maxLen - 3 - Math.min(half, caps[i].length)), sp.sep];
  });
  return packBatch(seqs);
}

export function drawBatch(corpus: Corpus, photos: ArrayLike<number>, arm: Arm, cfg: ViewConfig, rng: TrainRng, sp: Special, maxLen: number): StepBatch {
  return arm === 'good' || arm === 'bad'
    ? { kind: 'views', views: viewBatch(corpus, photos, arm, cfg, rng, sp) }
    : { kind: 'text', text: textBatch(corpus, photos, arm === 'pair-ntp', rng, sp, maxLen) };
}

export type LossParts = { loss: tf.Scalar; inv?: tf.Scalar; sigreg?: tf.Scalar };
export type JepaLoss = { variant: 'sp' | 'paper'; lamb: number; slices: number; grid: EppsPulleyGrid; worldSize: number };

// Backbone pooled features of every view, [V·B, d] in view-major order.
function pooledViews(m: Model, vb: ViewBatch): tf.Tensor2D {
  const hs = encode(m.cfg, m.params, vb.tokens, false);
  return pool(hs[hs.length - 1], vb.tokens, m.cfg.pool);
}

// sp (stable-pretraining): inv(centre = globals) + λ·SIGReg over all V·B projections pooled.
// paper (LeJEPA paper / MINIMAL.md): (1−λ)·inv(centre = all views) + λ·mean_v SIGReg(view v).
export function jepaLoss(m: Model, vb: ViewBatch, L: JepaLoss, directionsKey: number, nGlobal: number): LossParts {
  const P = project(m.cfg.projector, m.params, pooledViews(m, vb)); // [V·B, K]
  const K = P.shape[1];
  const A = tf.tensor2d(sigregDirections(K, L.slices, directionsKey), [K, L.slices]);
  const P3 = P.reshape([vb.V, vb.B, K]) as tf.Tensor3D;
  if (L.variant === 'sp') {
    const inv = invariance(P3, nGlobal);
    const sg = sigreg(P, A, L.grid, L.worldSize);
    return { loss: tf.add(inv, tf.mul(sg, L.lamb)), inv, sigreg: sg };
  }
  const inv = invariance(P3, vb.V);
  const per = tf.split(P, vb.V, 0).map((Pv) => sigreg(Pv as tf.Tensor2D, A, L.grid, L.worldSize));
  const sg = tf.mean(tf.stack(per)) as tf.Scalar;
  return { loss: tf.add(tf.mul(inv, 1 - L.lamb), tf.mul(sg, L.lamb)), inv, sigreg: sg };
}

export function textLoss(m: Model, tb: TokenBatch): LossParts {
  const hs = encode(m.cfg, m.params, tb, true);
  return { loss: ntpLoss(hs[hs.length - 1], m.params.get('tok') as tf.Variable as tf.Tensor2D, tb) };
}

export const stepLoss = (m: Model, b: StepBatch, L: JepaLoss, directionsKey: number, nGlobal: number): LossParts =>
  b.kind === 'views' ? jepaLoss(m, b.views, L, directionsKey, nGlobal) : textLoss(m, b.text);
