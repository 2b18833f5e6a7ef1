// evaluate / compareArms / sweepPairs / controls on synthetic paired features with a planted shared latent.
import { describe, expect, it } from 'vitest';
import { compareArms, controls, evaluate, foldR1, randomOrthonormal, sweepPairs } from '../../engine/align';
import type { Embeddings } from '../../engine/embeddings';
import { InputError } from '../../engine/errors';
import { gaussianMatrix, gemm, rngFrom } from '../../engine/linalg';

// n pairs: image = z A + noise (dImg), text = z B + noise (dTxt), z: [n, 8]
async function pairs(n: number, dImg: number, dTxt: number, noise: number, seed: number) {
  const rng = rngFrom(seed);
  const z = gaussianMatrix(rng, n, 8);
  const x = await gemm(z, gaussianMatrix(rng, 8, dImg));
  const y = await gemm(z, gaussianMatrix(rng, 8, dTxt));
  const nx = gaussianMatrix(rng, n, dImg);
  const ny = gaussianMatrix(rng, n, dTxt);
  x.data.forEach((v, i) => (x.data[i] = v + noise * nx.data[i]));
  y.data.forEach((v, i) => (y.data[i] = v + noise * ny.data[i]));
  const image: Embeddings = { rows: n, dim: dImg, data: x.data };
  const text: Embeddings = { rows: n, dim: dTxt, data: y.data };
  return { image, text };
}
const fit = { start: 0, end: 300 };
const test = { start: 300, end: 500 };

describe('evaluate', async () => {
  const { image, text } = await pairs(500, 64, 32, 2.5, 1);
  it('finds the shared latent well above chance, and the controls land near chance', async () => {
    const c = await controls({ image, text, fit, test });
    expect(c.procrustes.imageToText.r1).toBeGreaterThan(0.2);
    for (const kind of ['random', 'shuffled'] as const) {
      expect(c[kind].imageToText.r10).toBeLessThan(0.15); // chance 10/200 = .05
      expect(c[kind].map.kind).toBe(kind);
    }
    expect(c.procrustes.ranks.imageToText).toHaveLength(200);
  });

  it('rejects mismatched rows, overlapping fit/test and out-of-range rows with InputError', async () => {
    await expect(
      evaluate({ image, text: { ...text, rows: 499, data: text.data.subarray(0, 499 * 32) }, fit, test }),
    ).rejects.toThrow(/image has 500 rows, text has 499/);
    await expect(evaluate({ image, text, fit, test: { start: 250, end: 400 } })).rejects.toThrow(InputError);
    await expect(evaluate({ image, text, fit, test: { start: 300, end: 501 } })).rejects.toThrow(
      /row 500 is out of range/,
    );
  });
});

describe('foldR1 (the fit pairs scored in two folds, for checkpoint selection)', async () => {
  const { image, text } = await pairs(500, 64, 32, 2.5, 1);
  const even = Array.from({ length: 150 }, (_, i) => 2 * i),
    odd = even.map((i) => i + 1);
  it('is the mean of the two evaluations: fitted on the even fit rows and scored on the odd, and the other way', async () => {
    const a = await evaluate({ image, text, fit: even, test: odd }),
      b = await evaluate({ image, text, fit: odd, test: even });
    expect(await foldR1(image, text, fit)).toBeCloseTo((a.imageToText.r1 + b.imageToText.r1) / 2, 12);
    expect(await foldR1(image, text, fit)).toBeGreaterThan(0.2); // the planted latent, as on the test rows
  });
  it('reads 1 when the text side is the image side rotated, and near chance (1/150) when the pairs are unrelated', async () => {
    const square = (await pairs(300, 32, 32, 1, 2)).image;
    const rotated = await gemm(
      { rows: 300, cols: 32, data: Float64Array.from(square.data) },
      randomOrthonormal(32, 32, 3),
    ); // [300, 32] · Q
    expect(await foldR1(square, { rows: 300, dim: 32, data: rotated.data }, fit)).toBe(1);
    const unrelated = (await pairs(500, 64, 32, 2.5, 4)).text; // another latent
    expect(await foldR1(image, unrelated, fit)).toBeLessThan(0.05);
  });
  it('refuses fewer than 4 fit pairs, and sides that do not pair row by row', async () => {
    await expect(foldR1(image, text, { start: 0, end: 3 })).rejects.toThrow(/3 pairs are too few/);
    await expect(foldR1(image, { ...text, rows: 499, data: text.data.subarray(0, 499 * 32) }, fit)).rejects.toThrow(
      /image has 500 rows, text has 499/,
    );
  });
});

describe('compareArms', async () => {
  const a = await pairs(500, 64, 32, 2.5, 2);
  const worse = { ...a.text, data: a.text.data.map((v, i) => v + 4 * Math.sin(i * 12.9898)) };
  it('gives seeded, paired CIs for every arm and difference', async () => {
    const opts = {
      arms: [
        { name: 'good', ...a },
        { name: 'noisy', image: a.image, text: worse },
      ],
      fit,
      test,
      resamples: 500,
      seed: 3,
    };
    const c = await compareArms(opts);
    const b = c.bootstrap['imageToText.r1']!;
    expect(b.scores.good.estimate).toBe(c.arms[0].imageToText.r1);
    expect(b.scores.good.lo).toBeLessThanOrEqual(b.scores.good.estimate);
    expect(b.scores.good.hi).toBeGreaterThanOrEqual(b.scores.good.estimate);
    const d = b.differences[0];
    expect([d.a, d.b]).toEqual(['good', 'noisy']);
    expect(d.estimate).toBeCloseTo(b.scores.good.estimate - b.scores.noisy.estimate, 12);
    expect(d.lo).toBeGreaterThan(0); // the noisy arm is clearly worse
    // paired: the difference CI is narrower than the two arms' CIs combined as if independent
    const w = (x: { lo: number; hi: number }) => x.hi - x.lo;
    expect(w(d)).toBeLessThan(Math.hypot(w(b.scores.good), w(b.scores.noisy)));
    expect(c.bootstrap.mknn!.scores.noisy).toBeDefined();
    expect((await compareArms(opts)).bootstrap).toEqual(c.bootstrap);
  });
});

describe('sweepPairs', async () => {
  const { image, text } = await pairs(500, 64, 32, 2.5, 4);
  it('fits on n random pairs (rank-deficient below the width) and shows the overfitting gap', async () => {
    const s = await sweepPairs({ image, text, fit, test, counts: [10, 40, 300], repeats: 2, seed: 5 });
    expect(s.points).toHaveLength(6);
    expect(s.points.filter((p) => p.n === 10).map((p) => p.rank)).toEqual([9, 9]); // centred 10 pairs: rank 9 < 32
    const [small, , full] = s.summary;
    expect(small.fit.imageToText.r1).toBe(1); // 10 pairs are memorised
    expect(small.gapR1).toBeGreaterThan(full.gapR1);
    expect(full.test.imageToText.r1).toBeGreaterThan(small.test.imageToText.r1);
    await expect(sweepPairs({ image, text, fit, test, counts: [301] })).rejects.toThrow(/301 pairs requested/);
  });
});

describe('bestLayerPair', () => {
  it('returns the max over layer pairs, and (0, none) when every score is degenerate', async () => {
    const { bestLayerPair, mutualKnn } = await import('../../engine/metrics');
    const { image, text } = await pairs(60, 16, 8, 1, 6);
    const noise = (await pairs(60, 16, 8, 1, 7)).image;
    const score = async (a: Parameters<typeof mutualKnn>[0], b: Parameters<typeof mutualKnn>[1]) =>
      (await mutualKnn(a, b, 5)).score;
    const best = await bestLayerPair([noise, image], [text], score);
    expect([best.i, best.j]).toEqual([1, 0]);
    expect(best.score).toBe(best.grid[1][0]);
    const flat = { rows: 60, dim: 8, data: new Float64Array(480).fill(1) };
    expect(await bestLayerPair([flat], [flat], score)).toMatchObject({ score: 0, i: null, j: null, grid: [[null]] });
  });
});
