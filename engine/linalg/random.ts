// Seeded random draws for maps, subsets and resamples: every one is reproducible from one integer seed.
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { RandomStream } from '../random';
import type { Mat } from './matrix';

export const rngFrom = (seed: number): RandomStream => new RandomStream(xoroshiro128plus(seed | 0));

// n integers uniform on [0, hi) (with replacement).
export function randomInts(rng: RandomStream, n: number, hi: number): Int32Array {
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = rng.int(0, hi - 1);
  return out;
}

// Fisher-Yates permutation of 0..n-1.
export const permutation = (rng: RandomStream, n: number): Int32Array => rng.permutation(n);

// [rows, cols] of N(0, 1) by Box-Muller, both values of each pair (cos and sin), unlike RandomStream.normal: the
// random maps and the ceiling's concept embeddings were drawn so.
export function gaussianMatrix(rng: RandomStream, rows: number, cols: number): Mat {
  const data = new Float64Array(rows * cols);
  for (let i = 0; i < data.length; i += 2) {
    const u = 1 - rng.uniform(); // (0, 1]
    const v = rng.uniform();
    const r = Math.sqrt(-2 * Math.log(u));
    data[i] = r * Math.cos(2 * Math.PI * v);
    if (i + 1 < data.length) data[i + 1] = r * Math.sin(2 * Math.PI * v);
  }
  return { rows, cols, data };
}
