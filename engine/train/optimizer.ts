// AdamW (torch's update order and bias correction) with linear warmup + cosine decay and optional global-norm clipping.
// Hand-written because tfjs's Adam has no decoupled weight decay, and its state must go into our checkpoints.
import * as tf from '@tensorflow/tfjs';
import type { Params } from '../models';
import { lrAt, type Schedule } from '../../shared/train';

export { lrAt, type Schedule };

export type AdamW = {
  m: Map<string, tf.Variable>;
  v: Map<string, tf.Variable>;
  t: number;
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
};

export function createAdamW(params: Params, weightDecay: number, beta1 = 0.9, beta2 = 0.999, eps = 1e-8): AdamW {
  const zeros = () => new Map([...params].map(([k, p]) => [k, tf.variable(tf.zerosLike(p), false)]));
  return { m: zeros(), v: zeros(), t: 0, beta1, beta2, eps, weightDecay };
}

// Weight decay on matrices (linear weights, embeddings) only; biases and norm scales are not decayed.
export const decays = (p: tf.Variable): boolean => p.rank >= 2;

// Σg² of one gradient. wasm's Sum adds into one float32 accumulator: a dense [30522, 384] sum (minilm's embedding)
// is ~1% off, and minilm's global norm was 4.5e-4 off torch's (2e-5 with this), so large gradients are summed by
// rows first. Below 2^16 values one pass is ~1e-5 and keeps its bits (the world encoder's byte-for-byte rebuild).
const sumOfSquares = (g: tf.Tensor): tf.Scalar =>
  g.size > 65_536 && g.rank >= 2
    ? tf.sum(tf.sum(tf.square(g.reshape([-1, g.shape[g.rank - 1]])), 1))
    : tf.sum(tf.square(g));

// Scales grads in place so that their global L2 norm is at most maxNorm; returns the norm before clipping. Reads
// are awaited (every GPU -> CPU read on the training path is: webgpu has no synchronous read in Node).
export async function clipGradients(grads: Record<string, tf.Tensor>, maxNorm: number | null): Promise<number> {
  // a left fold, not tf.addN: webgpu's AddN binds every input at once and fails past the adapter's storage-buffer
  // limit (SwiftShader: 12); the fold adds in the same order as wasm's AddN, so wasm's norm is unchanged
  const sq = tf.tidy(() =>
    Object.values(grads)
      .map(sumOfSquares)
      .reduce((a, b) => tf.add(a, b)),
  );
  const norm = Math.sqrt((await sq.data())[0]);
  sq.dispose();
  if (maxNorm !== null && norm > maxNorm) {
    const k = maxNorm / (norm + 1e-6);
    for (const key of Object.keys(grads)) {
      const g = grads[key];
      grads[key] = tf.mul(g, k);
      g.dispose();
    }
  }
  return norm;
}

export function adamwStep(opt: AdamW, params: Params, grads: Record<string, tf.Tensor>, lr: number): void {
  opt.t += 1;
  const bc1 = 1 - opt.beta1 ** opt.t,
    bc2 = Math.sqrt(1 - opt.beta2 ** opt.t);
  tf.tidy(() => {
    for (const [k, p] of params) {
      const g = grads[k];
      if (!g) continue;
      const m = opt.m.get(k)!,
        v = opt.v.get(k)!;
      m.assign(tf.add(tf.mul(m, opt.beta1), tf.mul(g, 1 - opt.beta1)));
      v.assign(tf.add(tf.mul(v, opt.beta2), tf.mul(tf.square(g), 1 - opt.beta2)));
      const upd = tf.div(m, tf.add(tf.div(tf.sqrt(v), bc2), opt.eps));
      const decayed = decays(p) && opt.weightDecay > 0 ? tf.mul(p, 1 - lr * opt.weightDecay) : p;
      p.assign(tf.sub(decayed, tf.mul(upd, lr / bc1)));
    }
  });
}

type Parts = { loss: tf.Scalar; [part: string]: tf.Scalar | undefined };
export type StepResult<P extends Parts> = { values: { [K in keyof P]: number }; gradNorm: number; finite: boolean };

// One training step, the same for the text arms and the image JEPA: the gradient of loss() for every parameter,
// global-norm clipping, AdamW at lr. A non-finite loss or gradient norm leaves the parameters as they were.
export async function optimizerStep<P extends Parts>(
  opt: AdamW,
  params: Params,
  loss: () => P,
  clip: number | null,
  lr: number,
): Promise<StepResult<P>> {
  let parts: [string, tf.Scalar][] = [];
  const { value, grads } = tf.variableGrads(() => {
    const p = loss();
    // kept past variableGrads' scope, read below: the loss and its parts (inv, sigreg)
    parts = Object.entries(p).flatMap(([k, t]) => (t && k !== 'loss' ? [[k, tf.keep(t)] as [string, tf.Scalar]] : []));
    return p.loss;
  }, [...params.values()]);
  parts.push(['loss', value]);
  const read = await Promise.all(parts.map(async ([k, t]) => [k, (await t.data())[0]] as const));
  tf.dispose(parts.map(([, t]) => t));
  const values = Object.fromEntries(read) as StepResult<P>['values'];
  const byName: Record<string, tf.Tensor> = {};
  for (const [k, v] of params) byName[k] = grads[v.name];
  const gradNorm = await clipGradients(byName, clip);
  const finite = Number.isFinite(values.loss) && Number.isFinite(gradNorm);
  if (finite) adamwStep(opt, params, byName, lr);
  tf.dispose(Object.values(byName));
  return { values, gradNorm, finite };
}
