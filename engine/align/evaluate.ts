// One arm's evaluation (docs/reference.md#evaluation): centre with fit-row means, fit the map on fit pairs, map the test
// images, score cosine retrieval both ways (R@1/5/10) and mutual k-NN / linear CKA on the raw test features.
import { z } from 'zod';
import type { Embeddings } from '../embeddings';
import { InputError } from '../errors';
import { type Mat, colMeans, gemm, normalizeRows, subRow, takeRows } from '../linalg';
import {
  type Cka,
  chanceRecall,
  ckaFromKernels,
  cosineSimilarity,
  hitsAt,
  mean,
  mutualKnnFromGrams,
  retrievalRanks,
} from '../metrics';
import { MapKind } from './map-kind';
import { fitMap } from './maps';
import { RowSelection, assertDisjoint, resolveRows } from './rows';

export const EmbeddingsGuard = z.custom<Embeddings>(
  (e) =>
    typeof e === 'object' &&
    e !== null &&
    Number.isInteger((e as Embeddings).rows) &&
    Number.isInteger((e as Embeddings).dim) &&
    ((e as Embeddings).data instanceof Float32Array || (e as Embeddings).data instanceof Float64Array) &&
    (e as Embeddings).data.length === (e as Embeddings).rows * (e as Embeddings).dim &&
    (e as Embeddings).rows > 0,
  { message: 'expected { rows, dim, data: Float32Array | Float64Array } with data.length = rows * dim' },
);

export const AlignOptions = z.object({
  image: EmbeddingsGuard,
  text: EmbeddingsGuard,
  fit: RowSelection,
  map: z.enum(MapKind).default('procrustes'),
  seed: z.number().int().default(0),
});
export type AlignOptions = z.input<typeof AlignOptions>;

export const EvaluateOptions = AlignOptions.extend({
  test: RowSelection,
  k: z.number().int().positive().default(10),
});
export type EvaluateOptions = z.input<typeof EvaluateOptions>;

// What the demo and the scorers need: subtract the means, multiply images by W.
export type Alignment = {
  imageMean: Float64Array; // [dImg], from fit rows
  textMean: Float64Array; // [dTxt], from fit rows
  w: Mat; // [dImg, dTxt]
  map: {
    kind: MapKind;
    seed: number;
    rank: number;
    freeParameters: number;
    fitPairs: number;
    fitResidual: number;
    fitRelativeResidual: number;
  };
};

export type Recall<T = number> = { r1: T; r5: T; r10: T }; // R@1, R@5, R@10 (or per-query hits)
export type Evaluation = {
  rows: { fit: number; test: number };
  dims: { image: number; text: number };
  map: Alignment['map'];
  imageToText: Recall;
  textToImage: Recall;
  chance: Recall & { mknn: number };
  mknn: { k: number; score: number | null; degenerate: boolean; reason: string | null; tiedQueries: number };
  cka: Cka;
  nanQueries: number; // queries whose true-pair cosine is NaN (zero vector), counted as misses
  ranks: { imageToText: number[]; textToImage: number[] };
  perQueryHits: { imageToText: Recall<number[]>; textToImage: Recall<number[]>; mknn: number[] };
  warnings: string[]; // why these scores may not mean much (an under-determined map, empty embeddings)
};

// Each fit pair gives d_txt equations for the map's free parameters; fewer equations than parameters leave the
// map undetermined by the data (docs/reference.md#free-parameters): at least ceil(free / d_txt) pairs are needed.
export const pairsNeeded = (freeParameters: number, dText: number): number => Math.ceil(freeParameters / dText);

function rowsWarnings(side: 'image' | 'text', e: Embeddings, rows: Int32Array): string[] {
  let zero = 0;
  let identical = true;
  const first = rows[0] * e.dim;
  for (const r of rows) {
    let any = false;
    for (let d = 0; d < e.dim; d++) {
      const v = e.data[r * e.dim + d];
      if (v !== 0) any = true;
      if (v !== e.data[first + d]) identical = false;
    }
    if (!any) zero++;
  }
  if (zero === rows.length)
    return [
      `the ${side} embeddings are all zero on the fit and test rows: every cosine is undefined, so R@k is 0 and mutual k-NN is degenerate`,
    ];
  if (identical)
    return [
      `every ${side} embedding on the fit and test rows is the same vector (a collapsed encoder): all scores are ties`,
    ];
  return zero
    ? [`${zero} of ${rows.length} ${side} rows (fit and test) are zero vectors; their queries count as misses`]
    : [];
}

function evaluationWarnings(
  o: { image: Embeddings; text: Embeddings },
  fit: Int32Array,
  test: Int32Array,
  map: Alignment['map'],
): string[] {
  const out: string[] = [];
  const need = pairsNeeded(map.freeParameters, o.text.dim);
  if (map.kind !== 'random' && map.fitPairs < need)
    out.push(
      `the map has ${map.freeParameters.toLocaleString('en')} free parameters but was fitted on ${map.fitPairs} pairs (${map.fitPairs * o.text.dim} equations): it needs at least ${need} pairs to be determined by the data, so these test scores say little`,
    );
  const rows = Int32Array.from([...fit, ...test]);
  return [...out, ...rowsWarnings('image', o.image, rows), ...rowsWarnings('text', o.text, rows)];
}

export function checkPaired(image: Embeddings, text: Embeddings): void {
  if (image.rows !== text.rows)
    throw new InputError(
      `image and text embeddings must pair row by row: image has ${image.rows} rows, text has ${text.rows}`,
    );
}

const frob = (a: Mat, b: Mat): number => {
  let s = 0;
  for (let i = 0; i < a.data.length; i++) s += (a.data[i] - b.data[i]) ** 2;
  return Math.sqrt(s);
};

// Centre on fit rows and fit the map.
export async function fitAlignment(opts: AlignOptions): Promise<Alignment> {
  const o = AlignOptions.parse(opts);
  checkPaired(o.image, o.text);
  return (await fitOnRows(o.image, o.text, resolveRows(o.fit, o.image.rows, 'fit'), o.map, o.seed)).alignment;
}

// fitOnRows also returns the centred fit rows x: [n, dImg], y: [n, dTxt] for scoring the fit pairs themselves.
export async function fitOnRows(image: Embeddings, text: Embeddings, fit: Int32Array, kind: MapKind, seed: number) {
  const xf = takeRows(image, fit);
  const yf = takeRows(text, fit);
  const imageMean = colMeans(xf);
  const textMean = colMeans(yf);
  const x = subRow(xf, imageMean);
  const y = subRow(yf, textMean);
  const m = await fitMap(kind, x, y, seed);
  const fitResidual = frob(await gemm(x, m.w), y);
  let yy = 0;
  for (const v of y.data) yy += v * v;
  const alignment: Alignment = {
    imageMean,
    textMean,
    w: m.w,
    map: {
      kind,
      seed,
      rank: m.rank,
      freeParameters: m.freeParameters,
      fitPairs: fit.length,
      fitResidual,
      fitRelativeResidual: fitResidual / Math.sqrt(yy),
    },
  };
  return { alignment, x, y };
}

// Retrieval among paired rows: images (centred) mapped by W against centred texts.
export async function retrieval(xc: Mat, yc: Mat, w: Mat) {
  const ranks = retrievalRanks(await cosineSimilarity(await gemm(xc, w), yc));
  const recall = (r: Int32Array) => {
    const h = { r1: hitsAt(r, 1), r5: hitsAt(r, 5), r10: hitsAt(r, 10) };
    return { hits: h, recall: { r1: mean(h.r1), r5: mean(h.r5), r10: mean(h.r10) } };
  };
  const n = xc.rows;
  let nan = 0;
  for (const r of ranks.imageToText) if (r === n) nan++;
  return { ranks, i2t: recall(ranks.imageToText), t2i: recall(ranks.textToImage), nan };
}

// The fit and test rows of a paired image/text set, checked: same row count, in range, no test row fitted on.
export function fitTestRows(o: { image: Embeddings; text: Embeddings; fit: RowSelection; test: RowSelection }): {
  fit: Int32Array;
  test: Int32Array;
} {
  checkPaired(o.image, o.text);
  const fit = resolveRows(o.fit, o.image.rows, 'fit');
  const test = resolveRows(o.test, o.image.rows, 'test');
  assertDisjoint(fit, test);
  return { fit, test };
}

export async function evaluate(opts: EvaluateOptions): Promise<Evaluation> {
  const o = EvaluateOptions.parse(opts);
  const { fit, test } = fitTestRows(o);
  if (test.length < o.k + 1)
    throw new InputError(`test: ${test.length} rows are too few for k=${o.k} nearest neighbours`);
  const { alignment: a } = await fitOnRows(o.image, o.text, fit, o.map, o.seed);
  const xt = takeRows(o.image, test);
  const yt = takeRows(o.text, test);
  const r = await retrieval(subRow(xt, a.imageMean), subRow(yt, a.textMean), a.w);
  // mutual k-NN and CKA: no map, raw test features, unit rows (platonic-rep compute_score)
  const fa = normalizeRows(xt);
  const fb = normalizeRows(yt);
  const [ga, gb] = await Promise.all([gemm(fa, fa, false, true), gemm(fb, fb, false, true)]);
  const knn = mutualKnnFromGrams(fa, fb, ga, gb, o.k);
  const n = test.length;
  return {
    rows: { fit: fit.length, test: n },
    dims: { image: o.image.dim, text: o.text.dim },
    map: a.map,
    imageToText: r.i2t.recall,
    textToImage: r.t2i.recall,
    chance: { r1: chanceRecall(1, n), r5: chanceRecall(5, n), r10: chanceRecall(10, n), mknn: knn.chance },
    mknn: { k: knn.k, score: knn.score, degenerate: knn.degenerate, reason: knn.reason, tiedQueries: knn.tiedQueries },
    cka: ckaFromKernels(ga, gb),
    nanQueries: r.nan,
    ranks: { imageToText: Array.from(r.ranks.imageToText), textToImage: Array.from(r.ranks.textToImage) },
    perQueryHits: { imageToText: r.i2t.hits, textToImage: r.t2i.hits, mknn: knn.perItem },
    warnings: evaluationWarnings(o, fit, test, a.map),
  };
}

// docs/reference.md#controls: the fitted map next to its two controls, which should land near chance.
export async function controls(opts: EvaluateOptions): Promise<Record<MapKind, Evaluation>> {
  const out = {} as Record<MapKind, Evaluation>;
  for (const kind of MapKind) out[kind] = await evaluate({ ...opts, map: kind });
  return out;
}
