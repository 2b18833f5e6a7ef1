// The world encoder's whitened read-out: region pooling and PCA whitening against numpy (make_pooler_golden.py), the
// analytic identity (whitened fit rows have identity covariance), and the ONNX head against the same head in JS.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../engine/errors';
import { applyPooler, fitPooler, fitWhitening, pooledFeatures, regionPool } from '../../engine/image';
import { buildVitOnnx, randomVitWeights, type VitConfigInput } from '../../engine/models/onnx';

const golden = JSON.parse(readFileSync(join(import.meta.dirname, 'pooler-golden.json'), 'utf8')) as {
  n: number;
  patchGrid: number;
  grid: number;
  D: number;
  k: number;
  tokens: number[];
  features: number[];
  eigenvalues: number[];
  P: number[];
  q: number[];
};
const maxAbs = (a: ArrayLike<number>, b: ArrayLike<number>) =>
  Array.from(a).reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

describe('whitened pooler', () => {
  const { n, patchGrid, grid, D, k } = golden;
  const T = 1 + patchGrid ** 2;
  const tokens = Float32Array.from(golden.tokens);

  it('pools the CLS and the region means as numpy does', () => {
    const pool = regionPool(patchGrid, grid); // [T, 1 + grid²]
    const R = 1 + grid * grid;
    for (let r = 0; r < R; r++)
      expect(Array.from({ length: T }, (_, t) => pool[t * R + r]).reduce((a, b) => a + b)).toBeCloseTo(1, 12);
    expect(pool[0]).toBe(1);
    const f = pooledFeatures(tokens, n, T, D, pool);
    expect(f.cols).toBe(D * R);
    expect(maxAbs(f.data, golden.features)).toBeLessThan(1e-6); // float32 pool weights (1/4 is exact; sums in float64)
    expect(() => regionPool(8, 3)).toThrow(/do not divide/);
  });

  it('whitens to numpy eigh: eigenvalues, P = W Wᵀ and q = b Wᵀ to 1e-9; the fit rows come out with identity covariance', async () => {
    const f = { rows: n, cols: golden.features.length / n, data: Float64Array.from(golden.features) };
    const { weight, bias, eigenvalues } = await fitWhitening(f, k);
    const m = f.cols;
    expect(maxAbs(eigenvalues, golden.eigenvalues) / golden.eigenvalues[0]).toBeLessThan(1e-9);
    const P = new Float64Array(m * m),
      q = new Float64Array(m);
    for (let a = 0; a < m; a++)
      for (let b = 0; b < m; b++) for (let j = 0; j < k; j++) P[a * m + b] += weight[a * k + j] * weight[b * k + j];
    for (let a = 0; a < m; a++) for (let j = 0; j < k; j++) q[a] += bias[j] * weight[a * k + j];
    const scale = Math.max(...golden.P.map(Math.abs));
    expect(maxAbs(P, golden.P) / scale).toBeLessThan(1e-9);
    expect(maxAbs(q, golden.q) / Math.max(...golden.q.map(Math.abs))).toBeLessThan(1e-9);
    // Y = F W + b: mean 0, covariance I_k
    const Y = new Float64Array(n * k);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < k; j++) {
        let s = bias[j];
        for (let a = 0; a < m; a++) s += f.data[i * m + a] * weight[a * k + j];
        Y[i * k + j] = s;
      }
    for (let j = 0; j < k; j++)
      for (let l = 0; l < k; l++) {
        let c = 0,
          mj = 0;
        for (let i = 0; i < n; i++) {
          c += Y[i * k + j] * Y[i * k + l];
          mj += Y[i * k + j];
        }
        expect(Math.abs(mj / n)).toBeLessThan(1e-9);
        expect(Math.abs(c / (n - 1) - (j === l ? 1 : 0))).toBeLessThan(1e-9);
      }
  });

  it('refuses more directions than the fit rows carry, naming the counts', async () => {
    const f = { rows: 4, cols: 10, data: Float64Array.from({ length: 40 }, (_, i) => Math.sin(i)) };
    await expect(fitWhitening(f, 5)).rejects.toThrow(InputError);
    await expect(fitWhitening(f, 5)).rejects.toThrow(
      /5 whitened directions from 4 renders of 10 features \(at most 3\)/,
    );
    const flat = { rows: 6, cols: 4, data: Float64Array.from({ length: 24 }, (_, i) => (i % 4 === 0 ? i : 1)) }; // rank 1
    await expect(fitWhitening(flat, 3)).rejects.toThrow(/only 1 of the 3 directions carry variance/);
  });

  it('the ONNX graph with the head computes the JS head on its own tokens (and its output is dims wide)', async () => {
    const cfg: VitConfigInput = {
      imageSize: 16,
      patchSize: 4,
      hidden: 8,
      depth: 1,
      heads: 2,
      mlp: 16,
      gelu: 'tanh',
      layerNormEps: 1e-5,
    };
    const w = randomVitWeights(cfg as Required<VitConfigInput>, 7);
    const N = 24;
    const px = Float32Array.from({ length: N * 3 * 16 * 16 }, (_, i) => Math.sin(i * 0.37) + 0.3 * Math.cos(i * 1.3));
    const run = async (bytes: Uint8Array) => {
      const s = await ort.InferenceSession.create(bytes);
      try {
        return await s.run({ pixel_values: new ort.Tensor('float32', px, [N, 3, 16, 16]) });
      } finally {
        await s.release();
      }
    };
    const base = await run(buildVitOnnx(cfg, w));
    const toks = base.last_hidden_state.data as Float32Array; // [N, 17, 8]
    const { head } = await fitPooler(toks, N, 4, 8, { grid: 2, dims: 10, scenes: N });
    const out = await run(buildVitOnnx(cfg, w, head));
    expect(out.pooler_output.dims).toEqual([N, 10]);
    expect(maxAbs(out.last_hidden_state.data as Float32Array, toks)).toBe(0); // the head only adds nodes
    expect(maxAbs(out.pooler_output.data as Float32Array, applyPooler(toks, N, 17, 8, head))).toBeLessThan(1e-4);
    expect(() => buildVitOnnx(cfg, w, { ...head, dims: 9 })).toThrow(/do not fit 17 tokens x 8 to 9/);
  });
});
