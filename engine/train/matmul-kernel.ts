// tfjs's matrix product (BatchMatMul) on the wasm backend, two ways (engine/train/backend.ts picks):
// - 'mlas': onnxruntime's CPU GEMM. wasm's own is 128-bit SIMD (24-37 GFLOP/s on minilm-33m's shapes); MLAS runs the
//   CPU's widest kernels (AVX-512 here: 160-190 GFLOP/s) and takes transposed operands as they are
//   (docs/reference.md#engines). tfjs kernels are synchronous, and onnxruntime-node's public `run` is a promise around
//   a synchronous native call, so this calls the native session that `run` wraps (onnxruntime-node is pinned).
// - 'wasm': wasm's own, its transposed operands transposed first (it runs a transposed product as a scalar loop,
//   1.2-2.5 GFLOP/s): the same bits on every machine, the products every world-encoder build has made.
import * as tf from '@tensorflow/tfjs';
import * as ort from 'onnxruntime-node';
import { type Binding, binding, initOrt } from 'onnxruntime-node/dist/binding.js';
import { gemmModel } from '../linalg/gemm';
import type { HeapBackend } from '../models/wasm-heap';

export type MatMulKernel = 'mlas' | 'wasm'; // the two ways above

// One single-thread session per transpose pattern: arms run as single-thread processes (docs/reference.md#engines).
const sessions = new Map<string, Binding.InferenceSession>();
function session(transA: boolean, transB: boolean): Binding.InferenceSession {
  const key = `${+transA}${+transB}`;
  let s = sessions.get(key);
  if (!s) {
    initOrt();
    s = new binding.InferenceSession();
    const model = gemmModel({ float32: true, transA, transB });
    s.loadModel(model.buffer as ArrayBuffer, model.byteOffset, model.byteLength, {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionProviders: ['cpu'],
    });
    sessions.set(key, s);
  }
  return s;
}

// onnxruntime-node's run also returns every output copied into a new ArrayBuffer, which this kernel drops. A copy
// past glibc's mmap threshold (128 KB) is a fresh mapping each call: ~1,200 page faults for a [4741, 256] output
// (12-15 ms beside a 2-ms product on a 2-core VM). So on short inner dimensions, where the copy is a large share of the
// product (2k flops an element of C), C is written in row tiles of about TILE_BYTES, whose copies come from malloc's
// heap (a cpu-preset arm's 14 steps: 8.30 -> 8.01 CPU s, docs/reference.md#engines). Past TILE_MAX_K, more calls cost
// more than they save (MLAS packs B once per call: minilm-33m's steps were 5% slower).
const TILE_BYTES = 64 * 1024,
  MIN_TILE_ROWS = 64,
  TILE_MAX_K = 256;

type Stock = { matMul: tf.KernelConfig; transpose: tf.KernelConfig }; // wasm's own kernels
let stock: Stock | null = null;

type Product = { a: tf.TensorInfo; b: tf.TensorInfo; transposeA: boolean; transposeB: boolean };
type KernelArgs = Parameters<tf.KernelFunc>[0];

// A single float32 product (every batch axis 1, any rank): a: [.., m, k] (or [.., k, m] transposed), b: [.., k, n]
// (or [.., n, k]) -> [.., m, n] on MLAS.
function mlas(heap: HeapBackend, { a, b, transposeA, transposeB }: Product): tf.TensorInfo | null {
  const ra = a.shape.length,
    rb = b.shape.length;
  if (a.dtype !== 'float32' || b.dtype !== 'float32' || ra < 2 || rb < 2) return null;
  if (tf.util.sizeFromShape(a.shape.slice(0, -2)) !== 1 || tf.util.sizeFromShape(b.shape.slice(0, -2)) !== 1)
    return null;
  const [a0, a1] = a.shape.slice(-2),
    [b0, b1] = b.shape.slice(-2);
  const [m, k] = transposeA ? [a1, a0] : [a0, a1],
    [kb, n] = transposeB ? [b1, b0] : [b0, b1];
  if (k !== kb) throw new Error(`BatchMatMul: inner dimensions differ (${k} vs ${kb})`);
  if (m === 0 || n === 0 || k === 0) return null;
  // The output first: allocating it may grow the wasm memory, which detaches earlier views of the heap.
  const out = heap.makeOutput([...new Array<number>(Math.max(ra, rb) - 2).fill(1), m, n], 'float32');
  const [A, B, C] = [a, b, out].map((t) => heap.typedArrayFromHeap(t) as Float32Array);
  const s = session(transposeA, transposeB),
    bTensor = new ort.Tensor('float32', B, [b0, b1]);
  // Row tiles of C and A (a transposed A's rows are C's columns: one call): each element of C is the same dot product
  // in the same order, so the bits do not depend on the tiling, except through a tile of one row, which MLAS computes
  // on its one-row path (other sums): a last row left alone joins the tile before it.
  const tile = transposeA || k > TILE_MAX_K ? m : Math.max(MIN_TILE_ROWS, Math.floor(TILE_BYTES / (4 * n)));
  for (let r = 0, rows: number; r < m; r += rows) {
    rows = m - r === tile + 1 ? tile + 1 : Math.min(tile, m - r);
    s.run(
      {
        A: transposeA
          ? new ort.Tensor('float32', A, [a0, a1])
          : new ort.Tensor('float32', A.subarray(r * k, (r + rows) * k), [rows, k]),
        B: bTensor,
      },
      { C: new ort.Tensor('float32', C.subarray(r * n, (r + rows) * n), [rows, n]) }, // written in place
      {},
    );
  }
  return out;
}

// wasm's own product with its transposed operands transposed first (2-D only; anything else as it is).
function wasmPlain(own: Stock, args: KernelArgs) {
  const { a, b } = args.inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
  const { transposeA, transposeB } = args.attrs as unknown as Product;
  if (a.shape.length !== 2 || b.shape.length !== 2 || !(transposeA || transposeB)) return own.matMul.kernelFunc(args);
  const heap = args.backend as unknown as HeapBackend;
  const plain = (x: tf.TensorInfo, t: boolean) =>
    t
      ? (own.transpose.kernelFunc({ inputs: { x }, attrs: { perm: [1, 0] }, backend: args.backend }) as tf.TensorInfo)
      : x;
  const [pa, pb] = [plain(a, transposeA), plain(b, transposeB)];
  const out = own.matMul.kernelFunc({
    ...args,
    inputs: { a: pa, b: pb },
    attrs: { ...args.attrs, transposeA: false, transposeB: false },
  });
  if (transposeA) heap.disposeData(pa.dataId);
  if (transposeB) heap.disposeData(pb.dataId);
  return out;
}

// Registers `kind`'s BatchMatMul on the wasm backend (set up already) and returns it; what neither handles goes to
// wasm's own kernel as it is.
export function useMatMul(kind: MatMulKernel): MatMulKernel {
  if (!stock) {
    const [matMul, transpose] = [tf.getKernel('BatchMatMul', 'wasm'), tf.getKernel('Transpose', 'wasm')];
    if (!matMul || !transpose) throw new Error('tfjs wasm backend has no BatchMatMul or Transpose kernel');
    stock = { matMul, transpose };
  }
  const own = stock;
  tf.unregisterKernel('BatchMatMul', 'wasm');
  tf.registerKernel({
    kernelName: 'BatchMatMul',
    backendName: 'wasm',
    kernelFunc:
      kind === 'mlas'
        ? (args) =>
            mlas(args.backend as unknown as HeapBackend, {
              ...(args.inputs as { a: tf.TensorInfo; b: tf.TensorInfo }),
              ...(args.attrs as unknown as Product),
            }) ?? own.matMul.kernelFunc(args)
        : (args) => wasmPlain(own, args),
  });
  return kind;
}
