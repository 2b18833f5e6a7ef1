// The world's random streams. Each scene, caption and rendering draws from its own stream, keyed by
// (seed, purpose, index), so a scene looks the same whatever is generated before or around it.
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { RandomStream } from '../../random';

// splitmix32-style mixing of a key path into one 32-bit seed; hand-written because pure-rand has no keyed derivation.
const mix = (h: number, v: number): number => {
  h = Math.imul(h ^ (v >>> 0), 0x85ebca6b) + 0x9e3779b9;
  h = Math.imul(h ^ (h >>> 15), 0xc2b2ae35);
  return (h ^ (h >>> 13)) | 0;
};

export class WorldRng extends RandomStream {
  constructor(seed: number, ...key: number[]) {
    super(xoroshiro128plus(key.reduce(mix, mix(0x2545f491, seed))));
  }
}
