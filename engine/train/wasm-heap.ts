// What the workbench's wasm kernels use of tfjs-backend-wasm's backend: tensors as views of the wasm heap (no copy),
// outputs allocated there, intermediates freed. Allocating may grow the heap, which detaches earlier views.
import type * as tf from '@tensorflow/tfjs';

export type HeapBackend = {
  typedArrayFromHeap(t: tf.TensorInfo): Float32Array | Int32Array;
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  disposeData(id: tf.DataId): void;
};
