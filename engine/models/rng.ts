// Seeded random streams. Every draw in training comes from a stream keyed by (seed, purpose, counter), so a resumed
// run redraws exactly what an uninterrupted one would have, and the checkpoint only needs the counters.
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus, xoroshiro128plusFromState } from 'pure-rand/generator/xoroshiro128plus';

type Gen = ReturnType<typeof xoroshiro128plus>;

// splitmix32 finaliser: decorrelates nearby (seed, key) integers before they seed a generator.
const mix = (h: number): number => {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
};
const hashString = (s: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
};

export class Rng {
  private constructor(private g: Gen) {}
  static seeded(seed: number, ...key: (string | number)[]): Rng {
    let h = mix(seed >>> 0);
    for (const k of key) h = mix(h ^ (typeof k === 'string' ? hashString(k) : mix(k >>> 0) + 0x9e3779b9));
    return new Rng(xoroshiro128plus(h | 0));
  }
  static fromState(state: readonly number[]): Rng {
    return new Rng(xoroshiro128plusFromState(state));
  }
  state(): number[] {
    return [...this.g.getState()];
  }
  uniform(): number {
    return uniformFloat64(this.g);
  }
  // integer in [lo, hi] inclusive
  int(lo: number, hi: number): number {
    return lo + Math.min(hi - lo, Math.floor(this.uniform() * (hi - lo + 1)));
  }
  // Box-Muller; one normal per call keeps the stream position independent of caching.
  normal(): number {
    const u = 1 - this.uniform();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.uniform());
  }
  // Fisher-Yates permutation of 0..n-1
  permutation(n: number): Int32Array {
    const p = Int32Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = this.int(0, i);
      const t = p[i];
      p[i] = p[j];
      p[j] = t;
    }
    return p;
  }
}
