import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../engine/errors';
import { openImageEncoder } from '../../engine/image';
import {
  VIT_S14,
  VitConfig,
  type VitWeights,
  blockOutputName,
  buildVitOnnx,
  decodeModel,
  describeModel,
  randomVitWeights,
  vitWeightShapes,
} from '../../engine/models/onnx';

// A tiny HF-Dinov2 ViT, its weights and input drawn in numpy, its outputs computed by a torch transcription of
// modeling_dinov2.py (tests/image/reference.py golden).
const golden = JSON.parse(readFileSync(join(import.meta.dirname, 'dinov2-golden.json'), 'utf8')) as {
  config: VitConfig;
  weights: Record<string, number[]>;
  input: number[];
  last_hidden_state: number[];
  pooler_output: number[];
  pooler_output_tanh_gelu: number[];
  block0: number[];
};
const weights: VitWeights = Object.fromEntries(
  Object.entries(golden.weights).map(([k, v]) => [k, Float32Array.from(v)]),
);
const cfg = VitConfig.parse(golden.config);
const dir = mkdtempSync(join(tmpdir(), 'prh-vit-'));

const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
};

describe('DINOv2-layout ViT built with onnx-proto', () => {
  it('matches the torch reference: last_hidden_state and pooler_output', async () => {
    const s = await ort.InferenceSession.create(buildVitOnnx(cfg, weights));
    expect(s.inputNames).toEqual(['pixel_values']);
    expect(s.outputNames).toEqual(['last_hidden_state', 'pooler_output']);
    const r = await s.run({ pixel_values: new ort.Tensor('float32', Float32Array.from(golden.input), [2, 3, 8, 8]) });
    expect(r.last_hidden_state.dims).toEqual([2, 5, 8]);
    expect(r.pooler_output.dims).toEqual([2, 8]);
    expect(maxAbsDiff(r.last_hidden_state.data as Float32Array, golden.last_hidden_state)).toBeLessThan(1e-5);
    expect(maxAbsDiff(r.pooler_output.data as Float32Array, golden.pooler_output)).toBeLessThan(1e-5);
  });

  it('the tanh-GELU variant (as the tfjs transformer trains) matches torch gelu(approximate="tanh")', async () => {
    const s = await ort.InferenceSession.create(buildVitOnnx({ ...cfg, gelu: 'tanh' }, weights));
    const r = await s.run({ pixel_values: new ort.Tensor('float32', Float32Array.from(golden.input), [2, 3, 8, 8]) });
    expect(maxAbsDiff(r.pooler_output.data as Float32Array, golden.pooler_output_tanh_gelu)).toBeLessThan(1e-5);
    expect(maxAbsDiff(golden.pooler_output_tanh_gelu, golden.pooler_output)).toBeGreaterThan(1e-4); // the variants differ
  });

  it('names and shapes every tensor as a HF Dinov2 state dict does', () => {
    const shapes = vitWeightShapes(VIT_S14);
    expect(Object.keys(shapes)).toHaveLength(4 + 12 * 18 + 2);
    expect(shapes['embeddings.position_embeddings']).toEqual([1, 257, 384]);
    expect(shapes['embeddings.patch_embeddings.projection.weight']).toEqual([384, 3, 14, 14]);
    expect(shapes['encoder.layer.11.attention.attention.query.weight']).toEqual([384, 384]);
    expect(shapes['encoder.layer.3.mlp.fc1.weight']).toEqual([1536, 384]);
    expect(shapes['encoder.layer.0.layer_scale1.lambda1']).toEqual([384]);
    // dinov2-small has 22,056,576 parameters with its 1370-row (518 px) position table and mask_token;
    // at 224 px the table has 257 rows and there is no mask_token: 22,056,576 - 1113*384 - 384.
    const params = Object.values(shapes).reduce((a, s) => a + s.reduce((x, y) => x * y, 1), 0);
    expect(params).toBe(22_056_576 - 1113 * 384 - 384);
    // The ONNX initializers carry the HF names (no renamed or fused copies).
    const model = decodeModel(buildVitOnnx(cfg, weights), 'tiny');
    const inits = new Set(model.graph!.initializer!.map((t) => t.name));
    for (const name of Object.keys(vitWeightShapes(cfg))) expect(inits.has(name), name).toBe(true);
    expect(describeModel(model).outputs.map((o) => [o.name, o.dims])).toEqual([
      ['last_hidden_state', ['batch_size', 5, 8]],
      ['pooler_output', ['batch_size', 8]],
    ]);
  });

  it('an ensemble: each member computes what it computes alone, their tokens side by side; the head reads them all', async () => {
    const other = randomVitWeights(cfg, 3);
    const x = new ort.Tensor('float32', Float32Array.from(golden.input), [2, 3, 8, 8]);
    const run = async (bytes: Uint8Array) => (await ort.InferenceSession.create(bytes)).run({ pixel_values: x });
    const [a, b, ab] = [
      await run(buildVitOnnx(cfg, weights)),
      await run(buildVitOnnx(cfg, other)),
      await run(buildVitOnnx(cfg, [weights, other])),
    ];
    expect(ab.last_hidden_state.dims).toEqual([2, 5, 16]);
    const [A, B, AB] = [a, b, ab].map((r) => r.last_hidden_state.data as Float32Array);
    for (let row = 0; row < 2 * 5; row++) {
      expect(maxAbsDiff(AB.subarray(row * 16, row * 16 + 8), A.subarray(row * 8, row * 8 + 8))).toBeLessThan(1e-6);
      expect(maxAbsDiff(AB.subarray(row * 16 + 8, row * 16 + 16), B.subarray(row * 8, row * 8 + 8))).toBeLessThan(1e-6);
    }
    // without a head, pooler_output is the joint CLS row [N, 2D]
    expect(ab.pooler_output.dims).toEqual([2, 16]);
    expect(maxAbsDiff((ab.pooler_output.data as Float32Array).subarray(0, 16), AB.subarray(0, 16))).toBe(0);
    // a head over 2·D = 16 features (CLS only, R = 1): output j = 1 + the sum of member 1's CLS (j = 1) or member 0's (j = 0)
    const pool = new Float32Array(5).fill(0);
    pool[0] = 1;
    const weight = Float32Array.from({ length: 16 * 2 }, (_, q) =>
      Math.floor(q / 2) < 8 ? +(q % 2 === 0) : +(q % 2 === 1),
    );
    const headed = await run(
      buildVitOnnx(cfg, [weights, other], { pool, weight, bias: Float32Array.of(1, 1), dims: 2 }),
    );
    const cls = (t: Float32Array, from: number) => t.subarray(from, from + 8).reduce((s, v) => s + v, 0);
    expect((headed.pooler_output.data as Float32Array)[0]).toBeCloseTo(1 + cls(A, 0), 4);
    expect((headed.pooler_output.data as Float32Array)[1]).toBeCloseTo(1 + cls(B, 0), 4);
    // each member's weights under its own prefix; a head sized for one member does not fit two
    const inits = new Set(
      decodeModel(buildVitOnnx(cfg, [weights, other]), 'pair').graph!.initializer!.map((t) => t.name),
    );
    expect(
      inits.has('member0.layernorm.weight') &&
        inits.has('member1.encoder.layer.0.mlp.fc1.weight') &&
        !inits.has('layernorm.weight'),
    ).toBe(true);
    expect(() =>
      buildVitOnnx(cfg, [weights, other], {
        pool,
        weight: weight.subarray(0, 16),
        bias: Float32Array.of(1, 1),
        dims: 2,
      }),
    ).toThrow(/do not fit 5 tokens x 16 to 2/);
  });

  it('rejects missing or mis-sized weights by name', () => {
    const { ['encoder.layer.1.mlp.fc2.bias']: _, ...missing } = weights;
    expect(() => buildVitOnnx(cfg, missing)).toThrow(/missing 1 tensor.*encoder\.layer\.1\.mlp\.fc2\.bias/);
    expect(() => buildVitOnnx(cfg, { ...weights, 'layernorm.weight': new Float32Array(3) })).toThrow(InputError);
    expect(() => buildVitOnnx(cfg, { ...weights, 'layernorm.weight': new Float32Array(3) })).toThrow(
      /layernorm\.weight: expected 8 values for shape \[8\], got 3/,
    );
  });
});

describe('the dinov2 preset and embedding selections on the same model', () => {
  const model = join(dir, 'tiny-dinov2.onnx');
  writeFileSync(model, buildVitOnnx(cfg, weights));
  const x = Float32Array.from(golden.input);
  const D = 8;
  const T = 5;

  it('detects the HF layout and reads pooler_output', async () => {
    const enc = await openImageEncoder(model, { device: 'cpu' });
    expect(enc.spec).toMatchObject({
      preset: 'dinov2',
      input: 'pixel_values',
      size: 8,
      resize: 9,
      interpolation: 'bicubic',
      channels: 'rgb',
    });
    expect(enc.spec.embedding).toEqual({ tensor: 'pooler_output', pool: 'none', prefixTokens: 1 });
    const out = await enc.encode(x, 2);
    expect(out.dim).toBe(D);
    expect(maxAbsDiff(out.data, golden.pooler_output)).toBeLessThan(1e-5);
    await enc.release();
  });

  it('CLS row and patch mean of last_hidden_state', async () => {
    const cls = await openImageEncoder(model, {
      device: 'cpu',
      overrides: { embedding: { tensor: 'last_hidden_state' } },
    });
    expect(cls.spec.embedding.pool).toBe('cls'); // a [N, T, D] output named without a pool gives its CLS row
    expect(maxAbsDiff((await cls.encode(x, 2)).data, golden.pooler_output)).toBeLessThan(1e-5);
    const mean = await openImageEncoder(model, {
      device: 'cpu',
      overrides: { embedding: { tensor: 'last_hidden_state', pool: 'mean-patches' } },
    });
    const want = Array.from({ length: 2 * D }, (_, k) => {
      const [n, d] = [Math.floor(k / D), k % D];
      let s = 0;
      for (let t = 1; t < T; t++) s += golden.last_hidden_state[(n * T + t) * D + d];
      return s / (T - 1);
    });
    expect(maxAbsDiff((await mean.encode(x, 2)).data, want)).toBeLessThan(1e-5);
  });

  it('an intermediate tensor (hidden states after block 0) is exposed as an output', async () => {
    const enc = await openImageEncoder(model, {
      device: 'cpu',
      overrides: { embedding: { tensor: blockOutputName(0), pool: 'none' } },
    });
    const out = await enc.encode(x, 2);
    expect(out.dim).toBe(T * D);
    expect(maxAbsDiff(out.data, golden.block0)).toBeLessThan(1e-5);
  });

  it('names a tensor that does not exist, and lists the outputs', async () => {
    await expect(openImageEncoder(model, { overrides: { embedding: { tensor: 'nope' } } })).rejects.toThrow(
      /no tensor named 'nope'; outputs are last_hidden_state, pooler_output/,
    );
  });

  it('a different size than the model declares: expected vs actual', async () => {
    await expect(openImageEncoder(model, { overrides: { size: 16 } })).rejects.toThrow(
      /input 'pixel_values' expected size \[N, 3, 16, 16\], actual \[batch_size, 3, 8, 8\]/,
    );
  });

  it('random weights are deterministic per seed', () => {
    const a = randomVitWeights(cfg, 3);
    expect(a['encoder.layer.0.mlp.fc1.weight']).toEqual(randomVitWeights(cfg, 3)['encoder.layer.0.mlp.fc1.weight']);
    expect(a['encoder.layer.0.mlp.fc1.weight']).not.toEqual(randomVitWeights(cfg, 4)['encoder.layer.0.mlp.fc1.weight']);
  });
});
