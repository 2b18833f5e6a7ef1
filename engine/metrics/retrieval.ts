// Cross-modal retrieval ranks and Recall@k with the paper's tie rule: rank_i = #{j : s_ij >= s_ii} - 1,
// so ties count against the true pair (a collapsed encoder scores 0, not 1) and a NaN true-pair score is a miss.
import { type Mat, gemm } from '../linalg';

// Rows scaled to unit norm; a zero row becomes NaN so every cosine it touches is NaN (a miss), never a tie-win.
function unitRowsOrNaN(a: Mat): Mat {
  const out = new Float64Array(a.data.length);
  for (let i = 0; i < a.rows; i++) {
    let s = 0;
    for (let j = 0; j < a.cols; j++) s += a.data[i * a.cols + j] ** 2;
    const inv = 1 / Math.sqrt(s); // Infinity for a zero row -> 0 * Inf = NaN
    for (let j = 0; j < a.cols; j++) out[i * a.cols + j] = a.data[i * a.cols + j] * inv;
  }
  return { rows: a.rows, cols: a.cols, data: out };
}

// S[i, j] = cos(a_i, b_j). a: [n, d] (mapped images), b: [m, d] (texts) -> [n, m].
export const cosineSimilarity = (a: Mat, b: Mat): Promise<Mat> => gemm(unitRowsOrNaN(a), unitRowsOrNaN(b), false, true);

// Per-query ranks of the true partner (pair i <-> i) in both directions; a NaN true-pair score gives rank n (a miss).
// S: [n, n]. imageToText[i] ranks row i; textToImage[j] ranks column j.
export function retrievalRanks(s: Mat): { imageToText: Int32Array; textToImage: Int32Array } {
  const n = s.rows;
  if (s.cols !== n) throw new Error(`retrievalRanks: need a square similarity matrix, got ${s.rows}x${s.cols}`);
  const d = s.data;
  const i2t = new Int32Array(n);
  const t2i = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const sii = d[i * n + i];
    let c = 0;
    for (let j = 0; j < n; j++) if (d[i * n + j] >= sii) c++;
    i2t[i] = Number.isNaN(sii) ? n : c - 1;
  }
  const diag = Float64Array.from({ length: n }, (_, j) => d[j * n + j]);
  const cnt = new Int32Array(n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (d[i * n + j] >= diag[j]) cnt[j]++;
  for (let j = 0; j < n; j++) t2i[j] = Number.isNaN(diag[j]) ? n : cnt[j] - 1;
  return { imageToText: i2t, textToImage: t2i };
}

// hits[i] = 1 when the true partner ranks in the top k (rank < k).
export const hitsAt = (ranks: Int32Array, k: number): number[] => Array.from(ranks, (r) => (r < k ? 1 : 0));

export const mean = (xs: ArrayLike<number>): number => {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i];
  return s / xs.length;
};

// Recall@k of a uniformly random ranking among n candidates.
export const chanceRecall = (k: number, n: number): number => Math.min(k, n) / n;
