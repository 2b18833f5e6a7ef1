import { describe, expect, it } from 'vitest';
import {
  TheoryRng,
  nuisanceFrom,
  prepareProp3,
  prop3Directions,
  prop3Point,
  rhoGrid,
  uniformNuisance,
  uniformWorld,
  clusteredWorld,
} from '../../engine/theory';
import { InputError } from '../../engine/errors';

const world30 = uniformWorld(TheoryRng.stream(0, 0), 30);
const prep30 = prepareProp3(world30, uniformNuisance(6), 4);

describe('Prop 3: good vs bad views', () => {
  it('good views (rho = 0) recover the world optimum: error ~ 0, r = 0', () => {
    for (const world of [world30, clusteredWorld(TheoryRng.stream(0, 1), 30, 5, 0.8)]) {
      const p = prop3Point(prepareProp3(world, uniformNuisance(6), 4), 0);
      expect(p.r).toBe(0);
      expect(Math.abs(p.error)).toBeLessThan(1e-12);
      expect(Math.abs(p.beta1)).toBeLessThan(1e-15);
    }
  });

  it('rho = 1 (nuisance eigenvalue 1 with multiplicity m - 1, tied with the constant): r = k = 4, error = 2k = 8', () => {
    const p = prop3Point(prep30, 1);
    expect(p.r).toBe(4);
    expect(p.rFormula).toBe(4);
    expect(Math.abs(p.error - 8)).toBeLessThan(1e-12);
    expect(p.tie).toBe(true); // 5 nuisance directions at eigenvalue 1, 4 chosen
    expect(Math.abs(p.beta1 - 1)).toBeLessThan(1e-14);
  });

  it('error = 2r on the whole grid, r matches min(m - 1, #{alpha_i < rho}), threshold at alpha_k', () => {
    for (const rho of rhoGrid(41)) {
      const p = prop3Point(prep30, rho);
      expect(Math.abs(p.error - 2 * p.r), `rho ${rho}`).toBeLessThan(1e-12);
      expect(p.r).toBe(p.rFormula);
      expect(p.r >= 1).toBe(rho > p.alphaK);
      for (const frac of p.worldFraction) expect(Math.min(frac, 1 - frac)).toBeLessThan(1e-12); // each direction is pure
    }
  });

  it('the Kronecker path matches the brute-force joint EVD on a small world', () => {
    const world = uniformWorld(TheoryRng.stream(9), 8);
    for (const [nuisance, k] of [
      [uniformNuisance(3), 2],
      [nuisanceFrom(Float64Array.from([0.1, 0.2, 0.3, 0.4])), 3],
      [uniformNuisance(3), 4], // m - 1 < k: at rho = 1 mixed directions tie with the world-only one
    ] as const) {
      const prep = prepareProp3(world, nuisance, k);
      for (const rho of [0, 0.05, 0.15, 0.3, 0.5, 0.8, 0.95, 1]) {
        const a = prop3Point(prep, rho, 'kronecker');
        const b = prop3Point(prep, rho, 'joint');
        const where = `m ${nuisance.m} k ${k} rho ${rho}`;
        expect(b.r, where).toBe(a.r);
        expect(b.tie, where).toBe(a.tie);
        expect(Math.abs(a.error - b.error), where).toBeLessThan(1e-12);
        expect(Math.abs(a.beta1 - b.beta1), where).toBeLessThan(1e-14);
        // Same chosen subspace: projectors agree (the tie rule picks a subspace, not just a count).
        const Za = prop3Directions(prep, rho, 'kronecker').vectors;
        const Zb = prop3Directions(prep, rho, 'joint').vectors;
        expect(Za.mmul(Za.transpose()).sub(Zb.mmul(Zb.transpose())).abs().max(), where).toBeLessThan(1e-9);
      }
    }
  });

  it('with m - 1 < k the tie at rho = 1 keeps the world-only direction before mixed ones', () => {
    const world = uniformWorld(TheoryRng.stream(11), 10);
    const prep = prepareProp3(world, uniformNuisance(3), 4);
    const p = prop3Point(prep, 1, 'joint');
    // 2 nuisance directions at 1, then alpha_1 (world-only) tied with alpha_1 * 1 (two mixed): pick world-only + one mixed.
    expect(p.tie).toBe(true);
    expect(p.r).toBe(3);
    expect(Math.abs(p.error - 6)).toBeLessThan(1e-12);
    expect(p.worldFraction.filter((x) => x > 0.5).length).toBe(1);
  });

  it('rejects rho outside [0, 1] and too few nuisance values', () => {
    expect(() => prop3Point(prep30, 1.5)).toThrow(InputError);
    expect(() => uniformNuisance(1)).toThrow(InputError);
    expect(() => nuisanceFrom(Float64Array.from([0.5, 0.6]))).toThrow(/sums to/);
    expect(() => prepareProp3(uniformWorld(TheoryRng.stream(1), 5), uniformNuisance(3), 5)).toThrow(
      /at most n - 1 = 4/,
    );
  });
});
