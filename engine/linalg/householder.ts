// Householder reflectors in blocks (LAPACK's compact WY, dlarft/dlarfb): H_j = I - tau_j v_j v_j^T, and a block of b
// consecutive ones H_j0 ... H_j0+b-1 = I - V T V^T, so applying a product of reflectors to a matrix costs two
// onnxruntime GEMMs per block. Used by the tridiagonalisation (sym-eig) and by the orthonormal completion below.
import { gemm, gemmSub } from './gemm';
import { kernelsWith } from './kernels-wasm';
import type { Mat } from './matrix';

// One block acting on rows r0.. of R^m. v: [m - r0, b], column i zero above row i and 1 at row i; t: [b, b] upper.
export type ReflectorBlock = { r0: number; v: Mat; t: Float64Array };
// Q = B_0 B_1 ... B_last (each B = I - V T V^T), an orthogonal [m, m] never formed.
export type Reflectors = { m: number; blocks: ReflectorBlock[] };

// T from V and tau (forward, columnwise): T_ii = tau_i, T[:i, i] = -tau_i T[:i, :i] (V^T V)[:i, i].
export async function wyBlock(r0: number, v: Mat, tau: Float64Array): Promise<ReflectorBlock> {
  const b = v.cols;
  const s = (await gemm(v, v, true)).data; // V^T V: [b, b]
  const t = new Float64Array(b * b);
  for (let i = 0; i < b; i++) {
    t[i * b + i] = tau[i];
    for (let r = 0; r < i; r++) {
      let acc = 0;
      for (let c = r; c < i; c++) acc += t[r * b + c] * s[c * b + i];
      t[r * b + i] = -tau[i] * acc;
    }
  }
  return { r0, v, t };
}

// Q Z, or Q^T Z when trans. Z: [m, k] -> [m, k] (a new matrix).
export async function applyQ(q: Reflectors, z: Mat, trans = false): Promise<Mat> {
  if (z.rows !== q.m) throw new Error(`applyQ: Z has ${z.rows} rows, Q is ${q.m}x${q.m}`);
  const k = z.cols;
  const out = z.data.slice();
  // Q Z = B_0 (B_1 (... B_last Z)); Q^T Z = B_last^T (... (B_0^T Z)), B^T = I - V T^T V^T
  const order = trans ? q.blocks : [...q.blocks].reverse();
  for (const { r0, v, t } of order) {
    const b = v.cols;
    const zr = { rows: q.m - r0, cols: k, data: out.subarray(r0 * k) }; // rows r0.. of Z (a view)
    const y = await gemm(v, zr, true); // V^T Z: [b, k]
    const ty = await gemm({ rows: b, cols: b, data: t }, y, trans); // T y or T^T y: [b, k]
    out.set((await gemmSub(zr, v, ty)).data, r0 * k); // Z[r0:] - V T y
  }
  return { rows: z.rows, cols: k, data: out };
}

// Householder QR A = Q R of A: [m, r] (m >= r), in panels of nb columns: each panel is reduced by a WebAssembly
// kernel (kernels.c qr_panel), the columns right of it take the block's update by GEMM. The sign rule (beta = -sign(x0) |x|, +|x| when x0 = 0) fixes Q and
// R uniquely, so everything built from them is deterministic. R: [r, r] upper triangular.
export async function householderQR(a: Mat, nb = 32): Promise<{ q: Reflectors; r: Mat }> {
  const { rows: m, cols: r } = a;
  if (m < r) throw new Error(`householderQR: ${m}x${r} is wide`);
  const blocks: ReflectorBlock[] = [];
  const rest = a.data.slice(); // [m, r]: R so far on top, columns right of the current panel up to date
  const k = kernelsWith([Math.min(nb, r) * m, nb]); // the current panel (column-major) and its tau
  try {
    for (let c0 = 0; c0 < r; c0 += nb) {
      const b = Math.min(nb, r - c0);
      const h = m - c0; // panel rows c0..m-1
      // panel A[c0:, c0:c0+b], column-major, reduced in place by kernels.c qr_panel
      const pc = k.arrays[0].subarray(0, b * h);
      const tau = k.arrays[1].subarray(0, b);
      for (let i = 0; i < h; i++) for (let j = 0; j < b; j++) pc[j * h + i] = rest[(c0 + i) * r + c0 + j];
      k.qrPanel(pc.byteOffset, h, b, tau.byteOffset);
      const v = new Float64Array(h * b); // [h, b] row-major: unit diagonal, zero above
      for (let j = 0; j < b; j++) {
        v[j * b + j] = 1;
        for (let i = j + 1; i < h; i++) v[i * b + j] = pc[j * h + i];
        for (let i = 0; i < h; i++) rest[(c0 + i) * r + c0 + j] = i <= j ? pc[j * h + i] : 0; // R's panel columns
      }
      const block = await wyBlock(c0, { rows: h, cols: b, data: v }, tau.slice());
      blocks.push(block);
      const nr = r - c0 - b; // columns right of the panel: A2 <- (I - V T^T V^T) A2
      if (nr > 0) {
        const a2 = new Float64Array(h * nr);
        for (let i = 0; i < h; i++) a2.set(rest.subarray((c0 + i) * r + c0 + b, (c0 + i + 1) * r), i * nr);
        const upd = await applyQ({ m: h, blocks: [{ ...block, r0: 0 }] }, { rows: h, cols: nr, data: a2 }, true);
        for (let i = 0; i < h; i++) rest.set(upd.data.subarray(i * nr, (i + 1) * nr), (c0 + i) * r + c0 + b);
      }
    }
    return { q: { m, blocks }, r: { rows: r, cols: r, data: rest.slice(0, r * r) } };
  } finally {
    k.release();
  }
}

// U: [m, r] with orthonormal columns -> C: [m, k] orthonormal columns, orthogonal to U (k <= m - r): columns r..r+k-1
// of Q from U's Householder QR. Exact to rounding, deterministic (no random vectors) and unchanged when a column of U
// flips sign; for the rank-deficient Procrustes case (few pairs, r < d).
export async function completeBasis(u: Mat, k: number): Promise<Mat> {
  const { rows: m, cols: r } = u;
  if (k > m - r) throw new Error(`completeBasis: cannot add ${k} columns to ${r} in R^${m}`);
  const e = new Float64Array(m * k); // [m, k]: e_r ... e_{r+k-1}
  for (let i = 0; i < k; i++) e[(r + i) * k + i] = 1;
  if (r === 0) return { rows: m, cols: k, data: e };
  return applyQ((await householderQR(u)).q, { rows: m, cols: k, data: e });
}
