// Thm 3 floor (our reconstruction, docs/reference.md#theorem-3): with g = E[f | s], for whitened f on observations (s, u) and the whitened
// world-only optimum f*, E(f, f*) >= 2k - 2 sum_i sqrt(lambda_i(E[g g^T])) >= 2k (1 - sqrt(eta)), eta = tr E[g g^T] / k.
import { EigenvalueDecomposition, Matrix, QrDecomposition } from 'ml-matrix';
import { InputError } from '../errors';
import { TheoryRng } from './rng';
import { makeWorld, type World } from './world';
import { checkK, whitenedOptimum } from './prop1';
import { crossMoment, rotationError } from './procrustes';
import { prepareProp3, prop3Directions, uniformNuisance, type Nuisance } from './prop3';
import { Thm3Params } from '../../shared/theory';
import { parseParams } from './params';

export type Thm3Floor = {
  error: number; // E(f, f*) = min_Q E||Q f - f*||^2
  bound: number; // 2k - 2 sum_i sqrt(lambda_i(E[g g^T]))
  etaBound: number; // 2k (1 - sqrt(eta))
  eta: number; // fraction of f's variance explained by the state
  lambda: number[]; // eigenvalues of E_pi[g g^T], descending
};

// Whitening is checked to this slack: the error formula and the floor assume E f = 0, E f f^T = I.
const WHITE_TOL = 1e-8;

// f: [n m, k] values on x = s m + u, whitened under pi ⊗ nu; fStar: [n, k] whitened under pi, a function of s alone.
export function thm3Floor(world: World, nuisance: Nuisance, f: Matrix, fStar: Matrix): Thm3Floor {
  const { n, pi } = world;
  const { m, nu } = nuisance;
  const k = f.columns;
  if (f.rows !== n * m || fStar.rows !== n || fStar.columns !== k) {
    throw new InputError(
      `thm3Floor: expected f [${n * m}, ${k}] and f* [${n}, ${k}], got [${f.rows}, ${k}] and [${fStar.rows}, ${fStar.columns}]`,
    );
  }
  const w = Float64Array.from({ length: n * m }, (_, x) => pi[Math.floor(x / m)] * nu[x % m]);
  const ones = Matrix.ones(n * m, 1);
  const meanDev = crossMoment(f, ones, w).abs().max();
  const covDev = crossMoment(f, f, w).sub(Matrix.eye(k)).abs().max();
  if (meanDev > WHITE_TOL || covDev > WHITE_TOL) {
    throw new InputError(
      `thm3Floor: f is not whitened (max |E f| = ${meanDev}, max |E f f^T - I| = ${covDev}, tolerance ${WHITE_TOL})`,
    );
  }
  const g = new Matrix(n, k); // g(s) = E[f | s] = sum_u nu_u f(s, u)
  for (let s = 0; s < n; s++)
    for (let u = 0; u < m; u++) for (let a = 0; a < k; a++) g.set(s, a, g.get(s, a) + nu[u] * f.get(s * m + u, a));
  const M = crossMoment(g, g, pi);
  const lambda = new EigenvalueDecomposition(Matrix.add(M, M.transpose()).div(2), {
    assumeSymmetric: true,
  }).realEigenvalues
    .map((x) => Math.max(0, x))
    .sort((a, b) => b - a);
  const eta = M.trace() / k;
  const lifted = new Matrix(n * m, k);
  for (let x = 0; x < n * m; x++) for (let a = 0; a < k; a++) lifted.set(x, a, fStar.get(Math.floor(x / m), a));
  return {
    error: rotationError(f, lifted, w),
    bound: 2 * k - 2 * lambda.reduce((acc, l) => acc + Math.sqrt(l), 0),
    etaBound: 2 * k * (1 - Math.sqrt(eta)),
    eta,
    lambda,
  };
}

export type Thm3Demo = {
  n: number;
  k: number;
  m: number;
  cases: Array<{ kind: string } & Omit<Thm3Floor, 'lambda'>>;
  holds: boolean; // error >= bound >= etaBound (to 1e-12) in every case
};

// Random whitened embeddings on (s, u) (strict inequalities), blends cos t f* + sin t h with h a whitened function
// of u alone (all three equal), and the Prop 3 optima at rho = 0, 1/2, 1 (bound = error = 2r).
export function thm3Demo(input: unknown): Thm3Demo {
  const params = parseParams(Thm3Params, input, 'theory thm3');
  const { n, k, m } = params;
  checkK(k, n);
  if (k > m - 1)
    throw new InputError(`theory thm3: k = ${k} needs m >= k + 1 = ${k + 1} for the blend case, got m = ${m}`);
  const rng = TheoryRng.stream(params.seed, 0);
  const world = makeWorld(rng, n, k, params);
  const nuisance = uniformNuisance(m);
  const fStar = whitenedOptimum(world, k).f;
  const w = Float64Array.from({ length: n * m }, (_, x) => world.pi[Math.floor(x / m)] * nuisance.nu[x % m]);
  const sqw = w.map(Math.sqrt);
  const unweight = (Z: Matrix) => new Matrix(Z.to2DArray().map((row, x) => row.map((z) => z / sqw[x])));
  const cases: Thm3Demo['cases'] = [];
  const add = (kind: string, f: Matrix) => {
    const { lambda: _, ...floor } = thm3Floor(world, nuisance, f, fStar);
    cases.push({ kind, ...floor });
  };
  for (let e = 0; e < params.embeddings; e++) {
    // Gaussian [n m, k] in sqrt-weighted coordinates, constant removed, orthonormalised: a random whitened f.
    const A = new Matrix(Array.from({ length: n * m }, () => Array.from({ length: k }, () => rng.normal())));
    const c = sqw.reduce((acc, x) => acc + x * x, 0);
    for (let a = 0; a < k; a++) {
      const d = sqw.reduce((acc, x, i) => acc + x * A.get(i, a), 0) / c;
      for (let i = 0; i < n * m; i++) A.set(i, a, A.get(i, a) - d * sqw[i]);
    }
    add('random', unweight(new QrDecomposition(A).orthogonalMatrix));
  }
  // h: whitened functions of u alone (centred indicators of u = a, a < k, orthonormalised by QR), orthogonal to every function of s.
  const H = new Matrix(n * m, k);
  for (let x = 0; x < n * m; x++) for (let a = 0; a < k; a++) H.set(x, a, sqw[x] * ((x % m === a ? 1 : 0) - 1 / m));
  const h = unweight(new QrDecomposition(H).orthogonalMatrix);
  for (const t of [0.3, 0.8, 1.3]) {
    const f = new Matrix(n * m, k);
    for (let x = 0; x < n * m; x++)
      for (let a = 0; a < k; a++)
        f.set(x, a, Math.cos(t) * fStar.get(Math.floor(x / m), a) + Math.sin(t) * h.get(x, a));
    add(`blend t=${t}`, f);
  }
  const prep = prepareProp3(world, nuisance, k);
  for (const rho of [0, 0.5, 1]) add(`prop3 rho=${rho}`, unweight(prop3Directions(prep, rho).vectors));
  const holds = cases.every((c) => c.error >= c.bound - 1e-12 && c.bound >= c.etaBound - 1e-12);
  return { n, k, m, cases, holds };
}
