// Symmetric eigendecomposition A = V diag(w) V^T (Householder tridiagonalisation + implicit QL, JAMA's tred2/tql2).
// Hand-ported from ml-matrix onto one flat Float64Array because ml-matrix's Matrix get/set calls cost ~2x here
// (384x384: see tests/bench/align.bench.ts); no npm package offers LAPACK's dsyevd for Node.
import type { Mat } from './matrix';

// A: [n, n] symmetric. Returns ascending eigenvalues w: [n] and eigenvectors as the ROWS of vt: [n, n] (vt[j] = v_j).
export function symEig(a: Mat): { w: Float64Array; vt: Mat } {
  const n = a.rows;
  if (a.cols !== n) throw new Error(`symEig: matrix is ${a.rows}x${a.cols}, not square`);
  // V stored transposed (V[j*n + i] = logical V(i, j)) so the hot loops scan contiguous memory.
  const V = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) V[j * n + i] = a.data[i * n + j];
  const d = new Float64Array(n);
  const e = new Float64Array(n);
  tred2(n, e, d, V);
  tql2(n, e, d, V);
  return { w: d, vt: { rows: n, cols: n, data: V } };
}

function tred2(n: number, e: Float64Array, d: Float64Array, V: Float64Array): void {
  for (let j = 0; j < n; j++) d[j] = V[j * n + n - 1];
  for (let i = n - 1; i > 0; i--) {
    let scale = 0;
    let h = 0;
    for (let k = 0; k < i; k++) scale += Math.abs(d[k]);
    if (scale === 0) {
      e[i] = d[i - 1];
      for (let j = 0; j < i; j++) {
        d[j] = V[j * n + i - 1];
        V[j * n + i] = 0;
        V[i * n + j] = 0;
      }
    } else {
      for (let k = 0; k < i; k++) {
        d[k] /= scale;
        h += d[k] * d[k];
      }
      let f = d[i - 1];
      let g = Math.sqrt(h);
      if (f > 0) g = -g;
      e[i] = scale * g;
      h -= f * g;
      d[i - 1] = f - g;
      for (let j = 0; j < i; j++) e[j] = 0;
      for (let j = 0; j < i; j++) {
        f = d[j];
        V[i * n + j] = f;
        const row = j * n;
        g = e[j] + V[row + j] * f;
        for (let k = j + 1; k <= i - 1; k++) {
          g += V[row + k] * d[k];
          e[k] += V[row + k] * f;
        }
        e[j] = g;
      }
      f = 0;
      for (let j = 0; j < i; j++) {
        e[j] /= h;
        f += e[j] * d[j];
      }
      const hh = f / (h + h);
      for (let j = 0; j < i; j++) e[j] -= hh * d[j];
      for (let j = 0; j < i; j++) {
        f = d[j];
        g = e[j];
        const row = j * n;
        for (let k = j; k <= i - 1; k++) V[row + k] -= f * e[k] + g * d[k];
        d[j] = V[row + i - 1];
        V[row + i] = 0;
      }
    }
    d[i] = h;
  }
  for (let i = 0; i < n - 1; i++) {
    V[i * n + n - 1] = V[i * n + i];
    V[i * n + i] = 1;
    const h = d[i + 1];
    const next = (i + 1) * n;
    if (h !== 0) {
      for (let k = 0; k <= i; k++) d[k] = V[next + k] / h;
      for (let j = 0; j <= i; j++) {
        const row = j * n;
        let g = 0;
        for (let k = 0; k <= i; k++) g += V[next + k] * V[row + k];
        for (let k = 0; k <= i; k++) V[row + k] -= g * d[k];
      }
    }
    for (let k = 0; k <= i; k++) V[next + k] = 0;
  }
  for (let j = 0; j < n; j++) {
    d[j] = V[j * n + n - 1];
    V[j * n + n - 1] = 0;
  }
  V[(n - 1) * n + n - 1] = 1;
  e[0] = 0;
}

function tql2(n: number, e: Float64Array, d: Float64Array, V: Float64Array): void {
  for (let i = 1; i < n; i++) e[i - 1] = e[i];
  e[n - 1] = 0;
  let f = 0;
  let tst1 = 0;
  const eps = Number.EPSILON;
  for (let l = 0; l < n; l++) {
    tst1 = Math.max(tst1, Math.abs(d[l]) + Math.abs(e[l]));
    let m = l;
    while (m < n && Math.abs(e[m]) > eps * tst1) m++;
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
          // rotate eigenvector rows i and i+1 (contiguous)
          const ri = i * n;
          const rj = ri + n;
          for (let k = 0; k < n; k++) {
            const hk = V[rj + k];
            const vk = V[ri + k];
            V[rj + k] = s * vk + c * hk;
            V[ri + k] = c * vk - s * hk;
          }
        }
        p = (-s * s2 * c3 * el1 * e[l]) / dl1;
        e[l] = s * p;
        d[l] = c * p;
      } while (Math.abs(e[l]) > eps * tst1);
    }
    d[l] += f;
    e[l] = 0;
  }
  // selection sort ascending, swapping eigenvector rows
  for (let i = 0; i < n - 1; i++) {
    let k = i;
    let p = d[i];
    for (let j = i + 1; j < n; j++)
      if (d[j] < p) {
        k = j;
        p = d[j];
      }
    if (k !== i) {
      d[k] = d[i];
      d[i] = p;
      for (let j = 0; j < n; j++) {
        const t = V[i * n + j];
        V[i * n + j] = V[k * n + j];
        V[k * n + j] = t;
      }
    }
  }
}
