import { describe, expect, it } from 'vitest';
import {
  TheoryRng,
  randomRendering,
  solveModality,
  onStates,
  thm1Case,
  thm1Demo,
  uniformWorld,
  tiedWorld,
  rotationError,
} from '../../engine/theory';
import { InputError } from '../../engine/errors';

describe('Thm 1: injective renderings with the same positives agree up to one rotation', () => {
  it('with an eigengap the two modalities agree to machine precision', () => {
    for (const worldKind of ['uniform', 'clustered'] as const) {
      const demo = thm1Demo({ n: 14, k: 3, seed: 2, worldKind });
      expect(demo.gap.unique).toBe(true);
      expect(demo.gap.gap).toBeGreaterThan(1e-6);
      expect(Math.abs(demo.gap.error)).toBeLessThan(1e-12);
      expect(demo.gap.maxAbsDeviation).toBeLessThan(1e-12);
      expect(Math.abs(demo.gap.lossA - demo.gap.lossFormula)).toBeLessThan(1e-12);
      expect(Math.abs(demo.gap.lossB - demo.gap.lossFormula)).toBeLessThan(1e-12);
      const Q = demo.gap.rotation;
      for (let a = 0; a < 3; a++)
        for (let b = 0; b < 3; b++)
          expect(Math.abs(Q[a].reduce((acc, x, i) => acc + x * Q[b][i], 0) - (a === b ? 1 : 0))).toBeLessThan(1e-12);
    }
  });

  it('each modality solves on its own observation labels (the renderings really differ)', () => {
    const rng = TheoryRng.stream(8);
    const world = uniformWorld(rng, 10);
    const rA = randomRendering(rng, 10, 17);
    const rB = randomRendering(rng, 10, 23);
    expect(rA.map).not.toEqual(rB.map);
    const A = solveModality(world, rA, 2);
    expect(A.observed.n).toBe(10);
    // f_A read on states is not the world's own optimum row for row (labels are permuted), yet aligns with it.
    const { result } = thm1Case(world, 2, rA, rB);
    expect(Math.abs(result.error)).toBeLessThan(1e-12);
    expect(onStates(A, A.optimum.f).rows).toBe(10);
  });

  it('without a gap the answer is not determined: an equally optimal f_B loses a whole direction', () => {
    const demo = thm1Demo({ n: 12, k: 3, seed: 0 });
    const c = demo.noGap;
    expect(c.unique).toBe(false);
    expect(Math.abs(c.muK - c.muK1)).toBeLessThan(1e-14);
    expect(Math.abs(c.lossAlternative - c.lossFormula)).toBeLessThan(1e-12);
    expect(Math.abs(c.lossB - c.lossFormula)).toBeLessThan(1e-12);
    expect(Math.abs(c.errorAlternative - 2)).toBeLessThan(1e-12);
  });

  it('a rotation within the tied eigenspace is also optimal and is not a global rotation of f_A', () => {
    const rng = TheoryRng.stream(12);
    const world = tiedWorld(uniformWorld(rng, 12), 2);
    const rA = randomRendering(rng, 12, 15);
    const rB = randomRendering(rng, 12, 15);
    const { A, B } = thm1Case(world, 2, rA, rB);
    const G = B.optimum.spectrum.vectors;
    const t = 0.6; // mix direction 2 with the tied direction 3 inside B's problem
    const alt = B.optimum.f.clone();
    for (let x = 0; x < B.observed.n; x++)
      alt.set(x, 1, (Math.cos(t) * G.get(x, 1) + Math.sin(t) * G.get(x, 2)) / Math.sqrt(B.observed.pi[x]));
    const err = rotationError(onStates(A, A.optimum.f), onStates(B, alt), world.pi);
    expect(Math.abs(err - 2 * (1 - Math.cos(t)))).toBeLessThan(1e-12);
  });

  it('a rendering onto fewer observations than states is rejected', () => {
    expect(() => randomRendering(TheoryRng.stream(0), 10, 9)).toThrow(InputError);
    expect(() => thm1Demo({ n: 12, k: 3, observationsA: 11 })).toThrow(/injective rendering/);
    expect(() => thm1Demo({ n: 4, k: 3 })).toThrow(InputError); // no room for a tied mu_{k+1}
  });
});
