// Orthogonal Procrustes across widths (docs/reference.md#procrustes): W = U V^T from the thin SVD of M = X^T Y, so
// W^T W = I and W maximises tr(W^T X^T Y), i.e. minimises ||X W - Y||_F. Reflections are allowed.
// Computed as the polar factor through the small side's Gram matrix (G = M^T M = V S^2 V^T, U = M V S^-1)
// with the GEMM-blocked symmetric EVD of ../linalg (eigenvectors only for the kept singular values); with fewer
// pairs n than either width the Gram is taken n x n (polarFewPairs), not 384 x 384.
// Rank-deficient M (fewer pairs than the width) keeps the exact part U_r V_r^T and adds C(U_r) C(V_r)^T, where
// C(.) is the Householder completion of an orthonormal frame: the map is not unique there, and this choice is a
// deterministic function of the kept part, so 1e-15 noise in the inputs moves W by ~1e-15, not O(1).
import { type Mat, applyQ, completeBasis, gemm, householderQR, symEig, transpose } from '../linalg';

export type OrthoMap = {
  w: Mat; // [dImg, dTxt]; maps an image row x to x W
  rank: number; // singular values of M kept as nonzero
  singularValues: number[]; // of M, descending, the kept ones
  freeParameters: number; // dImg*dTxt - dTxt(dTxt+1)/2 for dImg >= dTxt
};

// Singular values below this fraction of the largest are treated as zero (Gram eigenvalues carry ~1e-13 relative noise).
const RANK_TOL = 1e-5;

export const freeParameters = (dImg: number, dTxt: number): number => {
  const [p, q] = dImg >= dTxt ? [dImg, dTxt] : [dTxt, dImg];
  return p * q - (q * (q + 1)) / 2;
};

// [a | b] side by side: a: [m, i], b: [m, j] -> [m, i + j].
function hcat(a: Mat, b: Mat): Mat {
  const m = a.rows;
  const c = a.cols + b.cols;
  const out = new Float64Array(m * c);
  for (let i = 0; i < m; i++) {
    out.set(a.data.subarray(i * a.cols, (i + 1) * a.cols), i * c);
    out.set(b.data.subarray(i * b.cols, (i + 1) * b.cols), i * c + a.cols);
  }
  return { rows: m, cols: c, data: out };
}

// Kept right singular vectors and values of B: [p, k], p >= k, from its Gram B^T B = V S^2 V^T. V: [k, r], largest first.
async function rightSingular(b: Mat): Promise<{ v: Mat; sv: number[] }> {
  const k = b.cols;
  const keep = (lam: Float64Array) => {
    const lmax = Math.max(lam[k - 1], 0);
    return lmax > 0 ? lam.filter((l) => l > lmax * RANK_TOL * RANK_TOL).length : 0;
  };
  const { w: lam, v } = await symEig(await gemm(b, b, true), keep);
  return { v, sv: Array.from({ length: v.cols }, (_, j) => Math.sqrt(lam[k - 1 - j])) };
}

// V S^-1: [k, r] (columns scaled).
function scaleColumns(v: Mat, sv: number[]): Mat {
  const out = v.data.slice();
  for (let i = 0; i < v.rows; i++) for (let c = 0; c < v.cols; c++) out[i * v.cols + c] /= sv[c];
  return { rows: v.rows, cols: v.cols, data: out };
}

// W = U_r V_r^T, completed when r < q: U_r: [p, r], V_r: [q, r] -> [p, q] with orthonormal columns.
async function assemble(u: Mat, v: Mat): Promise<Mat> {
  const [q, r] = [v.rows, v.cols];
  if (r === q) return gemm(u, v, false, true);
  const [uc, vc] = [await completeBasis(u, q - r), await completeBasis(v, q - r)]; // [p, q - r], [q, q - r]
  return gemm(hcat(u, uc), hcat(v, vc), false, true); // W = [U_r C_U] [V_r C_V]^T
}

// Polar factor of a tall M: [p, q], p >= q -> [p, q] with orthonormal columns.
async function polarTall(m: Mat): Promise<{ w: Mat; sv: number[] }> {
  const { v, sv } = await rightSingular(m);
  const vs = scaleColumns(v, sv); // V S^-1
  if (v.cols === m.cols) return { w: await gemm(m, await gemm(vs, v, false, true)), sv }; // full rank: W = M (V S^-1 V^T)
  return { w: await assemble(await gemm(m, vs), v), sv }; // U_r = M V_r S_r^-1
}

// Polar factor of any M: [p, q] (wide M via its transpose).
export async function polar(m: Mat): Promise<{ w: Mat; sv: number[] }> {
  if (m.rows >= m.cols) return polarTall(m);
  const t = await polarTall(transpose(m));
  return { w: transpose(t.w), sv: t.sv };
}

// Fewer pairs than either width (n < q <= p): M = X^T Y has rank < n, so work on the n-wide side. With Y^T = Q_y R_y
// (Householder QR, Q_y: [q, n] orthonormal), M = (X^T R_y^T) Q_y^T, and B = X^T R_y^T: [p, n] has M's singular
// values and U; V = Q_y V_B. The Gram is n x n instead of q x q (the pair sweep's small counts: 25 pairs -> 25x25).
async function polarFewPairs(x: Mat, y: Mat): Promise<{ w: Mat; sv: number[] }> {
  const [n, q] = [y.rows, y.cols];
  const { q: qy, r: ry } = await householderQR(transpose(y)); // Y^T: [q, n]
  const b = await gemm(x, ry, true, true); // B = X^T R_y^T: [p, n]
  const { v: vb, sv } = await rightSingular(b);
  const r = sv.length;
  const u = await gemm(b, scaleColumns(vb, sv)); // U_r = B V_B S^-1: [p, r]
  const pad = new Float64Array(q * r); // [V_B; 0]: [q, r]
  pad.set(vb.data.subarray(0, n * r));
  return { w: await assemble(u, await applyQ(qy, { rows: q, cols: r, data: pad })), sv };
}

// X: [n, dImg], Y: [n, dTxt], both centred with fit-row means.
export async function procrustes(x: Mat, y: Mat): Promise<OrthoMap> {
  const [n, dImg, dTxt] = [x.rows, x.cols, y.cols];
  let fit: { w: Mat; sv: number[] };
  if (n >= Math.min(dImg, dTxt))
    fit = await polar(await gemm(x, y, true)); // M = X^T Y: [dImg, dTxt]
  else if (dImg >= dTxt) fit = await polarFewPairs(x, y);
  else {
    const t = await polarFewPairs(y, x); // W^T = polar(Y^T X)
    fit = { w: transpose(t.w), sv: t.sv };
  }
  return { w: fit.w, rank: fit.sv.length, singularValues: fit.sv, freeParameters: freeParameters(dImg, dTxt) };
}
