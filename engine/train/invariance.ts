// LeJEPA invariance term (stable-pretraining lejepa.py): every view is pulled to the centre of the global views.
import * as tf from '@tensorflow/tfjs';

// P: [V, B, K]; centre c: [B, K] = mean of views 0..nCentre-1; inv = mean over (v, b, k) of (c − P)².
// nCentre = 2 (the global views, SP) or V (the LeJEPA paper's variant).
export function invariance(P: tf.Tensor3D, nCentre: number): tf.Scalar {
  const c = tf.mean(tf.slice(P, [0, 0, 0], [nCentre, -1, -1]), 0, true);
  return tf.mean(tf.square(tf.sub(c, P)));
}
