// Multi-head scaled dot-product attention, two ways with equal results:
// - `attentionTf`: tf ops (batched matMul + softmax), fast on the native TensorFlow backends;
// - `attentionJs`: one custom op reading the fused qkv projection directly, on packed (unpadded) token rows with no
//   transposes: plain JS loops (`attentionForward`, `attentionBackward`), and on wasm their products in
//   heap-kernels.c with the loops' bits. On wasm the tf path costs ~0.8 s of a 1.7 s CPU-preset step (5-D transposes,
//   and batched/transposed matMuls that fall to a scalar loop at ~0.3 GFLOP/s).
import * as tf from '@tensorflow/tfjs';
import { type Blocks, doublesAt, heapAlloc, heapKernels, offsetOf } from './heap-kernels-wasm';
import { type HeapBackend, wasmHeap, written } from './wasm-heap';

// Packed sequences (no padding): sequence b is token rows offsets[b] .. offsets[b] + lengths[b] − 1.
// qkv: [N, 3d] (q | k | v, head h at columns h·dh..) -> context [N, d]
export type AttentionShape = {
  N: number;
  d: number;
  heads: number;
  offsets: Int32Array;
  lengths: Int32Array;
  causal: boolean;
};
// Offsets of each (sequence, head) block of probabilities [n_b, n_b] in one flat array.
const probOffsets = (s: AttentionShape): Int32Array => {
  const o = new Int32Array(s.lengths.length * s.heads + 1);
  for (let b = 0; b < s.lengths.length; b++)
    for (let h = 0; h < s.heads; h++) o[b * s.heads + h + 1] = o[b * s.heads + h] + s.lengths[b] ** 2;
  return o;
};

// Both kernels copy each (sequence, head) block's q, k, v (and dOut) into contiguous rows and run four independent add
// chains at a time (dot products, weighted sums): a single chain waits on each add's latency. Each chain keeps the
// order of the plain loops and their roundings (float64 dot products, float32 accumulators), so the results are
// bit-identical to those loops (tests/models/kernels.test.ts checks them against tf's attention and the gradient).
type Block = { q: Float64Array; k: Float64Array; v: Float64Array }; // each [n, dh]
// into[i, c] = src[base + i·row + cols + c] for i < n, c < dh: one head's columns of n packed rows, contiguous.
function gather(
  src: Float32Array,
  base: number,
  n: number,
  row: number,
  cols: number,
  dh: number,
  into: Float64Array,
): void {
  for (let i = 0; i < n; i++) for (let c = 0; c < dh; c++) into[i * dh + c] = src[base + i * row + cols + c];
}
// Head h's q, k and v of the n packed rows from `base` (rows of 3d: q, k, v side by side) into the block.
function gatherHead(
  qkv: Float32Array,
  base: number,
  n: number,
  d: number,
  h: number,
  dh: number,
  { q, k, v }: Block,
): void {
  gather(qkv, base, n, 3 * d, h * dh, dh, q);
  gather(qkv, base, n, 3 * d, d + h * dh, dh, k);
  gather(qkv, base, n, 3 * d, 2 * d + h * dh, dh, v);
}
const blockOf = (s: AttentionShape): Block => {
  const size = Math.max(...s.lengths) * (s.d / s.heads);
  return { q: new Float64Array(size), k: new Float64Array(size), v: new Float64Array(size) };
};

// out[j] = Σ_c x[xo + c] · m[j·dh + c] for j < count (float64, c in order), four rows of m at a time.
function dots(x: Float64Array, xo: number, m: Float64Array, count: number, dh: number, out: Float64Array): void {
  let j = 0;
  for (; j + 4 <= count; j += 4) {
    let a0 = 0,
      a1 = 0,
      a2 = 0,
      a3 = 0;
    const m0 = j * dh,
      m1 = m0 + dh,
      m2 = m1 + dh,
      m3 = m2 + dh;
    for (let c = 0; c < dh; c++) {
      const xc = x[xo + c];
      a0 += xc * m[m0 + c];
      a1 += xc * m[m1 + c];
      a2 += xc * m[m2 + c];
      a3 += xc * m[m3 + c];
    }
    out[j] = a0;
    out[j + 1] = a1;
    out[j + 2] = a2;
    out[j + 3] = a3;
  }
  for (; j < count; j++) {
    let a = 0;
    for (let c = 0; c < dh; c++) a += x[xo + c] * m[j * dh + c];
    out[j] = a;
  }
}

// out[o + c] = Σ_j w[j] · m[(from + j)·dh + c] for c < dh, summed over j < count in order and rounded to float32
// after every add (as a Float32Array accumulator would be), four columns at a time.
function weightedSum(
  w: Float64Array,
  m: Float64Array,
  from: number,
  count: number,
  dh: number,
  out: Float32Array,
  o: number,
): void {
  let c = 0;
  for (; c + 4 <= dh; c += 4) {
    let a0 = 0,
      a1 = 0,
      a2 = 0,
      a3 = 0;
    for (let j = 0; j < count; j++) {
      const wj = w[j],
        r = (from + j) * dh + c;
      a0 = Math.fround(a0 + wj * m[r]);
      a1 = Math.fround(a1 + wj * m[r + 1]);
      a2 = Math.fround(a2 + wj * m[r + 2]);
      a3 = Math.fround(a3 + wj * m[r + 3]);
    }
    out[o + c] = a0;
    out[o + c + 1] = a1;
    out[o + c + 2] = a2;
    out[o + c + 3] = a3;
  }
  for (; c < dh; c++) {
    let a = 0;
    for (let j = 0; j < count; j++) a = Math.fround(a + w[j] * m[(from + j) * dh + c]);
    out[o + c] = a;
  }
}

// out: [N, d], every element written (a new array by default).
export function attentionForward(
  qkv: Float32Array,
  s: AttentionShape,
  out: Float32Array = new Float32Array(s.N * s.d),
): { out: Float32Array; probs: Float32Array } {
  const { d, heads: H, offsets, lengths, causal } = s;
  const dh = d / H,
    scale = 1 / Math.sqrt(dh),
    row = 3 * d;
  const po = probOffsets(s);
  const probs = new Float32Array(po[po.length - 1]); // per (b, h): [n_b, n_b]
  const blk = blockOf(s),
    { q, k, v } = blk;
  const w = new Float64Array(Math.max(...lengths)); // one row's scores, then its weights (float64, as the loops had them)
  for (let b = 0; b < lengths.length; b++) {
    const n = lengths[b],
      base = offsets[b] * row;
    for (let h = 0; h < H; h++) {
      gatherHead(qkv, base, n, d, h, dh, blk);
      for (let i = 0; i < n; i++) {
        const kmax = causal ? i + 1 : n;
        const p = po[b * H + h] + i * n;
        dots(q, i * dh, k, kmax, dh, w);
        let mx = -Infinity;
        for (let j = 0; j < kmax; j++) {
          const a = w[j] * scale;
          probs[p + j] = a;
          if (a > mx) mx = a;
        }
        let sum = 0;
        for (let j = 0; j < kmax; j++) sum += probs[p + j] = Math.exp(probs[p + j] - mx);
        for (let j = 0; j < kmax; j++) w[j] = probs[p + j] /= sum;
        weightedSum(w, v, 0, kmax, dh, out, (offsets[b] + i) * d + h * dh);
      }
    }
  }
  return { out, probs };
}

// dOut: [N, d] -> dQKV: [N, 3d]. dS = P ∘ (dP − rowsum(P ∘ dP)), dP = dO·Vᵀ; dQ = dS·K row by row, then dV = Pᵀ·dO
// and dK = dSᵀ·Q column by column (each sum over the rows i in order, as the row loop accumulated it).
// g: [N, 3d], every element written (a new array by default).
export function attentionBackward(
  qkv: Float32Array,
  probs: Float32Array,
  dOut: Float32Array,
  s: AttentionShape,
  g: Float32Array = new Float32Array(s.N * 3 * s.d),
): Float32Array {
  const { d, heads: H, offsets, lengths, causal } = s;
  const dh = d / H,
    scale = 1 / Math.sqrt(dh),
    row = 3 * d;
  const po = probOffsets(s);
  const T = Math.max(...lengths);
  const dP = new Float64Array(T),
    col = new Float64Array(T);
  const dS = new Float64Array(T * T); // this block's dS rows [n, n]
  const blk = blockOf(s),
    { q, k, v } = blk;
  const go = new Float64Array(T * dh);
  for (let b = 0; b < lengths.length; b++) {
    const n = lengths[b],
      base = offsets[b] * row;
    for (let h = 0; h < H; h++) {
      gatherHead(qkv, base, n, d, h, dh, blk);
      gather(dOut, offsets[b] * d, n, d, h * dh, dh, go);
      const p0 = po[b * H + h];
      for (let i = 0; i < n; i++) {
        const kmax = causal ? i + 1 : n;
        const p = p0 + i * n;
        dots(go, i * dh, v, kmax, dh, dP);
        let dot = 0;
        for (let j = 0; j < kmax; j++) {
          const a = dP[j];
          dot += probs[p + j] * a; // the row sum takes dP unrounded, dS the float32 value the loops stored
          dP[j] = Math.fround(a);
        }
        for (let j = 0; j < kmax; j++) col[j] = dS[i * n + j] = probs[p + j] * (dP[j] - dot) * scale;
        weightedSum(col, k, 0, kmax, dh, g, base + i * row + h * dh); // dQ[i]
      }
      for (let j = 0; j < n; j++) {
        const i0 = causal ? j : 0; // the rows that attend to key j
        for (let i = i0; i < n; i++) col[i - i0] = probs[p0 + i * n + j];
        weightedSum(col, go, i0, n - i0, dh, g, base + j * row + 2 * d + h * dh); // dV[j]
        for (let i = i0; i < n; i++) col[i - i0] = dS[i * n + j];
        weightedSum(col, q, i0, n - i0, dh, g, base + j * row + d + h * dh); // dK[j]
      }
    }
  }
  return g;
}

export function attentionJs(
  qkv: tf.Tensor2D,
  heads: number,
  offsets: Int32Array,
  lengths: Int32Array,
  causal: boolean,
): tf.Tensor2D {
  const [N, d3] = qkv.shape;
  const s: AttentionShape = { N, d: d3 / 3, heads, offsets, lengths, causal };
  const heap = wasmHeap();
  if (heap) return attentionWasm(qkv, s, heap);
  const op = tf.customGrad(((x: tf.Tensor, save: tf.GradSaveFunc) => {
    save([x]);
    let probs!: Float32Array;
    const value = written<tf.Rank.R2>(
      [N, s.d],
      null,
      (out) => ({ probs } = attentionForward(x.dataSync() as Float32Array, s, out)),
    );
    return {
      value,
      gradFunc: (dy: tf.Tensor, [xs]: tf.Tensor[]) =>
        written<tf.Rank.R2>([N, d3], null, (g) =>
          attentionBackward(xs.dataSync() as Float32Array, probs, dy.dataSync() as Float32Array, s, g),
        ),
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]);
  return op(qkv) as tf.Tensor2D;
}

// Each row of every (sequence, head) block: its offset r in the blocks' [n, n] values, the terms it sees, and n.
function forEachRow(s: AttentionShape, po: Int32Array, f: (r: number, kmax: number, n: number) => void): void {
  for (let bh = 0; bh < s.lengths.length * s.heads; bh++) {
    const n = s.lengths[Math.floor(bh / s.heads)];
    for (let i = 0; i < n; i++) f(po[bh] + i * n, s.causal ? i + 1 : n, n);
  }
}

// The same op on tfjs-wasm: the products (each (sequence, head) block's scores q·kᵀ, the weighted sums of v, and in
// the gradient dP = dO·vᵀ, dQ, dK, dV) in heap-kernels.c, reading q|k|v, dy and the probabilities where they lie in the
// wasm heap and writing the outputs there; the softmax and dS (O(n²) per block, V8's Math.exp) in JS between them.
// Each step does the plain loops' operations in their order, so the results have their bits.
function attentionWasm(qkv: tf.Tensor2D, s: AttentionShape, b: HeapBackend): tf.Tensor2D {
  const { N, d, heads: H, offsets, lengths, causal } = s;
  const B = lengths.length,
    dh = d / H,
    scale = 1 / Math.sqrt(dh);
  const po = probOffsets(s),
    P = po[po.length - 1];
  const k = heapKernels(b);
  // The sequences' offsets and lengths, one [n, n] float64 per block, and the products' scratch, in the heap.
  const scratch = () => {
    const at = heapAlloc(b, 8 * B + 8 * P + 8 * dh * Math.max(...lengths));
    new Int32Array(b.wasm.asm.memory.buffer, at, 2 * B).set([...offsets, ...lengths]);
    const layout: Blocks = [dh, H, at, at + 4 * B, B, +causal];
    return { layout, blocks: at + 8 * B, products: at + 8 * B + 8 * P, free: () => b.wasm._free(at) };
  };
  const op = tf.customGrad(((x: tf.Tensor, save: tf.GradSaveFunc) => {
    const out = b.makeOutput([N, d], 'float32');
    const probs = tf.engine().makeTensorFromTensorInfo(b.makeOutput([P], 'float32'));
    const m = scratch();
    const xo = offsetOf(b, x);
    k.blockDots(xo, 3 * d, 0, xo, 3 * d, d, ...m.layout, m.blocks, m.products); // q·kᵀ
    const w = doublesAt(b, m.blocks, P),
      p = b.typedArrayFromHeap(probs) as Float32Array;
    forEachRow(s, po, (r, kmax, n) => {
      let mx = -Infinity;
      for (let j = 0; j < kmax; j++) {
        const a = w[r + j] * scale;
        p[r + j] = a;
        if (a > mx) mx = a;
      }
      let sum = 0;
      for (let j = 0; j < kmax; j++) sum += p[r + j] = Math.exp(p[r + j] - mx);
      for (let j = 0; j < kmax; j++) w[r + j] = p[r + j] /= sum;
      p.fill(0, r + kmax, r + n);
    });
    k.blockWeightedSums(m.blocks, 0, 0, xo, 3 * d, 2 * d, offsetOf(b, out), d, 0, ...m.layout); // ·v
    m.free();
    save([x, probs]);
    return {
      value: tf.engine().makeTensorFromTensorInfo(out),
      gradFunc: (dy: tf.Tensor, [xs, ps]: tf.Tensor[]) => {
        const g = b.makeOutput([N, 3 * d], 'float32');
        const m = scratch();
        const [xo, dyo, po32] = [offsetOf(b, xs), offsetOf(b, dy), offsetOf(b, ps)];
        k.blockDots(dyo, d, 0, xo, 3 * d, 2 * d, ...m.layout, m.blocks, m.products); // dP = dO·vᵀ
        const ds = doublesAt(b, m.blocks, P),
          p = b.typedArrayFromHeap(ps) as Float32Array;
        forEachRow(s, po, (r, kmax) => {
          let dot = 0;
          for (let j = 0; j < kmax; j++) {
            const a = ds[r + j];
            dot += p[r + j] * a; // the row sum takes dP unrounded, dS the float32 value the loops stored
            ds[r + j] = Math.fround(a);
          }
          for (let j = 0; j < kmax; j++) ds[r + j] = p[r + j] * (ds[r + j] - dot) * scale; // dS
        });
        const go = offsetOf(b, g);
        const sums = (wd: number, wf: number, transposed: number, z: number, zs: number, zo: number, oo: number) =>
          k.blockWeightedSums(wd, wf, transposed, z, zs, zo, go, 3 * d, oo, ...m.layout);
        sums(m.blocks, 0, 0, xo, 3 * d, d, 0); // dQ = dS·K
        sums(0, po32, 1, dyo, d, 0, 2 * d); // dV = Pᵀ·dO
        sums(m.blocks, 0, 1, xo, 3 * d, 0, d); // dK = dSᵀ·Q
        m.free();
        return tf.engine().makeTensorFromTensorInfo(g);
      },
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]);
  return op(qkv) as tf.Tensor2D;
}

// Same function in tf ops on a padded [B, T] layout (gathered from and back to the packed rows); pad (and future)
// keys get −1e9 before the softmax.
export function attentionTf(
  qkv: tf.Tensor2D,
  heads: number,
  offsets: Int32Array,
  lengths: Int32Array,
  causal: boolean,
): tf.Tensor2D {
  const [N, d3] = qkv.shape;
  const B = lengths.length,
    T = Math.max(...lengths),
    d = d3 / 3,
    dh = d / heads,
    tq = causal ? T : 1;
  const toPadded = new Int32Array(B * T).fill(N); // row N is an appended zero row
  const toPacked = new Int32Array(N);
  for (let b = 0; b < B; b++)
    for (let i = 0; i < lengths[b]; i++) {
      toPadded[b * T + i] = offsets[b] + i;
      toPacked[offsets[b] + i] = b * T + i;
    }
  const bias = new Float32Array(B * tq * T);
  for (let b = 0; b < B; b++)
    for (let q = 0; q < tq; q++)
      for (let k = 0; k < T; k++) if (k >= lengths[b] || (causal && k > q)) bias[(b * tq + q) * T + k] = -1e9;
  const padded = tf.gather(tf.concat([qkv, tf.zeros([1, d3])], 0), tf.tensor1d(toPadded, 'int32'));
  const [q, k, v] = tf
    .split(padded.reshape([B, T, 3, heads, dh]).transpose([2, 0, 3, 1, 4]), 3, 0)
    .map((t) => t.reshape([B, heads, T, dh]));
  const att = tf.softmax(
    tf.add(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(dh)), tf.tensor4d(bias, [B, 1, tq, T])),
  );
  const ctx = tf
    .matMul(att, v)
    .transpose([0, 2, 1, 3])
    .reshape([B * T, d]);
  return tf.gather(ctx, tf.tensor1d(toPacked, 'int32')) as tf.Tensor2D;
}

// The JS kernel wherever tf's batched matMul is the slow scalar path (wasm, cpu).
export const attention = (
  qkv: tf.Tensor2D,
  heads: number,
  offsets: Int32Array,
  lengths: Int32Array,
  causal: boolean,
): tf.Tensor2D =>
  tf.getBackend() === 'wasm' || tf.getBackend() === 'cpu'
    ? attentionJs(qkv, heads, offsets, lengths, causal)
    : attentionTf(qkv, heads, offsets, lengths, causal);
