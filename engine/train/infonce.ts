// InfoNCE (SimCLR's NT-Xent; with V > 2 views every other view of the item is a positive, as in SupCon): a contrastive
// alternative to LeJEPA for the image JEPA's object term. Where LeJEPA pulls views together and spreads the batch
// by SIGReg, InfoNCE must tell each item from every other one in the batch, which the objects' shape-only views can
// only do by their shape (docs/world-encoder-log.md, "object views alone, for longer").
import * as tf from '@tensorflow/tfjs';

const INFONCE_TEMPERATURE = 0.1; // SimCLR's choice for batches of a few hundred

// P: [V·B, K] projections of V views of B items, view-major (row v·B + b). Rows are unit-normalised (torch's
// F.normalize: norm at least 1e-12); logits = cosine similarity / τ against every other row; the loss is the mean,
// over rows and their V − 1 positives, of −log softmax.
export function infoNce(P: tf.Tensor2D, V: number, temperature = INFONCE_TEMPERATURE): tf.Scalar {
  const N = P.shape[0],
    B = N / V;
  if (!Number.isInteger(B)) throw new Error(`InfoNCE: ${N} rows are not ${V} views of the same items`);
  const pos = new Float32Array(N * N); // [N, N]: 1 where rows i ≠ j are views of one item
  for (let i = 0; i < N; i++) for (let j = 0; j < N; j++) pos[i * N + j] = i !== j && i % B === j % B ? 1 : 0;
  const z = tf.div(P, tf.maximum(tf.norm(P, 'euclidean', 1, true), 1e-12));
  // z zᵀ / τ: [N, N], a row not its own candidate
  const logits = tf.sub(tf.div(tf.matMul(z, z, false, true), temperature), tf.mul(tf.eye(N), 1e9));
  const logp = tf.sub(logits, tf.logSumExp(logits, 1, true));
  return tf.div(tf.neg(tf.sum(tf.mul(logp, tf.tensor2d(pos, [N, N])))), N * (V - 1)) as tf.Scalar;
}
