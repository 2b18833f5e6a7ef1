// Mutual k-NN alignment, as platonic-rep metrics.mutual_knn: per side L2-normalise rows, S = F F^T with the
// diagonal set to -1e8, N(i) = top-k of S[i] by descending similarity; score = mean_i |N_A(i) ∩ N_B(i)| / k.
// Ties are broken by lower index (a stable sort). Zero-variance sides are reported as degenerate: every
// similarity ties there, so tie-breaking alone would give identical neighbour sets and a spurious 1.0.
import { type Mat, gemm, normalizeRows } from '../linalg';

export type MutualKnn = {
  k: number;
  score: number | null; // null when degenerate
  perItem: number[]; // |N_A(i) ∩ N_B(i)| / k, for the paired bootstrap
  degenerate: boolean;
  reason: string | null;
  tiedQueries: number; // rows (either side) whose k-th and (k+1)-th similarities tie exactly
  chance: number; // k / (n - 1)
};

// Largest spread of unit rows around their first row; 0 when all rows are equal (or all zero).
function spread(f: Mat): number {
  let m = 0;
  for (let i = 1; i < f.rows; i++)
    for (let j = 0; j < f.cols; j++) m = Math.max(m, Math.abs(f.data[i * f.cols + j] - f.data[j]));
  return m;
}

// Top-k column indices of each row of the Gram matrix g: [n, n] (diagonal excluded via -1e8, as the reference).
function topK(g: Mat, k: number): { idx: Int32Array; ties: Uint8Array } {
  const n = g.rows;
  const idx = new Int32Array(n * k);
  const ties = new Uint8Array(n);
  const vals = new Float64Array(k + 1);
  const ids = new Int32Array(k + 1);
  for (let i = 0; i < n; i++) {
    let len = 0; // insertion into a sorted buffer of the best k+1 (k+1 to detect a tie at the boundary)
    for (let j = 0; j < n; j++) {
      const v = j === i ? -1e8 : g.data[i * n + j];
      if (len === k + 1 && !(v > vals[k])) continue;
      let p = len === k + 1 ? k : len++;
      while (p > 0 && v > vals[p - 1]) {
        vals[p] = vals[p - 1];
        ids[p] = ids[p - 1];
        p--;
      }
      vals[p] = v;
      ids[p] = j;
    }
    idx.set(ids.subarray(0, k), i * k);
    ties[i] = len > k && vals[k - 1] === vals[k] ? 1 : 0;
  }
  return { idx, ties };
}

// fa: [n, da], fb: [n, db] unit rows (normalizeRows), paired; ga = fa fa^T, gb = fb fb^T (shared with CKA).
export function mutualKnnFromGrams(fa: Mat, fb: Mat, ga: Mat, gb: Mat, k = 10): MutualKnn {
  const n = fa.rows;
  if (fb.rows !== n) throw new Error(`mutualKnn: ${fa.rows} vs ${fb.rows} rows`);
  if (k < 1 || k > n - 1) throw new Error(`mutualKnn: k=${k} needs 1 <= k <= n-1 = ${n - 1}`);
  const chance = k / (n - 1);
  const flat = [spread(fa) < 1e-12 ? 'image' : null, spread(fb) < 1e-12 ? 'text' : null].filter(Boolean);
  if (flat.length)
    return {
      k,
      score: null,
      perItem: [],
      degenerate: true,
      reason: `zero variance (all rows equal) on the ${flat.join(' and ')} side`,
      tiedQueries: n,
      chance,
    };
  const na = topK(ga, k);
  const nb = topK(gb, k);
  const perItem = new Array<number>(n);
  const mark = new Int32Array(n).fill(-1);
  let tied = 0;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    for (let q = 0; q < k; q++) mark[na.idx[i * k + q]] = i;
    let c = 0;
    for (let q = 0; q < k; q++) if (mark[nb.idx[i * k + q]] === i) c++;
    perItem[i] = c / k;
    sum += c / k;
    if (na.ties[i] || nb.ties[i]) tied++;
  }
  return { k, score: sum / n, perItem, degenerate: false, reason: null, tiedQueries: tied, chance };
}

// a: [n, da], b: [n, db], rows paired (raw features; normalised here).
export async function mutualKnn(a: Mat, b: Mat, k = 10): Promise<MutualKnn> {
  const fa = normalizeRows(a);
  const fb = normalizeRows(b);
  const [ga, gb] = await Promise.all([gemm(fa, fa, false, true), gemm(fb, fb, false, true)]);
  return mutualKnnFromGrams(fa, fb, ga, gb, k);
}
