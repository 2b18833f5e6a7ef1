// Text encoder (tfjs), projector head, presets and the seeded random streams they are initialised from.
export { PRESETS, PresetName, EncoderConfig, ProjectorConfig, backboneParams } from './presets';
export { initEncoder, encode, pool, tokenMask, layerNorm, gelu, type Params, type TokenBatch } from './encoder';
export { initProjector, project } from './projector';
export { matMul2d, linear } from './matmul';
export { Rng } from './rng';
