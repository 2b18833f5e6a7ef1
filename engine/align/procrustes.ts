// Orthogonal Procrustes across widths (prh/align.py): W = U V^T from the thin SVD of M = X^T Y, so
// W^T W = I and W maximises tr(W^T X^T Y), i.e. minimises ||X W - Y||_F. Reflections are allowed.
// Computed as the polar factor through the small side's Gram matrix (G = M^T M = V S^2 V^T, U = M V S^-1)
// with the GEMM-blocked symmetric EVD of ../linalg (eigenvectors only for the kept singular values).
// Rank-deficient M (fewer pairs than the width) keeps the exact part U_r V_r^T and adds C(U_r) C(V_r)^T, where
// C(.) is the Householder completion of an orthonormal frame: the map is not unique there, and this choice is a
// deterministic function of the kept part, so 1e-15 noise in the inputs moves W by ~1e-15, not O(1).
import { type Mat, completeBasis, gemm, symEig, transpose } from '../linalg';

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

// Polar factor of a tall M: [p, q], p >= q -> [p, q] with orthonormal columns.
async function polarTall(m: Mat): Promise<{ w: Mat; sv: number[] }> {
  const { rows: p, cols: q } = m;
  const keep = (lam: Float64Array) => {
    const lmax = Math.max(lam[q - 1], 0);
    return lmax > 0 ? lam.filter((l) => l > lmax * RANK_TOL * RANK_TOL).length : 0;
  };
  const { w: lam, v } = await symEig(await gemm(m, m, true), keep); // G = M^T M: [q, q]; v = V_r: [q, r], largest first
  const r = v.cols;
  const sv = Array.from({ length: r }, (_, j) => Math.sqrt(lam[q - 1 - j]));
  const ur = await gemm(m, v); // U_r = M V_r S_r^-1: [p, r]
  for (let i = 0; i < p; i++) for (let c = 0; c < r; c++) ur.data[i * r + c] /= sv[c];
  if (r === q) return { w: await gemm(ur, v, false, true), sv }; // full rank: W = U_r V_r^T
  const [uc, vc] = [await completeBasis(ur, q - r), await completeBasis(v, q - r)]; // [p, q - r], [q, q - r]
  return { w: await gemm(hcat(ur, uc), hcat(v, vc), false, true), sv }; // W = [U_r C_U] [V_r C_V]^T
}

// Polar factor of any M: [p, q] (wide M via its transpose).
export async function polar(m: Mat): Promise<{ w: Mat; sv: number[] }> {
  if (m.rows >= m.cols) return polarTall(m);
  const t = await polarTall(transpose(m));
  return { w: transpose(t.w), sv: t.sv };
}

// X: [n, dImg], Y: [n, dTxt], both centred with fit-row means.
export async function procrustes(x: Mat, y: Mat): Promise<OrthoMap> {
  const m = await gemm(x, y, true, false); // M = X^T Y: [dImg, dTxt]
  const { w, sv } = await polar(m);
  return { w, rank: sv.length, singularValues: sv, freeParameters: freeParameters(x.cols, y.cols) };
}
