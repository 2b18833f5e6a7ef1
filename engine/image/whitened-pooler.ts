// The world encoder's read-out: the CLS token and the patch tokens averaged over a g x g grid of image regions,
// flattened and PCA-whitened to `dims` directions, fitted on the encoder's own unlabelled training renders (never a
// caption). Why: a ViT's tokens carry where and what, but an orthogonal map (Procrustes) can only use them once no few
// directions dominate the variance. The crops-only ViT: CLS .138, whitened .237, CLS + 4x4 regions whitened to 192
// .43 (image-side ceiling); the object-trained one shipped now: CLS + the mean of all patches (g = 1) .63, with 4x4
// regions .505 (docs/world-encoder-log.md).
import { z } from 'zod';
import { InputError } from '../errors';
import { gemm, subRow, symEig, type Mat } from '../linalg';
import type { PoolerHead } from '../models';

export const PoolerRecipe = z.object({
  grid: z.number().int().positive(), // regions per side, over the patch grid (must divide it)
  dims: z.number().int().positive(), // whitened directions kept (the embedding width)
  scenes: z.number().int().min(2), // training scenes (renders) the mean and covariance are fitted on
});
export type PoolerRecipe = z.infer<typeof PoolerRecipe>;

// The read-out in words, for logs: "CLS + the patch mean whitened to 100", "CLS + 4x4 region means whitened to 192".
export const describePooler = (p: PoolerRecipe): string =>
  `CLS + ${p.grid === 1 ? 'the patch mean' : `${p.grid}x${p.grid} region means`} whitened to ${p.dims}`;

// pool: [T, R] with T = 1 + g0² tokens (CLS first, patches row-major on a g0 x g0 grid), R = 1 + grid² columns:
// column 0 copies the CLS, column 1 + (i·grid + j) averages the patches of region (i, j).
export function regionPool(patchGrid: number, grid: number): Float32Array {
  if (patchGrid % grid)
    throw new InputError(`pooler: ${grid} regions per side do not divide the ${patchGrid}x${patchGrid} patch grid`);
  const T = 1 + patchGrid ** 2,
    R = 1 + grid ** 2,
    s = patchGrid / grid;
  const pool = new Float32Array(T * R);
  pool[0] = 1;
  for (let y = 0; y < patchGrid; y++)
    for (let x = 0; x < patchGrid; x++)
      pool[(1 + y * patchGrid + x) * R + 1 + Math.floor(y / s) * grid + Math.floor(x / s)] = 1 / (s * s);
  return pool;
}

// tokens: [n, T, D] (last_hidden_state rows) -> features [n, D·R], feature d·R + r = Σ_t tokens[t, d] pool[t, r]
// (the order the ONNX graph's Transpose-MatMul-Reshape gives).
export function pooledFeatures(tokens: Float32Array, n: number, T: number, D: number, pool: Float32Array): Mat {
  const R = pool.length / T,
    m = D * R;
  const f = new Float64Array(n * m);
  for (let i = 0; i < n; i++)
    for (let t = 0; t < T; t++)
      for (let r = 0; r < R; r++) {
        const p = pool[t * R + r];
        if (p === 0) continue;
        for (let d = 0; d < D; d++) f[i * m + d * R + r] += p * tokens[(i * T + t) * D + d];
      }
  return { rows: n, cols: m, data: f };
}

// PCA whitening of features F [n, m] to k directions: W = U_k Λ_k^-1/2 [m, k], b = -μ W [k], so (F - μ) W has
// identity covariance on the fit rows. U_k: the top-k eigenvectors of the sample covariance (n - 1).
export async function fitWhitening(
  f: Mat,
  k: number,
): Promise<{ weight: Float64Array; bias: Float64Array; eigenvalues: Float64Array }> {
  const { rows: n, cols: m } = f;
  if (k > Math.min(m, n - 1))
    throw new InputError(
      `pooler: ${k} whitened directions from ${n} renders of ${m} features (at most ${Math.min(m, n - 1)})`,
    );
  const mu = new Float64Array(m);
  for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) mu[j] += f.data[i * m + j] / n;
  const c = subRow(f, mu);
  const cov = await gemm(c, c, true);
  for (let q = 0; q < cov.data.length; q++) cov.data[q] /= n - 1;
  const { w, v } = await symEig(cov, () => k);
  const top = Float64Array.from({ length: k }, (_, j) => w[m - 1 - j]); // largest first, as v's columns
  if (!(top[k - 1] > 1e-9 * top[0]))
    throw new InputError(
      `pooler: only ${top.filter((x) => x > 1e-9 * top[0]).length} of the ${k} directions carry variance; lower dims`,
    );
  const weight = new Float64Array(m * k),
    bias = new Float64Array(k);
  for (let a = 0; a < m; a++) for (let j = 0; j < k; j++) weight[a * k + j] = v.data[a * k + j] / Math.sqrt(top[j]);
  for (let j = 0; j < k; j++) for (let a = 0; a < m; a++) bias[j] -= mu[a] * weight[a * k + j];
  return { weight, bias, eigenvalues: top };
}

// The fitted head for the ONNX graph (float32, as ONNX Runtime computes it).
export async function fitPooler(
  tokens: Float32Array,
  n: number,
  patchGrid: number,
  D: number,
  recipe: PoolerRecipe,
): Promise<{ head: PoolerHead; eigenvalues: Float64Array }> {
  const pool = regionPool(patchGrid, recipe.grid);
  const { weight, bias, eigenvalues } = await fitWhitening(
    pooledFeatures(tokens, n, 1 + patchGrid ** 2, D, pool),
    recipe.dims,
  );
  return {
    head: { pool, weight: Float32Array.from(weight), bias: Float32Array.from(bias), dims: recipe.dims },
    eigenvalues,
  };
}

// The head in JS (float64 accumulation): the reference the exported graph is checked against. -> [n, dims]
export function applyPooler(tokens: Float32Array, n: number, T: number, D: number, head: PoolerHead): Float32Array {
  const f = pooledFeatures(tokens, n, T, D, head.pool);
  const k = head.dims,
    m = f.cols;
  const out = new Float32Array(n * k);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < k; j++) {
      let s = head.bias[j];
      for (let a = 0; a < m; a++) s += f.data[i * m + a] * head.weight[a * k + j];
      out[i * k + j] = s;
    }
  return out;
}
