// Next-token prediction with tied embeddings (docs/reference.md#ntp-arm): logits = H[:, :-1]·Eᵀ, cross-entropy on
// tokens[:, 1:] averaged over non-pad targets. Only positions with a target enter the [n, V] logits.
import * as tf from '@tensorflow/tfjs';
import { matMul2d, type TokenBatch } from '../models';

// h: [N, d] last hidden state of a causal pass over packed sequences, E: [V, d] -> mean CE over every position
// that has a next token (pads do not exist in a packed batch).
export function ntpLoss(h: tf.Tensor2D, E: tf.Tensor2D, batch: TokenBatch): tf.Scalar {
  const { rows, offsets, lengths, ids } = batch;
  const V = E.shape[0];
  const src: number[] = [], tgt: number[] = [];
  for (let b = 0; b < rows; b++)
    for (let t = 0; t + 1 < lengths[b]; t++) {
      src.push(offsets[b] + t);
      tgt.push(ids[offsets[b] + t + 1]);
    }
  const hs = tf.gather(h, tf.tensor1d(src, 'int32')) as tf.Tensor2D;
  const logits = matMul2d(hs, tf.transpose(E)); // [n, V]
  const flat = Int32Array.from(tgt, (y, i) => i * V + y);
  const picked = tf.gather(logits.reshape([-1]), tf.tensor1d(flat, 'int32'));
  return tf.mean(tf.sub(tf.logSumExp(logits, 1), picked));
}
