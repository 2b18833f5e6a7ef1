// The LeJEPA loss, for the text arms and the image JEPA alike: invariance of the views' projections + λ·SIGReg.
import * as tf from '@tensorflow/tfjs';
import type { EppsPulleyGrid } from '../metrics';
import { invariance } from './invariance';
import { sigreg, sigregDirections } from './sigreg';

export type LossParts = { loss: tf.Scalar; inv?: tf.Scalar; sigreg?: tf.Scalar };
export type JepaParts = Required<LossParts>;
export type JepaLoss = {
  variant: 'sp' | 'paper';
  lamb: number;
  slices: number;
  grid: EppsPulleyGrid;
  worldSize: number;
};

// P: [V·B, K] projections of V views of B items, view-major (row v·B + b); SIGReg directions keyed by directionsKey.
// sp (stable-pretraining): inv(centre = views 0..nCentre-1) + λ·SIGReg over all V·B projections pooled.
// paper (LeJEPA paper, docs/reference.md#loss-variants): (1−λ)·inv(centre = all views) + λ·mean_v SIGReg(view v).
export function lejepaLoss(P: tf.Tensor2D, V: number, L: JepaLoss, directionsKey: number, nCentre: number): JepaParts {
  const K = P.shape[1],
    B = P.shape[0] / V;
  const A = tf.tensor2d(sigregDirections(K, L.slices, directionsKey), [K, L.slices]);
  const P3 = P.reshape([V, B, K]) as tf.Tensor3D;
  if (L.variant === 'sp') {
    const inv = invariance(P3, nCentre);
    const sg = sigreg(P, A, L.grid, L.worldSize);
    return { loss: tf.add(inv, tf.mul(sg, L.lamb)), inv, sigreg: sg };
  }
  const inv = invariance(P3, V);
  const per = tf.split(P, V, 0).map((Pv) => sigreg(Pv as tf.Tensor2D, A, L.grid, L.worldSize));
  const sg = tf.mean(tf.stack(per)) as tf.Scalar;
  return { loss: tf.add(tf.mul(inv, 1 - L.lamb), tf.mul(sg, L.lamb)), inv, sigreg: sg };
}
