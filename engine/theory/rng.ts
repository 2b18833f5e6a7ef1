// The theory demos' random streams: stream `index` of `seed` is xoroshiro128plus(seed) jumped index + 1 times
// (2^64 steps each), so stream i never depends on how many others ran.
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { RandomStream } from '../random';

export class TheoryRng extends RandomStream {
  static stream(seed: number, index = 0): TheoryRng {
    const gen = xoroshiro128plus(seed);
    for (let j = 0; j <= index; j++) gen.jump();
    return new TheoryRng(gen);
  }
}
