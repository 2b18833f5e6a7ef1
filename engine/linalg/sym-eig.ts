// Symmetric eigendecomposition A = V diag(w) V^T, LAPACK dsyevx-style: blocked Householder tridiagonalisation
// (tridiagonal.ts: half its flops on onnxruntime's GEMM, the panels in WebAssembly), all eigenvalues of T by
// implicit QL without vectors (O(n^2)), eigenvectors of T only for the ones asked for by inverse iteration
// (dstein, O(n) each), and V = Q Z by blocked reflectors on GEMM. Replaces JAMA's tred2/tql2, whose O(n^3)
// rotations ran in JS (384x384: ~5x faster; see tests/bench/align.bench.ts). No npm package offers LAPACK's
// dsyevd for Node (emlapack, an old asm.js CLAPACK, ran dsyevd ~2x slower here; eigen's wasm build fails at 768x384).
import { gemm } from './gemm';
import { applyQ } from './householder';
import { kernelsWith } from './kernels-wasm';
import type { Mat } from './matrix';
import { rngFrom } from './random';
import { tridiagonalize } from './tridiagonal';

// A: [n, n] symmetric. w: [n] all eigenvalues ascending; v: [n, k] unit eigenvectors of the k = keep(w) largest,
// as columns, largest first (A v_j = w[n-1-j] v_j).
export async function symEig(
  a: Mat,
  keep: (w: Float64Array) => number = (w) => w.length,
): Promise<{ w: Float64Array; v: Mat }> {
  const n = a.rows;
  if (a.cols !== n) throw new Error(`symEig: matrix is ${a.rows}x${a.cols}, not square`);
  const { d, e, q } = await tridiagonalize(a);
  const w = tridiagonalEigenvalues(d, e);
  const k = Math.max(0, Math.min(n, Math.floor(keep(w))));
  if (k === 0) return { w, v: { rows: n, cols: 0, data: new Float64Array(0) } };
  const zt = tridiagonalEigenvectors(d, e, w.subarray(n - k)); // [k, n], row j for w[n-k+j]
  const zr = new Float64Array(n * k); // Z: [n, k], columns largest first
  for (let j = 0; j < k; j++) for (let i = 0; i < n; i++) zr[i * k + j] = zt[(k - 1 - j) * n + i];
  return { w, v: await applyQ(q, await orthonormalize({ rows: n, cols: k, data: zr })) };
}

// Z (Z^T Z)^-1/2 ~ Z (3I - Z^T Z) / 2 for Z: [n, k] with nearly orthonormal columns (|Z^T Z - I| <~ 1e-10, so the
// first-order step leaves ~1e-20): the symmetric (Lowdin) correction, which moves each column the least.
async function orthonormalize(z: Mat): Promise<Mat> {
  const k = z.cols;
  const f = await gemm(z, z, true); // Z^T Z: [k, k]
  for (let i = 0; i < k * k; i++) f.data[i] *= -0.5;
  for (let i = 0; i < k; i++) f.data[i * k + i] += 1.5;
  return gemm(z, f);
}

// Eigenvalues of tridiag(e, d, e) ascending, by implicit QL (EISPACK tql1; kernels.c). d: [n], e: [n - 1];
// absolute accuracy ~eps ||T||.
export function tridiagonalEigenvalues(d: Float64Array, e: Float64Array): Float64Array {
  const n = d.length;
  const k = kernelsWith([n, n]);
  try {
    const [dd, ee] = k.arrays;
    dd.set(d);
    ee.set(e.subarray(0, n - 1)); // ee[n - 1] = 0
    k.tridiagEigenvalues(dd.byteOffset, ee.byteOffset, n);
    return dd.slice().sort();
  } finally {
    k.release();
  }
}

// Unit eigenvectors of tridiag(e, d, e) for the eigenvalues lam (ascending, each accurate to ~eps ||T||) by inverse
// iteration as LAPACK's dstein (kernels.c): LU with partial pivoting of T - lam_j I (tiny pivots raised to
// eps ||T||), a fixed pseudo-random start, at least 3 solves, and modified Gram-Schmidt against the eigenvectors of
// eigenvalues closer than 1e-6 ||T|| (dstein: 1e-3, which costs O(n k^2) on the spiked spectra of embedding Grams,
// whose bulk lies within 1e-3 ||T||). Vectors of eigenvalues a gap g apart come out orthogonal to ~eps ||T|| / g by
// themselves (<= 2e-10; ~1e-13 seen), and symEig restores full orthogonality with one GEMM step. O(n) per vector.
// Returns Z^T: [k, n], row j the vector for lam[j], its largest entry positive.
export function tridiagonalEigenvectors(d: Float64Array, e: Float64Array, lam: ArrayLike<number>): Float64Array {
  const n = d.length;
  const k = lam.length;
  let onenrm = 0; // ||T||_1
  for (let i = 0; i < n; i++)
    onenrm = Math.max(onenrm, Math.abs(d[i]) + (i > 0 ? Math.abs(e[i - 1]) : 0) + (i < n - 1 ? Math.abs(e[i]) : 0));
  const ker = kernelsWith([n, Math.max(n - 1, 1), k, n, k * n, 6 * n]);
  try {
    const [dd, ee, ll, start, zt] = ker.arrays;
    dd.set(d);
    ee.set(e.subarray(0, n - 1));
    ll.set(lam);
    const rng = rngFrom(1); // fixed pseudo-random draws; eigenvalue j starts from them rotated by j places
    for (let i = 0; i < n; i++) start[i] = 2 * rng.uniform() - 1;
    const [pd, pe, pl, ps, pz, pw] = ker.arrays.map((x) => x.byteOffset);
    ker.tridiagEigenvectors(pd, pe, n, pl, k, ps, 1e-6 * onenrm, pz, pw);
    return zt.slice();
  } finally {
    ker.release();
  }
}
