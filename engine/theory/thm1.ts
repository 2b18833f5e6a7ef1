// Thm 1: two modalities render the states injectively into their own observation sets and share the positives; each
// solves Prop 1 on its observations alone, and composed with its rendering the two agree up to one rotation
// when mu_k > mu_{k+1}. Without the gap the optimum is a continuum, so agreement is not determined.
import { Matrix } from 'ml-matrix';
import { InputError } from '../errors';
import { TheoryRng } from './rng';
import { makeWorld, tiedWorld, worldFromJoint, type World } from './world';
import { checkK, pairLoss, whitenedOptimum, type WhitenedOptimum } from './prop1';
import { procrustes, rotateRows, rotationError } from './procrustes';
import { Thm1Params, type Thm1Case, type Thm1Demo } from '../../shared/theory';
import { parseParams } from './params';

// State s is shown as observation map[s] out of `size` observations (injective: map has distinct entries).
export type Rendering = { size: number; map: number[] /* [n] */ };

export function randomRendering(rng: TheoryRng, n: number, size: number): Rendering {
  if (size < n) throw new InputError(`an injective rendering of ${n} states needs >= ${n} observations, got ${size}`);
  return { size, map: Array.from(rng.permutation(size).subarray(0, n)) };
}

// What one modality sees and solves: the positive-pair joint over its observations, restricted to observations that
// occur (in label order; the others have probability 0, so the encoder's values there never enter the loss).
export type Modality = {
  rendering: Rendering;
  observed: World; // joint over observed observations only
  optimum: WhitenedOptimum; // Prop 1 solved on observations: f_obs: [observed, k]
  row: number[]; // [n] row of observed/f_obs for each state's rendering
};

export function solveModality(world: World, rendering: Rendering, k: number): Modality {
  const { n, W } = world;
  const size = rendering.size;
  const joint = new Float64Array(size * size); // W_obs[r(s), r(t)] = W[s, t]
  for (let s = 0; s < n; s++)
    for (let t = 0; t < n; t++) joint[rendering.map[s] * size + rendering.map[t]] = W[s * n + t];
  const mass = Array.from({ length: size }, (_, x) =>
    joint.subarray(x * size, (x + 1) * size).reduce((a, w) => a + w, 0),
  );
  const support = mass.flatMap((p, x) => (p > 0 ? [x] : []));
  const o = support.length;
  const restricted = new Float64Array(o * o);
  support.forEach((x, i) => support.forEach((y, j) => (restricted[i * o + j] = joint[x * size + y])));
  const observed = worldFromJoint(restricted, o, 'observation joint');
  const index = new Map(support.map((x, i) => [x, i]));
  return { rendering, observed, optimum: whitenedOptimum(observed, k), row: rendering.map.map((x) => index.get(x)!) };
}

// f∘r: [n, k] an observation-space embedding f: [observed, k] read on states.
export function onStates(mod: Modality, f: Matrix): Matrix {
  return new Matrix(mod.row.map((i) => f.getRow(i)));
}

export function thm1Case(
  world: World,
  k: number,
  rA: Rendering,
  rB: Rendering,
): { result: Thm1Case; A: Modality; B: Modality } {
  const A = solveModality(world, rA, k);
  const B = solveModality(world, rB, k);
  const fA = onStates(A, A.optimum.f);
  const fB = onStates(B, B.optimum.f);
  const sq = world.pi.map(Math.sqrt);
  const weighted = (f: Matrix) => new Matrix(f.to2DArray().map((row, s) => row.map((x) => x * sq[s])));
  const Q = procrustes(weighted(fA), weighted(fB));
  const aligned = rotateRows(fA, Q);
  const mu = A.optimum.spectrum.values;
  const result: Thm1Case = {
    muK: mu[k - 1],
    muK1: mu[k],
    gap: mu[k - 1] - mu[k],
    unique: A.optimum.unique,
    lossA: pairLoss(A.observed, A.optimum.f),
    lossB: pairLoss(B.observed, B.optimum.f),
    lossFormula: 2 * (k - Array.from(mu.slice(0, k)).reduce((a, x) => a + x, 0)),
    error: rotationError(fA, fB, world.pi),
    maxAbsDeviation: aligned.sub(fB).abs().max(),
    rotation: Q.to2DArray(),
  };
  return { result, A, B };
}

export function thm1Demo(input: unknown): Thm1Demo {
  const params = parseParams(Thm1Params, input, 'theory thm1');
  const { n, k } = params;
  checkK(k + 1, n); // the no-gap case ties mu_k with mu_{k+1}
  const rng = TheoryRng.stream(params.seed, 0);
  const world = makeWorld(rng, n, k, params);
  const observationsA = params.observationsA ?? n + 8;
  const observationsB = params.observationsB ?? n + 12;
  const rA = randomRendering(rng, n, observationsA);
  const rB = randomRendering(rng, n, observationsB);
  const gap = thm1Case(world, k, rA, rB).result;
  const tw = tiedWorld(world, k);
  const tied = thm1Case(tw, k, rA, rB);
  // Swap B's k-th eigenvector for the (k+1)-th: same loss (mu_k = mu_{k+1}), still whitened, a different function of s.
  const B = tied.B;
  const G = B.optimum.spectrum.vectors;
  const alt = new Matrix(B.observed.n, k);
  for (let x = 0; x < B.observed.n; x++) {
    for (let a = 0; a < k; a++) alt.set(x, a, G.get(x, a === k - 1 ? k : a) / Math.sqrt(B.observed.pi[x]));
  }
  const fA = onStates(tied.A, tied.A.optimum.f);
  return {
    n,
    k,
    observationsA,
    observationsB,
    gap,
    noGap: {
      ...tied.result,
      lossAlternative: pairLoss(B.observed, alt),
      errorAlternative: rotationError(fA, onStates(B, alt), tw.pi),
    },
  };
}
