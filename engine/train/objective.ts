// What one training step computes for each arm: the batch it draws and the loss it differentiates.
import * as tf from '@tensorflow/tfjs';
import type { Arm, ViewConfig } from '../../shared/train';
import {
  encode,
  packBatch,
  pool,
  project,
  type EncoderConfig,
  type Params,
  type TrainRng,
  type TokenBatch,
} from '../models';
import { makeViews, type SpecialIds } from '../text';
import type { Corpus } from './corpus';
import { lejepaLoss, type JepaLoss, type LossParts } from './lejepa';
import { ntpLoss } from './ntp';

export type Model = { cfg: EncoderConfig; params: Params };

// JEPA batch: the V views of B photos as packed sequences, sequence v·B + b (globals first).
export type ViewBatch = { B: number; V: number; tokens: TokenBatch };
// Causal-LM batch: one ([CLS] caption [SEP]) or two ([CLS] c1 [SEP] c2 [SEP]) captions of each photo.
export type StepBatch = { kind: 'views'; views: ViewBatch } | { kind: 'text'; text: TokenBatch };

export type Special = SpecialIds & { pad: number };

// What a batch is drawn from: the tokenised captions, the view recipe, the special tokens and the sequence length.
export type BatchSource = { corpus: Corpus; views: ViewConfig; special: Special; maxLen: number };

export function viewBatch(
  { corpus, views: cfg, special: sp }: BatchSource,
  photos: ArrayLike<number>,
  arm: 'good' | 'bad',
  rng: TrainRng,
): ViewBatch {
  const B = photos.length,
    V = cfg.globals + cfg.locals;
  const views = Array.from(photos, (p) => makeViews(rng, corpus.tokens[p], arm, cfg, sp));
  const seqs: number[][] = [];
  for (let v = 0; v < V; v++) for (let b = 0; b < B; b++) seqs.push(views[b][v].ids);
  return { B, V, tokens: packBatch(seqs) };
}

// Bad views and NTP read one caption per photo per visit, drawn uniformly (docs/reference.md#splits); pair-NTP two distinct ones.
export function textBatch(
  { corpus, special: sp, maxLen }: BatchSource,
  photos: ArrayLike<number>,
  pair: boolean,
  rng: TrainRng,
): TokenBatch {
  const seqs = Array.from(photos, (p) => {
    const caps = corpus.tokens[p];
    const i = rng.int(0, caps.length - 1);
    if (!pair) return [sp.cls, ...caps[i], sp.sep];
    let j = caps.length > 1 ? rng.int(0, caps.length - 2) : i;
    if (caps.length > 1 && j >= i) j++;
    // both captions share maxLen: each keeps at most half of what remains after 3 specials
    const half = Math.floor((maxLen - 3) / 2);
    return [
      sp.cls,
      ...caps[i].slice(0, half),
      sp.sep,
      ...caps[j].slice(0, maxLen - 3 - Math.min(half, caps[i].length)),
      sp.sep,
    ];
  });
  return packBatch(seqs);
}

export function drawBatch(src: BatchSource, photos: ArrayLike<number>, arm: Arm, rng: TrainRng): StepBatch {
  return arm === 'good' || arm === 'bad'
    ? { kind: 'views', views: viewBatch(src, photos, arm, rng) }
    : { kind: 'text', text: textBatch(src, photos, arm === 'pair-ntp', rng) };
}

// Backbone pooled features of every view, [V·B, d] in view-major order.
function pooledViews(m: Model, vb: ViewBatch): tf.Tensor2D {
  const hs = encode(m.cfg, m.params, vb.tokens, false);
  return pool(hs[hs.length - 1], vb.tokens, m.cfg.pool);
}

// The views' projections under the LeJEPA loss; the sp variant centres on the nGlobal global views.
export const jepaLoss = (m: Model, vb: ViewBatch, L: JepaLoss, directionsKey: number, nGlobal: number): LossParts =>
  lejepaLoss(project(m.cfg.projector, m.params, pooledViews(m, vb)), vb.V, L, directionsKey, nGlobal);

export function textLoss(m: Model, tb: TokenBatch): LossParts {
  const hs = encode(m.cfg, m.params, tb, true);
  return { loss: ntpLoss(hs[hs.length - 1], m.params.get('tok') as tf.Variable as tf.Tensor2D, tb) };
}

export const stepLoss = (m: Model, b: StepBatch, L: JepaLoss, directionsKey: number, nGlobal: number): LossParts =>
  b.kind === 'views' ? jepaLoss(m, b.views, L, directionsKey, nGlobal) : textLoss(m, b.text);
