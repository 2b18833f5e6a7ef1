// Seeded random numbers for the theory worlds: pure-rand's xoroshiro128plus plus the few draws we need.
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import type { JumpableRandomGenerator } from 'pure-rand/types/JumpableRandomGenerator';

export class Rng {
  private constructor(private readonly gen: JumpableRandomGenerator) {}

  // Stream `index` of `seed`: index + 1 jumps (2^64 steps each) apart, so stream i never depends on how many others ran.
  static stream(seed: number, index = 0): Rng {
    const gen = xoroshiro128plus(seed);
    for (let j = 0; j <= index; j++) gen.jump();
    return new Rng(gen);
  }

  // U[0, 1), 53 random bits.
  uniform(): number {
    return uniformFloat64(this.gen);
  }

  // Integer in [from, to], both included.
  int(from: number, to: number): number {
    return uniformInt(this.gen, from, to);
  }

  // Standard normal by Box-Muller (pure-rand has no normal draw); 1 - u keeps log away from 0.
  normal(): number {
    const u = 1 - this.uniform();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.uniform());
  }

  // Uniformly random permutation of 0..n-1 (Fisher-Yates).
  permutation(n: number): number[] {
    const p = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = this.int(0, i);
      [p[i], p[j]] = [p[j], p[i]];
    }
    return p;
  }
}
