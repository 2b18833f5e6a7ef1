// Paired bootstrap over test items: one set of B resampled index vectors (seeded) is shared by every arm and
// metric, so CIs of differences keep the per-item correlation between arms. Covers test-pair sampling only.
import { randomInts, rngFrom } from '../linalg';

export type Interval = { estimate: number; lo: number; hi: number };
export type BootstrapResult = {
  resamples: number;
  seed: number;
  level: number;
  scores: Record<string, Interval>;
  differences: Array<{ a: string; b: string } & Interval>; // estimate = mean(x_a - x_b)
};

// numpy.percentile's default (linear interpolation between order statistics); q in [0, 1].
export function percentile(sorted: Float64Array, q: number): number {
  const pos = q * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
}

// samples: named per-item values (e.g. hits 0/1 or mutual-kNN overlaps), all of length n and item-aligned.
// `pairs` lists the differences to report (default: every pair in insertion order).
export function pairedBootstrap(
  samples: Record<string, ArrayLike<number>>,
  opts: { resamples?: number; seed?: number; level?: number; pairs?: Array<[string, string]> } = {},
): BootstrapResult {
  const { resamples = 2000, seed = 0, level = 0.95 } = opts;
  const names = Object.keys(samples);
  const n = samples[names[0]]?.length ?? 0;
  for (const k of names)
    if (samples[k].length !== n)
      throw new Error(`pairedBootstrap: '${k}' has ${samples[k].length} items, expected ${n}`);
  if (n === 0) throw new Error('pairedBootstrap: no items');
  const idx = randomInts(rngFrom(seed), resamples * n, n); // [B, n]
  // means[name][b] = mean of samples[name] over resample b
  const means: Record<string, Float64Array> = {};
  for (const k of names) {
    const x = Float64Array.from(samples[k]);
    const m = new Float64Array(resamples);
    for (let b = 0; b < resamples; b++) {
      let s = 0;
      const o = b * n;
      for (let i = 0; i < n; i++) s += x[idx[o + i]];
      m[b] = s / n;
    }
    means[k] = m;
  }
  const avg = (x: ArrayLike<number>) => {
    let s = 0;
    for (let i = 0; i < x.length; i++) s += x[i];
    return s / x.length;
  };
  const tail = (1 - level) / 2;
  const interval = (estimate: number, dist: Float64Array): Interval => {
    const sorted = dist.slice().sort();
    return { estimate, lo: percentile(sorted, tail), hi: percentile(sorted, 1 - tail) };
  };
  const scores: Record<string, Interval> = {};
  for (const k of names) scores[k] = interval(avg(samples[k]), means[k]);
  const pairs = opts.pairs ?? names.flatMap((a, i) => names.slice(i + 1).map((b): [string, string] => [a, b]));
  const differences = pairs.map(([a, b]) => {
    const d = means[a].map((v, i) => v - means[b][i]);
    return { a, b, ...interval(avg(samples[a]) - avg(samples[b]), d) };
  });
  return { resamples, seed, level, scores, differences };
}
