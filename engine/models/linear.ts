// A Linear layer: x: [..., k] · w: [k, m] (+ b: [m]) -> [..., m], the leading axes flattened into one 2-D product
// (the product tfjs's wasm backend hands to onnxruntime's GEMM, engine/train/matmul-kernel.ts).
import * as tf from '@tensorflow/tfjs';

export function linear(x: tf.Tensor, w: tf.Tensor2D, b?: tf.Tensor1D): tf.Tensor {
  const k = x.shape[x.shape.length - 1];
  const y = tf.matMul(x.reshape([-1, k]) as tf.Tensor2D, w);
  const out = b ? tf.add(y, b) : y;
  return out.reshape([...x.shape.slice(0, -1), w.shape[1]]);
}
