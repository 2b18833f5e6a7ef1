// SIGReg: the sliced Epps-Pulley Gaussianity statistic of LeJEPA (stable-pretraining lejepa.py; reference-spec §D).
// Z = X·A, A: K×M unit directions; T_s = N·ws·Σ_j w_j[(mean_n cos(t_j z_ns) − e^{−t_j²/2})² + (mean_n sin(t_j z_ns))²].
// The statistic and its gradient are one custom op in plain JS: cos/sin(t_j z) for all 17 knots come from one
// cos/sin per element by angle addition (t_j = jΔ), which is ~16x fewer transcendental calls than tf ops
// and needs no [J, N, M] intermediates.
import * as tf from '@tensorflow/tfjs';
import { TrainRng, matMul2d } from '../models';

export type SigregGrid = { tMax: number; points: number };
export const SP_GRID: SigregGrid = { tMax: 3, points: 17 };

// Trapezoid weights on [0, tMax], doubled for ±t symmetry, windowed by the Gaussian: w_j = φ_j·Δ·(1 at the ends, else 2).
export function sigregWeights(g: SigregGrid): { t: Float64Array; phi: Float64Array; w: Float64Array } {
  const J = g.points, dt = g.tMax / (J - 1);
  const t = Float64Array.from({ length: J }, (_, j) => j * dt);
  const phi = t.map((x) => Math.exp(-0.5 * x * x));
  const w = phi.map((p, j) => p * dt * (j === 0 || j === J - 1 ? 1 : 2));
  return { t, phi, w };
}

type Moments = { value: number; a: Float64Array; b: Float64Array }; // a, b: [M, J] gradient coefficients of sin / cos

// z: [N, M] row-major -> mean_s T_s, with scale = N·worldSize multiplying every T_s.
export function sigregStatistic(z: Float32Array, N: number, M: number, g: SigregGrid, worldSize: number): Moments {
  const J = g.points, dt = g.tMax / (J - 1);
  const { t, phi, w } = sigregWeights(g);
  const C = new Float64Array(J * M), S = new Float64Array(J * M); // [M, J] sums over n; j=0 is exactly 0 and skipped
  for (let n = 0; n < N; n++) {
    const row = n * M;
    for (let m = 0; m < M; m++) {
      const th = dt * z[row + m], c1 = Math.cos(th), s1 = Math.sin(th);
      let c = c1, s = s1;
      for (let j = 1; j < J; j++) {
        C[m * J + j] += c;
        S[m * J + j] += s;
        const cn = c * c1 - s * s1;
        s = s * c1 + c * s1;
        c = cn;
      }
    }
  }
  const scale = N * worldSize;
  let total = 0;
  const a = new Float64Array(J * M), b = new Float64Array(J * M);
  for (let j = 1; j < J; j++)
    for (let m = 0; m < M; m++) {
      const cm = C[m * J + j] / N - phi[j], sm = S[m * J + j] / N;
      total += w[j] * (cm * cm + sm * sm);
      // d/dz_nm of (scale/M)·w_j[(C̄−φ)² + S̄²] = (scale/M)·[a_jm sin(t_j z) + b_jm cos(t_j z)]
      a[m * J + j] = (-2 * w[j] * cm * t[j]) / N;
      b[m * J + j] = (2 * w[j] * sm * t[j]) / N;
    }
  return { value: (scale * total) / M, a, b };
}

// dStat/dz: [N, M], a second pass over z with the coefficients of the first.
export function sigregGradient(z: Float32Array, N: number, M: number, g: SigregGrid, worldSize: number, { a, b }: Moments): Float32Array {
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
export function sigregOp(g: SigregGrid = SP_GRID, worldSize = 1): (z: tf.Tensor2D) => tf.Scalar {
  return tf.customGrad(((z: tf.Tensor, save: tf.GradSaveFunc) => {
    const [N, M] = z.shape;
    const zs = z.dataSync() as Float32Array;
    const mom = sigregStatistic(zs, N, M, g, worldSize);
    save([]);
    return {
      value: tf.scalar(mom.value),
      gradFunc: (dy: tf.Tensor) => tf.mul(dy, tf.tensor2d(sigregGradient(zs, N, M, g, worldSize, mom), [N, M])),
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]) as (z: tf.Tensor2D) => tf.Scalar;
}

// A: [K, M] Gaussian directions with unit columns, from a generator seeded by the step counter (redrawn every step,
// reproducible on resume).
export function sigregDirections(K: number, M: number, step: number): Float32Array {
  const rng = TrainRng.seeded(step, 'sigreg-directions');
  const A = new Float32Array(K * M);
  for (let i = 0; i < A.length; i++) A[i] = rng.normal();
  for (let m = 0; m < M; m++) {
    let s = 0;
    for (let k = 0; k < K; k++) s += A[k * M + m] ** 2;
    const inv = 1 / Math.sqrt(s);
    for (let k = 0; k < K; k++) A[k * M + m] *= inv;
  }
  return A;
}

// x: [N, K] pooled over every view, A: [K, M] -> mean_s T_s
export const sigreg = (x: tf.Tensor2D, A: tf.Tensor2D, g: SigregGrid = SP_GRID, worldSize = 1): tf.Scalar =>
  sigregOp(g, worldSize)(matMul2d(x, A));
