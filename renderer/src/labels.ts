// Readable names for the keys of results and configs shown as key/value read-outs: words instead of internal keys
// (`aboveMaxAbsErrMinus2r` -> "max |error − 2r| above the threshold"); unknown keys are split into words.
const WORDS: Record<string, string> = {
  // Theorem 1
  gap: 'with an eigengap',
  noGap: 'without an eigengap (μ_k = μ_k+1)',
  muK: 'μ_k',
  muK1: 'μ_k+1',
  unique: 'unique optimum',
  lossA: "modality A's loss",
  lossB: "modality B's loss",
  lossFormula: 'optimal loss 2(k − Σμ)',
  error: 'best-rotation error E',
  maxAbsDeviation: 'max |Q f_A − f_B|',
  rotation: 'rotation Q',
  lossAlternative: "loss of B's tied alternative",
  errorAlternative: 'error of that alternative',
  observationsA: 'observations of A',
  observationsB: 'observations of B',
  n: 'states n',
  k: 'directions k',
  m: 'nuisance values m',
  // Proposition 2
  rotations: 'random rotations tried',
  meanMaxAbsDiff: 'max |E[Qf] − E[f]| (means)',
  covMaxAbsDiff: 'max |E[Qf(Qf)ᵀ] − E[ffᵀ]| (covariances)',
  kPairs: 'k pairs',
  kMinus1Pairs: 'k − 1 pairs',
  states: 'paired states',
  minSingularValue: 'smallest singular value',
  recoveryMaxAbsError: 'max error of the recovered Q',
  fitResidual: 'fit residual (Q, QR)',
  mapsMaxAbsDiff: 'max |Q − QR|',
  determinants: 'det Q, det QR',
  heldOutMaxDisagreement: 'max disagreement on held-out states',
  // Prop 3 grid summary
  rows: 'rows (world × ρ)',
  meanAlphaK: 'mean α_k over worlds',
  goodMaxAbsError: 'max |error| at ρ = 0 (good views)',
  below: 'rows with ρ ≤ α_k',
  above: 'rows with ρ > α_k',
  belowMaxAbsError: 'max |error| with ρ ≤ α_k',
  aboveMinR: 'min r with ρ > α_k',
  aboveMaxAbsErrMinus2r: 'max |error − 2r| with ρ > α_k',
  rFormulaMismatches: 'rows where r ≠ min(m − 1, #{α_i < ρ})',
  ties: 'rows decided by the tie rule',
  rhoOne: 'rows at ρ = 1',
  world: 'worlds',
  r: 'lost directions r',
  worlds: 'worlds',
  grid: 'ρ points',
  worldKind: 'world kind',
  seed: 'seed',
  // configs
  data: 'dataset',
  out: 'output folder',
  lamb: 'λ',
  lambEff: 'λ_eff',
  worldSize: 'world_size',
  batch: 'batch B',
  epochs: 'epochs',
  bootstrap: 'bootstrap resamples',
  sweepCounts: 'sweep fit-pair counts',
  sweepRepeats: 'sweep repeats',
  everyEpoch: 'score every epoch',
  maxLen: 'max tokens',
  r1: 'R@1',
  mknn: 'mutual k-NN',
  sha256: 'sha256',
  dim: 'dimension',
  freeParameters: 'free parameters of the map',
  metricEvery: 'log every (steps)',
  params: 'parameters',
  image: 'image encoder',
  model: 'model',
  train: 'training',
  eval: 'evaluation',
};

// Keys that name a value where they end a path, and a group elsewhere (Theorem 1's `gap.gap`).
const LEAF_WORDS: Record<string, string> = { gap: 'eigengap μ_k − μ_k+1' };
const words = (key: string, leaf: boolean) =>
  (leaf && LEAF_WORDS[key]) ||
  WORDS[key] ||
  key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([a-zA-Z])(\d)/g, '$1 $2')
    .toLowerCase();

// Whole paths whose last key means something else there (an experiment's `eval.k` is mutual k-NN's k).
const PATH_WORDS: Record<string, string> = { 'eval.k': 'evaluation › mutual k-NN k' };

// A dotted key path as words, parts joined by ›.
export const readable = (path: string): string =>
  PATH_WORDS[path] ??
  path
    .split('.')
    .map((k, i, all) => words(k, i === all.length - 1))
    .join(' › ');
