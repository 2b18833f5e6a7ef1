// Multi-head scaled dot-product attention, two ways with equal results:
// - `attentionTf`: tf ops (batched matMul + softmax), fast on the native TensorFlow backends;
// - `attentionJs`: one custom op in plain JS reading the fused qkv projection directly. On wasm the tf path costs
//   ~0.8 s of a 1.7 s CPU-preset step (5-D transposes, and batched/transposed matMuls that fall to a scalar loop at
//   ~0.3 GFLOP/s); this kernel works on packed (unpadded) token rows and needs no transposes.
import * as tf from '@tensorflow/tfjs';

// Packed sequences (no padding): sequence b is token rows offsets[b] .. offsets[b] + lengths[b] − 1.
// qkv: [N, 3d] (q | k | v, head h at columns h·dh..) -> context [N, d]
export type AttentionShape = { N: number; d: number; heads: number; offsets: Int32Array; lengths: Int32Array; causal: boolean };
// Offsets of each (sequence, head) block of probabilities [n_b, n_b] in one flat array.
const probOffsets = (s: AttentionShape): Int32Array => {
  const o = new Int32Array(s.lengths.length * s.heads + 1);
  for (let b = 0; b < s.lengths.length; b++) for (let h = 0; h < s.heads; h++) o[b * s.heads + h + 1] = o[b * s.heads + h] + s.lengths[b] ** 2;
  return o;
};

export function attentionForward(qkv: Float32Array, s: AttentionShape): { out: Float32Array; probs: Float32Array } {
  const { N, d, heads: H, offsets, lengths, causal } = s;
  const dh = d / H, scale = 1 / Math.sqrt(dh), row = 3 * d;
  const out = new Float32Array(N * d);
  const po = probOffsets(s);
  const probs = new Float32Array(po[po.length - 1]); // per (b, h): [n_b, n_b]
  for (let b = 0; b < lengths.length; b++) {
    const n = lengths[b], base = offsets[b] * row;
    for (let h = 0; h < H; h++) {
      const qo = base + h * dh, ko = base + d + h * dh, vo = base + 2 * d + h * dh;
      for (let i = 0; i < n; i++) {
        const kmax = causal ? i + 1 : n;
        const p = po[b * H + h] + i * n;
        let mx = -Infinity;
        for (let j = 0; j < kmax; j++) {
          let acc = 0;
          for (let c = 0; c < dh; c++) acc += qkv[qo + i * row + c] * qkv[ko + j * row + c];
          acc *= scale;
          probs[p + j] = acc;
          if (acc > mx) mx = acc;
        }
        let sum = 0;
        for (let j = 0; j < kmax; j++) sum += probs[p + j] = Math.exp(probs[p + j] - mx);
        const o = (offsets[b] + i) * d + h * dh;
        for (let j = 0; j < kmax; j++) {
          const w = (probs[p + j] /= sum);
          for (let c = 0; c < dh; c++) out[o + c] += w * qkv[vo + j * row + c];
        }
      }
    }
  }
  return { out, probs };
}

// dOut: [N, d] -> dQKV: [N, 3d]. dS = P ∘ (dP − rowsum(P ∘ dP)), dP = dO·Vᵀ.
export function attentionBackward(qkv: Float32Array, probs: Float32Array, dOut: Float32Array, s: AttentionShape): Float32Array {
  const { N, d, heads: H, offsets, lengths, causal } = s;
  const dh = d / H, scale = 1 / Math.sqrt(dh), row = 3 * d;
  const g = new Float32Array(N * row);
  const po = probOffsets(s);
  const dP = new Float32Array(Math.max(...lengths));
  for (let b = 0; b < lengths.length; b++) {
    const n = lengths[b], base = offsets[b] * row;
    for (let h = 0; h < H; h++) {
      const qo = base + h * dh, ko = base + d + h * dh, vo = base + 2 * d + h * dh;
      for (let i = 0; i < n; i++) {
        const kmax = causal ? i + 1 : n;
        const p = po[b * H + h] + i * n;
        const o = (offsets[b] + i) * d + h * dh;
        let dot = 0;
        for (let j = 0; j < kmax; j++) {
          const w = probs[p + j];
          let acc = 0;
          for (let c = 0; c < dh; c++) {
            const go = dOut[o + c];
            acc += go * qkv[vo + j * row + c];
            g[vo + j * row + c] += w * go; // dV
          }
          dP[j] = acc;
          dot += w * acc;
        }
        for (let j = 0; j < kmax; j++) {
          const ds = probs[p + j] * (dP[j] - dot) * scale;
          for (let c = 0; c < dh; c++) {
            g[qo + i * row + c] += ds * qkv[ko + j * row + c]; // dQ
            g[ko + j * row + c] += ds * qkv[qo + i * row + c]; // dK
          }
        }
      }
    }
  }
  return g;
}

export function attentionJs(qkv: tf.Tensor2D, heads: number, offsets: Int32Array, lengths: Int32Array, causal: boolean): tf.Tensor2D {
  const [N, d3] = qkv.shape;
  const s: AttentionShape = { N, d: d3 / 3, heads, offsets, lengths, causal };
  const op = tf.customGrad(((x: tf.Tensor, save: tf.GradSaveFunc) => {
    const data = x.dataSync() as Float32Array;
    const { out, probs } = attentionForward(data, s);
    save([]);
    return {
      value: tf.tensor2d(out, [N, s.d]),
      gradFunc: (dy: tf.Tensor) => tf.tensor2d(attentionBackward(data, probs, dy.dataSync() as Float32Array, s), [N, d3]),
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]);
  return op(qkv) as tf.Tensor2D;
}

// Same function in tf ops on a padded [B, T] layout (gathered from and back to the packed rows); pad (and future)
// keys get −1e9 before the softmax.
export function attentionTf(qkv: tf.Tensor2D, heads: number, offsets: Int32Array, lengths: Int32Array, causal: boolean): tf.Tensor2D {
  const [N, d3] = qkv.shape;
  const B = lengths.length, T = Math.max(...lengths), d = d3 / 3, dh = d / heads, tq = causal ? T : 1;
  const toPadded = new Int32Array(B * T).fill(N); // row N is an appended zero row
  const toPacked = new Int32Array(N);
  for (let b = 0; b < B; b++)
    for (let i = 0; i < lengths[b]; i++) {
      toPadded[b * T + i] = offsets[b] + i;
      toPacked[offsets[b] + i] = b * T + i;
    }
  const bias = new Float32Array(B * tq * T);
  for (let b = 0; b < B; b++)
    for (let q = 0; q < tq; q++) for (let k = 0; k < T; k++) if (k >= lengths[b] || (causal && k > q)) bias[(b * tq + q) * T + k] = -1e9;
  const padded = tf.gather(tf.concat([qkv, tf.zeros([1, d3])], 0), tf.tensor1d(toPadded, 'int32'));
  const [q, k, v] = tf.split(padded.reshape([B, T, 3, heads, dh]).transpose([2, 0, 3, 1, 4]), 3, 0).map((t) => t.reshape([B, heads, T, dh]));
  const att = tf.softmax(tf.add(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(dh)), tf.tensor4d(bias, [B, 1, tq, T])));
  const ctx = tf.matMul(att, v).transpose([0, 2, 1, 3]).reshape([B * T, d]);
  return tf.gather(ctx, tf.tensor1d(toPacked, 'int32')) as tf.Tensor2D;
}

// The JS kernel wherever tf's batched matMul is the slow scalar path (wasm, cpu).
export const attention = (qkv: tf.Tensor2D, heads: number, offsets: Int32Array, lengths: Int32Array, causal: boolean): tf.Tensor2D =>
  tf.getBackend() === 'wasm' || tf.getBackend() === 'cpu' ? attentionJs(qkv, heads, offsets, lengths, causal) : attentionTf(qkv, heads, offsets, lengths, causal);
