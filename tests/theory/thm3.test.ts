import { describe, expect, it } from 'vitest';
import { Matrix } from 'ml-matrix';
import {
  TheoryRng,
  prepareProp3,
  prop3Directions,
  thm3Demo,
  thm3Floor,
  uniformNuisance,
  uniformWorld,
  whitenedOptimum,
} from '../../engine/theory';
import { InputError } from '../../engine/errors';

describe('Thm 3 floor', () => {
  it('error >= 2k - 2 sum sqrt(lambda_i) >= 2k (1 - sqrt(eta)) for random, blended and Prop 3 embeddings', () => {
    for (const worldKind of ['uniform', 'clustered'] as const) {
      const d = thm3Demo({ n: 10, k: 3, m: 4, embeddings: 15, seed: 1, worldKind });
      expect(d.holds).toBe(true);
      for (const c of d.cases) {
        expect(c.error).toBeGreaterThanOrEqual(c.bound - 1e-12);
        expect(c.bound).toBeGreaterThanOrEqual(c.etaBound - 1e-12);
      }
      const random = d.cases.filter((c) => c.kind === 'random');
      expect(random.every((c) => c.error > c.bound + 1e-3)).toBe(true); // strict for generic embeddings
      // Blends cos t f* + sin t h (h a function of u alone) make all three equal: the floor is tight.
      for (const c of d.cases.filter((c) => c.kind.startsWith('blend'))) {
        expect(Math.abs(c.error - c.bound)).toBeLessThan(1e-12);
        expect(Math.abs(c.bound - c.etaBound)).toBeLessThan(1e-12);
      }
    }
  });

  it('the bad-view optimum at rho = 1 sits exactly on the floor: eta = 0, error = bound = 2k', () => {
    const world = uniformWorld(TheoryRng.stream(4), 10);
    const nuisance = uniformNuisance(5);
    const prep = prepareProp3(world, nuisance, 3);
    const Z = prop3Directions(prep, 1).vectors;
    const f = new Matrix(Z.to2DArray().map((row, x) => row.map((z) => z / Math.sqrt(world.pi[Math.floor(x / 5)] / 5))));
    const floor = thm3Floor(world, nuisance, f, whitenedOptimum(world, 3).f);
    expect(floor.eta).toBeLessThan(1e-12);
    expect(Math.abs(floor.error - 6)).toBeLessThan(1e-12);
    expect(Math.abs(floor.bound - 6)).toBeLessThan(1e-6); // sqrt of rounding-level eigenvalues (~1e-17) can reach ~1e-8
  });

  it('rejects an embedding that is not whitened', () => {
    const world = uniformWorld(TheoryRng.stream(4), 6);
    const nuisance = uniformNuisance(2);
    const f = Matrix.ones(12, 2);
    expect(() => thm3Floor(world, nuisance, f, whitenedOptimum(world, 2).f)).toThrow(InputError);
    expect(() => thm3Demo({ k: 4, m: 4 })).toThrow(/m >= k \+ 1/);
  });
});
