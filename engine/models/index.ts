// Text encoder and small ViT (tfjs, one transformer body), projector head, presets and the seeded random streams
// they are initialised from.
export { PRESETS, PresetName, EncoderConfig, ProjectorConfig, backboneParams } from './presets';
export {
  initEncoder,
  initBlocks,
  encode,
  encodeBlocks,
  pool,
  packBatch,
  segmentIds,
  layerNorm,
  gelu,
  type Params,
  type TokenBatch,
} from './encoder';
export {
  attention,
  attentionJs,
  attentionTf,
  attentionForward,
  attentionBackward,
  type AttentionShape,
} from './attention';
export { initProjector, project } from './projector';
export { linear } from './linear';
export { TrainRng } from './rng';
export { type PoolerHead, STEM_PATCH_RULE, stemFitsPatch } from './onnx';
export { type BatchNormMode, calibrateStem } from './conv-stem';
export {
  type ViTShape,
  initVit,
  vitForward,
  vitWeights,
  vitBlocks,
  vitOnnxConfig,
  exportVitOnnx,
  patchify,
} from './vit';
