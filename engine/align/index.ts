// Image-text alignment: centring on fit rows, orthogonal Procrustes (and control maps), retrieval and
// mutual k-NN scoring, the fit pairs' own two-fold score (checkpoint selection), paired-bootstrap arm comparison
// and the pair-count sweep.
export { RowSelection, parseRange } from './rows';
export { freeParameters, polar, procrustes, type OrthoMap } from './procrustes';
export { MapKind } from './map-kind';
export { fitMap, randomOrthonormal } from './maps';
export {
  AlignOptions,
  EvaluateOptions,
  controls,
  evaluate,
  fitAlignment,
  type Alignment,
  type Evaluation,
  type Recall,
} from './evaluate';
export { foldR1 } from './folds';
export { CompareOptions, METRICS, compareArms, type Comparison, type MetricName } from './compare';
export { SweepOptions, sweepPairs, type Sweep, type SweepPoint, type SweepSummary } from './sweep';
