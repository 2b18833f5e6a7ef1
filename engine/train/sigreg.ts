// SIGReg for training: the sliced Epps-Pulley statistic of engine/metrics (one definition of grid, weights,
// directions and value) as a differentiable tf op. Value and gradient are one custom op in plain JS; the gradient
// pass reuses the moments' coefficients and the same angle-addition recurrence.
import * as tf from '@tensorflow/tfjs';
import { type EppsPulleyGrid, type EppsPulleyMoments, SP_GRID, drawDirections, eppsPulleyMoments } from '../metrics';
import { TrainRng, matMul2d } from '../models';

// dStat/dz: [N, M], a second pass over z with the coefficients of the first.
export function sigregGradient(z: Float32Array, N: number, M: number, g: EppsPulleyGrid, worldSize: number, { a, b }: EppsPulleyMoments): Float32Array {
  const J = g.points, dt = g.tMax / (J - 1);
  const grad = new Float32Array(N * M);
  const k = (N * worldSize) / M;
  for (let n = 0; n < N; n++) {
    const row = n * M;
    for (let m = 0; m < M; m++) {
      const th = dt * z[row + m], c1 = Math.cos(th), s1 = Math.sin(th);
      let c = c1, s = s1, acc = 0;
      for (let j = 1; j < J; j++) {
        acc += a[m * J + j] * s + b[m * J + j] * c;
        const cn = c * c1 - s * s1;
        s = s * c1 + c * s1;
        c = cn;
      }
      grad[row + m] = k * acc;
    }
  }
  return grad;
}

// The statistic as a differentiable tf op on z: [N, M].
export function sigregOp(g: EppsPulleyGrid = SP_GRID, worldSize = 1): (z: tf.Tensor2D) => tf.Scalar {
  return tf.customGrad(((z: tf.Tensor, save: tf.GradSaveFunc) => {
    const [N, M] = z.shape;
    const zs = z.dataSync() as Float32Array;
    const mom = eppsPulleyMoments(zs, N, M, g, worldSize);
    save([]);
    return {
      value: tf.scalar(mom.value),
      gradFunc: (dy: tf.Tensor) => tf.mul(dy, tf.tensor2d(sigregGradient(zs, N, M, g, worldSize, mom), [N, M])),
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]) as (z: tf.Tensor2D) => tf.Scalar;
}

// A: [K, M] float32 directions from a stream keyed by the step counter (redrawn every step, reproducible on resume).
export const sigregDirections = (K: number, M: number, step: number): Float32Array =>
  drawDirections(TrainRng.seeded(step, 'sigreg-directions'), new Float32Array(K * M), K, M);

// x: [N, K] pooled over every view, A: [K, M] -> mean_s T_s
export const sigreg = (x: tf.Tensor2D, A: tf.Tensor2D, g: EppsPulleyGrid = SP_GRID, worldSize = 1): tf.Scalar =>
  sigregOp(g, worldSize)(matMul2d(x, A));
