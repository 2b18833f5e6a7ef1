// A tiny good-arm model trained for a few steps through the training loop's own parts (corpus, views, stepLoss,
// AdamW, lr schedule, checkpoints), small enough for an emulated GPU. Run as a script it prints the per-step
// losses on the backend given (`node --import tsx tests/train/tiny-steps.ts wasm 20`): the test compares a
// webgpu run with a wasm run in a second process, since one process holds one tfjs backend.
import * as tf from '@tensorflow/tfjs';
import { ViewConfig, type BackendChoice } from '../../shared/train';
import type { EncoderConfig } from '../../engine/models';
import { TrainRng } from '../../engine/models';
import { trainWordPiece } from '../../engine/text';
import {
  type AdamW,
  buildCorpus,
  buildModel,
  createAdamW,
  drawBatch,
  initBackend,
  loadCheckpoint,
  lrAt,
  optimizerStep,
  saveCheckpoint,
  stepLoss,
  type JepaLoss,
  type Model,
} from '../../engine/train';
import { tinyWorld } from './tiny-world';

export const TINY: EncoderConfig = {
  d: 16,
  layers: 1,
  heads: 2,
  ffn: 32,
  maxLen: 32,
  norm: 'pre',
  init: 'torch',
  pool: 'mean',
  projector: { dims: [32, 16], norm: [true, false], act: 'gelu' },
};
const ds = tinyWorld({ train: 16, val: 0, test: 0 }, 3);
const tk = trainWordPiece(
  ds.images.flatMap((im) => im.captions.map((c) => c.text)),
  60,
);
const corpus = buildCorpus(ds, tk, TINY.maxLen);
const sp = { cls: tk.cls, sep: tk.sep, mask: tk.mask, pad: tk.pad };
const views = ViewConfig.parse({ globals: 2, locals: 1 });
const L: JepaLoss = { variant: 'sp', lamb: 0.05, slices: 32, grid: { tMax: 3, points: 17 }, worldSize: 1 };
const B = 4,
  SEED = 0;

export type Tiny = { model: Model; opt: AdamW };
export const tinyModel = (): Tiny => {
  const model = buildModel(TINY, tk.vocab.length, true, SEED);
  return { model, opt: createAdamW(model.params, 0.05) };
};

// Steps [from, to) of a fixed 20-step schedule; batch order and views keyed by the step, as in loop.ts.
export async function tinySteps(t: Tiny, from: number, to: number): Promise<number[]> {
  const losses: number[] = [];
  const sched = { lr: 3e-3, warmupSteps: 2, warmupStart: 0.1, minLr: 0, totalSteps: 20 };
  for (let step = from; step < to; step++) {
    const order = TrainRng.seeded(SEED, 'order', Math.floor(step / 4)).permutation(corpus.splits.train.length);
    const photos = Int32Array.from(order.subarray((step % 4) * B, ((step % 4) + 1) * B), (j) => corpus.splits.train[j]);
    const batch = drawBatch(
      { corpus, views, special: sp, maxLen: TINY.maxLen },
      photos,
      'good',
      TrainRng.seeded(SEED, 'batch', step),
    );
    const r = await optimizerStep(
      t.opt,
      t.model.params,
      () => stepLoss(t.model, batch, L, step, views.globals),
      null,
      lrAt(sched, step),
    );
    losses.push(r.values.loss);
  }
  return losses;
}

export const saveTiny = (dir: string, t: Tiny, step: number) =>
  saveCheckpoint(dir, t.model.params, t.opt, {
    epoch: 1,
    step,
    adamT: t.opt.t,
    seed: SEED,
    valLoss: null,
    trainLoss: null,
    rng: { scheme: 'keyed-xoroshiro128plus', seed: SEED },
  });

export function loadTiny(dir: string): Tiny {
  const t = tinyModel();
  loadCheckpoint(dir, 1, t.model.params, t.opt);
  return t;
}

export const readParams = async (t: Tiny): Promise<Float32Array[]> =>
  Promise.all([...t.model.params.values()].map(async (p) => (await p.data()) as Float32Array));

if (process.argv[1]?.endsWith('tiny-steps.ts')) {
  await initBackend(process.argv[2] as BackendChoice);
  const t = tinyModel();
  console.log(
    JSON.stringify({ backend: tf.getBackend(), losses: await tinySteps(t, 0, Number(process.argv[3] ?? 20)) }),
  );
}
