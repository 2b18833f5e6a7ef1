// ONNX graphs written and edited by the project: the DINOv2-layout ViT builder and the intermediate-output exposer.
export { type Dim, ElemType, GraphBuilder, valueInfo } from './graph-builder';
export {
  STEM_PATCH_RULE,
  VIT_S14,
  VitConfig,
  type VitConfigInput,
  type PoolerHead,
  type VitWeights,
  blockOutputName,
  buildVitOnnx,
  numPatches,
  randomVitWeights,
  stemFitsPatch,
  vitWeightShapes,
} from './dinov2-vit';
export { exposeOutput } from './expose-output';
export {
  type ModelInfo,
  type OnnxModel,
  type TensorInfo,
  decodeModel,
  describeModel,
  formatTensor,
} from './model-info';
