// Frozen image encoders as ONNX: sessions, model specs and presets, preprocessing, batched and cached embedding,
// linear probes of the procedural world's attributes, and the world's own encoder (an image JEPA, built here).
export {
  PROBE_TASKS,
  type ProbeResult,
  type ProbeTask,
  attributeLabel,
  pixelFeatures,
  probeAttributes,
} from './attribute-probe';
export {
  type CachedEmbedding,
  EmbeddingRecord,
  RESAMPLER,
  cacheKey,
  defaultCacheDir,
  embedCached,
  readImageEmbeddings,
  recordPath,
  writeImageEmbeddings,
} from './cache';
export {
  type BadImagePolicy,
  type EmbedOptions,
  type ImageEmbeddings,
  type ImageRef,
  type SkippedImage,
  embedImages,
} from './embed';
export { type EncoderOptions, type ImageEncoder, openImageEncoder, sha256 } from './encoder';
export { listImages } from './image-list';
export { describeImageModel } from './model-outputs';
export { BadImageError, Preprocessor, cropRect, decodeImage, preprocessFile } from './preprocess';
export {
  Device,
  type Session,
  type SessionDevice,
  type SessionOptions,
  cudaProviderPath,
  openSession,
} from './session';
export {
  ImageSpec,
  Pool,
  Preset,
  type SpecOverrides,
  detectPreset,
  isDinov2Layout,
  resolveSpec,
  specOverrides,
} from './spec';
export {
  PoolerRecipe,
  applyPooler,
  describePooler,
  fitPooler,
  fitWhitening,
  pooledFeatures,
  regionPool,
} from './whitened-pooler';
export {
  WORLD_ENCODER_RECIPE,
  WorldEncoderManifest,
  WorldEncoderRecipe,
  type BuildCheckpoints,
  type BuildHooks,
  type BuiltEncoder,
  type CeilingOf,
  type ProbeTable,
  buildWorldEncoder,
  fitVitPooler,
  joinWorldEncoders,
  lossCurve,
  onnxParity,
  probeWorldEncoder,
  readWorldEncoderManifest,
  repoolWorldEncoder,
  worldImages,
} from './world-encoder';
