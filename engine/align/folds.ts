// Scoring a text encoder on the fit pairs alone, for checkpoint selection (never test data): two folds, the map fitted
// on one half of the fit rows (the even positions) and scored on the other, and the other way round; the mean
// image -> text R@1. Each half ranks among its own ~n/2 captions, so the score is higher than a test R@1 over n.
import type { Embeddings } from '../embeddings';
import { InputError } from '../errors';
import { takeRows, subRow } from '../linalg';
import { checkPaired, fitOnRows, retrieval } from './evaluate';
import { RowSelection, resolveRows } from './rows';

export async function foldR1(image: Embeddings, text: Embeddings, fit: RowSelection): Promise<number> {
  checkPaired(image, text);
  const rows = resolveRows(fit, image.rows, 'fit');
  if (rows.length < 4) throw new InputError(`fit: ${rows.length} pairs are too few to score in two folds`);
  const half = (parity: number) => rows.filter((_, i) => i % 2 === parity);
  let sum = 0;
  for (const [on, at] of [
    [half(0), half(1)],
    [half(1), half(0)],
  ]) {
    const { alignment: a } = await fitOnRows(image, text, on, 'procrustes', 0);
    const r = await retrieval(subRow(takeRows(image, at), a.imageMean), subRow(takeRows(text, at), a.textMean), a.w);
    sum += r.i2t.recall.r1;
  }
  return sum / 2;
}
