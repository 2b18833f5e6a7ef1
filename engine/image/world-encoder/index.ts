// The procedural world's frozen image encoder, DINOv2's role for the world: small ViTs trained self-supervised on
// unlabelled world scenes (never a caption), exported in the HF Dinov2 ONNX layout so they run through the same
// `dinov2` image path a real DINOv2 does. The build is a fixed recipe on the wasm backend (one thread per ViT), so it
// is reproducible to the byte; resources/world-encoder.json records recipe, hash, parity, probe and build conditions.
// recipe.ts: what is built; build.ts: one ViT; ensemble.ts: several, joined, re-read; readout.ts: ONNX parity and
// the read-out; renders.ts: the training images; probe.ts: probes and ceiling; manifest.ts: what is recorded.
export { BuildCheckpoints, type BuildHooks } from './build';
export { buildWorldEncoder, joinWorldEncoders, repoolWorldEncoder, MemberInput } from './ensemble';
export { lossCurve, readWorldEncoderManifest, WorldEncoderManifest, type BuiltEncoder } from './manifest';
export { probeWorldEncoder, type CeilingOf, type ProbeTable } from './probe';
export { fitVitPooler, onnxParity } from './readout';
export { WORLD_ENCODER_RECIPE, WorldEncoderRecipe } from './recipe';
export { worldImages } from './renders';
