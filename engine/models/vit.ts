// A small ViT in tfjs: patch embedding + CLS + learned positions feeding the text encoder's transformer blocks
// (encodeBlocks, pre-LN + final LN), and its export to the HF Dinov2 ONNX layout (buildVitOnnx), so a model trained
// here runs through exactly the path a real DINOv2 does. Names: patch.w [3p², D] (rows in (c, ky, kx) order), or
// [C_last, D] after a conv stem (conv-stem.ts: stem{l}.*), patch.b [D], cls [1, D], pos [1+P, D], then the blocks'
// h{l}.* and lnf.
import * as tf from '@tensorflow/tfjs';
import { type BatchNormMode, foldStem, initStem, missingParam, stemForward } from './conv-stem';
import { encodeBlocks, initBlocks, type Params } from './encoder';
import { linear } from './linear';
import { buildVitOnnx, numPatches, type PoolerHead, type VitConfig, type VitWeights } from './onnx';
import type { EncoderConfig } from './presets';
import type { TrainRng } from './rng';

// The ONNX-side shape with the tfjs transformer's choices pinned: tanh GELU, LN eps 1e-5 (tf's layerNorm default).
export type ViTShape = Pick<VitConfig, 'imageSize' | 'patchSize' | 'hidden' | 'depth' | 'heads' | 'mlp' | 'stem'>;

// Inputs per patch row of patch.w: the pixels of a p x p patch, or the conv stem's last width.
const patchInputs = (v: ViTShape): number => (v.stem ? v.stem[v.stem.length - 1] : 3 * v.patchSize ** 2);

export const vitOnnxConfig = (v: ViTShape): VitConfig => ({ ...v, layerNormEps: 1e-5, gelu: 'tanh' });

// The block config encodeBlocks reads (maxLen = tokens per image; the projector is the JEPA head's, set by the trainer).
export const vitBlocks = (v: ViTShape, projector: EncoderConfig['projector']): EncoderConfig => ({
  d: v.hidden,
  layers: v.depth,
  heads: v.heads,
  ffn: v.mlp,
  maxLen: 1 + numPatches(v),
  norm: 'pre',
  init: 'torch',
  pool: 'cls',
  projector,
});

// posStd: std of the learned position table. ViT/DINOv2 use .02, but at this scale that drowns position under the
// patch content (~0.6 std): the CLS of such a ViT carries no object position, before or after training.
// init: how the blocks' Linears are drawn (EncoderConfig.init).
export function initVit(v: ViTShape, rng: TrainRng, posStd: number, init: 'torch' | 'torch-mha' = 'torch'): Params {
  const p: Params = new Map();
  if (v.stem) initStem(v.stem, rng, p); // drawn first; a ViT without a stem draws what it always did
  const D = v.hidden,
    fanIn = patchInputs(v),
    bound = 1 / Math.sqrt(fanIn);
  const draw = (n: number, f: () => number) => Float32Array.from({ length: n }, f);
  // patch projection: torch Conv2d's default init, U(±1/√fan_in); CLS N(0, .02) as ViT/DINOv2.
  p.set(
    'patch.w',
    tf.variable(
      tf.tensor2d(
        draw(fanIn * D, () => (2 * rng.uniform() - 1) * bound),
        [fanIn, D],
      ),
      true,
    ),
  );
  p.set('patch.b', tf.variable(tf.tensor1d(draw(D, () => (2 * rng.uniform() - 1) * bound)), true));
  p.set(
    'cls',
    tf.variable(
      tf.tensor2d(
        draw(D, () => 0.02 * rng.normal()),
        [1, D],
      ),
      true,
    ),
  );
  p.set(
    'pos',
    tf.variable(
      tf.tensor2d(
        draw((1 + numPatches(v)) * D, () => posStd * rng.normal()),
        [1 + numPatches(v), D],
      ),
      true,
    ),
  );
  initBlocks({ ...vitBlocks(v, { dims: [1], norm: [false], act: 'gelu' }), init }, rng, p);
  return p;
}

// pixels: [n, 3, S, S] CHW -> patch rows [n·P, 3p²], patch j = gy·g + gx (the Conv's row-major output order), each
// row in (c, ky, kx) order (the Conv weight's [in, ky, kx] order). Plain JS: the input carries no gradient.
export function patchify(pixels: Float32Array, n: number, v: Pick<ViTShape, 'imageSize' | 'patchSize'>): Float32Array {
  const S = v.imageSize,
    p = v.patchSize,
    g = S / p,
    row = 3 * p * p;
  const out = new Float32Array(n * g * g * row);
  let o = 0;
  for (let i = 0; i < n; i++)
    for (let gy = 0; gy < g; gy++)
      for (let gx = 0; gx < g; gx++)
        for (let c = 0; c < 3; c++)
          for (let ky = 0; ky < p; ky++) {
            const src = ((i * 3 + c) * S + gy * p + ky) * S + gx * p;
            out.set(pixels.subarray(src, src + p), o);
            o += p;
          }
  if (o !== out.length) throw new Error(`patchify: wrote ${o} of ${out.length} values`);
  return out;
}

// pixels [n, 3, S, S] -> { tokens: [n·(1+P), D] after the final LN (= last_hidden_state rows), cls: [n, D] (= pooler_output) }.
// bn: how a conv stem's BatchNorms normalise ('batch' while training; the exported graph is 'population').
export function vitForward(
  v: ViTShape,
  p: Params,
  pixels: Float32Array,
  n: number,
  bn: BatchNormMode = 'population',
): { tokens: tf.Tensor2D; cls: tf.Tensor2D } {
  const P = numPatches(v),
    T = 1 + P,
    D = v.hidden;
  const get = (k: string) => p.get(k) as tf.Tensor2D;
  const rows = v.stem
    ? stemForward(v.stem, p, pixels, n, v.imageSize, bn)
    : tf.tensor2d(patchify(pixels, n, v), [n * P, patchInputs(v)]);
  const emb = linear(rows, get('patch.w'), p.get('patch.b') as tf.Tensor1D); // [n·P, D]
  // rows of [cls; emb] in token order: image i's row 0 is the CLS (index 0), row 1+j its patch j (index 1 + i·P + j)
  const order = new Int32Array(n * T),
    posRow = new Int32Array(n * T);
  for (let i = 0; i < n; i++)
    for (let t = 0; t < T; t++) {
      order[i * T + t] = t === 0 ? 0 : 1 + i * P + t - 1;
      posRow[i * T + t] = t;
    }
  const x = tf.add(
    tf.gather(tf.concat([get('cls'), emb], 0), tf.tensor1d(order, 'int32')),
    tf.gather(get('pos'), tf.tensor1d(posRow, 'int32')),
  );
  const offsets = Int32Array.from({ length: n }, (_, i) => i * T);
  const lengths = new Int32Array(n).fill(T);
  const hs = encodeBlocks(
    vitBlocks(v, { dims: [D], norm: [false], act: 'gelu' }),
    p,
    x as tf.Tensor2D,
    offsets,
    lengths,
    false,
  );
  const tokens = hs[hs.length - 1];
  return { tokens, cls: tf.gather(tokens, tf.tensor1d(offsets, 'int32')) as tf.Tensor2D };
}

// a: [r, c] row-major -> [c, r]
const transpose = (a: Float32Array, r: number, c: number): Float32Array => {
  const t = new Float32Array(a.length);
  for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) t[j * r + i] = a[i * c + j];
  return t;
};

// tfjs parameters -> HF Dinov2 tensors: Linear weights [in, out] -> [out, in]; qkv [D, 3D] split into query/key/value
// column blocks; patch.w [3p², D] -> Conv weight [D, 3, p, p] (= its transpose, rows already (c, ky, kx)), or after a
// stem [C_last, D] -> the 1x1 Conv [D, C_last, 1, 1], the stem's convs with their BatchNorms folded in;
// LayerScale, which this ViT does not have, exported as ones.
export async function vitWeights(v: ViTShape, p: Params): Promise<VitWeights> {
  const D = v.hidden,
    M = v.mlp;
  // every parameter read first, awaited (webgpu has no synchronous read in Node)
  const read = new Map(await Promise.all([...p].map(async ([k, t]) => [k, (await t.data()) as Float32Array] as const)));
  const data = (k: string): Float32Array => {
    const t = read.get(k);
    if (!t) throw missingParam(k);
    return t;
  };
  const w: VitWeights = {
    'embeddings.cls_token': data('cls').slice(),
    'embeddings.position_embeddings': data('pos').slice(),
    ...(v.stem ? foldStem(v.stem, data) : {}),
    'embeddings.patch_embeddings.projection.weight': transpose(data('patch.w'), patchInputs(v), D),
    'embeddings.patch_embeddings.projection.bias': data('patch.b').slice(),
    'layernorm.weight': data('lnf.g').slice(),
    'layernorm.bias': data('lnf.b').slice(),
  };
  for (let l = 0; l < v.depth; l++) {
    const hf = `encoder.layer.${l}`,
      h = `h${l}`;
    const qkvT = transpose(data(`${h}.qkv.w`), D, 3 * D); // [3D, D]: rows 0..D-1 are query's outputs
    const qkvB = data(`${h}.qkv.b`);
    ['query', 'key', 'value'].forEach((name, k) => {
      w[`${hf}.attention.attention.${name}.weight`] = qkvT.slice(k * D * D, (k + 1) * D * D);
      w[`${hf}.attention.attention.${name}.bias`] = qkvB.slice(k * D, (k + 1) * D);
    });
    Object.assign(w, {
      [`${hf}.attention.output.dense.weight`]: transpose(data(`${h}.o.w`), D, D),
      [`${hf}.attention.output.dense.bias`]: data(`${h}.o.b`).slice(),
      [`${hf}.norm1.weight`]: data(`${h}.ln1.g`).slice(),
      [`${hf}.norm1.bias`]: data(`${h}.ln1.b`).slice(),
      [`${hf}.norm2.weight`]: data(`${h}.ln2.g`).slice(),
      [`${hf}.norm2.bias`]: data(`${h}.ln2.b`).slice(),
      [`${hf}.mlp.fc1.weight`]: transpose(data(`${h}.fc1.w`), D, M),
      [`${hf}.mlp.fc1.bias`]: data(`${h}.fc1.b`).slice(),
      [`${hf}.mlp.fc2.weight`]: transpose(data(`${h}.fc2.w`), M, D),
      [`${hf}.mlp.fc2.bias`]: data(`${h}.fc2.b`).slice(),
      [`${hf}.layer_scale1.lambda1`]: new Float32Array(D).fill(1),
      [`${hf}.layer_scale2.lambda1`]: new Float32Array(D).fill(1),
    });
  }
  return w;
}

// head: an embedding head in place of the CLS pooler (engine/image/whitened-pooler.ts fits the world encoder's);
// p: one ViT's parameters, or an ensemble's members (their tokens side by side; needs the head).
export const exportVitOnnx = async (
  v: ViTShape,
  p: Params | readonly Params[],
  head?: PoolerHead,
): Promise<Uint8Array> =>
  buildVitOnnx(
    vitOnnxConfig(v),
    Array.isArray(p) ? await Promise.all(p.map((m) => vitWeights(v, m))) : await vitWeights(v, p as Params),
    head,
  );
