// Best pair of layers (platonic-rep measure_alignment.compute_score): score every (i, j) layer pair of two
// [L, N, D] stacks on L2-normalised rows and keep the maximum. The best starts at 0, so when every score is
// <= 0 (or degenerate) the answer is (0, none), as in the reference.
import type { Embeddings } from '../tensor';
import { type Mat, normalizeRows, takeRows } from '../linalg';

export type LayerPairScore = { score: number; i: number | null; j: number | null; grid: (number | null)[][] };

const all = (e: Embeddings): Mat =>
  takeRows(
    e,
    Array.from({ length: e.rows }, (_, r) => r),
  );

// metric(a, b) -> score or null (degenerate); grid[i][j] holds every pair's score.
export async function bestLayerPair(
  xs: Embeddings[],
  ys: Embeddings[],
  metric: (a: Mat, b: Mat) => Promise<number | null>,
): Promise<LayerPairScore> {
  const xn = xs.map((x) => normalizeRows(all(x)));
  const yn = ys.map((y) => normalizeRows(all(y)));
  let best: LayerPairScore = { score: 0, i: null, j: null, grid: [] };
  for (let i = 0; i < xn.length; i++) {
    const row: (number | null)[] = [];
    for (let j = 0; j < yn.length; j++) {
      const s = await metric(xn[i], yn[j]);
      row.push(s);
      if (s !== null && s > best.score) best = { ...best, score: s, i, j };
    }
    best.grid.push(row);
  }
  return best;
}
