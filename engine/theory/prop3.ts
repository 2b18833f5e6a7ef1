// Prop 3, good vs bad views: observations x = (s, u) with nuisance u ~ nu independent of s; positives (s, s') ~ W and
// u' = u with probability rho, else redrawn (rho = 0: good views). The joint normalised kernel is S_W ⊗ S_N,
// S_N = rho I + (1 - rho) sqrt(nu) sqrt(nu)^T. Joint index x = s * m + u; vectors live in sqrt-weighted coordinates
// z(x) = sqrt(pi_s nu_u) f(x), where whitened functions are orthonormal columns.
import { Matrix } from 'ml-matrix';
import { InputError } from '../errors';
import { kernel, type World } from './world';
import {
  clusters,
  columns,
  nontrivialSpectrum,
  orderByPreference,
  topK,
  type Preference,
  type Spectrum,
} from './spectral';
import { whitenedOptimum } from './prop1';
import { nuclearNorm } from './procrustes';

export type Nuisance = { m: number; nu: Float64Array /* [m] */ };

export function uniformNuisance(m: number): Nuisance {
  return nuisanceFrom(new Float64Array(m).fill(1 / m));
}

// A nuisance marginal nu: [m], m >= 2 values, each > 0, summing to 1.
export function nuisanceFrom(nu: Float64Array): Nuisance {
  const m = nu.length;
  if (m < 2) throw new InputError(`m = ${m}: expected at least 2 nuisance values`);
  if (nu.some((x) => !(x > 0))) throw new InputError(`nu = [${Array.from(nu)}]: expected every entry > 0`);
  const total = nu.reduce((a, x) => a + x, 0);
  if (Math.abs(total - 1) > 1e-9) throw new InputError(`nu sums to ${total}, expected 1`);
  return { m, nu };
}

// 'kronecker': eigenvectors of S_W ⊗ S_N as products g_i ⊗ h_j (exact, ~1 ms per rho at n*m = 180);
// 'joint': brute-force EVD of the (n m) x (n m) kernel (~40 ms per rho), kept to cross-check the structured path.
export type Prop3Method = 'kronecker' | 'joint';

// Everything about one (world, nuisance, k) that does not depend on rho.
export type Prop3World = {
  world: World;
  nuisance: Nuisance;
  k: number;
  spectrum: Spectrum; // world: alpha_1..alpha_{n-1} and their eigenvectors [n, n-1]
  alpha: Float64Array; // [n - 1] descending
  worldUnique: boolean; // alpha_k > alpha_{k+1}, so f* is determined up to rotation
  target: Matrix; // [n m, k] f* = world-only (good-view) optimum lifted to (s, u), sqrt-weighted
  worldOnly: Preference; // coefficients in the orthonormal basis e_s ⊗ sqrt(nu) of functions of s: [n, c]
  nuisanceOnly: Preference; // coefficients in the orthonormal basis sqrt(pi) ⊗ e_u of functions of u: [m, c]
};

export type Prop3Point = {
  rho: number;
  alphaK: number; // alpha_k, the threshold: r >= 1 iff rho > alpha_k
  beta1: number; // nuisance eigenvalue (= rho), computed
  r: number; // chosen directions with world fraction < 1/2 (counted from the vectors)
  rFormula: number; // min(m - 1, #{i <= k : alpha_i < rho})
  error: number; // E(f, f*) = 2k - 2||E[f f*^T]||_* from the chosen vectors
  tie: boolean; // an eigenspace straddled the k boundary and the tie rule chose inside it
  worldFraction: number[]; // [k] ||projection onto functions of s||^2 per chosen direction
};

export function prepareProp3(world: World, nuisance: Nuisance, k: number): Prop3World {
  const { n } = world;
  const { m, nu } = nuisance;
  const opt = whitenedOptimum(world, k);
  const sqNu = nu.map(Math.sqrt);
  const sqPi = world.pi.map(Math.sqrt);
  const target = new Matrix(n * m, k);
  for (let s = 0; s < n; s++)
    for (let u = 0; u < m; u++)
      for (let a = 0; a < k; a++) target.set(s * m + u, a, opt.spectrum.vectors.get(s, a) * sqNu[u]);
  // Sums over the other factor instead of multiplying by [n m, n] / [n m, m] bases: same numbers, no big products.
  const worldOnly: Preference = (C) => {
    const M = new Matrix(n, C.columns);
    for (let s = 0; s < n; s++)
      for (let u = 0; u < m; u++)
        for (let c = 0; c < C.columns; c++) M.set(s, c, M.get(s, c) + sqNu[u] * C.get(s * m + u, c));
    return M;
  };
  const nuisanceOnly: Preference = (C) => {
    const M = new Matrix(m, C.columns);
    for (let s = 0; s < n; s++)
      for (let u = 0; u < m; u++)
        for (let c = 0; c < C.columns; c++) M.set(u, c, M.get(u, c) + sqPi[s] * C.get(s * m + u, c));
    return M;
  };
  const alpha = opt.spectrum.values;
  return {
    world,
    nuisance,
    k,
    spectrum: opt.spectrum,
    alpha,
    worldUnique: opt.unique,
    target,
    worldOnly,
    nuisanceOnly,
  };
}

// S_N: [m, m] normalised nuisance kernel of diag(nu)(rho I + (1 - rho) 1 nu^T).
export function nuisanceKernel(nuisance: Nuisance, rho: number): Matrix {
  const sq = nuisance.nu.map(Math.sqrt);
  return Matrix.from1DArray(
    nuisance.m,
    nuisance.m,
    Array.from({ length: nuisance.m ** 2 }, (_, i) => {
      const u = Math.floor(i / nuisance.m);
      const v = i % nuisance.m;
      return (u === v ? rho : 0) + (1 - rho) * sq[u] * sq[v];
    }),
  );
}

export function prop3Point(prep: Prop3World, rho: number, method: Prop3Method = 'kronecker'): Prop3Point {
  const { k, nuisance, alpha } = prep;
  const chosen = prop3Directions(prep, rho, method);
  const Z = chosen.vectors;
  const W = prep.worldOnly(Z); // [n, k]
  const worldFraction = Array.from({ length: k }, (_, a) => W.getColumn(a).reduce((acc, x) => acc + x * x, 0));
  const r = worldFraction.filter((x) => x < 0.5).length;
  const below = alpha.slice(0, k).filter((x) => x < rho).length;
  // Z and the target are orthonormal columns (whitened), so E[f f*^T] = Z^T Z*.
  const error = 2 * k - 2 * nuclearNorm(Z.transpose().mmul(prep.target));
  return {
    rho,
    alphaK: alpha[k - 1],
    beta1: chosen.beta1,
    r,
    rFormula: Math.min(nuisance.m - 1, below),
    error,
    tie: chosen.tie,
    worldFraction,
  };
}

export type Prop3Directions = {
  vectors: Matrix /* [n m, k] sqrt-weighted, orthonormal */;
  tie: boolean;
  beta1: number;
};

// The top-k non-trivial directions of the joint kernel at this rho. Tie rule inside an eigenspace that straddles the
// k boundary: world-only directions first, then nuisance-only (u alone) before mixed, then the canonical basis.
export function prop3Directions(prep: Prop3World, rho: number, method: Prop3Method = 'kronecker'): Prop3Directions {
  if (!(rho >= 0 && rho <= 1)) throw new InputError(`rho = ${rho}: expected a number in [0, 1]`);
  const nuisSpec = nontrivialSpectrum(nuisanceKernel(prep.nuisance, rho), prep.nuisance.nu.map(Math.sqrt));
  const prefer = [prep.worldOnly, prep.nuisanceOnly];
  const chosen = method === 'joint' ? jointTopK(prep, rho, prefer) : kroneckerTopK(prep, nuisSpec, prefer);
  return { ...chosen, beta1: nuisSpec.values[0] };
}

function jointTopK(prep: Prop3World, rho: number, prefer: Preference[]): { vectors: Matrix; tie: boolean } {
  const { world, nuisance } = prep;
  const SW = kernel(world);
  const SN = nuisanceKernel(nuisance, rho);
  const v = new Float64Array(world.n * nuisance.m);
  for (let s = 0; s < world.n; s++)
    for (let u = 0; u < nuisance.m; u++) v[s * nuisance.m + u] = Math.sqrt(world.pi[s] * nuisance.nu[u]);
  return topK(nontrivialSpectrum(SW.kroneckerProduct(SN), v), prep.k, prefer);
}

// Eigenpairs of S_W ⊗ S_N are (mu_i beta_j, g_i ⊗ h_j) with i = 0 / j = 0 the trivial factors; (0, 0) is the constant
// and is never a candidate. Only the vectors up to the end of the boundary eigenspace are materialised.
function kroneckerTopK(prep: Prop3World, nuisSpec: Spectrum, prefer: Preference[]): { vectors: Matrix; tie: boolean } {
  const { world, nuisance, k, spectrum } = prep;
  const { n } = world;
  const { m } = nuisance;
  const mu = [1, ...spectrum.values];
  const beta = [1, ...nuisSpec.values];
  const cands: Array<{ i: number; j: number; value: number }> = [];
  for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) if (i + j > 0) cands.push({ i, j, value: mu[i] * beta[j] });
  cands.sort((a, b) => b.value - a.value || a.i - b.i || a.j - b.j);
  const [start, end] = clusters(cands.map((c) => c.value)).find(([s, e]) => s < k && k <= e)!;
  const g = (i: number, s: number) => (i === 0 ? Math.sqrt(world.pi[s]) : spectrum.vectors.get(s, i - 1));
  const h = (j: number, u: number) => (j === 0 ? Math.sqrt(nuisance.nu[u]) : nuisSpec.vectors.get(u, j - 1));
  const V = new Matrix(n * m, end);
  cands.slice(0, end).forEach(({ i, j }, c) => {
    for (let s = 0; s < n; s++) for (let u = 0; u < m; u++) V.set(s * m + u, c, g(i, s) * h(j, u));
  });
  const tie = end > k;
  const vectors = columns(V, 0, k);
  if (tie) vectors.setSubMatrix(columns(orderByPreference(columns(V, start, end), prefer), 0, k - start), 0, start);
  return { vectors, tie };
}
