// The finite-world theory (docs/reference.md#theory): every input schema (CLI options, GUI requests, stored runs;
// defaults are the CLI defaults) and the JSON shapes of the results.
import { z } from 'zod';

// Clustered worlds: stickiness .8 with k + 1 clusters gives alpha_4 ~ .67 at n = 30, the paper's 545 / 255 regime
// (docs/reference.md#prop-3-grid-experiment).
export const DEFAULT_STICKINESS = 0.8;

const int = (min: number, max: number) => z.number().int().min(min).max(max);
const seed = int(0, 2 ** 31 - 1).default(0);
const worldFields = {
  worldKind: z.enum(['uniform', 'clustered']).default('uniform'),
  stickiness: z.number().min(0).max(1).default(DEFAULT_STICKINESS), // clustered only
  clusters: int(2, 1000).optional(), // clustered only; default k + 1
};

export const WorldParams = z.object(worldFields);
export type WorldParams = z.infer<typeof WorldParams>;

// A superset of shared/theory.ts Prop3Params (adds the clustered-world knobs and the EVD method).
export const Prop3GridParams = z.object({
  worlds: int(1, 100_000).default(20),
  states: int(2, 500).default(30),
  k: int(1, 499).default(4),
  m: int(2, 64).default(6),
  grid: int(2, 10_001).default(41),
  seed,
  ...worldFields,
  method: z.enum(['kronecker', 'joint']).default('kronecker'),
});
export type Prop3GridParams = z.infer<typeof Prop3GridParams>;

export const ExploreParams = z.object({
  n: int(3, 60).default(30),
  k: int(1, 59).default(4),
  m: int(2, 16).default(6),
  rho: z.number().min(0).max(1).default(0.5),
  grid: int(2, 201).default(41),
  seed,
  ...worldFields,
});
export type ExploreParams = z.infer<typeof ExploreParams>;

export const Thm1Params = z.object({
  n: int(3, 200).default(12),
  k: int(1, 199).default(3),
  observationsA: int(3, 2000).optional(), // size of modality A's observation set (>= n; states land on n of them); default n + 8
  observationsB: int(3, 2000).optional(), // default n + 12
  seed,
  ...worldFields,
});
export type Thm1Params = z.infer<typeof Thm1Params>;

export const Prop2Params = z.object({
  n: int(3, 200).default(12),
  k: int(2, 199).default(3),
  rotations: int(1, 100).default(8), // random Q in O(k) checked for identical moments
  seed,
  ...worldFields,
});
export type Prop2Params = z.infer<typeof Prop2Params>;

export const Thm3Params = z.object({
  n: int(3, 100).default(12),
  k: int(1, 99).default(3),
  m: int(2, 16).default(4),
  embeddings: int(1, 200).default(20), // random whitened embeddings on (s, u) checked against the floor
  seed,
  ...worldFields,
});
export type Thm3Params = z.infer<typeof Thm3Params>;

// Results (plain JSON: they cross the API to the GUI and print with --json).

export type Prop3Row = {
  world: number;
  rho: number;
  alphaK: number;
  beta1: number;
  r: number;
  rFormula: number;
  error: number;
  tie: boolean;
};

export type Prop3Summary = {
  rows: number;
  meanAlphaK: number; // over worlds
  goodMaxAbsError: number; // max |error| at rho = 0 (good views)
  below: number; // rows with rho < 1 and rho <= alpha_k
  above: number; // rows with rho < 1 and rho > alpha_k
  belowMaxAbsError: number;
  aboveMinR: number | null; // null when no row is above
  aboveMaxAbsErrMinus2r: number; // max |error - 2r| above threshold
  rFormulaMismatches: number; // rows where r counted from vectors != min(m - 1, #{alpha_i < rho})
  ties: number; // rows where the tie rule chose inside a straddling eigenspace
  rhoOne: { rows: number; world: number[]; r: number[]; error: number[] }; // the rho = 1 rows
};

export type ExploreResult = {
  params: ExploreParams;
  alpha: number[]; // first min(n - 1, 12) world correlations, descending
  threshold: { alphaK: number; rho: number; bad: boolean }; // bad: rho > alpha_k, nuisance enters the top k
  r: number;
  rFormula: number;
  error: number;
  tie: boolean;
  curve: { rho: number[]; r: number[]; rFormula: number[]; error: number[] };
  prop1: { unique: boolean; gap: number | null; loss: number; lossFormula: number };
};

export type Thm1Case = {
  muK: number;
  muK1: number;
  gap: number;
  unique: boolean;
  lossA: number; // each modality's loss on its own observations
  lossB: number;
  lossFormula: number; // 2 (k - sum mu_i), the optimum
  error: number; // E(f_A∘r_A, f_B∘r_B) = min_Q E_pi ||Q f_A∘r_A - f_B∘r_B||^2
  maxAbsDeviation: number; // max_s,a |(Q f_A∘r_A - f_B∘r_B)(s)_a| with the Procrustes Q
  rotation: number[][]; // Q: [k, k]
};

export type Thm1Demo = {
  n: number;
  k: number;
  observationsA: number;
  observationsB: number;
  gap: Thm1Case; // random world with mu_k > mu_{k+1}
  noGap: Thm1Case & {
    lossAlternative: number; // B's problem solved by swapping its k-th direction for the tied (k+1)-th: also optimal
    errorAlternative: number; // that equally optimal f_B against f_A: one direction lost, 2
  };
};

export type Prop2Demo = {
  n: number;
  k: number;
  rotations: number;
  meanMaxAbsDiff: number; // max over Q of max |E_pi[Q f] - E_pi[f]|
  covMaxAbsDiff: number; // max over Q of max |E_pi[Q f (Q f)^T] - E_pi[f f^T]|
  kPairs: { states: number[]; minSingularValue: number; recoveryMaxAbsError: number }; // Procrustes on k pairs vs true Q
  kMinus1Pairs: {
    states: number[];
    fitResidual: [number, number]; // max |Q_i x - y| over the k - 1 pairs, for the true Q and for Q R
    mapsMaxAbsDiff: number; // max |Q - Q R|: two different orthogonal maps
    determinants: [number, number]; // R is a reflection, so det(Q R) = -det(Q)
    heldOutMaxDisagreement: number; // max over held-out states of ||Q f(s) - Q R f(s)||
  };
};
