// Training's random streams. Every draw in training comes from a stream keyed by (seed, purpose, counter), so a
// resumed run redraws exactly what an uninterrupted one would have, and the checkpoint only needs the counters.
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { RandomStream } from '../random';

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

export class TrainRng extends RandomStream {
  static seeded(seed: number, ...key: (string | number)[]): TrainRng {
    let h = mix(seed >>> 0);
    for (const k of key) h = mix(h ^ (typeof k === 'string' ? hashString(k) : mix(k >>> 0) + 0x9e3779b9));
    return new TrainRng(xoroshiro128plus(h | 0));
  }

  // Integer in [lo, hi] by scaling one uniform, not pure-rand's uniformInt: training's recorded streams (views,
  // batches, orders, and so the shipped world encoder) were drawn this way.
  override int(lo: number, hi: number): number {
    return lo + Math.min(hi - lo, Math.floor(this.uniform() * (hi - lo + 1)));
  }
}
