// Finite worlds: n states, marginal pi, symmetric positive-pair joint W (sum 1, row sums pi), and their generators.
import { Matrix } from 'ml-matrix';
import { InputError } from '../errors';
import { TheoryRng } from './rng';
import { nontrivialSpectrum } from './spectral';
import type { WorldParams } from '../../shared/theory';

export type World = { n: number; pi: Float64Array; W: Float64Array /* [n, n] row-major */ };

// Entry-wise slack when checking a joint read from outside (JSON round trips are exact; sums are not).
const JOINT_TOL = 1e-12;

// Validate a joint W ([n, n] row-major) and derive pi from its row sums; `where` names the source in errors.
export function worldFromJoint(W: Float64Array, n: number, where = 'W'): World {
  if (W.length !== n * n) throw new InputError(`${where}: expected ${n}x${n} = ${n * n} entries, got ${W.length}`);
  let total = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const w = W[i * n + j];
      if (!Number.isFinite(w) || w < 0)
        throw new InputError(`${where}[${i}][${j}] = ${w}: expected a finite number >= 0`);
      if (Math.abs(w - W[j * n + i]) > JOINT_TOL)
        throw new InputError(`${where} is not symmetric at [${i}][${j}]: ${w} vs ${W[j * n + i]}`);
      total += w;
    }
  }
  if (Math.abs(total - 1) > 1e-9) throw new InputError(`${where}: entries sum to ${total}, expected 1`);
  const pi = new Float64Array(n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) pi[i] += W[i * n + j];
  const empty = pi.findIndex((p) => p <= 0);
  if (empty >= 0) throw new InputError(`${where}: state ${empty} has zero mass; drop it (the kernel needs pi > 0)`);
  return { n, pi, W };
}

// W ~ (A + A^T)/2, A_ij ~ U(0, 1), normalised: alpha_4 ~ .09-.11 at n = 30.
export function uniformWorld(rng: TheoryRng, n: number): World {
  const A = new Float64Array(n * n);
  for (let i = 0; i < n * n; i++) A[i] = rng.uniform();
  const W = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) W[i * n + j] = (A[i * n + j] + A[j * n + i]) / 2;
  return worldFromJoint(normalised(W), n);
}

// Sticky world: `clusters` groups of random sizes (each non-empty); with probability `stickiness` a positive pair is drawn
// inside one cluster (uniform-noise weights restricted to the blocks), otherwise from a uniform world. The noise breaks ties.
// stickiness .8 with k + 1 clusters gives alpha_4 ~ .67 at n = 30 (docs/reference.md#prop-3-grid-experiment: the clustered target).
export function clusteredWorld(rng: TheoryRng, n: number, clusters: number, stickiness: number): World {
  if (clusters > n) throw new InputError(`clusters = ${clusters} exceeds states = ${n}`);
  const label = Array.from({ length: n }, (_, i) => (i < clusters ? i : rng.int(0, clusters - 1)));
  const perm = rng.permutation(n);
  const noise = uniformWorld(rng, n).W;
  const block = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) if (label[perm[i]] === label[perm[j]]) block[i * n + j] = noise[i * n + j];
  const inside = normalised(block);
  const W = new Float64Array(n * n);
  for (let i = 0; i < n * n; i++) W[i] = stickiness * inside[i] + (1 - stickiness) * noise[i];
  return worldFromJoint(normalised(W), n);
}

// The world a demo or grid row asks for; clustered worlds default to k + 1 clusters (k non-trivial cluster directions).
export function makeWorld(rng: TheoryRng, n: number, k: number, params: WorldParams): World {
  return params.worldKind === 'uniform'
    ? uniformWorld(rng, n)
    : clusteredWorld(rng, n, params.clusters ?? Math.min(k + 1, n), params.stickiness);
}

// Edit a world so that mu_k = mu_{k+1} exactly (no spectral gap at k): move mu_{k+1} up to mu_k in S, then mix with the
// independent joint pi pi^T (which scales every non-trivial mu by 1 - t, keeping the tie) just enough to make W >= 0.
export function tiedWorld(world: World, k: number): World {
  const { n, pi } = world;
  if (k < 1 || k + 1 > n - 1)
    throw new InputError(`tiedWorld: need 1 <= k and k + 1 <= n - 1 = ${n - 1}, got k = ${k}`);
  const sq = pi.map(Math.sqrt);
  const spec = nontrivialSpectrum(kernel(world), sq);
  const g = spec.vectors.getColumn(k); // eigenvector of mu_{k+1} (0-based column k)
  const shift = spec.values[k - 1] - spec.values[k];
  const W = new Float64Array(n * n);
  let t = 0; // smallest mixing weight that keeps every entry >= 0
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const w = world.W[i * n + j] + shift * sq[i] * g[i] * g[j] * sq[j];
      W[i * n + j] = w;
      if (w < 0) t = Math.max(t, -w / (pi[i] * pi[j] - w));
    }
  }
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) W[i * n + j] = (1 - t) * W[i * n + j] + t * pi[i] * pi[j];
  for (let i = 0; i < n; i++)
    for (let j = 0; j < i; j++) W[i * n + j] = W[j * n + i] = Math.max(0, (W[i * n + j] + W[j * n + i]) / 2);
  return worldFromJoint(normalised(W), n, 'tiedWorld');
}

// S = D^-1/2 W D^-1/2: [n, n]; its eigenvalues are the world correlations mu_i (mu_0 = 1 for sqrt(pi)).
export function kernel(world: World): Matrix {
  const { n, pi, W } = world;
  const S = new Matrix(n, n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) S.set(i, j, W[i * n + j] / Math.sqrt(pi[i] * pi[j]));
  return S;
}

function normalised(W: Float64Array): Float64Array {
  let total = 0;
  for (const w of W) total += w;
  return W.map((w) => w / total);
}
