// Symmetric eigendecomposition A = V diag(w) V^T, LAPACK dsyevx-style: blocked Householder tridiagonalisation
// (tridiagonal.ts, half its flops on onnxruntime's GEMM), all eigenvalues of T by implicit QL without vectors
// (O(n^2)), eigenvectors of T only for the ones asked for by inverse iteration (dstein, O(n) each), and
// V = Q Z by blocked reflectors on GEMM. Replaces JAMA's tred2/tql2, whose O(n^3) rotations ran in JS
// (384x384: ~10x faster; see tests/bench/align.bench.ts). No npm package offers LAPACK's dsyevd for Node.
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { gemm } from './gemm';
import { applyQ } from './householder';
import type { Mat } from './matrix';
import { rngFrom } from './random';
import { tridiagonalize } from './tridiagonal';

const EPS = Number.EPSILON;

// A: [n, n] symmetric. w: [n] all eigenvalues ascending; v: [n, k] unit eigenvectors of the k = keep(w) largest,
// as columns, largest first (A v_j = w[n-1-j] v_j).
export async function symEig(a: Mat, keep: (w: Float64Array) => number = (w) => w.length): Promise<{ w: Float64Array; v: Mat }> {
  const n = a.rows;
  if (a.cols !== n) throw new Error(`symEig: matrix is ${a.rows}x${a.cols}, not square`);
  const { d, e, q } = await tridiagonalize(a);
  const w = tridiagonalEigenvalues(d, e);
  const k = Math.max(0, Math.min(n, Math.floor(keep(w))));
  if (k === 0) return { w, v: { rows: n, cols: 0, data: new Float64Array(0) } };
  const z = tridiagonalEigenvectors(d, e, w.subarray(n - k)); // [n, k], column j for w[n-k+j]
  const zr = new Float64Array(n * k); // columns reversed: largest first
  for (let i = 0; i < n; i++) for (let j = 0; j < k; j++) zr[i * k + j] = z[i * k + k - 1 - j];
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

// Eigenvalues of tridiag(e, d, e) ascending, by implicit QL with Wilkinson-like shifts (EISPACK tql1, as JAMA's tql2
// without the vectors). d: [n], e: [n - 1]; absolute accuracy ~eps ||T||.
export function tridiagonalEigenvalues(d0: Float64Array, e0: Float64Array): Float64Array {
  const n = d0.length;
  const d = Float64Array.from(d0);
  const e = new Float64Array(n); // e[i] = T[i, i+1], e[n-1] = 0
  e.set(e0);
  let f = 0;
  let tst1 = 0;
  for (let l = 0; l < n; l++) {
    tst1 = Math.max(tst1, Math.abs(d[l]) + Math.abs(e[l]));
    let m = l;
    while (m < n && Math.abs(e[m]) > EPS * tst1) m++;
    if (m > l) {
      do {
        let g = d[l];
        let p = (d[l + 1] - g) / (2 * e[l]);
        let r = Math.hypot(p, 1);
        if (p < 0) r = -r;
        d[l] = e[l] / (p + r);
        d[l + 1] = e[l] * (p + r);
        const dl1 = d[l + 1];
        let h = g - d[l];
        for (let i = l + 2; i < n; i++) d[i] -= h;
        f += h;
        p = d[m];
        let c = 1;
        let c2 = c;
        let c3 = c;
        const el1 = e[l + 1];
        let s = 0;
        let s2 = 0;
        for (let i = m - 1; i >= l; i--) {
          c3 = c2;
          c2 = c;
          s2 = s;
          g = c * e[i];
          h = c * p;
          r = Math.hypot(p, e[i]);
          e[i + 1] = s * r;
          s = e[i] / r;
          c = p / r;
          p = c * d[i] - s * g;
          d[i + 1] = h + s * (c * g + s * d[i]);
        }
        p = (-s * s2 * c3 * el1 * e[l]) / dl1;
        e[l] = s * p;
        d[l] = c * p;
      } while (Math.abs(e[l]) > EPS * tst1);
    }
    d[l] += f;
    e[l] = 0;
  }
  return d.sort();
}

// Unit eigenvectors of tridiag(e, d, e) for the eigenvalues lam (ascending, each accurate to ~eps ||T||) by inverse
// iteration, as LAPACK's dstein: LU with partial pivoting of T - lam_j I (tiny pivots perturbed to eps ||T||), a fixed
// pseudo-random start, at least 3 solves, and modified Gram-Schmidt against the eigenvectors of eigenvalues closer
// than 1e-6 ||T|| (dstein: 1e-3, which costs O(n k^2) on the spiked spectra of embedding Grams, whose bulk lies
// within 1e-3 ||T||). Vectors of eigenvalues a gap g apart come out orthogonal to ~eps ||T|| / g by themselves
// (<= 2e-10; ~1e-13 seen), and symEig restores full orthogonality with one GEMM step. O(n) per vector.
// Returns Z: [n, k] row-major, column j for lam[j], its largest entry positive.
export function tridiagonalEigenvectors(d: Float64Array, e: Float64Array, lam: ArrayLike<number>): Float64Array {
  const n = d.length;
  const k = lam.length;
  const z = new Float64Array(n * k);
  if (n === 1) {
    z.fill(1);
    return z;
  }
  let onenrm = 0; // ||T||_1
  for (let i = 0; i < n; i++) onenrm = Math.max(onenrm, Math.abs(d[i]) + (i > 0 ? Math.abs(e[i - 1]) : 0) + (i < n - 1 ? Math.abs(e[i]) : 0));
  const ortol = 1e-6 * onenrm;
  const tiny = EPS * onenrm || Number.MIN_VALUE; // replaces zero pivots
  const stop = Math.sqrt(0.1 / n); // dstein's DTPCRT: the scaled iterate's max entry once converged
  const start = new Float64Array(n); // fixed pseudo-random draws; eigenvalue j starts from them rotated by j places
  const rng = rngFrom(1);
  for (let i = 0; i < n; i++) start[i] = 2 * uniformFloat64(rng) - 1;
  // LU of T - x I with row interchanges (LAPACK dgttrf): U = diag(u0) + super u1 + super-super u2; L multipliers ml
  const u0 = new Float64Array(n);
  const u1 = new Float64Array(n);
  const u2 = new Float64Array(n);
  const ml = new Float64Array(n);
  const swap = new Uint8Array(n);
  const x = new Float64Array(n);
  const cols: Float64Array[] = []; // finished eigenvectors
  let xPrev = -Infinity;
  let first = 0; // index of the first eigenvalue within ortol of the current one
  for (let j = 0; j < k; j++) {
    let xj = lam[j];
    const pertol = 10 * EPS * Math.abs(xj);
    if (j > 0 && xj - xPrev < pertol) xj = xPrev + pertol; // equal eigenvalues: distinct shifts
    xPrev = xj;
    while (first < j && xj - lam[first] > ortol) first++;
    for (let i = 0; i < n; i++) {
      u0[i] = d[i] - xj;
      u1[i] = i < n - 1 ? e[i] : 0;
      u2[i] = 0;
      ml[i] = i < n - 1 ? e[i] : 0;
      swap[i] = 0;
    }
    for (let i = 0; i < n - 1; i++) {
      if (Math.abs(u0[i]) >= Math.abs(ml[i])) {
        if (u0[i] !== 0) {
          const f = ml[i] / u0[i];
          ml[i] = f;
          u0[i + 1] -= f * u1[i];
        }
      } else {
        const f = u0[i] / ml[i];
        u0[i] = ml[i];
        ml[i] = f;
        const t = u1[i];
        u1[i] = u0[i + 1];
        u0[i + 1] = t - f * u0[i + 1];
        if (i < n - 2) {
          u2[i] = u1[i + 1];
          u1[i + 1] = -f * u1[i + 1];
        }
        swap[i] = 1;
      }
    }
    for (let i = 0; i < n; i++) if (Math.abs(u0[i]) < tiny) u0[i] = u0[i] < 0 ? -tiny : tiny;
    for (let i = 0; i < n; i++) x[i] = start[(i + j) % n];
    let converged = 0;
    for (let its = 0; its < 5 && converged < 3; its++) {
      // scale so that a converged solve lands near 1 (dstein), then solve P L U x' = x
      const scl = (n * onenrm * Math.max(EPS, Math.abs(u0[n - 1]))) / maxAbs(x);
      for (let i = 0; i < n; i++) x[i] *= scl;
      for (let i = 0; i < n - 1; i++) {
        if (swap[i]) {
          const t = x[i];
          x[i] = x[i + 1];
          x[i + 1] = t - ml[i] * x[i + 1];
        } else x[i + 1] -= ml[i] * x[i];
      }
      x[n - 1] /= u0[n - 1];
      x[n - 2] = (x[n - 2] - u1[n - 2] * x[n - 1]) / u0[n - 2];
      for (let i = n - 3; i >= 0; i--) x[i] = (x[i] - u1[i] * x[i + 1] - u2[i] * x[i + 2]) / u0[i];
      for (let c = first; c < j; c++) {
        const zc = cols[c];
        let dot = 0;
        for (let i = 0; i < n; i++) dot += x[i] * zc[i];
        for (let i = 0; i < n; i++) x[i] -= dot * zc[i];
      }
      if (maxAbs(x) >= stop) converged++;
    }
    let norm = 0;
    let big = 0;
    for (let i = 0; i < n; i++) {
      norm += x[i] * x[i];
      if (Math.abs(x[i]) > Math.abs(x[big])) big = i;
    }
    const s = (x[big] < 0 ? -1 : 1) / Math.sqrt(norm);
    const col = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      col[i] = x[i] * s;
      z[i * k + j] = col[i];
    }
    cols.push(col);
  }
  return z;
}

function maxAbs(x: Float64Array): number {
  let m = 0;
  for (let i = 0; i < x.length; i++) m = Math.max(m, Math.abs(x[i]));
  return m;
}
