// Seeded random draws on a pure-rand generator. Each family of streams (training, world, theory, linalg) keeps its
// own seeding, because recorded runs, goldens and the shipped world encoder were drawn with it; the draws are here once.
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';

export class RandomStream {
  constructor(protected readonly gen: RandomGenerator) {}

  // U[0, 1), 53 random bits.
  uniform(): number {
    return uniformFloat64(this.gen);
  }

  // U[lo, hi).
  between(lo: number, hi: number): number {
    return lo + (hi - lo) * this.uniform();
  }

  // Integer in [lo, hi], both included.
  int(lo: number, hi: number): number {
    return uniformInt(this.gen, lo, hi);
  }

  chance(p: number): boolean {
    return this.uniform() < p;
  }

  pick<T>(xs: readonly T[]): T {
    return xs[this.int(0, xs.length - 1)];
  }

  // Standard normal by Box-Muller, one per call (pure-rand has none); 1 - u keeps log away from 0.
  normal(): number {
    const u = 1 - this.uniform();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.uniform());
  }

  // Uniformly random permutation of 0..n-1.
  permutation(n: number): Int32Array {
    return this.shuffle(Int32Array.from({ length: n }, (_, i) => i));
  }

  // A shuffled copy.
  shuffled<T>(xs: readonly T[]): T[] {
    return this.shuffle([...xs]);
  }

  // Fisher-Yates in place, from the last element down.
  private shuffle<A extends { [i: number]: unknown; length: number }>(xs: A): A {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      const t = xs[i];
      xs[i] = xs[j];
      xs[j] = t;
    }
    return xs;
  }
}
