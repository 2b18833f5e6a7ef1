// WebGPU through npm alone: the adapter (Dawn's Node binding), whether it is a real GPU, and its record.
export { type NoWebGpu, type WebGpu, adapterInfo, mayHaveGpu, realGpu, requestWebGpu } from './adapter';
