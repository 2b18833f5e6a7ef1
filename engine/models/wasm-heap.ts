// What the workbench's wasm kernels use of tfjs-backend-wasm's backend: tensors as views of the wasm heap (no copy),
// outputs allocated there, intermediates freed. Allocating may grow the heap, which detaches earlier views.
import * as tf from '@tensorflow/tfjs';

export type HeapBackend = {
  typedArrayFromHeap(t: tf.TensorInfo): Float32Array | Int32Array;
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  disposeData(id: tf.DataId): void;
  wasm: { asm: { memory: WebAssembly.Memory }; _malloc(bytes: number): number; _free(offset: number): void };
};

// The wasm backend where it is the current one, else null.
export const wasmHeap = (): HeapBackend | null =>
  tf.getBackend() === 'wasm' ? (tf.backend() as unknown as HeapBackend) : null;

// A float32 tensor's values: a view of the wasm heap (valid until the next allocation), else a copy.
export const floats = (t: tf.Tensor, heap: HeapBackend | null): Float32Array =>
  (heap ? heap.typedArrayFromHeap(t) : t.dataSync()) as Float32Array;

// A float32 tensor of `shape` that `fill` writes whole: in the wasm heap where there is one (read inputs inside fill,
// after the output is allocated), else from a new array. A plain-JS op's output with no copy into the heap.
export function written<R extends tf.Rank>(
  shape: tf.ShapeMap[R],
  heap: HeapBackend | null,
  fill: (out: Float32Array) => unknown,
): tf.Tensor<R> {
  if (!heap) {
    const out = new Float32Array(tf.util.sizeFromShape(shape));
    fill(out);
    return tf.tensor(out, shape) as tf.Tensor<R>;
  }
  const info = heap.makeOutput(shape, 'float32');
  fill(heap.typedArrayFromHeap(info) as Float32Array);
  return tf.engine().makeTensorFromTensorInfo(info) as tf.Tensor<R>;
}
