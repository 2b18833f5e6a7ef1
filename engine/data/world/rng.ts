// Seeded random streams. Each scene, caption and rendering draws from its own stream, keyed by
// (seed, purpose, index), so a scene looks the same whatever is generated before or around it.
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { uniformInt } from 'pure-rand/distribution/uniformInt';

type Generator = ReturnType<typeof xoroshiro128plus>;

// splitmix32-style mixing of a key path into one 32-bit seed; hand-written because pure-rand has no keyed derivation.
const mix = (h: number, v: number): number => {
  h = Math.imul(h ^ (v >>> 0), 0x85ebca6b) + 0x9e3779b9;
  h = Math.imul(h ^ (h >>> 15), 0xc2b2ae35);
  return (h ^ (h >>> 13)) | 0;
};

export class Rng {
  private readonly g: Generator;

  constructor(seed: number, ...key: number[]) {
    this.g = xoroshiro128plus(key.reduce(mix, mix(0x2545f491, seed)));
  }

  /** Uniform in [0, 1). */
  float(): number {
    return uniformFloat64(this.g);
  }

  /** Uniform integer in [lo, hi], both included. */
  int(lo: number, hi: number): number {
    return uniformInt(this.g, lo, hi);
  }

  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.float();
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(xs: readonly T[]): T {
    return xs[this.int(0, xs.length - 1)];
  }

  /** A shuffled copy (Fisher-Yates). */
  shuffled<T>(xs: readonly T[]): T[] {
    const out = [...xs];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }

  /** Standard normal (Box-Muller). */
  normal(): number {
    const u = 1 - this.float();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.float());
  }
}
