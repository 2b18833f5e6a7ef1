// SIGReg for training: the sliced Epps-Pulley statistic of engine/metrics (one definition of grid, weights,
// directions and value) as a differentiable tf op. Value and gradient are one custom op in plain JS; the gradient
// pass reuses the moments' coefficients and the same angle-addition recurrence.
import * as tf from '@tensorflow/tfjs';
import {
  type EppsPulleyGrid,
  type EppsPulleyMoments,
  SP_GRID,
  drawDirections,
  eppsPulleyFromSums,
  eppsPulleyMoments,
  eppsPulleyWeights,
} from '../metrics';
import { TrainRng } from '../models';
import { type HeapBackend, floats, wasmHeap } from '../models/wasm-heap';
import { doublesAt, heapAlloc, heapKernels, offsetOf } from '../models/heap-kernels-wasm';

// dStat/dz: [N, M] (into grad, every element written), a second pass over z with the coefficients of the first.
export function sigregGradient(
  z: Float32Array,
  N: number,
  M: number,
  g: EppsPulleyGrid,
  worldSize: number,
  { a, b }: EppsPulleyMoments,
  grad: Float32Array = new Float32Array(N * M),
): Float32Array {
  const J = g.points,
    dt = g.tMax / (J - 1);
  const k = (N * worldSize) / M;
  for (let n = 0; n < N; n++) {
    const row = n * M;
    for (let m = 0; m < M; m++) {
      const th = dt * z[row + m],
        c1 = Math.cos(th),
        s1 = Math.sin(th);
      let c = c1,
        s = s1,
        acc = 0;
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

// The statistic as a differentiable tf op on z: [N, M]; on wasm z is read, and the gradient written, in the heap.
export function sigregOp(g: EppsPulleyGrid = SP_GRID, worldSize = 1): (z: tf.Tensor2D) => tf.Scalar {
  return tf.customGrad(((z: tf.Tensor, save: tf.GradSaveFunc) => {
    const heap = wasmHeap();
    if (heap) return sigregWasm(z as tf.Tensor2D, save, heap, g, worldSize);
    const [N, M] = z.shape;
    const mom = eppsPulleyMoments(z.dataSync(), N, M, g, worldSize);
    save([z]);
    return {
      value: tf.scalar(mom.value),
      gradFunc: (dy: tf.Tensor, [zs]: tf.Tensor[]) =>
        tf.mul(dy, tf.tensor2d(sigregGradient(zs.dataSync() as Float32Array, N, M, g, worldSize, mom), [N, M])),
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]) as (z: tf.Tensor2D) => tf.Scalar;
}

// The op's body on wasm: cos and sin of each dt·z once (V8's Math.cos and Math.sin, as the loops above take them), into
// the heap and kept there for the gradient, and both recurrences in heap-kernels.c (SIMD, the loops' bits).
function sigregWasm(
  z: tf.Tensor2D,
  save: tf.GradSaveFunc,
  b: HeapBackend,
  g: EppsPulleyGrid,
  worldSize: number,
): { value: tf.Scalar; gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => tf.Tensor } {
  const [N, M] = z.shape,
    J = g.points,
    dt = g.tMax / (J - 1),
    NM = N * M,
    MJ = M * J;
  const k = heapKernels(b);
  const trig = tf.engine().makeTensorFromTensorInfo(b.makeOutput([4 * NM], 'float32')); // [2, N, M] float64: cos, sin
  const sums = heapAlloc(b, 16 * MJ + 128 * (J - 1)); // C, S: [M, J] float64, then the kernel's scratch
  const t = offsetOf(b, trig);
  const zs = floats(z, b),
    cs = doublesAt(b, t, 2 * NM);
  for (let i = 0; i < NM; i++) {
    const th = dt * zs[i];
    cs[i] = Math.cos(th);
    cs[NM + i] = Math.sin(th);
  }
  k.sigregSums(t, t + 8 * NM, N, M, J, sums, sums + 8 * MJ, sums + 16 * MJ);
  const mom = eppsPulleyFromSums(doublesAt(b, sums, MJ), doublesAt(b, sums + 8 * MJ, MJ), N, M, g, worldSize);
  b.wasm._free(sums);
  save([trig]);
  return {
    value: tf.scalar(mom.value),
    gradFunc: (dy, [tr]) => {
      const grad = b.makeOutput([N, M], 'float32');
      const ab = heapAlloc(b, 16 * MJ + 128 * (J - 1)); // a, b: [M, J] float64, then the kernel's scratch
      doublesAt(b, ab, MJ).set(mom.a);
      doublesAt(b, ab + 8 * MJ, MJ).set(mom.b);
      const t = offsetOf(b, tr);
      k.sigregGradient(t, t + 8 * NM, N, M, J, ab, ab + 8 * MJ, (N * worldSize) / M, offsetOf(b, grad), ab + 16 * MJ);
      b.wasm._free(ab);
      return tf.mul(dy, tf.engine().makeTensorFromTensorInfo(grad));
    },
  };
}

// 2π as float32 + the rest, for a range reduction that loses no more than float32 rounding of x itself
const TWO_PI_HI = Math.fround(2 * Math.PI),
  TWO_PI_LO = 2 * Math.PI - TWO_PI_HI;
// 1/(2k)! and 1/(2k+1)! for k = 8..0 (Horner order): the Taylor tails at |r| = π are < 2e-7
const COS_TAYLOR = Array.from({ length: 9 }, (_, i) => 8 - i).map((k) => (k % 2 ? -1 : 1) / factorial(2 * k));
const SIN_TAYLOR = Array.from({ length: 9 }, (_, i) => 8 - i).map((k) => (k % 2 ? -1 : 1) / factorial(2 * k + 1));
function factorial(n: number): number {
  return n <= 1 ? 1 : n * factorial(n - 1);
}

// cos x and sin x from + and × only. WGSL leaves their accuracy to the driver (its spec allows 2^-11 absolute on
// [-π, π]; SwiftShader's is 1.9e-4, which moved SIGReg by 4e-4 relative); + and × are IEEE everywhere. x is reduced
// to r in [-π, π] (the step of round() has zero gradient), then the Taylor series in r².
export function cosSin(x: tf.Tensor): [tf.Tensor, tf.Tensor] {
  const k = tf.round(tf.div(x, 2 * Math.PI));
  const r = tf.sub(tf.sub(x, tf.mul(k, TWO_PI_HI)), tf.mul(k, TWO_PI_LO));
  const r2 = tf.square(r);
  const horner = (cs: number[]) =>
    cs.slice(1).reduce((acc: tf.Tensor, c) => tf.add(tf.mul(acc, r2), c), tf.fill(r2.shape, cs[0]));
  return [horner(COS_TAYLOR), tf.mul(r, horner(SIN_TAYLOR))];
}

// The same statistic in tf ops, for backends whose tensors live on a GPU (a JS op there would read z back every
// step): T = (N·worldSize/M)·Σ_{m,j≥1} w_j[(mean_n cos(t_j z_nm) − φ_j)² + (mean_n sin(t_j z_nm))²], with a [N, M, J−1]
// intermediate and tf's autodiff for the gradient. float32 throughout (the JS op accumulates in float64).
export function sigregTf(z: tf.Tensor2D, g: EppsPulleyGrid = SP_GRID, worldSize = 1): tf.Scalar {
  const [N, M] = z.shape;
  const { t, phi, w } = eppsPulleyWeights(g);
  const J = g.points;
  return tf.tidy(() => {
    const tz = tf.mul(tf.expandDims(z, 2), tf.tensor1d(Float32Array.from(t.subarray(1)))); // [N, M, J-1]
    const [cos, sin] = cosSin(tz);
    const c = tf.sub(tf.mean(cos, 0), tf.tensor1d(Float32Array.from(phi.subarray(1)))); // [M, J-1]
    const s = tf.mean(sin, 0);
    const e = tf.mul(tf.add(tf.square(c), tf.square(s)), tf.tensor1d(Float32Array.from(w.subarray(1, J))));
    return tf.mul(tf.sum(e), (N * worldSize) / M) as tf.Scalar;
  });
}

// tf ops on webgpu, whose synchronous reads do not exist in Node; the JS op (float64 sums) everywhere else.
const sigregOn = (z: tf.Tensor2D, g: EppsPulleyGrid, worldSize: number): tf.Scalar =>
  tf.getBackend() === 'webgpu' ? sigregTf(z, g, worldSize) : sigregOp(g, worldSize)(z);

// A: [K, M] float32 directions from a stream keyed by the step counter (redrawn every step, reproducible on resume).
export const sigregDirections = (K: number, M: number, step: number): Float32Array =>
  drawDirections(TrainRng.seeded(step, 'sigreg-directions'), new Float32Array(K * M), K, M);

// x: [N, K] pooled over every view, A: [K, M] -> mean_s T_s
export const sigreg = (x: tf.Tensor2D, A: tf.Tensor2D, g: EppsPulleyGrid = SP_GRID, worldSize = 1): tf.Scalar =>
  sigregOn(tf.matMul(x, A), g, worldSize);
