// A built ViT as ONNX: its parity with tfjs, its tokens through ONNX Runtime, and the whitened read-out fitted on them.
import * as tf from '@tensorflow/tfjs';
import * as ort from 'onnxruntime-node';
import { exportVitOnnx, vitForward, vitOnnxConfig, type Params, type PoolerHead, type ViTShape } from '../../models';
import { buildVitOnnx, numPatches, type VitWeights } from '../../models/onnx';
import { normalised, type ImageSet } from '../../train';
import { applyPooler, fitPooler, type PoolerRecipe } from '../whitened-pooler';

// max |a − b| of two outputs of the same shape (`what` names the pair in the error)
function maxAbsDiff(a: Float32Array, b: Float32Array, what: string): number {
  if (a.length !== b.length) throw new Error(`parity: ${what} gave ${a.length} and ${b.length} values`);
  return a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);
}

// Max |ONNX − tfjs| over n normalised images for pooler_output (the CLS, or the head applied to tfjs's tokens in JS)
// and last_hidden_state. pixels: [n, 3, S, S] or more (the first n are used).
export async function onnxParity(
  bytes: Uint8Array,
  { shape, params, head }: { shape: ViTShape; params: Params; head?: PoolerHead },
  { pixels, n }: { pixels: Float32Array; n: number },
): Promise<{ images: number; maxAbsDiffPooler: number; maxAbsDiffTokens: number }> {
  const session = await ort.InferenceSession.create(bytes);
  const S = shape.imageSize;
  const res = await session.run({
    pixel_values: new ort.Tensor('float32', pixels.slice(0, n * 3 * S * S), [n, 3, S, S]),
  });
  await session.release();
  const out = tf.tidy(() => vitForward(shape, params, pixels, n));
  const tokens = (await out.tokens.data()) as Float32Array;
  const ref = {
    tokens,
    pooler: head
      ? applyPooler(tokens, n, 1 + numPatches(shape), shape.hidden, head)
      : ((await out.cls.data()) as Float32Array),
  };
  tf.dispose([out.tokens, out.cls]);
  return {
    images: n,
    maxAbsDiffPooler: maxAbsDiff(res.pooler_output.data as Float32Array, ref.pooler, 'ONNX and tfjs'),
    maxAbsDiffTokens: maxAbsDiff(res.last_hidden_state.data as Float32Array, ref.tokens, 'ONNX and tfjs'),
  };
}

// Output `name` of the graph `bytes` on the first n images (normalised in batches), one ORT thread: the same bytes
// in, the same floats out, so a head fitted on last_hidden_state [n, T, D] rebuilds to the byte.
async function onnxOutput(
  bytes: Uint8Array,
  images: ImageSet,
  n: number,
  name: 'last_hidden_state' | 'pooler_output',
): Promise<Float32Array> {
  const session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  const S = images.side,
    B = 250;
  let out: Float32Array | null = null; // [n, ...], sized by the first batch
  try {
    for (let i = 0; i < n; i += B) {
      const ids = Array.from({ length: Math.min(B, n - i) }, (_, j) => i + j);
      const t = (
        await session.run({ pixel_values: new ort.Tensor('float32', normalised(images, ids), [ids.length, 3, S, S]) })
      )[name].data as Float32Array;
      out ??= new Float32Array((n * t.length) / ids.length);
      out.set(t, (i * t.length) / ids.length);
    }
  } finally {
    await session.release();
  }
  return out ?? new Float32Array(0);
}

// The whitened pooler of the ViT `params` (or an ensemble's members), fitted on the first `pooler.scenes` of its
// (unlabelled) training images; base: the same ViT(s) with the CLS pooler, whose tokens it was fitted on.
export async function fitVitPooler(
  shape: ViTShape,
  params: Params | readonly Params[],
  images: ImageSet,
  pooler: PoolerRecipe,
): Promise<{ head: PoolerHead; eigenvalues: Float64Array; base: Uint8Array }> {
  const base = await exportVitOnnx(shape, params);
  const { head, eigenvalues } = await fitHeadOn(base, shape, images, pooler, Array.isArray(params) ? params.length : 1);
  return { head, eigenvalues, base };
}

// The head fitted on the CLS-pooler graph `base`'s tokens [n, T, K·D] (K members) for the first n = min(scenes,
// images) renders.
async function fitHeadOn(
  base: Uint8Array,
  shape: ViTShape,
  images: ImageSet,
  pooler: PoolerRecipe,
  members = 1,
): Promise<{ head: PoolerHead; eigenvalues: Float64Array; tokens: Float32Array }> {
  const n = Math.min(pooler.scenes, images.n);
  const tokens = await onnxOutput(base, images, n, 'last_hidden_state');
  return { ...(await fitPooler(tokens, n, shape.imageSize / shape.patchSize, shape.hidden * members, pooler)), tokens };
}

// The graph of the ViT(s) `weights` (read back from ONNX) with the head fitted on their CLS graph `base`, and that head
// in ONNX against the same head in JS on base's tokens (first 8 renders): a head refitted on a built model (repool)
// and an ensemble's read-out over its members.
export async function withHeadOn(
  base: Uint8Array,
  shape: ViTShape,
  weights: readonly VitWeights[],
  images: ImageSet,
  pooler: PoolerRecipe,
): Promise<{ bytes: Uint8Array; eigenvalues: Float64Array; parity: number }> {
  const { head, eigenvalues, tokens } = await fitHeadOn(base, shape, images, pooler, weights.length);
  const bytes = buildVitOnnx(vitOnnxConfig(shape), weights, head);
  const T = 1 + numPatches(shape),
    W = shape.hidden * weights.length,
    m = 8;
  const parity = maxAbsDiff(
    await onnxOutput(bytes, images, m, 'pooler_output'),
    applyPooler(tokens.subarray(0, m * T * W), m, T, W, head),
    'ONNX and the JS head',
  );
  return { bytes, eigenvalues, parity };
}
