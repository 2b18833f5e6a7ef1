// Orthonormal completion by Householder QR: exact to rounding and deterministic (no random vectors),
// O(m r k) when U has only r columns, which is the rank-deficient Procrustes case (few pairs, r < d).
import type { Mat } from './matrix';

// U: [m, r] with orthonormal columns -> C: [m, k] orthonormal columns, orthogonal to U (k <= m - r).
// C = columns r..r+k-1 of Q, where U = Q R is U's full Householder QR.
export function completeBasis(u: Mat, k: number): Mat {
  const { rows: m, cols: r } = u;
  if (k > m - r) throw new Error(`completeBasis: cannot add ${k} columns to ${r} in R^${m}`);
  const a = Float64Array.from(u.data); // [m, r], reduced in place
  const vs: Float64Array[] = []; // unit Householder vectors; v_j is zero above row j
  for (let j = 0; j < r; j++) {
    let norm = 0;
    for (let i = j; i < m; i++) norm += a[i * r + j] ** 2;
    norm = Math.sqrt(norm);
    const v = new Float64Array(m);
    const x0 = a[j * r + j];
    const alpha = x0 > 0 ? -norm : norm;
    for (let i = j; i < m; i++) v[i] = a[i * r + j];
    v[j] -= alpha;
    let vn = 0;
    for (let i = j; i < m; i++) vn += v[i] * v[i];
    vn = Math.sqrt(vn);
    if (vn > 0) for (let i = j; i < m; i++) v[i] /= vn;
    vs.push(v);
    // A[j:, j:] -= 2 v (v^T A[j:, j:])
    for (let c = j; c < r; c++) {
      let dot = 0;
      for (let i = j; i < m; i++) dot += v[i] * a[i * r + c];
      for (let i = j; i < m; i++) a[i * r + c] -= 2 * dot * v[i];
    }
  }
  // C = H_0 ... H_{r-1} [e_r ... e_{r+k-1}], applied right to left. C: [m, k] row-major.
  const c = new Float64Array(m * k);
  for (let i = 0; i < k; i++) c[(r + i) * k + i] = 1;
  const w = new Float64Array(k);
  for (let j = r - 1; j >= 0; j--) {
    const v = vs[j];
    w.fill(0);
    for (let i = j; i < m; i++) {
      const vi = v[i];
      if (vi !== 0) for (let q = 0; q < k; q++) w[q] += vi * c[i * k + q];
    }
    for (let i = j; i < m; i++) {
      const vi = 2 * v[i];
      if (vi !== 0) for (let q = 0; q < k; q++) c[i * k + q] -= vi * w[q];
    }
  }
  return { rows: m, cols: k, data: c };
}
