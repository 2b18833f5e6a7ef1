// Spectral core: eigenpairs of a normalised kernel with the trivial eigenvector removed by construction, and the
// deterministic tie rule. Kernels here have eigenvalues in [-1, 1], so one absolute tolerance serves every comparison.
import { EigenvalueDecomposition, Matrix } from 'ml-matrix';

// Eigenvalues closer than this are one (numerically degenerate) eigenspace: EVD error is ~1e-15 * N, while distinct
// eigenvalues of the random worlds here are >= 1e-4 apart.
export const TIE_TOL = 1e-10;

export type Spectrum = {
  values: Float64Array; // [N - 1] descending, trivial eigenvalue excluded
  vectors: Matrix; // [N, N - 1] orthonormal columns, all orthogonal to the trivial vector
};

// Orthonormal basis of v^⊥ for a unit vector v: columns 1..N-1 of the Householder reflector H with H v = ±e_0.
// Hand-written because ml-matrix's QR of one column returns only the thin factor [N, 1].
export function complementBasis(v: Float64Array): Matrix {
  const N = v.length;
  const w = Float64Array.from(v);
  w[0] += v[0] >= 0 ? 1 : -1; // w = v + sign(v_0) e_0, no cancellation
  const ww = w.reduce((a, x) => a + x * x, 0);
  const B = new Matrix(N, N - 1);
  for (let i = 0; i < N; i++) for (let j = 1; j < N; j++) B.set(i, j - 1, (i === j ? 1 : 0) - (2 * w[i] * w[j]) / ww);
  return B;
}

// Spectrum of the symmetric kernel K: [N, N] on v^⊥ (v: [N], unit, K v = v): the trivial direction never enters the EVD,
// so an eigenvalue tied with 1 can never be confused with it. Every eigenspace (cluster within TIE_TOL) gets its canonical basis.
export function nontrivialSpectrum(K: Matrix, v: Float64Array): Spectrum {
  const B = complementBasis(v);
  const R = B.transpose().mmul(K).mmul(B); // [N-1, N-1]
  const Rs = R.add(R.transpose()).div(2); // exact symmetry for the symmetric solver
  const evd = new EigenvalueDecomposition(Rs, { assumeSymmetric: true });
  const asc = evd.realEigenvalues; // ml-matrix returns them ascending
  const order = asc.map((_, i) => i).sort((a, b) => asc[b] - asc[a] || a - b);
  const values = Float64Array.from(order, (i) => asc[i]);
  const V = evd.eigenvectorMatrix;
  const vectors = B.mmul(new Matrix(order.map((i) => V.getColumn(i))).transpose());
  for (const [start, end] of clusters(values)) setColumns(vectors, start, canonicalBasis(columns(vectors, start, end)));
  return { values, vectors };
}

// [start, end) runs of a descending list whose neighbours differ by at most TIE_TOL.
export function clusters(values: ArrayLike<number>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let start = 0;
  for (let i = 1; i <= values.length; i++) {
    if (i === values.length || values[i - 1] - values[i] > TIE_TOL) {
      out.push([start, i]);
      start = i;
    }
  }
  return out;
}

// Canonical basis of span(C) (C: [N, c] orthonormal), depending only on the subspace: Gram-Schmidt of the projections
// P e_s of coordinate vectors, largest residual first (lowest s among near-equal ones). Each column's pivot entry is
// positive, so singletons get the "largest-magnitude entry positive" sign rule. Hand-written: pivoted QR of C^T,
// which ml-matrix lacks.
export function canonicalBasis(C: Matrix): Matrix {
  const N = C.rows;
  const c = C.columns;
  const rows = Array.from({ length: N }, (_, s) => C.getRow(s)); // P e_s = C rows[s]; residuals live in R^c
  const picked: number[][] = [];
  for (let j = 0; j < c; j++) {
    let best = -1;
    let bestNorm = -1;
    for (let s = 0; s < N; s++) {
      const norm = rows[s].reduce((a, x) => a + x * x, 0);
      if (norm > bestNorm * (1 + 1e-9)) {
        best = s;
        bestNorm = norm;
      }
    }
    const b = rows[best].map((x) => x / Math.sqrt(bestNorm));
    picked.push(b);
    for (const row of rows) {
      const d = row.reduce((a, x, i) => a + x * b[i], 0);
      for (let i = 0; i < c; i++) row[i] -= d * b[i];
    }
  }
  return C.mmul(new Matrix(picked).transpose());
}

// A preferred function space, given by what it does to an orthonormal set C: [N, c]: the coefficients [p, c] of C's
// columns in an orthonormal basis B: [N, p] of the space (B^T C, computed without forming B where B has structure).
export type Preference = (C: Matrix) => Matrix;

// Order an eigenspace C: [N, c] by preference: rotate to the eigenbasis of M^T M (M = prefer[0](C), so M^T M = C^T P C
// with P the projector onto the preferred space; this is the SVD of P C) so directions lying most in the preferred
// space come first; groups with equal overlap are ordered by the next preference, and finally by the canonical basis.
export function orderByPreference(C: Matrix, prefer: Preference[]): Matrix {
  if (prefer.length === 0) return canonicalBasis(C);
  const M = prefer[0](C); // [p, c]
  const gram = M.transpose().mmul(M);
  const evd = new EigenvalueDecomposition(gram.add(gram.transpose()).div(2), { assumeSymmetric: true });
  const asc = evd.realEigenvalues;
  const order = asc.map((_, i) => i).sort((a, b) => asc[b] - asc[a] || a - b);
  const overlap = order.map((i) => asc[i]);
  const rotated = C.mmul(new Matrix(order.map((i) => evd.eigenvectorMatrix.getColumn(i))).transpose());
  const out = rotated.clone();
  for (const [start, end] of clusters(overlap))
    setColumns(out, start, orderByPreference(columns(rotated, start, end), prefer.slice(1)));
  return out;
}

export type TopK = {
  vectors: Matrix; // [N, k]
  values: Float64Array; // [k]
  gap: number | null; // values[k-1] - values[k]; null when k = N - 1 (nothing below)
  unique: boolean; // gap > TIE_TOL: the top-k eigenspace is determined
  tie: boolean; // an eigenspace straddled the k boundary and the tie rule picked inside it
};

// Top-k non-trivial eigenvectors; an eigenspace straddling the boundary is ordered by `prefer` before cutting.
export function topK(spec: Spectrum, k: number, prefer: Preference[] = []): TopK {
  const n = spec.values.length;
  const gap = k < n ? spec.values[k - 1] - spec.values[k] : null;
  const [start, end] = clusters(spec.values).find(([s, e]) => s < k && k <= e) ?? [k, k];
  const tie = end > k;
  const vectors = columns(spec.vectors, 0, k);
  if (tie)
    setColumns(vectors, start, columns(orderByPreference(columns(spec.vectors, start, end), prefer), 0, k - start));
  return { vectors, values: spec.values.slice(0, k), gap, unique: gap === null || gap > TIE_TOL, tie };
}

export function columns(A: Matrix, start: number, end: number): Matrix {
  return A.subMatrix(0, A.rows - 1, start, end - 1);
}

function setColumns(A: Matrix, start: number, B: Matrix): void {
  A.setSubMatrix(B, 0, start);
}
