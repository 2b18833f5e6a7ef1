// Dense row-major float64 matrices: the one layout every linalg and metric routine here takes.
import type { Embeddings } from '../tensor';

// A: [rows, cols] row-major; A[i, j] = data[i*cols + j].
export type Mat = { rows: number; cols: number; data: Float64Array };

export const zeros = (rows: number, cols: number): Mat => ({ rows, cols, data: new Float64Array(rows * cols) });

// Rows `idx` of an embedding matrix, widened to float64 (all arithmetic here is float64).
export function takeRows(e: Embeddings, idx: ArrayLike<number>): Mat {
  const out = zeros(idx.length, e.dim);
  for (let r = 0; r < idx.length; r++) {
    const src = idx[r] * e.dim;
    for (let j = 0; j < e.dim; j++) out.data[r * e.dim + j] = e.data[src + j];
  }
  return out;
}

export function transpose(a: Mat): Mat {
  const out = zeros(a.cols, a.rows);
  for (let i = 0; i < a.rows; i++) for (let j = 0; j < a.cols; j++) out.data[j * a.rows + i] = a.data[i * a.cols + j];
  return out;
}

// mean over rows: [cols]
export function colMeans(a: Mat): Float64Array {
  const mu = new Float64Array(a.cols);
  for (let i = 0; i < a.rows; i++) for (let j = 0; j < a.cols; j++) mu[j] += a.data[i * a.cols + j];
  for (let j = 0; j < a.cols; j++) mu[j] /= a.rows;
  return mu;
}

// a - mu broadcast over rows (new matrix).
export function subRow(a: Mat, mu: Float64Array): Mat {
  const out = zeros(a.rows, a.cols);
  for (let i = 0; i < a.rows; i++)
    for (let j = 0; j < a.cols; j++) out.data[i * a.cols + j] = a.data[i * a.cols + j] - mu[j];
  return out;
}

// Rows scaled to unit L2 norm; zero rows stay zero (as torch F.normalize does, eps 1e-12).
export function normalizeRows(a: Mat): Mat {
  const out = zeros(a.rows, a.cols);
  for (let i = 0; i < a.rows; i++) {
    let s = 0;
    for (let j = 0; j < a.cols; j++) s += a.data[i * a.cols + j] ** 2;
    const inv = 1 / Math.max(Math.sqrt(s), 1e-12);
    for (let j = 0; j < a.cols; j++) out.data[i * a.cols + j] = a.data[i * a.cols + j] * inv;
  }
  return out;
}
