// Public entry of the finite-world theory (docs/reference.md#theory): worlds, the spectral core, Props 1-3, Thms 1 and 3, the Prop 3 grid.
export { TheoryRng } from './rng';
export { type World, worldFromJoint, uniformWorld, clusteredWorld, tiedWorld, makeWorld, kernel } from './world';
export {
  TIE_TOL,
  type Spectrum,
  type TopK,
  type Preference,
  complementBasis,
  nontrivialSpectrum,
  clusters,
  canonicalBasis,
  orderByPreference,
  topK,
} from './spectral';
export { type WhitenedOptimum, type Prop1Result, checkK, whitenedOptimum, pairLoss, prop1 } from './prop1';
export { crossMoment, nuclearNorm, rotationError, procrustes, rotateRows } from './procrustes';
export {
  type Nuisance,
  type Prop3Method,
  type Prop3World,
  type Prop3Point,
  type Prop3Directions,
  uniformNuisance,
  nuisanceFrom,
  nuisanceKernel,
  prepareProp3,
  prop3Point,
  prop3Directions,
} from './prop3';
export { type Prop3GridResult, type Prop3GridHooks, rhoGrid, prop3World, prop3Grid, summarizeProp3 } from './grid';
export { explore } from './explore';
export { type Rendering, type Modality, randomRendering, solveModality, onStates, thm1Case, thm1Demo } from './thm1';
export { randomOrthogonal, prop2Demo } from './prop2';
export { type Thm3Floor, type Thm3Demo, thm3Floor, thm3Demo } from './thm3';
export { parseParams } from './params';
export { prop3Job } from './job';
