// The conv stem (engine/models/conv-stem.ts) against torch: its tfjs im2col convs + BatchNorm in train and eval mode,
// and the ONNX graph with each BatchNorm folded into its Conv (tests/image/reference.py golden -> stem-golden.json).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { onnxParity } from '../../engine/image';
import { TrainRng, calibrateStem, exportVitOnnx, initVit, type Params, type ViTShape } from '../../engine/models';
import { stemForward } from '../../engine/models/conv-stem';
import { VitConfig, buildVitOnnx, type VitWeights } from '../../engine/models/onnx';
import { ImageJepaRecipe, initBackend } from '../../engine/train';

type Layer = { weight: number[]; gamma: number[]; beta: number[]; mean: number[]; var: number[] };
const golden = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'image', 'stem-golden.json'), 'utf8')) as {
  widths: number[];
  layers: Layer[];
  input: number[];
  train: number[];
  eval: number[];
  config: VitConfig;
  weights: Record<string, number[]>;
  last_hidden_state: number[];
  pooler_output: number[];
  outputWeights: number[];
  grads: { weight: number[]; gamma: number[]; beta: number[] }[];
};
const input = Float32Array.from(golden.input); // [3, 3, 8, 8]

const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
};

// torch Conv2d weight [Cout, Cin, 3, 3] -> the stem's [9·Cin, Cout], rows (ky, kx, cin)
function goldenParams(): Params {
  const p: Params = new Map();
  let cin = 3;
  golden.layers.forEach((L, l) => {
    const cout = golden.widths[l],
      w = new Float32Array(9 * cin * cout);
    for (let o = 0; o < cout; o++)
      for (let c = 0; c < cin; c++)
        for (let t = 0; t < 9; t++) w[(t * cin + c) * cout + o] = L.weight[(o * cin + c) * 9 + t];
    p.set(`stem${l}.w`, tf.variable(tf.tensor2d(w, [9 * cin, cout])));
    for (const [k, v] of [
      ['g', L.gamma],
      ['b', L.beta],
      ['mean', L.mean],
      ['var', L.var],
    ] as const)
      p.set(`stem${l}.${k}`, tf.variable(tf.tensor1d(v)));
    cin = cout;
  });
  return p;
}

// [n·g·g, C] rows (i, gy, gx) -> torch's [n, C, g, g]
function toNchw(rows: Float32Array, n: number, g: number, C: number): Float32Array {
  const out = new Float32Array(rows.length);
  for (let i = 0; i < n; i++)
    for (let q = 0; q < g * g; q++)
      for (let c = 0; c < C; c++) out[(i * C + c) * g * g + q] = rows[(i * g * g + q) * C + c];
  return out;
}

beforeAll(async () => {
  await initBackend('wasm');
});

describe('conv stem', () => {
  it('matches torch Conv2d + BatchNorm2d + ReLU in train mode (batch statistics) and eval mode (stored ones)', async () => {
    const p = goldenParams();
    const run = (bn: 'batch' | 'population') =>
      toNchw(tf.tidy(() => stemForward(golden.widths, p, input, 3, 8, bn)).dataSync() as Float32Array, 3, 2, 6);
    expect(maxAbsDiff(run('batch'), golden.train)).toBeLessThan(1e-5);
    expect(maxAbsDiff(run('population'), golden.eval)).toBeLessThan(1e-5);
    expect(maxAbsDiff(golden.train, golden.eval)).toBeGreaterThan(0.1); // the two modes differ here
    tf.dispose([...p.values()]);
  });

  it('trains as torch does: the gradients through the batch statistics, for every conv weight and BatchNorm affine', async () => {
    const p = goldenParams();
    const R = tf.tensor4d(golden.outputWeights, [3, 6, 2, 2]);
    const keys = golden.widths.flatMap((_, l) => [`stem${l}.w`, `stem${l}.g`, `stem${l}.b`]);
    const { grads } = tf.variableGrads(
      () => {
        const out = stemForward(golden.widths, p, input, 3, 8, 'batch').reshape([3, 2, 2, 6]).transpose([0, 3, 1, 2]);
        return tf.sum(tf.mul(out, R));
      },
      keys.map((k) => p.get(k) as tf.Variable),
    );
    let cin = 3;
    golden.grads.forEach((G, l) => {
      const cout = golden.widths[l],
        w = new Float32Array(9 * cin * cout); // torch [Cout, Cin, 3, 3] -> rows (ky, kx, cin)
      for (let o = 0; o < cout; o++)
        for (let c = 0; c < cin; c++)
          for (let t = 0; t < 9; t++) w[(t * cin + c) * cout + o] = G.weight[(o * cin + c) * 9 + t];
      expect(maxAbsDiff(grads[p.get(`stem${l}.w`)!.name].dataSync(), w)).toBeLessThan(1e-4);
      expect(maxAbsDiff(grads[p.get(`stem${l}.g`)!.name].dataSync(), G.gamma)).toBeLessThan(1e-4);
      expect(maxAbsDiff(grads[p.get(`stem${l}.b`)!.name].dataSync(), G.beta)).toBeLessThan(1e-4);
      cin = cout;
    });
    expect(Math.max(...golden.grads.flatMap((G) => G.weight.map(Math.abs)))).toBeGreaterThan(0.5); // not a vanishing case
    tf.dispose([R, ...Object.values(grads), ...p.values()]);
  });

  it('the HF-layout ViT with a folded stem matches torch (onnxruntime Conv + Relu, then a 1x1 projection)', async () => {
    const weights: VitWeights = Object.fromEntries(
      Object.entries(golden.weights).map(([k, v]) => [k, Float32Array.from(v)]),
    );
    const s = await ort.InferenceSession.create(buildVitOnnx(VitConfig.parse(golden.config), weights));
    const r = await s.run({ pixel_values: new ort.Tensor('float32', input, [3, 3, 8, 8]) });
    expect(r.last_hidden_state.dims).toEqual([3, 5, 8]);
    expect(maxAbsDiff(r.last_hidden_state.data as Float32Array, golden.last_hidden_state)).toBeLessThan(1e-5);
    expect(maxAbsDiff(r.pooler_output.data as Float32Array, golden.pooler_output)).toBeLessThan(1e-5);
    await s.release();
  });

  it('calibration gives the statistics one batch of all the images would: population mode = batch mode on that set', async () => {
    const stem = [5, 7];
    const rng = TrainRng.seeded(2, 'stem');
    const p = initVit({ imageSize: 16, patchSize: 4, hidden: 8, depth: 1, heads: 2, mlp: 16, stem }, rng, 0.5);
    const n = 7,
      px = Float32Array.from({ length: n * 3 * 16 * 16 }, () => rng.normal() + 0.5);
    await calibrateStem(stem, p, px, n, 16, 3); // batches of 3, 3 and 1 images
    const pop = tf.tidy(() => stemForward(stem, p, px, n, 16, 'population')).dataSync();
    const batch = tf.tidy(() => stemForward(stem, p, px, n, 16, 'batch')).dataSync();
    expect(maxAbsDiff(pop, batch)).toBeLessThan(1e-4);
    // and not on another set
    const other = px.map((x) => 2 * x);
    expect(
      maxAbsDiff(
        tf.tidy(() => stemForward(stem, p, other, n, 16, 'population')).dataSync(),
        tf.tidy(() => stemForward(stem, p, other, n, 16, 'batch')).dataSync(),
      ),
    ).toBeGreaterThan(1e-2);
    tf.dispose([...p.values()]);
  });

  it('a stem ViT exports to ONNX that computes what tfjs does in population mode; missing statistics are named', async () => {
    const shape: ViTShape = { imageSize: 16, patchSize: 4, hidden: 16, depth: 1, heads: 2, mlp: 32, stem: [6, 8] };
    const rng = TrainRng.seeded(3, 'stem-vit');
    const p = initVit(shape, rng, 0.5);
    const n = 4,
      px = Float32Array.from({ length: n * 3 * 16 * 16 }, () => rng.normal());
    await expect(exportVitOnnx(shape, p)).rejects.toThrow(/stem0\.mean missing.*calibrateStem/);
    await calibrateStem(shape.stem!, p, px, n, 16);
    // perturb the affine and the statistics too, so a mis-folded γ, β, μ or σ² shows
    for (const [k, v] of p)
      if (/^stem\d\.(g|b|mean|var)$/.test(k))
        v.assign(
          tf.add(
            v,
            tf.tensor(
              Float32Array.from({ length: v.size }, () => 0.2 * Math.abs(rng.normal())),
              v.shape,
            ),
          ),
        );
    const res = await onnxParity(await exportVitOnnx(shape, p), { shape, params: p }, { pixels: px, n });
    expect(res.maxAbsDiffTokens).toBeLessThan(1e-4);
    expect(res.maxAbsDiffPooler).toBeLessThan(1e-4);
    tf.dispose([...p.values()]);
  });

  it('a recipe names a stem that does not fit its patch size', () => {
    const vit = { imageSize: 32, patchSize: 8, hidden: 16, depth: 1, heads: 2, mlp: 32 };
    expect(ImageJepaRecipe.shape.vit.safeParse({ ...vit, stem: [4, 8, 8] }).success).toBe(true);
    const bad = ImageJepaRecipe.shape.vit.safeParse({ ...vit, stem: [4, 8] });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0].message).toMatch(/patchSize 2\^k/);
  });
});
