// The seeded split of a dataset whose files carry none (Flickr30k's own files, Kaggle Flickr8k, a plain caption
// table): the held-out photo counts default to val 1,014 / test 1,000 (the paper's fit / test pairs), at most 10%
// each; given counts (an experiment's --fit-pairs / --test-pairs) are taken as asked while a training split remains.
import { SeededSplit, type Split } from '../../shared/dataset';
import { InputError } from '../errors';
import { WorldRng } from './world/rng';

export type SplitOptions = SeededSplit;

const DEFAULT_HELD = { val: 1014, test: 1000 };

/** split[i] of n photos; the same (n, options) give the same split in every process. */
export function seededSplit(
  n: number,
  source: string,
  options: SplitOptions = {},
): { split: Split[]; params: Record<string, number | string> } {
  const o = SeededSplit.parse(options);
  const nVal = o.val ?? Math.min(DEFAULT_HELD.val, Math.floor(n / 10));
  const nTest = o.test ?? Math.min(DEFAULT_HELD.test, Math.floor(n / 10));
  if (nVal + nTest >= n)
    throw new InputError(
      `${source}: ${n} photos cannot hold ${nVal} val + ${nTest} test photos and still leave photos to train on`,
    );
  const order = new WorldRng(o.seed, 7).shuffled(Array.from({ length: n }, (_, i) => i));
  const split = new Array<Split>(n).fill('train');
  order.slice(0, nVal).forEach((i) => (split[i] = 'val'));
  order.slice(nVal, nVal + nTest).forEach((i) => (split[i] = 'test'));
  return { split, params: { split: 'seeded', splitSeed: o.seed, val: nVal, test: nTest } };
}

/** k of n indices, a seeded draw (keyed by `key`), returned in increasing order. */
export function seededSubset(n: number, k: number, seed: number, key: number): number[] {
  return new WorldRng(seed, 11, key)
    .shuffled(Array.from({ length: n }, (_, i) => i))
    .slice(0, k)
    .sort((a, b) => a - b);
}
