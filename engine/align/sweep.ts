// Pair-count sweep (docs/reference.md#pair-count-sweep): fit the map on n random fit pairs (several subsets per n), score on the test
// pairs and on the n fit pairs themselves (among their own n captions); the gap shows the map overfitting.
import { z } from 'zod';
import { InputError } from '../errors';
import { permutation, rngFrom, subRow, takeRows } from '../linalg';
import { EmbeddingsGuard, type Recall, fitOnRows, fitTestRows, retrieval } from './evaluate';
import { MapKind } from './map-kind';
import { RowSelection } from './rows';

export const SweepOptions = z.object({
  image: EmbeddingsGuard,
  text: EmbeddingsGuard,
  fit: RowSelection, // the pool the subsets are drawn from
  test: RowSelection,
  counts: z.array(z.number().int().min(2)).min(1),
  repeats: z.number().int().positive().default(5),
  map: z.enum(MapKind).default('procrustes'),
  seed: z.number().int().default(0),
});
export type SweepOptions = z.input<typeof SweepOptions>;

type Scores = { imageToText: Recall; textToImage: Recall };
export type SweepPoint = { n: number; repeat: number; rank: number; test: Scores; fit: Scores };
export type SweepSummary = {
  n: number;
  test: { imageToText: Recall; textToImage: Recall };
  fit: Scores;
  gapR1: number;
  sdTestR1: number;
};
export type Sweep = { freeParameters: number; points: SweepPoint[]; summary: SweepSummary[] };

const meanOf = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs: number[]) =>
  xs.length < 2 ? 0 : Math.sqrt(xs.reduce((a, x) => a + (x - meanOf(xs)) ** 2, 0) / (xs.length - 1));
const avgScores = (ps: Scores[]): Scores => {
  const avg = (dir: keyof Scores): Recall => ({
    r1: meanOf(ps.map((p) => p[dir].r1)),
    r5: meanOf(ps.map((p) => p[dir].r5)),
    r10: meanOf(ps.map((p) => p[dir].r10)),
  });
  return { imageToText: avg('imageToText'), textToImage: avg('textToImage') };
};

export async function sweepPairs(opts: SweepOptions): Promise<Sweep> {
  const o = SweepOptions.parse(opts);
  const { fit: pool, test } = fitTestRows(o);
  const tooBig = o.counts.find((n) => n > pool.length);
  if (tooBig) throw new InputError(`--counts: ${tooBig} pairs requested but the fit range has ${pool.length}`);
  const xt = takeRows(o.image, test);
  const yt = takeRows(o.text, test);
  const rng = rngFrom(o.seed);
  const points: SweepPoint[] = [];
  let freeParameters = 0;
  for (const n of o.counts) {
    for (let rep = 0; rep < o.repeats; rep++) {
      const rows = permutation(rng, pool.length)
        .subarray(0, n)
        .map((i) => pool[i]);
      const { alignment: a, x, y } = await fitOnRows(o.image, o.text, rows, o.map, o.seed + rep);
      freeParameters = a.map.freeParameters;
      const t = await retrieval(subRow(xt, a.imageMean), subRow(yt, a.textMean), a.w);
      const f = await retrieval(x, y, a.w);
      points.push({
        n,
        repeat: rep,
        rank: a.map.rank,
        test: { imageToText: t.i2t.recall, textToImage: t.t2i.recall },
        fit: { imageToText: f.i2t.recall, textToImage: f.t2i.recall },
      });
    }
  }
  const summary = o.counts.map((n): SweepSummary => {
    const ps = points.filter((p) => p.n === n);
    const testAvg = avgScores(ps.map((p) => p.test));
    const fitAvg = avgScores(ps.map((p) => p.fit));
    return {
      n,
      test: testAvg,
      fit: fitAvg,
      gapR1: fitAvg.imageToText.r1 - testAvg.imageToText.r1,
      sdTestR1: sd(ps.map((p) => p.test.imageToText.r1)),
    };
  });
  return { freeParameters, points, summary };
}
