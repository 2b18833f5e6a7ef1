// Alignment metrics: retrieval ranks and R@k, mutual k-NN, linear CKA, best layer pair, paired bootstrap,
// and the sliced Epps-Pulley Gaussianity statistic.
export { chanceRecall, cosineSimilarity, hitsAt, mean, retrievalRanks } from './retrieval';
export { mutualKnn, mutualKnnFromGrams, type MutualKnn } from './mutual-knn';
export { ckaFromKernels, linearCka, type Cka } from './cka';
export { bestLayerPair, type LayerPairScore } from './best-layers';
export { pairedBootstrap, percentile, type BootstrapResult, type Interval } from './bootstrap';
export {
  PHI,
  SP_GRID,
  WEIGHTS,
  drawDirections,
  eppsPulleyFromSums,
  eppsPulleyMoments,
  eppsPulleyWeights,
  sliceDirections,
  slicedEppsPulley,
  type EppsPulley,
  type EppsPulleyGrid,
  type EppsPulleyMoments,
} from './epps-pulley';
