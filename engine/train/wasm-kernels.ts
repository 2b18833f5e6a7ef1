// Kernels and gradients that tfjs-backend-wasm runs as copies or detours, replaced by ones that give the same bits
// without them (tests/train/wasm-kernels.test.ts and tests/models/kernels.test.ts check each against the stock one).
// Measured on a cpu-preset JEPA step: docs/reference.md#engines.
import * as tf from '@tensorflow/tfjs';
import { floats, type HeapBackend, wasmHeap, written } from '../models/wasm-heap';
import { heapKernels, offsetOf } from '../models/heap-kernels-wasm';

type SharingBackend = HeapBackend & { incRef(id: tf.DataId): void };

export function registerWasmKernels(): void {
  registerRowGather();
  registerSharedCopies();
  registerLeadingSum();
  registerBroadcastReduceGrads();
}

// Identity, and Cast to the dtype a tensor already has, share its data (one reference more, as wasm's Reshape and
// the cpu backend's Identity do) instead of copying it: tfjs saves every tensor a gradient needs through Identity, so
// the stock kernel copied each activation once a step. No kernel writes a tensor after returning it, so a shared
// buffer cannot change under either holder.
function registerSharedCopies(): void {
  const share = (x: tf.TensorInfo, backend: unknown): tf.TensorInfo => {
    (backend as SharingBackend).incRef(x.dataId);
    return { dataId: x.dataId, shape: x.shape, dtype: x.dtype };
  };
  replaceKernel('Identity', ({ inputs, backend }) => share((inputs as { x: tf.TensorInfo }).x, backend));
  replaceKernel('Cast', (args, stock) => {
    const { x } = args.inputs as { x: tf.TensorInfo };
    const { dtype } = args.attrs as { dtype: tf.DataType };
    return x.dtype === dtype ? share(x, args.backend) : stock(args);
  });
}

// Sum over leading axes (x: [R, ...inner] -> [...inner]: a bias's or a LayerNorm gain's gradient) by adding rows in
// order into float32 accumulators (heap-kernels.c, four columns to a SIMD add): what wasm's Sum computes after
// transposing x to put the reduced axes last, without the transpose (the two took ~40 ms of a ~400 ms cpu-preset JEPA
// step). Other reductions go to the stock kernel.
function registerLeadingSum(): void {
  replaceKernel('Sum', (args, stock) => {
    const { x } = args.inputs as { x: tf.TensorInfo };
    const { axis, keepDims } = args.attrs as { axis: number | number[]; keepDims: boolean };
    const axes = tf.util.parseAxisParam(axis, x.shape); // in the order given: wasm's sums [1, 0] in that order
    const k = axes.length;
    if (x.dtype !== 'float32' || k === 0 || k === x.shape.length || axes.some((a, i) => a !== i)) return stock(args);
    const inner = x.shape.slice(k);
    const b = args.backend as unknown as HeapBackend;
    const out = b.makeOutput(keepDims ? [...x.shape.slice(0, k).fill(1), ...inner] : inner, 'float32');
    const [R, C] = [tf.util.sizeFromShape(x.shape.slice(0, k)), tf.util.sizeFromShape(inner)];
    heapKernels(b).columnSums(offsetOf(b, x), R, C, offsetOf(b, out));
    return out;
  });
}

// The gradients of Sum and Mean broadcast dy to x's shape. tfjs's multiply it by a ones tensor filled in JS (and
// Mean's then divides all of x's size); wasm's Tile, which tf.broadcastTo runs, computes an index per element and was
// slower still. dy · 1 = dy exactly and (dy / n) broadcast = (dy · 1) / n, so copying dy's values into x's shape gives
// the same bits with one pass over the output.
function registerBroadcastReduceGrads(): void {
  const grad =
    (mean: boolean) =>
    (dy: tf.Tensor | tf.Tensor[], [x]: tf.Tensor[], attrs: tf.NamedAttrMap) => ({
      x: () => {
        const shape = x.shape.slice(); // dy's shape with the reduced axes kept as 1s
        for (const a of tf.util.parseAxisParam(attrs.axis as number[], x.shape)) shape[a] = 1;
        let d = tf.reshape(dy as tf.Tensor, shape);
        if (mean) d = tf.div(d, x.size / d.size);
        if (d.dtype !== 'float32') return tf.mul(d, tf.ones(x.shape, d.dtype));
        const heap = wasmHeap();
        return written(x.shape, heap, (out) => broadcastInto(floats(d, heap), shape, out, x.shape));
      },
    });
  tf.registerGradient({ kernelName: 'Sum', inputsToSave: ['x'], gradFunc: grad(false) });
  tf.registerGradient({ kernelName: 'Mean', inputsToSave: ['x'], gradFunc: grad(true) });
}

// out: shape <- src: from (shape with 1s where src is repeated), row-major: each innermost run is copied from src, or
// filled with one value where src's innermost axis is 1.
export function broadcastInto(src: Float32Array, from: number[], out: Float32Array, shape: number[]): void {
  const rank = shape.length;
  if (rank === 0) {
    out[0] = src[0];
    return;
  }
  const inner = shape[rank - 1],
    repeat = from[rank - 1] === 1;
  const strides = new Array<number>(rank); // src's, 0 along repeated axes
  for (let a = rank - 1, s = 1; a >= 0; s *= from[a], a--) strides[a] = from[a] === 1 ? 0 : s;
  const at = new Array<number>(rank - 1).fill(0); // the outer index of the run being written
  for (let o = 0; o < out.length; o += inner) {
    let i = 0;
    for (let a = 0; a < rank - 1; a++) i += at[a] * strides[a];
    if (repeat) out.fill(src[i], o, o + inner);
    else for (let c = 0; c < inner; c++) out[o + c] = src[i + c];
    for (let a = rank - 2; a >= 0 && ++at[a] === shape[a]; a--) at[a] = 0;
  }
}

// Row gather (axis 0, no batch dims, float32): wasm's generic GatherV2 computes a source index per element
// (~9 ms for the [4700, 64] embedding lookup of a cpu-preset step); copying whole rows is ~20x faster. Every other
// case goes to the stock kernel.
function registerRowGather(): void {
  replaceKernel('GatherV2', (args, stock) => {
    const { x, indices } = args.inputs as { x: tf.TensorInfo; indices: tf.TensorInfo };
    const { axis, batchDims } = args.attrs as { axis: number; batchDims: number };
    if (
      (axis !== 0 && axis !== -x.shape.length) ||
      batchDims !== 0 ||
      x.dtype !== 'float32' ||
      indices.dtype !== 'int32'
    )
      return stock(args);
    const b = args.backend as unknown as HeapBackend;
    const rows = x.shape[0],
      inner = tf.util.sizeFromShape(x.shape.slice(1));
    const out = b.makeOutput([...indices.shape, ...x.shape.slice(1)], 'float32');
    const src = b.typedArrayFromHeap(x) as Float32Array,
      ids = b.typedArrayFromHeap(indices) as Int32Array,
      dst = b.typedArrayFromHeap(out) as Float32Array;
    // Both live in the wasm heap: rows move with copyWithin on one view of it, or element by element when short
    // (a subarray per row costs more than copying 3 floats: the conv stem's first layer gathers ~1M such rows).
    const heap = new Float32Array(src.buffer),
      s0 = src.byteOffset / 4,
      d0 = dst.byteOffset / 4;
    for (let i = 0; i < ids.length; i++) {
      const r = ids[i];
      if (r < 0 || r >= rows) throw new Error(`GatherV2: index ${r} is not in [0, ${rows - 1}]`);
      const from = s0 + r * inner,
        to = d0 + i * inner;
      if (inner < 32) for (let k = 0; k < inner; k++) heap[to + k] = heap[from + k];
      else heap.copyWithin(to, from, from + inner);
    }
    return out;
  });
}

// Registers `kernel` as wasm's `name` in place of wasm's own, which it is handed for the cases it leaves to it.
function replaceKernel(
  name: string,
  kernel: (args: Parameters<tf.KernelFunc>[0], stock: tf.KernelFunc) => ReturnType<tf.KernelFunc>,
): void {
  const own = tf.getKernel(name, 'wasm');
  if (!own) throw new Error(`tfjs wasm backend has no ${name} kernel`);
  tf.unregisterKernel(name, 'wasm');
  const stock = own.kernelFunc as tf.KernelFunc;
  tf.registerKernel({ kernelName: name, backendName: 'wasm', kernelFunc: (args) => kernel(args, stock) });
}
