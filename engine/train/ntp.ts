// Next-token prediction with tied embeddings (reference-spec §E): logits = H[:, :-1]·Eᵀ, cross-entropy on
// tokens[:, 1:] averaged over non-pad targets.
import * as tf from '@tensorflow/tfjs';
import { matMul2d, type TokenBatch } from '../models';

// h: [B, T, d] last hidden state of a causal pass, E: [V, d] -> mean CE over the targets that are not padding.
export function ntpLoss(h: tf.Tensor3D, E: tf.Tensor2D, batch: TokenBatch): tf.Scalar {
  const { rows: B, cols: T, lengths, ids } = batch;
  const [, , d] = h.shape;
  const V = E.shape[0];
  // Only rows with a real target enter the [n, V] logits: padding never costs a vocabulary product.
  const src: number[] = [], tgt: number[] = [];
  for (let b = 0; b < B; b++)
    for (let t = 0; t + 1 < lengths[b]; t++) {
      src.push(b * T + t);
      tgt.push(ids[b * T + t + 1]);
    }
  const n = src.length;
  const hs = tf.gather(h.reshape([B * T, d]), tf.tensor1d(src, 'int32')) as tf.Tensor2D;
  const logits = matMul2d(hs, tf.transpose(E));
  const flat = Int32Array.from(tgt, (y, i) => i * V + y);
  const picked = tf.gather(logits.reshape([-1]), tf.tensor1d(flat, 'int32'));
  return tf.mean(tf.sub(tf.logSumExp(logits, 1), picked));
}
