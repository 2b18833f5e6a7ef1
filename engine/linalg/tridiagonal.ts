// Householder tridiagonalisation A = Q T Q^T of a symmetric matrix, blocked as LAPACK's dsytrd/dlatrd (lower):
// a panel of nb columns is reduced with matrix-vector products against the trailing matrix as it stood before the
// panel (corrected by the panel's own vectors; kernels.c, WebAssembly SIMD), then the trailing matrix takes the
// whole panel's rank-2nb update A22 -= V W^T + W V^T in one onnxruntime GEMM. Half the 4n^3/3 flops go to GEMM,
// the other half are those matrix-vector products, which no GEMM can batch.
import { gemm } from './gemm';
import { type ReflectorBlock, type Reflectors, wyBlock } from './householder';
import { kernelsWith } from './kernels-wasm';
import type { Mat } from './matrix';

// T = tridiag(e, d, e): d: [n] diagonal, e: [n - 1] sub-diagonal; q: the reflectors H_0 ... H_{n-2} (v_j: 1 at row j+1).
export type Tridiagonal = { d: Float64Array; e: Float64Array; q: Reflectors };

export async function tridiagonalize(a: Mat, nb = 32): Promise<Tridiagonal> {
  const n = a.rows;
  if (a.cols !== n) throw new Error(`tridiagonalize: matrix is ${a.rows}x${a.cols}, not square`);
  const h0 = Math.max(n - 1, 1);
  // in the kernel's memory: A [n, n] (full symmetric storage; column g final once reduced), the current panel's
  // V and W [h, nr] (h <= n - 1, nr <= nb), tau [nb], d [n], e [n], scratch y, v [n - 1] and p [2 nb]
  const k = kernelsWith([n * n, h0 * nb, h0 * nb, nb, n, n, h0, h0, 2 * nb]);
  try {
    const [A, V, W, tau, d, e] = k.arrays;
    const ptrs = k.arrays.map((x) => x.byteOffset);
    A.set(a.data);
    const blocks: ReflectorBlock[] = [];
    for (let j0 = 0; j0 < n; j0 += nb) {
      const jb = Math.min(nb, n - j0); // columns j0..j0+jb-1 in this panel
      const nr = Math.min(jb, n - 1 - j0); // reflectors in it (the last column has none)
      const h = n - j0 - 1; // reflector rows j0+1..n-1; V, W: [h, nr], row t is global row j0+1+t
      V.fill(0);
      W.fill(0);
      tau.fill(0);
      k.reducePanel(ptrs[0], n, j0, jb, nr, ptrs[1], ptrs[2], ptrs[3], ptrs[4], ptrs[5], ptrs[6], ptrs[7], ptrs[8]);
      if (nr === 0) continue;
      const v = V.slice(0, h * nr);
      blocks.push(await wyBlock(j0 + 1, { rows: h, cols: nr, data: v }, tau.slice(0, nr)));
      // trailing matrix rows/cols j0+jb..: A22 -= V2 W2^T + W2 V2^T = [V2 W2] [W2 V2]^T, V2 = V[jb-1:], W2 = W[jb-1:]
      const m2 = n - j0 - jb;
      if (m2 <= 0) continue;
      const [left, right] = sideBySide(v, W, nr, jb - 1, m2);
      const upd = await gemm(left, right, false, true); // [m2, m2]
      subtractBlock(A, n, j0 + jb, upd.data, m2);
    }
    return { d: d.slice(), e: e.slice(0, Math.max(n - 1, 0)), q: { m: n, blocks } };
  } finally {
    k.release();
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
