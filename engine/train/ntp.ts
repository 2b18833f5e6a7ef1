// Next-token prediction with tied embeddings (docs/reference.md#ntp-arm): logits = H[:, :-1]·Eᵀ, cross-entropy on
// tokens[:, 1:] averaged over non-pad targets. Only positions with a target enter the [n, V] logits.
import * as tf from '@tensorflow/tfjs';
import type { TokenBatch } from '../models';
import { type HeapBackend, floats, wasmHeap } from '../models/wasm-heap';
import { doublesAt, heapAlloc, heapKernels, offsetOf } from '../models/heap-kernels-wasm';

// h: [N, d] last hidden state of a causal pass over packed sequences, E: [V, d] -> mean CE over every position
// that has a next token (pads do not exist in a packed batch).
export function ntpLoss(h: tf.Tensor2D, E: tf.Tensor2D, batch: TokenBatch): tf.Scalar {
  const { rows, offsets, lengths, ids } = batch;
  const src: number[] = [],
    tgt: number[] = [];
  for (let b = 0; b < rows; b++)
    for (let t = 0; t + 1 < lengths[b]; t++) {
      src.push(offsets[b] + t);
      tgt.push(ids[offsets[b] + t + 1]);
    }
  const hs = tf.gather(h, tf.tensor1d(src, 'int32')) as tf.Tensor2D;
  const logits = tf.matMul(hs, E, false, true) as tf.Tensor2D;
  const targets = Int32Array.from(tgt),
    heap = wasmHeap();
  return heap ? crossEntropyWasm(logits, targets, heap) : crossEntropy(logits, targets);
}

// Mean cross-entropy of logits [n, V] against targets [n], with the gradient written out: (softmax − onehot) / n.
// By hand because autodiff through tf.logSumExp goes through max's gradient (an Equal over [n, V] and a mask),
// ~40% of an NTP step on tfjs-wasm; softmax − onehot needs one exp of [n, V] and reuses the forward's logsumexp.
function crossEntropy(logits: tf.Tensor2D, targets: Int32Array): tf.Scalar {
  const [n, V] = logits.shape;
  const flat = Int32Array.from(targets, (y, i) => i * V + y);
  const ce = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [x, save] = args as [tf.Tensor2D, tf.GradSaveFunc];
    const lse = tf.logSumExp(x, 1, true); // [n, 1]
    const picked = tf.gather(tf.reshape(x, [-1]), tf.tensor1d(flat, 'int32')); // [n]
    save([x, lse]);
    return {
      value: tf.mean(tf.sub(tf.reshape(lse, [-1]), picked)) as tf.Scalar,
      gradFunc: (dy: tf.Scalar, [xs, l]: tf.Tensor[]) => {
        const oneHot = tf.oneHot(tf.tensor1d(targets, 'int32'), V); // [n, V]
        return tf.mul(tf.sub(tf.exp(tf.sub(xs, l)), oneHot), tf.div(dy, n));
      },
    };
  });
  return ce(logits) as tf.Scalar;
}

// The same on tfjs-wasm in two SIMD passes over [n, V] (heap-kernels.c): the forward writes the softmax rows and each
// row's max and Σ exp, the value is their mean of max + log Σ − logit[target], and the gradient is one pass over the
// saved softmax. tf's ops ran ~12 kernels over [n, V], two of them scalar exps (~9 ms of a ~80 ms cpu-preset NTP step).
function crossEntropyWasm(logits: tf.Tensor2D, targets: Int32Array, b: HeapBackend): tf.Scalar {
  const [n, V] = logits.shape;
  const k = heapKernels(b);
  const ce = tf.customGrad(((x: tf.Tensor, save: tf.GradSaveFunc) => {
    const y = tf.tensor1d(targets, 'int32');
    const p = tf.engine().makeTensorFromTensorInfo(b.makeOutput([n, V], 'float32')); // softmax rows
    const stats = heapAlloc(b, 16 * n); // [n, 2] float64: max, Σ exp(x − max)
    k.softmaxRows(offsetOf(b, x), n, V, offsetOf(b, p), stats);
    const xs = floats(x, b),
      st = doublesAt(b, stats, 2 * n);
    let total = 0;
    for (let i = 0; i < n; i++) total += st[2 * i] + Math.log(st[2 * i + 1]) - xs[i * V + targets[i]];
    b.wasm._free(stats);
    save([p, y]);
    return {
      value: tf.scalar(total / n),
      gradFunc: (dy: tf.Tensor, [ps, ys]: tf.Tensor[]) => {
        const g = b.makeOutput([n, V], 'float32');
        k.xentGrad(offsetOf(b, ps), n, V, offsetOf(b, ys), dy.dataSync()[0] / n, offsetOf(b, g));
        return tf.engine().makeTensorFromTensorInfo(g);
      },
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]);
  return ce(logits) as tf.Scalar;
}
