// TS results against numpy references from make_golden.py (golden/): 1e-9 on float64 paths, 1e-5 on float32 inputs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluate, polar, procrustes } from '../../engine/align';
import { readNpy } from '../../engine/embeddings';
import { type Mat, colMeans, gemm, gaussianMatrix, rngFrom, subRow, takeRows } from '../../engine/linalg';
import {
  linearCka,
  mutualKnn,
  percentile,
  retrievalRanks,
  sliceDirections,
  slicedEppsPulley,
  WEIGHTS,
} from '../../engine/metrics';
import { sigregDirections } from '../../engine/train';

const dir = join(import.meta.dirname, 'golden');
const g = JSON.parse(readFileSync(join(dir, 'golden.json'), 'utf8'));
const load = (name: string) => readNpy(join(dir, name));
const asMat = (e: { rows: number; dim: number; data: Float32Array | Float64Array }): Mat => ({
  rows: e.rows,
  cols: e.dim,
  data: Float64Array.from(e.data),
});
const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
};
const range = (start: number, end: number) => ({ start, end });

describe.each([
  ['f64', 'image64.npy', 'text64.npy', 1e-9],
  ['f32', 'image32.npy', 'text32.npy', 1e-5],
] as const)('pipeline on %s inputs', (tag, imageFile, textFile, tol) => {
  const ref = g[`pipeline_${tag}`];
  const image = load(imageFile);
  const text = load(textFile);

  it('Procrustes map, singular values and fit residual match numpy SVD', async () => {
    const fit = Int32Array.from({ length: 100 }, (_, i) => i);
    const x = takeRows(image, fit);
    const y = takeRows(text, fit);
    const map = await procrustes(subRow(x, colMeans(x)), subRow(y, colMeans(y)));
    expect(map.rank).toBe(24);
    expect(map.freeParameters).toBe(48 * 24 - (24 * 25) / 2);
    expect(maxAbsDiff(map.w.data, ref.w)).toBeLessThan(tol);
    expect(maxAbsDiff(map.singularValues, ref.singular_values)).toBeLessThan(tol * 100);
  });

  it('evaluate(): ranks, R@k both ways, mutual 10-NN, CKA and residual match', async () => {
    const e = await evaluate({ image, text, fit: range(0, 100), test: range(100, 150) });
    expect(e.ranks.imageToText).toEqual(ref.ranks_i2t);
    expect(e.ranks.textToImage).toEqual(ref.ranks_t2i);
    expect(e.imageToText).toEqual(ref.i2t);
    expect(e.textToImage).toEqual(ref.t2i);
    expect(e.imageToText.r1).toBeGreaterThan(0.1); // the planted shared latent is found
    expect(e.mknn.score).toBeCloseTo(ref.mknn, 12);
    expect(e.perQueryHits.mknn).toEqual(ref.mknn_per_item);
    expect(Math.abs(e.cka.biased - ref.cka_biased)).toBeLessThan(tol);
    expect(Math.abs(e.cka.unbiased! - ref.cka_unbiased)).toBeLessThan(tol);
    expect(Math.abs(e.map.fitResidual - ref.fit_residual) / ref.fit_residual).toBeLessThan(tol);
    expect(e.chance).toEqual({ r1: 1 / 50, r5: 5 / 50, r10: 10 / 50, mknn: 10 / 49 });
  });
});

describe('rank-deficient and wide Procrustes', () => {
  it('10 pairs for a 48x24 map: orthonormal columns, numpy residual and tr(W^T M) = nuclear norm', async () => {
    const ref = g.rank_deficient;
    const fit = Int32Array.from({ length: 10 }, (_, i) => i);
    const x0 = takeRows(load('image64.npy'), fit);
    const y0 = takeRows(load('text64.npy'), fit);
    const x = subRow(x0, colMeans(x0));
    const y = subRow(y0, colMeans(y0));
    const map = await procrustes(x, y);
    expect(map.rank).toBe(ref.rank);
    const wtw = await gemm(map.w, map.w, true);
    const eye = Float64Array.from({ length: 24 * 24 }, (_, i) => (i % 25 === 0 ? 1 : 0));
    expect(maxAbsDiff(wtw.data, eye)).toBeLessThan(1e-12);
    const m = await gemm(x, y, true);
    let tr = 0;
    for (let i = 0; i < m.data.length; i++) tr += m.data[i] * map.w.data[i];
    expect(Math.abs(tr - ref.nuclear_norm) / ref.nuclear_norm).toBeLessThan(1e-9);
    const xw = await gemm(x, map.w);
    const residual = Math.sqrt(xw.data.reduce((s, v, i) => s + (v - y.data[i]) ** 2, 0));
    expect(Math.abs(residual - ref.fit_residual)).toBeLessThan(1e-9);
  });

  it('a narrower image side gives W with orthonormal rows (numpy polar factor)', async () => {
    const fit = Int32Array.from({ length: 100 }, (_, i) => i);
    const t0 = takeRows(load('text64.npy'), fit);
    const i0 = takeRows(load('image64.npy'), fit);
    const { w } = await polar(await gemm(subRow(t0, colMeans(t0)), subRow(i0, colMeans(i0)), true));
    expect(maxAbsDiff(w.data, g.wide_w)).toBeLessThan(1e-9);
  });
});

describe('retrieval tie rule', () => {
  it('planted exact ties count against the true pair; NaN true pairs are misses', () => {
    const s: (number | null)[][] = g.ties.s;
    const n = s.length;
    const data = Float64Array.from(s.flat(), (v) => (v === null ? NaN : v));
    const r = retrievalRanks({ rows: n, cols: n, data });
    expect(Array.from(r.imageToText)).toEqual(g.ties.ranks_i2t);
    expect(Array.from(r.textToImage)).toEqual(g.ties.ranks_t2i);
    expect(r.imageToText[3]).toBe(11);
    expect(r.imageToText[7]).toBe(12);
  });

  it('a collapsed text encoder: image->text R@1 = 0 by ties (not 1); mutual k-NN degenerate, not 1.0', async () => {
    const image = load('image64.npy');
    const text = { rows: image.rows, dim: 24, data: new Float64Array(image.rows * 24).fill(0.3) };
    const e = await evaluate({ image, text, fit: range(0, 100), test: range(100, 150) });
    expect(e.imageToText.r1).toBe(0);
    expect(e.ranks.imageToText.every((r) => r >= 49)).toBe(true);
    expect(e.mknn).toMatchObject({ score: null, degenerate: true });
    expect(e.mknn.reason).toMatch('text side');
  });

  it('exactly zero centred vectors give NaN cosines, counted as misses both ways', async () => {
    const image = load('image64.npy');
    const text = { rows: image.rows, dim: 24, data: new Float64Array(image.rows * 24).fill(0.5) };
    const e = await evaluate({ image, text, fit: range(0, 100), test: range(100, 150) });
    expect([e.imageToText.r10, e.textToImage.r10, e.nanQueries]).toEqual([0, 0, 50]);
  });
});

describe('mutual k-NN and CKA with planted neighbour ties', () => {
  it('matches numpy (stable descending sort, diagonal -1e8)', async () => {
    const a = asMat(load('knnA.npy'));
    const b = asMat(load('knnB.npy'));
    const m = await mutualKnn(a, b, 5);
    expect(m.perItem).toEqual(g.mknn_ties.per_item);
    expect(m.score).toBeCloseTo(g.mknn_ties.score, 12);
    expect(m.tiedQueries).toBeGreaterThan(0);
    const c = await linearCka(a, b);
    expect(Math.abs(c.biased - g.mknn_ties.cka_biased_raw)).toBeLessThan(1e-9);
    expect(Math.abs(c.unbiased! - g.mknn_ties.cka_unbiased_raw)).toBeLessThan(1e-9);
  });
});

describe('sliced Epps-Pulley', () => {
  const dirs = asMat(load('ep_dirs.npy'));
  it('weights are the table of docs/reference.md#sigreg', () => {
    expect(maxAbsDiff(WEIGHTS, g.epps_pulley.weights)).toBeLessThan(1e-15);
    expect(WEIGHTS[1]).toBeCloseTo(0.36847, 5);
  });
  it('directions have unit columns and follow their seed, in float64 for the report and float32 for training', () => {
    const unit = (A: ArrayLike<number>, K: number, M: number) =>
      Array.from({ length: M }, (_, m) => Math.hypot(...Array.from({ length: K }, (_, k) => A[k * M + m])));
    const a = sliceDirections(16, 64, 3);
    expect(a.data).toBeInstanceOf(Float64Array);
    expect(Math.max(...unit(a.data, 16, 64).map((x) => Math.abs(x - 1)))).toBeLessThan(1e-12);
    expect(sliceDirections(16, 64, 3).data).toEqual(a.data);
    expect(sliceDirections(16, 64, 4).data).not.toEqual(a.data);
    const t = sigregDirections(16, 64, 3);
    expect(t).toBeInstanceOf(Float32Array);
    expect(Math.max(...unit(t, 16, 64).map((x) => Math.abs(x - 1)))).toBeLessThan(1e-6);
  });
  it.each(['gauss', 'collapsed', 'half', 'double'])('%s input matches numpy to 1e-9 relative', async (name) => {
    const ref = g.epps_pulley[name];
    const r = await slicedEppsPulley(asMat(load(`ep_${name}.npy`)), dirs);
    expect(Math.abs(r.statistic - ref.statistic)).toBeLessThan(1e-9 * Math.max(1, ref.statistic));
  });
  it('analytic limits: Gaussian ~1.052, collapsed 0.402 N, sigma .5 -> 0.151 N, sigma 2 -> 0.236 N', async () => {
    const an = g.epps_pulley.analytic;
    expect(an.gauss).toBeCloseTo(1.052, 3);
    const collapsed = await slicedEppsPulley({ rows: 2048, cols: 16, data: new Float64Array(2048 * 16) }, dirs);
    expect(collapsed.statistic).toBeCloseTo(an.collapsed_per_n * 2048, 6);
    expect(collapsed.statistic).toBeCloseTo(823, 0);
    const n = 20000;
    const x = gaussianMatrix(rngFrom(7), n, 16);
    const scaled = (s: number) => ({ rows: n, cols: 16, data: x.data.map((v) => v * s) });
    expect((await slicedEppsPulley(x, dirs)).statistic).toBeLessThan(3); // O(1), not O(N)
    expect((await slicedEppsPulley(scaled(0.5), dirs)).statistic / n).toBeCloseTo(an.half_per_n, 2);
    expect((await slicedEppsPulley(scaled(2), dirs)).statistic / n).toBeCloseTo(an.double_per_n, 2);
  });
});

it('bootstrap percentiles follow numpy.percentile (linear)', () => {
  const sorted = Float64Array.from(g.percentile.x as number[]).sort();
  expect(percentile(sorted, 0.025)).toBeCloseTo(g.percentile['q2.5'], 12);
  expect(percentile(sorted, 0.975)).toBeCloseTo(g.percentile['q97.5'], 12);
});
