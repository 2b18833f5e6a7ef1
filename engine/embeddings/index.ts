// Embedding matrices on disk (.npy, .safetensors, row-id sidecars) and in memory.
export type { Embeddings, FloatArray, FloatDtype, Tensor } from '../tensor';
export { asEmbeddings, asLayerStack, assertFinite, dtypeOf } from '../tensor';
export { readNpy, readNpyTensor, writeNpy, writeNpyTensor } from './npy';
export { readSafetensors, safetensorsNames, writeSafetensors, type SafetensorsFile } from './safetensors';
export { idsPath, readEmbeddings, readTensor, writeEmbeddings, type EmbeddingFile } from './embedding-file';
