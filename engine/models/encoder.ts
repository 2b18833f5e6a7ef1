// Transformer text encoder in tfjs: token + learned position embeddings, L blocks of multi-head self-attention + GELU
// FFN, pre-LN (final LN) or post-LN (BERT). Sequences are packed (no padding: local views are short, and padding is
// waste in every dense layer); every hidden state is returned so any layer's pool can be scored.
import * as tf from '@tensorflow/tfjs';
import { attention } from './attention';
import { linear } from './linear';
import type { EncoderConfig } from './presets';
import type { TrainRng } from './rng';

export type Params = Map<string, tf.Variable>;

// Packed token rows: sequence b is ids[offsets[b] .. offsets[b] + lengths[b]); N = total tokens.
export type TokenBatch = { ids: Int32Array; rows: number; offsets: Int32Array; lengths: Int32Array; N: number };

export function packBatch(seqs: readonly (readonly number[])[]): TokenBatch {
  const lengths = Int32Array.from(seqs, (s) => s.length);
  const offsets = new Int32Array(seqs.length);
  for (let b = 1; b < seqs.length; b++) offsets[b] = offsets[b - 1] + lengths[b - 1];
  const N = seqs.length ? offsets[seqs.length - 1] + lengths[seqs.length - 1] : 0;
  const ids = new Int32Array(N);
  seqs.forEach((s, b) => ids.set(s, offsets[b]));
  return { ids, rows: seqs.length, offsets, lengths, N };
}

const normal = (rng: TrainRng, shape: number[], std: number): tf.Tensor => {
  const n = shape.reduce((a, b) => a * b, 1);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = rng.normal() * std;
  return tf.tensor(out, shape);
};
const uniform = (rng: TrainRng, shape: number[], bound: number): tf.Tensor => {
  const n = shape.reduce((a, b) => a * b, 1);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = (2 * rng.uniform() - 1) * bound;
  return tf.tensor(out, shape);
};

// Names are stable: they key checkpoints and the PyTorch golden/twin scripts.
export function initEncoder(c: EncoderConfig, vocab: number, rng: TrainRng): Params {
  const p: Params = new Map();
  // N(0, .02) token embeddings: the tied NTP head needs small logits at step 0 (docs/reference.md#text-encoders).
  p.set('tok', tf.variable(normal(rng, [vocab, c.d], 0.02), true));
  p.set('pos', tf.variable(normal(rng, [c.maxLen, c.d], 0.02), true));
  initBlocks(c, rng, p);
  return p;
}

// The transformer body any embedding step feeds (text tokens here, image patches in vit.ts): optional embedding LN
// (post-LN), L blocks h{l}.*, final LN lnf (pre-LN). Drawn from rng after the caller's embedding tables.
export function initBlocks(c: EncoderConfig, rng: TrainRng, p: Params): void {
  const add = (name: string, t: tf.Tensor) => p.set(name, tf.variable(t, true));
  const lin = (name: string, fanIn: number, fanOut: number, attention?: 'qkv' | 'out') => {
    const mha = c.init === 'torch-mha' ? attention : undefined;
    const bound = mha === 'qkv' ? Math.sqrt(6 / (fanIn + fanOut)) : 1 / Math.sqrt(fanIn); // xavier-uniform of [3d, d]
    add(`${name}.w`, c.init === 'bert' ? normal(rng, [fanIn, fanOut], 0.02) : uniform(rng, [fanIn, fanOut], bound));
    add(`${name}.b`, c.init === 'bert' || mha ? tf.zeros([fanOut]) : uniform(rng, [fanOut], bound));
  };
  const ln = (name: string) => {
    add(`${name}.g`, tf.ones([c.d]));
    add(`${name}.b`, tf.zeros([c.d]));
  };
  if (c.norm === 'post') ln('emb.ln');
  for (let l = 0; l < c.layers; l++) {
    lin(`h${l}.qkv`, c.d, 3 * c.d, 'qkv');
    lin(`h${l}.o`, c.d, c.d, 'out');
    ln(`h${l}.ln1`);
    lin(`h${l}.fc1`, c.d, c.ffn);
    lin(`h${l}.fc2`, c.ffn, c.d);
    ln(`h${l}.ln2`);
  }
  if (c.norm === 'pre') ln('lnf');
}

const get = (p: Params, name: string): tf.Variable => {
  const v = p.get(name);
  if (!v) throw new Error(`encoder parameter ${name} missing`);
  return v;
};

export function layerNorm(x: tf.Tensor, g: tf.Tensor, b: tf.Tensor, eps = 1e-5): tf.Tensor {
  const { mean, variance } = tf.moments(x, -1, true);
  return tf.add(tf.mul(tf.div(tf.sub(x, mean), tf.sqrt(tf.add(variance, eps))), g), b);
}

// tanh GELU, 0.5·x·(1 + tanh(u)) with u = √(2/π)(x + 0.044715x³), written as x·σ(2u) (the same function): wasm's
// Sigmoid is ~7x faster than its Tanh, and x*x*x instead of pow(x, 3) is ~15% faster per step.
export function gelu(x: tf.Tensor): tf.Tensor {
  const twoU = tf.mul(tf.add(x, tf.mul(0.044715, tf.mul(tf.mul(x, x), x))), 2 * Math.sqrt(2 / Math.PI));
  return tf.mul(x, tf.sigmoid(twoU));
}

// ids -> hidden states [embeddings, block 1, ..., block L], each [N, d] over packed token rows; the last has the
// final LN when pre-LN.
export function encode(c: EncoderConfig, p: Params, batch: TokenBatch, causal: boolean): tf.Tensor2D[] {
  const pos = new Int32Array(batch.N);
  for (let b = 0; b < batch.rows; b++) {
    if (batch.lengths[b] > c.maxLen)
      throw new Error(`sequence of ${batch.lengths[b]} tokens; the encoder has ${c.maxLen} positions`);
    for (let i = 0; i < batch.lengths[b]; i++) pos[batch.offsets[b] + i] = i;
  }
  const x = tf.add(
    tf.gather(get(p, 'tok'), tf.tensor1d(batch.ids, 'int32')),
    tf.gather(get(p, 'pos'), tf.tensor1d(pos, 'int32')),
  );
  return encodeBlocks(c, p, x as tf.Tensor2D, batch.offsets, batch.lengths, causal);
}

// Embedded rows x: [N, d] (packed sequences at offsets/lengths) -> [x or LN(x), block 1, ..., block L], each [N, d];
// the last has the final LN when pre-LN.
export function encodeBlocks(
  c: EncoderConfig,
  p: Params,
  x0: tf.Tensor2D,
  offsets: Int32Array,
  lengths: Int32Array,
  causal: boolean,
): tf.Tensor2D[] {
  const lin = (name: string, t: tf.Tensor) =>
    linear(t, get(p, `${name}.w`) as tf.Tensor2D, get(p, `${name}.b`) as tf.Tensor1D);
  const ln = (name: string, t: tf.Tensor) => layerNorm(t, get(p, `${name}.g`), get(p, `${name}.b`));
  let x: tf.Tensor = c.norm === 'post' ? ln('emb.ln', x0) : x0;
  const hidden: tf.Tensor2D[] = [x as tf.Tensor2D];
  for (let l = 0; l < c.layers; l++) {
    const a = c.norm === 'pre' ? ln(`h${l}.ln1`, x) : x;
    const ctx = attention(lin(`h${l}.qkv`, a) as tf.Tensor2D, c.heads, offsets, lengths, causal);
    x = tf.add(x, lin(`h${l}.o`, ctx));
    if (c.norm === 'post') x = ln(`h${l}.ln1`, x);
    const f = c.norm === 'pre' ? ln(`h${l}.ln2`, x) : x;
    x = tf.add(x, lin(`h${l}.fc2`, gelu(lin(`h${l}.fc1`, f))));
    if (c.norm === 'post') x = ln(`h${l}.ln2`, x);
    hidden.push((c.norm === 'pre' && l === c.layers - 1 ? ln('lnf', x) : x) as tf.Tensor2D);
  }
  return hidden;
}

// Sequence index of every token row: [N], for segment pooling.
export function segmentIds(batch: TokenBatch): Int32Array {
  const seg = new Int32Array(batch.N);
  for (let b = 0; b < batch.rows; b++) seg.fill(b, batch.offsets[b], batch.offsets[b] + batch.lengths[b]);
  return seg;
}

// h: [N, d] packed -> [rows, d]: the mean over each sequence's tokens, or its first ([CLS]) token.
export function pool(h: tf.Tensor2D, batch: TokenBatch, how: 'mean' | 'cls'): tf.Tensor2D {
  if (how === 'cls') return tf.gather(h, tf.tensor1d(batch.offsets, 'int32')) as tf.Tensor2D;
  const sums = segmentSum(h, tf.tensor1d(segmentIds(batch), 'int32'), batch.rows);
  return tf.div(sums, tf.tensor2d(Float32Array.from(batch.lengths), [batch.rows, 1])) as tf.Tensor2D;
}

// Segment sum whose gradient is a plain gather: tf's generic one also masks negative ids (never present here) with a
// broadcast logicalAnd + where, ~25 ms of a ~370 ms cpu-preset JEPA step on wasm.
const segmentSum = (h: tf.Tensor2D, seg: tf.Tensor1D, rows: number): tf.Tensor2D =>
  tf.customGrad(((x: tf.Tensor, save: tf.GradSaveFunc) => {
    save([seg]);
    return {
      value: tf.unsortedSegmentSum(x, seg, rows),
      gradFunc: (dy: tf.Tensor, [ids]: tf.Tensor[]) => tf.gather(dy, ids),
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0])(h) as tf.Tensor2D;
