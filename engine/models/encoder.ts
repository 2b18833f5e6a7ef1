// Transformer text encoder in tfjs: token + learned position embeddings, L blocks of multi-head self-attention + GELU
// FFN, pre-LN (final LN) or post-LN (BERT). Returns every hidden state so any layer's mean pool can be scored.
import * as tf from '@tensorflow/tfjs';
import { linear } from './matmul';
import type { EncoderConfig } from './presets';
import type { Rng } from './rng';

export type Params = Map<string, tf.Variable>;

// A padded batch of token ids. ids: [B, T] row-major, lengths[b] = non-pad tokens of row b (pads are on the right).
export type TokenBatch = { ids: Int32Array; rows: number; cols: number; lengths: Int32Array };

const normal = (rng: Rng, shape: number[], std: number): tf.Tensor => {
  const n = shape.reduce((a, b) => a * b, 1);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = rng.normal() * std;
  return tf.tensor(out, shape);
};
const uniform = (rng: Rng, shape: number[], bound: number): tf.Tensor => {
  const n = shape.reduce((a, b) => a * b, 1);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = (2 * rng.uniform() - 1) * bound;
  return tf.tensor(out, shape);
};

// Names are stable: they key checkpoints and the PyTorch golden/twin scripts.
export function initEncoder(c: EncoderConfig, vocab: number, rng: Rng): Params {
  const p: Params = new Map();
  const add = (name: string, t: tf.Tensor) => p.set(name, tf.variable(t, true, name));
  const lin = (name: string, fanIn: number, fanOut: number) => {
    const bound = 1 / Math.sqrt(fanIn);
    add(`${name}.w`, c.init === 'bert' ? normal(rng, [fanIn, fanOut], 0.02) : uniform(rng, [fanIn, fanOut], bound));
    add(`${name}.b`, c.init === 'bert' ? tf.zeros([fanOut]) : uniform(rng, [fanOut], bound));
  };
  const ln = (name: string) => {
    add(`${name}.g`, tf.ones([c.d]));
    add(`${name}.b`, tf.zeros([c.d]));
  };
  // N(0, .02) token embeddings: the tied NTP head needs small logits at step 0 (world-prototype.md, NTP note).
  add('tok', normal(rng, [vocab, c.d], 0.02));
  add('pos', normal(rng, [c.maxLen, c.d], 0.02));
  if (c.norm === 'post') ln('emb.ln');
  for (let l = 0; l < c.layers; l++) {
    lin(`h${l}.qkv`, c.d, 3 * c.d);
    lin(`h${l}.o`, c.d, c.d);
    ln(`h${l}.ln1`);
    lin(`h${l}.fc1`, c.d, c.ffn);
    lin(`h${l}.fc2`, c.ffn, c.d);
    ln(`h${l}.ln2`);
  }
  if (c.norm === 'pre') ln('lnf');
  return p;
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

// tanh GELU; x*x*x instead of pow(x, 3) is ~15% faster per step on wasm.
export function gelu(x: tf.Tensor): tf.Tensor {
  const inner = tf.mul(tf.add(x, tf.mul(0.044715, tf.mul(tf.mul(x, x), x))), Math.sqrt(2 / Math.PI));
  return tf.mul(tf.mul(0.5, x), tf.add(1, tf.tanh(inner)));
}

// Additive attention bias [B, 1, Tq, T]: -1e9 on pad keys (and on future keys when causal).
function attentionBias(batch: TokenBatch, causal: boolean): tf.Tensor {
  const { rows: B, cols: T, lengths } = batch;
  const tq = causal ? T : 1;
  const bias = new Float32Array(B * tq * T);
  for (let b = 0; b < B; b++)
    for (let q = 0; q < tq; q++)
      for (let k = 0; k < T; k++) if (k >= lengths[b] || (causal && k > q)) bias[(b * tq + q) * T + k] = -1e9;
  return tf.tensor4d(bias, [B, 1, tq, T]);
}

// ids -> hidden states [embeddings, block 1, ..., block L] each [B, T, d]; the last has the final LN when pre-LN.
export function encode(c: EncoderConfig, p: Params, batch: TokenBatch, causal: boolean): tf.Tensor3D[] {
  const { rows: B, cols: T } = batch;
  if (T > c.maxLen) throw new Error(`batch has ${T} tokens per row; the encoder has ${c.maxLen} positions`);
  const H = c.heads, dh = c.d / H;
  const ids = tf.tensor1d(batch.ids, 'int32');
  let x: tf.Tensor = tf.add(tf.gather(get(p, 'tok'), ids).reshape([B, T, c.d]), tf.slice(get(p, 'pos'), [0, 0], [T, c.d]));
  if (c.norm === 'post') x = layerNorm(x, get(p, 'emb.ln.g'), get(p, 'emb.ln.b'));
  const hidden: tf.Tensor3D[] = [x as tf.Tensor3D];
  const bias = attentionBias(batch, causal);
  const lin = (name: string, t: tf.Tensor) => linear(t, get(p, `${name}.w`) as tf.Tensor2D, get(p, `${name}.b`) as tf.Tensor1D);
  const ln = (name: string, t: tf.Tensor) => layerNorm(t, get(p, `${name}.g`), get(p, `${name}.b`));
  for (let l = 0; l < c.layers; l++) {
    const a = c.norm === 'pre' ? ln(`h${l}.ln1`, x) : x;
    // qkv: [B, T, 3d] -> 3 x [B, H, T, dh]
    const [q, k, v] = tf.split(lin(`h${l}.qkv`, a).reshape([B, T, 3, H, dh]).transpose([2, 0, 3, 1, 4]), 3, 0).map((t) => t.reshape([B, H, T, dh]));
    const att = tf.softmax(tf.add(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(dh)), bias));
    const ctx = tf.matMul(att, v).transpose([0, 2, 1, 3]).reshape([B, T, c.d]);
    x = tf.add(x, lin(`h${l}.o`, ctx));
    if (c.norm === 'post') x = ln(`h${l}.ln1`, x);
    const f = c.norm === 'pre' ? ln(`h${l}.ln2`, x) : x;
    x = tf.add(x, lin(`h${l}.fc2`, gelu(lin(`h${l}.fc1`, f))));
    if (c.norm === 'post') x = ln(`h${l}.ln2`, x);
    hidden.push((c.norm === 'pre' && l === c.layers - 1 ? ln('lnf', x) : x) as tf.Tensor3D);
  }
  return hidden;
}

// Non-pad mask [B, T, 1] (1 = token) for mean pooling.
export function tokenMask(batch: TokenBatch): tf.Tensor3D {
  const m = new Float32Array(batch.rows * batch.cols);
  for (let b = 0; b < batch.rows; b++) m.fill(1, b * batch.cols, b * batch.cols + batch.lengths[b]);
  return tf.tensor3d(m, [batch.rows, batch.cols, 1]);
}

// h: [B, T, d] -> [B, d]: mean over non-pad tokens, or the first ([CLS]) token.
export function pool(h: tf.Tensor3D, mask: tf.Tensor3D, how: 'mean' | 'cls'): tf.Tensor2D {
  if (how === 'cls') return tf.squeeze(tf.slice(h, [0, 0, 0], [-1, 1, -1]), [1]) as tf.Tensor2D;
  return tf.div(tf.sum(tf.mul(h, mask), 1), tf.sum(mask, 1)) as tf.Tensor2D;
}
