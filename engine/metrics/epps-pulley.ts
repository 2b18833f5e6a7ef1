// Sliced Epps-Pulley statistic (SIGReg of LeJEPA, stable-pretraining lejepa.py; docs/reference.md#sigreg): how far 1-D
// random projections of X are from N(0, 1), by the weighted distance between empirical and Gaussian characteristic
// functions. One definition of the grid, the weights, the directions and the statistic: the float64 report here
// (`prh stats gaussianity`) and training's differentiable tf op (engine/train/sigreg.ts) both use it.
import { type Mat, gemm, rngFrom } from '../linalg';

export type EppsPulleyGrid = { tMax: number; points: number };
export const SP_GRID: EppsPulleyGrid = { tMax: 3, points: 17 };

// Trapezoid weights on [0, tMax], doubled for ±t symmetry, windowed by the Gaussian: w_j = φ_j·Δ·(1 at the ends, else 2).
export function eppsPulleyWeights(g: EppsPulleyGrid): { t: Float64Array; phi: Float64Array; w: Float64Array } {
  const J = g.points,
    dt = g.tMax / (J - 1);
  const t = Float64Array.from({ length: J }, (_, j) => j * dt);
  const phi = t.map((x) => Math.exp(-0.5 * x * x));
  const w = phi.map((p, j) => p * dt * (j === 0 || j === J - 1 ? 1 : 2));
  return { t, phi, w };
}
export const { phi: PHI, w: WEIGHTS } = eppsPulleyWeights(SP_GRID); // the report's grid, for its reference values

// A: [K, M] of N(0, 1) draws with unit columns, normalised in the precision of `A` (training's is float32).
export function drawDirections<A extends Float32Array | Float64Array>(
  rng: { normal(): number },
  A: A,
  K: number,
  M: number,
): A {
  for (let i = 0; i < K * M; i++) A[i] = rng.normal();
  for (let m = 0; m < M; m++) {
    let s = 0;
    for (let k = 0; k < K; k++) s += A[k * M + m] ** 2;
    const inv = 1 / Math.sqrt(s);
    for (let k = 0; k < K; k++) A[k * M + m] *= inv;
  }
  return A;
}

// [dim, slices] directions from the report's seed.
export const sliceDirections = (dim: number, slices: number, seed: number): Mat => ({
  rows: dim,
  cols: slices,
  data: drawDirections(rngFrom(seed), new Float64Array(dim * slices), dim, slices),
});

// value = mean_s T_s; perSlice: T_s; a, b: [M, J] coefficients of the gradient (engine/train/sigreg.ts).
export type EppsPulleyMoments = { value: number; perSlice: Float64Array; a: Float64Array; b: Float64Array };

// z: [N, M] row-major projections -> T_s = scale·Σ_j w_j[(mean_n cos(t_j z_ns) − φ_j)² + (mean_n sin(t_j z_ns))²],
// scale = N·worldSize. cos/sin(t_j z) for all knots come from one cos/sin per element by angle addition (t_j = jΔ):
// ~16x fewer transcendental calls, no [J, N, M] intermediates. j = 0 is exactly 0 and skipped.
export function eppsPulleyMoments(
  z: ArrayLike<number>,
  N: number,
  M: number,
  g: EppsPulleyGrid,
  worldSize: number,
): EppsPulleyMoments {
  const J = g.points,
    dt = g.tMax / (J - 1);
  const C = new Float64Array(J * M),
    S = new Float64Array(J * M); // [M, J] sums over n
  for (let n = 0; n < N; n++) {
    const row = n * M;
    for (let m = 0; m < M; m++) {
      const th = dt * z[row + m],
        c1 = Math.cos(th),
        s1 = Math.sin(th);
      let c = c1,
        s = s1;
      for (let j = 1; j < J; j++) {
        C[m * J + j] += c;
        S[m * J + j] += s;
        const cn = c * c1 - s * s1;
        s = s * c1 + c * s1;
        c = cn;
      }
    }
  }
  return eppsPulleyFromSums(C, S, N, M, g, worldSize);
}

// The moments from the sums C, S: [M, J] over n of cos(t_j z_nm) and sin(t_j z_nm) (column 0 unread).
export function eppsPulleyFromSums(
  C: Float64Array,
  S: Float64Array,
  N: number,
  M: number,
  g: EppsPulleyGrid,
  worldSize: number,
): EppsPulleyMoments {
  const J = g.points;
  const { t, phi, w } = eppsPulleyWeights(g);
  const scale = N * worldSize;
  let total = 0;
  const perSlice = new Float64Array(M),
    a = new Float64Array(J * M),
    b = new Float64Array(J * M);
  for (let j = 1; j < J; j++)
    for (let m = 0; m < M; m++) {
      const cm = C[m * J + j] / N - phi[j],
        sm = S[m * J + j] / N;
      const e = w[j] * (cm * cm + sm * sm);
      total += e;
      perSlice[m] += e;
      // d/dz_nm of (scale/M)·w_j[(C̄−φ)² + S̄²] = (scale/M)·[a_jm sin(t_j z) + b_jm cos(t_j z)]
      a[m * J + j] = (-2 * w[j] * cm * t[j]) / N;
      b[m * J + j] = (2 * w[j] * sm * t[j]) / N;
    }
  for (let m = 0; m < M; m++) perSlice[m] *= scale;
  return { value: (scale * total) / M, perSlice, a, b };
}

export type EppsPulley = { statistic: number; perSlice: Float64Array; n: number; slices: number };

// X: [N, K]; directions: [K, M] -> the statistic mean_s T_s and every T_s, in float64.
export async function slicedEppsPulley(x: Mat, directions: Mat, worldSize = 1): Promise<EppsPulley> {
  if (directions.rows !== x.cols)
    throw new Error(`slicedEppsPulley: directions have ${directions.rows} rows, X has ${x.cols} columns`);
  const z = await gemm(x, directions); // [N, M]
  const { value, perSlice } = eppsPulleyMoments(z.data, z.rows, z.cols, SP_GRID, worldSize);
  return { statistic: value, perSlice, n: z.rows, slices: z.cols };
}
