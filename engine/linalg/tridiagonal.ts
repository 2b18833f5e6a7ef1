// Householder tridiagonalisation A = Q T Q^T of a symmetric matrix, blocked as LAPACK's dsytrd/dlatrd (lower):
// a panel of nb columns is reduced in JS with matrix-vector products against the trailing matrix as it stood before
// the panel (corrected by the panel's own vectors), then the trailing matrix takes the whole panel's rank-2nb update
// A22 -= V W^T + W V^T in one onnxruntime GEMM. Half the 4n^3/3 flops go to GEMM; the other half are the
// matrix-vector products, which is what is left in JS.
import { gemm } from './gemm';
import { type ReflectorBlock, type Reflectors, wyBlock } from './householder';
import type { Mat } from './matrix';

// T = tridiag(e, d, e): d: [n] diagonal, e: [n - 1] sub-diagonal; q: the reflectors H_0 ... H_{n-2} (v_j: 1 at row j+1).
export type Tridiagonal = { d: Float64Array; e: Float64Array; q: Reflectors };

export async function tridiagonalize(a: Mat, nb = 32): Promise<Tridiagonal> {
  const n = a.rows;
  if (a.cols !== n) throw new Error(`tridiagonalize: matrix is ${a.rows}x${a.cols}, not square`);
  const A = Float64Array.from(a.data); // [n, n], full symmetric storage; column g is final once reduced
  const d = new Float64Array(n);
  const e = new Float64Array(Math.max(n - 1, 0));
  const blocks: ReflectorBlock[] = [];
  for (let j0 = 0; j0 < n; j0 += nb) {
    const jb = Math.min(nb, n - j0); // columns j0..j0+jb-1 in this panel
    const nr = Math.min(jb, n - 1 - j0); // reflectors in it (the last column has none)
    const h = n - j0 - 1; // reflector rows j0+1..n-1; V, W: [h, nr], row t is global row j0+1+t
    const V = new Float64Array(h * nr);
    const W = new Float64Array(h * nr);
    const tau = new Float64Array(nr);
    reducePanel(A, n, j0, jb, V, W, tau, d, e);
    if (nr === 0) continue;
    blocks.push(await wyBlock(j0 + 1, { rows: h, cols: nr, data: V }, tau));
    // trailing matrix rows/cols j0+jb..: A22 -= V2 W2^T + W2 V2^T = [V2 W2] [W2 V2]^T, V2 = V[jb-1:], W2 = W[jb-1:]
    const m2 = n - j0 - jb;
    if (m2 <= 0) continue;
    const [left, right] = sideBySide(V, W, nr, jb - 1, m2);
    const upd = await gemm(left, right, false, true); // [m2, m2]
    const off = j0 + jb;
    subtractBlock(A, n, off, upd.data, m2);
  }
  return { d, e, q: { m: n, blocks } };
}

// Reduce columns j0..j0+jb-1 of A in place (only those columns are final afterwards): d, e and tau for them, the
// reflector vectors V and W = tau A v - (tau^2/2)(v^T A v) v per column, both [h, nr] (h = n - j0 - 1, nr reflectors).
function reducePanel(
  A: Float64Array, n: number, j0: number, jb: number,
  V: Float64Array, W: Float64Array, tau: Float64Array, d: Float64Array, e: Float64Array,
): void {
  const nr = tau.length;
  const h = n - j0 - 1;
  const y = new Float64Array(h);
  for (let i = 0; i < jb; i++) {
    const g = j0 + i;
    // column g, rows g.., brought up to date with this panel's earlier reflectors: a -= V W[g]^T + W V[g]^T
    if (i > 0)
      for (let row = g; row < n; row++) {
        const rt = (row - j0 - 1) * nr;
        const gt = (g - j0 - 1) * nr;
        let s = 0;
        for (let k = 0; k < i; k++) s += V[rt + k] * W[gt + k] + W[rt + k] * V[gt + k];
        A[row * n + g] -= s;
      }
    d[g] = A[g * n + g];
    if (i >= nr) break;
    // reflector H_g = I - tau v v^T with H_g A[g+1:, g] = (beta, 0, ...): v[g+1] = 1 (dlarfg)
    const alpha = A[(g + 1) * n + g];
    let xnorm2 = 0;
    for (let row = g + 2; row < n; row++) xnorm2 += A[row * n + g] ** 2;
    V[i * nr + i] = 1; // global row g+1
    if (xnorm2 === 0) {
      e[g] = alpha; // already reduced: tau = 0, w = 0
      continue;
    }
    const norm = Math.sqrt(alpha * alpha + xnorm2);
    const beta = alpha >= 0 ? -norm : norm;
    const ti = (beta - alpha) / beta;
    tau[i] = ti;
    e[g] = beta;
    const scale = 1 / (alpha - beta);
    for (let row = g + 2; row < n; row++) V[(row - j0 - 1) * nr + i] = A[row * n + g] * scale;
    // w = tau (A_cur v) - (tau^2/2)(v^T A_cur v) v over rows g+1.., A_cur = A22 - V W^T - W V^T (earlier columns)
    const len = n - g - 1; // rows/cols g+1..n-1; v = V[i.., i]
    const vOff = i; // V/W row index of global row g+1
    const vv = new Float64Array(len);
    for (let t = 0; t < len; t++) vv[t] = V[(vOff + t) * nr + i];
    symvBlock(A, n, g + 1, vv, y);
    if (i > 0) {
      const p1 = new Float64Array(i); // W^T v
      const p2 = new Float64Array(i); // V^T v
      for (let t = 0; t < len; t++) {
        const r = (vOff + t) * nr;
        const x = vv[t];
        for (let k = 0; k < i; k++) {
          p1[k] += W[r + k] * x;
          p2[k] += V[r + k] * x;
        }
      }
      for (let t = 0; t < len; t++) {
        const r = (vOff + t) * nr;
        let s = 0;
        for (let k = 0; k < i; k++) s += V[r + k] * p1[k] + W[r + k] * p2[k];
        y[t] -= s;
      }
    }
    let yv = 0;
    for (let t = 0; t < len; t++) yv += y[t] * vv[t];
    const c = -0.5 * ti * ti * yv;
    for (let t = 0; t < len; t++) W[(vOff + t) * nr + i] = ti * y[t] + c * vv[t];
  }
}

// [V2 W2] and [W2 V2]: [m2, 2 nr] each, from rows r0..r0+m2-1 of V, W: [h, nr].
function sideBySide(V: Float64Array, W: Float64Array, nr: number, r0: number, m2: number): [Mat, Mat] {
  const left = new Float64Array(m2 * 2 * nr);
  const right = new Float64Array(m2 * 2 * nr);
  for (let r = 0; r < m2; r++) {
    const src = (r0 + r) * nr;
    const dst = r * 2 * nr;
    for (let k = 0; k < nr; k++) {
      left[dst + k] = right[dst + nr + k] = V[src + k];
      left[dst + nr + k] = right[dst + k] = W[src + k];
    }
  }
  return [
    { rows: m2, cols: 2 * nr, data: left },
    { rows: m2, cols: 2 * nr, data: right },
  ];
}

// A[off:, off:] -= U: [m2, m2].
function subtractBlock(A: Float64Array, n: number, off: number, u: Float64Array, m2: number): void {
  for (let r = 0; r < m2; r++) {
    const row = (off + r) * n + off;
    for (let c = 0; c < m2; c++) A[row + c] -= u[r * m2 + c];
  }
}

// y[t] = sum_c A[s+t, s+c] x[c] over the trailing block A[s:, s:] (row-major, stride n); two rows at a time
// with two accumulators each, ~1.5x a plain dot-product loop in V8.
function symvBlock(A: Float64Array, n: number, s: number, x: Float64Array, y: Float64Array): void {
  const len = n - s;
  let t = 0;
  for (; t + 1 < len; t += 2) {
    const r0 = (s + t) * n + s;
    const r1 = r0 + n;
    let a0 = 0;
    let a1 = 0;
    let b0 = 0;
    let b1 = 0;
    let c = 0;
    for (; c + 1 < len; c += 2) {
      const x0 = x[c];
      const x1 = x[c + 1];
      a0 += A[r0 + c] * x0;
      a1 += A[r0 + c + 1] * x1;
      b0 += A[r1 + c] * x0;
      b1 += A[r1 + c + 1] * x1;
    }
    if (c < len) {
      a0 += A[r0 + c] * x[c];
      b0 += A[r1 + c] * x[c];
    }
    y[t] = a0 + a1;
    y[t + 1] = b0 + b1;
  }
  if (t < len) {
    const r0 = (s + t) * n + s;
    let a0 = 0;
    for (let c = 0; c < len; c++) a0 += A[r0 + c] * x[c];
    y[t] = a0;
  }
}
