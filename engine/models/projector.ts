// JEPA projector head: Linear → (BatchNorm → act) → … → Linear(K). BatchNorm always uses the batch statistics
// (training and validation loss alike); evaluation embeddings come from the backbone, never from here.
import * as tf from '@tensorflow/tfjs';
import { gelu, type Params } from './encoder';
import { linear } from './linear';
import type { ProjectorConfig } from './presets';
import type { TrainRng } from './rng';

export function initProjector(c: ProjectorConfig, d: number, rng: TrainRng, p: Params): void {
  let fanIn = d;
  c.dims.forEach((out, i) => {
    const bound = 1 / Math.sqrt(fanIn);
    const w = new Float32Array(fanIn * out).map(() => (2 * rng.uniform() - 1) * bound);
    const b = new Float32Array(out).map(() => (2 * rng.uniform() - 1) * bound);
    p.set(`proj${i}.w`, tf.variable(tf.tensor2d(w, [fanIn, out]), true));
    p.set(`proj${i}.b`, tf.variable(tf.tensor1d(b), true));
    if (c.norm[i]) {
      p.set(`proj${i}.bn.g`, tf.variable(tf.ones([out]), true));
      p.set(`proj${i}.bn.b`, tf.variable(tf.zeros([out]), true));
    }
    fanIn = out;
  });
}

// h: [N, d] -> [N, K]
export function project(c: ProjectorConfig, p: Params, h: tf.Tensor2D): tf.Tensor2D {
  let x: tf.Tensor = h;
  c.dims.forEach((_, i) => {
    x = linear(x, p.get(`proj${i}.w`) as tf.Tensor2D, p.get(`proj${i}.b`) as tf.Tensor1D);
    if (c.norm[i]) {
      const { mean, variance } = tf.moments(x, 0, true); // biased variance, as torch BN normalises in training
      x = tf.add(
        tf.mul(tf.div(tf.sub(x, mean), tf.sqrt(tf.add(variance, 1e-5))), p.get(`proj${i}.bn.g`)!),
        p.get(`proj${i}.bn.b`)!,
      );
      x = c.act === 'gelu' ? gelu(x) : tf.relu(x);
    }
  });
  return x as tf.Tensor2D;
}
