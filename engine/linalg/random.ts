// Seeded random draws (pure-rand xoroshiro128+): every map, subset and resample is reproducible from one integer seed.
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { Mat } from './matrix';

export type Rng = ReturnType<typeof xoroshiro128plus>;

export const rngFrom = (seed: number): Rng => xoroshiro128plus(seed | 0);

// n integers uniform on [0, hi) (with replacement).
export function randomInts(rng: Rng, n: number, hi: number): Int32Array {
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = uniformInt(rng, 0, hi - 1);
  return out;
}

// Fisher-Yates permutation of 0..n-1.
export function permutation(rng: Rng, n: number): Int32Array {
  const p = Int32Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = uniformInt(rng, 0, i);
    [p[i], p[j]] = [p[j], p[i]];
  }
  return p;
}

// [rows, cols] of N(0, 1) by Box-Muller.
export function gaussianMatrix(rng: Rng, rows: number, cols: number): Mat {
  const data = new Float64Array(rows * cols);
  for (let i = 0; i < data.length; i += 2) {
    const u = 1 - uniformFloat64(rng); // (0, 1]
    const v = uniformFloat64(rng);
    const r = Math.sqrt(-2 * Math.log(u));
    data[i] = r * Math.cos(2 * Math.PI * v);
    if (i + 1 < data.length) data[i + 1] = r * Math.sin(2 * Math.PI * v);
  }
  return { rows, cols, data };
}
