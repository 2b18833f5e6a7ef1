// The image JEPA's training step (imageJepaLoss with the object InfoNCE term + optimizerStep: conv stem with batch
// BatchNorm, ViT, projector, AdamW with decay on matrices, clipping, lrAt) against torch's own modules and optimiser:
// three steps from the same initial weights (jepa-step-golden.json, written by jepa_step_golden.py in float64).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Params } from '../../engine/models';
import { ImageJepaRecipe, createAdamW, imageJepaLoss, initBackend, lrAt, optimizerStep } from '../../engine/train';

type Tensors = Record<string, { shape: number[]; data: number[] }>;
const G = JSON.parse(readFileSync(join(import.meta.dirname, 'jepa-step-golden.json'), 'utf8')) as {
  config: {
    imageSize: number;
    stem: number[];
    hidden: number;
    heads: number;
    mlp: number;
    projector: number[];
    objects: number;
    views: number;
    lr: number;
    warmupSteps: number;
    minLr: number;
    weightDecay: number;
    clip: number;
    temperature: number;
  };
  init: Tensors;
  final: Tensors;
  steps: { pixels: number[]; lr: number; loss: number; gradNorm: number }[];
};
const c = G.config;

const recipe = ImageJepaRecipe.parse({
  vit: {
    imageSize: c.imageSize,
    patchSize: 2 ** c.stem.length,
    hidden: c.hidden,
    depth: 1,
    heads: c.heads,
    mlp: c.mlp,
    stem: c.stem,
  },
  posStd: 1,
  projector: { dims: c.projector, norm: [true, false], act: 'gelu' },
  views: { scale: [1, 1], ratio: [1, 1], flip: 0, brightness: 0, contrast: 0, noise: 0 },
  V: 2,
  batch: c.objects,
  steps: G.steps.length,
  lr: c.lr,
  warmupSteps: c.warmupSteps,
  minLr: c.minLr,
  weightDecay: c.weightDecay,
  lamb: 0.05,
  slices: 8,
  clip: c.clip,
  seed: 0,
  objects: {
    views: c.views,
    weight: 1,
    batch: c.objects,
    loss: 'infonce',
    temperature: c.temperature,
    aloneSteps: G.steps.length,
  },
});

beforeAll(async () => {
  await initBackend('wasm');
});

describe('image JEPA step vs torch (nn modules, AdamW, clip_grad_norm_)', () => {
  it("three steps from torch's initial weights: each loss, gradient norm and every parameter after the last", async () => {
    const params: Params = new Map(
      Object.entries(G.init).map(([k, t]) => [k, tf.variable(tf.tensor(t.data, t.shape), true, `jepa-step/${k}`)]),
    );
    const opt = createAdamW(params, recipe.weightDecay);
    const sched = {
      lr: recipe.lr,
      warmupSteps: recipe.warmupSteps,
      warmupStart: 0.01,
      minLr: recipe.minLr,
      totalSteps: recipe.steps,
    };
    for (const [s, ref] of G.steps.entries()) {
      expect(lrAt(sched, s)).toBeCloseTo(ref.lr, 12);
      const px = Float32Array.from(ref.pixels);
      const { values, gradNorm } = await optimizerStep(
        opt,
        params,
        () => imageJepaLoss(recipe, params, null, s, px),
        recipe.clip,
        lrAt(sched, s),
      );
      expect(Math.abs(values.loss - ref.loss) / ref.loss).toBeLessThan(1e-5);
      expect(Math.abs(gradNorm - ref.gradNorm) / ref.gradNorm).toBeLessThan(1e-4);
    }
    // Three parameters have a gradient of exactly 0, so rounding noise decides their Adam step (m/√v = ±1, a move of
    // ±lr in float64 and float32 alike): the key bias (a constant on every key of a query cancels in its softmax), and
    // lnf.b and proj0.b (a constant on every row cancels in the projector's BatchNorm).
    const nullDirection = (k: string, i: number) =>
      k === 'lnf.b' || k === 'proj0.b' || (k === 'h0.qkv.b' && i >= c.hidden && i < 2 * c.hidden);
    let worst = 0,
      worstKey = '';
    for (const [k, t] of Object.entries(G.final)) {
      const got = params.get(k)!.dataSync();
      for (let i = 0; i < t.data.length; i++)
        if (!nullDirection(k, i) && Math.abs(got[i] - t.data[i]) > worst)
          [worst, worstKey] = [Math.abs(got[i] - t.data[i]), k];
    }
    // three Adam steps move each weight by up to ~3·lr = .03; float32 against float64 agrees to ~1e-6
    expect(worst, `largest difference in ${worstKey}`).toBeLessThan(1e-5);
    tf.dispose([...params.values(), ...opt.m.values(), ...opt.v.values()]);
  });
});
