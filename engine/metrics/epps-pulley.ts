// Sliced Epps-Pulley statistic (SIGReg of LeJEPA, stable-pretraining lejepa.py): how far 1-D random projections
// of X are from N(0, 1), by the weighted distance between empirical and Gaussian characteristic functions.
// Plain-array version for reports and for checking the tfjs training loss; spec section D.
import { type Mat, gaussianMatrix, gemm, rngFrom } from '../linalg';

const POINTS = 17;
const T_MAX = 3;
const DT = T_MAX / (POINTS - 1); // 0.1875
export const T_GRID = Float64Array.from({ length: POINTS }, (_, j) => j * DT);
export const PHI = T_GRID.map((t) => Math.exp((-t * t) / 2));
// Trapezoid on [0, 3], doubled for the ±t symmetry, windowed by the Gaussian.
export const WEIGHTS = PHI.map((p, j) => p * DT * (j === 0 || j === POINTS - 1 ? 1 : 2));

// A ~ N(0,1)^{K x M} with unit columns, from a seeded generator: [K, M].
export function sliceDirections(dim: number, slices: number, seed: number): Mat {
  const a = gaussianMatrix(rngFrom(seed), dim, slices);
  for (let s = 0; s < slices; s++) {
    let norm = 0;
    for (let k = 0; k < dim; k++) norm += a.data[k * slices + s] ** 2;
    norm = Math.sqrt(norm);
    for (let k = 0; k < dim; k++) a.data[k * slices + s] /= norm;
  }
  return a;
}

export type EppsPulley = { statistic: number; perSlice: Float64Array; n: number; slices: number };

// X: [N, K]; directions: [K, M]. T_s = scale * sum_j w_j [(C_j - phi_j)^2 + S_j^2] with scale = N * worldSize,
// C_j, S_j = mean_n cos/sin(t_j z_ns); the statistic is mean_s T_s.
export async function slicedEppsPulley(x: Mat, directions: Mat, worldSize = 1): Promise<EppsPulley> {
  if (directions.rows !== x.cols) throw new Error(`slicedEppsPulley: directions have ${directions.rows} rows, X has ${x.cols} columns`);
  const z = await gemm(x, directions); // [N, M]
  const { rows: n, cols: m } = z;
  const c = new Float64Array(m * POINTS);
  const s = new Float64Array(m * POINTS);
  for (let i = 0; i < n; i++) {
    for (let q = 0; q < m; q++) {
      // cos/sin(j*dt*z) by the angle-addition recurrence: 2 trig calls per value instead of 32
      const v = z.data[i * m + q] * DT;
      const c1 = Math.cos(v);
      const s1 = Math.sin(v);
      let cj = 1;
      let sj = 0;
      const o = q * POINTS;
      c[o] += 1;
      for (let j = 1; j < POINTS; j++) {
        const cn = cj * c1 - sj * s1;
        sj = sj * c1 + cj * s1;
        cj = cn;
        c[o + j] += cj;
        s[o + j] += sj;
      }
    }
  }
  const perSlice = new Float64Array(m);
  let total = 0;
  for (let q = 0; q < m; q++) {
    let t = 0;
    for (let j = 0; j < POINTS; j++) {
      const cj = c[q * POINTS + j] / n - PHI[j];
      const sj = s[q * POINTS + j] / n;
      t += WEIGHTS[j] * (cj * cj + sj * sj);
    }
    perSlice[q] = n * worldSize * t;
    total += perSlice[q];
  }
  return { statistic: total / m, perSlice, n, slices: m };
}
