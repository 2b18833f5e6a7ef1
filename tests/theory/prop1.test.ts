import { describe, expect, it } from 'vitest';
import {
  TheoryRng,
  clusteredWorld,
  crossMoment,
  pairLoss,
  prop1,
  tiedWorld,
  uniformWorld,
  whitenedOptimum,
} from '../../engine/theory';
import { InputError } from '../../engine/errors';

describe('Prop 1: whitened squared loss = Laplacian eigenmaps', () => {
  it('loss computed over the joint equals 2(k - sum mu_i), and f is whitened', () => {
    for (const [i, world] of [
      uniformWorld(TheoryRng.stream(0, 0), 20),
      clusteredWorld(TheoryRng.stream(0, 1), 20, 4, 0.8),
    ].entries()) {
      for (const k of [1, 3, 7, 19]) {
        const res = prop1(world, k);
        expect(Math.abs(res.loss - res.lossFormula), `world ${i} k ${k}`).toBeLessThan(1e-12);
        const { f } = whitenedOptimum(world, k);
        const mean = Array.from({ length: k }, (_, a) => world.pi.reduce((acc, p, s) => acc + p * f.get(s, a), 0));
        expect(Math.max(...mean.map(Math.abs))).toBeLessThan(1e-13);
        const cov = crossMoment(f, f, world.pi);
        for (let a = 0; a < k; a++)
          for (let b = 0; b < k; b++) expect(Math.abs(cov.get(a, b) - (a === b ? 1 : 0))).toBeLessThan(1e-12);
      }
    }
  });

  it('swapping an optimal direction for a lower one costs exactly 2(mu_i - mu_j)', () => {
    const world = uniformWorld(TheoryRng.stream(2), 12);
    const k = 3;
    const opt = whitenedOptimum(world, k);
    const mu = opt.spectrum.values;
    const f = opt.f.clone(); // direction 3 -> direction 5: still whitened
    for (let s = 0; s < world.n; s++) f.set(s, 2, opt.spectrum.vectors.get(s, 4) / Math.sqrt(world.pi[s]));
    const worse = pairLoss(world, f);
    expect(worse).toBeGreaterThan(pairLoss(world, opt.f) + 1e-6);
    expect(Math.abs(worse - (pairLoss(world, opt.f) + 2 * (mu[2] - mu[4])))).toBeLessThan(1e-12);
  });

  it('reports the gap and uniqueness; with no gap the optimum is flagged not unique but the loss identity holds', () => {
    const base = uniformWorld(TheoryRng.stream(4), 15);
    const withGap = prop1(base, 3);
    expect(withGap.unique).toBe(true);
    expect(withGap.gap).toBeGreaterThan(1e-4);
    const tied = tiedWorld(base, 3);
    const res = prop1(tied, 3);
    expect(Math.abs(res.mu[2] - res.mu[3])).toBeLessThan(1e-14);
    expect(res.unique).toBe(false);
    expect(res.tie).toBe(true);
    expect(Math.abs(res.loss - res.lossFormula)).toBeLessThan(1e-12);
    // k = 4 takes the whole tied pair: unique again.
    expect(prop1(tied, 4).unique).toBe(true);
  });

  it('k = n - 1 is the last valid width; k >= n and k < 1 are input errors', () => {
    const world = uniformWorld(TheoryRng.stream(6), 6);
    const full = prop1(world, 5);
    expect(full.gap).toBeNull();
    expect(full.unique).toBe(true);
    expect(Math.abs(full.loss - full.lossFormula)).toBeLessThan(1e-12);
    expect(() => prop1(world, 6)).toThrow(InputError);
    expect(() => prop1(world, 6)).toThrow(/at most n - 1 = 5 non-trivial directions/);
    expect(() => prop1(world, 0)).toThrow(InputError);
  });
});
