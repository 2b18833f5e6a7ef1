// Prop 1: squared loss with whitening on a finite world is solved by Laplacian eigenmaps, f = D^-1/2 G.
import { Matrix } from 'ml-matrix';
import { InputError } from '../errors';
import { kernel, type World } from './world';
import { nontrivialSpectrum, topK, type Spectrum } from './spectral';

export type WhitenedOptimum = {
  spectrum: Spectrum; // all n - 1 non-trivial mu, descending, with eigenvectors G
  f: Matrix; // [n, k] f(s) = G(s) / sqrt(pi_s): E_pi f = 0, E_pi f f^T = I_k
  gap: number | null; // mu_k - mu_{k+1}; null when k = n - 1
  unique: boolean; // optimum unique up to O(k) iff mu_k > mu_{k+1}
  tie: boolean; // mu_k was tied with mu_{k+1}: the tie rule picked the returned subspace
};

export function checkK(k: number, n: number): void {
  if (!Number.isInteger(k) || k < 1) throw new InputError(`k = ${k}: expected an integer >= 1`);
  if (k > n - 1)
    throw new InputError(
      `k = ${k} but a world with n = ${n} states has at most n - 1 = ${n - 1} non-trivial directions`,
    );
}

export function whitenedOptimum(world: World, k: number, spectrum?: Spectrum): WhitenedOptimum {
  checkK(k, world.n);
  const spec = spectrum ?? nontrivialSpectrum(kernel(world), world.pi.map(Math.sqrt));
  const top = topK(spec, k);
  const f = new Matrix(world.n, k);
  for (let s = 0; s < world.n; s++)
    for (let a = 0; a < k; a++) f.set(s, a, top.vectors.get(s, a) / Math.sqrt(world.pi[s]));
  return { spectrum: spec, f, gap: top.gap, unique: top.unique, tie: top.tie };
}

// E_{(s,s')~W} ||f(s) - f(s')||^2, summed directly over the joint (no spectral shortcut): f: [n, k].
export function pairLoss(world: World, f: Matrix): number {
  const { n, W } = world;
  let loss = 0;
  for (let s = 0; s < n; s++) {
    for (let t = 0; t < n; t++) {
      let d2 = 0;
      for (let a = 0; a < f.columns; a++) d2 += (f.get(s, a) - f.get(t, a)) ** 2;
      loss += W[s * n + t] * d2;
    }
  }
  return loss;
}

export type Prop1Result = {
  n: number;
  k: number;
  mu: number[]; // all n - 1 non-trivial eigenvalues, descending
  gap: number | null;
  unique: boolean;
  tie: boolean;
  loss: number; // E_W ||f(s) - f(s')||^2 at the optimum, computed directly
  lossFormula: number; // 2 (k - sum_{i<=k} mu_i)
};

export function prop1(world: World, k: number): Prop1Result {
  const opt = whitenedOptimum(world, k);
  const mu = Array.from(opt.spectrum.values);
  const lossFormula = 2 * (k - mu.slice(0, k).reduce((a, x) => a + x, 0));
  return {
    n: world.n,
    k,
    mu,
    gap: opt.gap,
    unique: opt.unique,
    tie: opt.tie,
    loss: pairLoss(world, opt.f),
    lossFormula,
  };
}
