import { describe, expect, it } from 'vitest';
import { Matrix } from 'ml-matrix';
import { TheoryRng, prop2Demo, randomOrthogonal } from '../../engine/theory';

describe('Prop 2: moments vs pairs', () => {
  it('random orthogonal matrices are orthogonal', () => {
    const Q = randomOrthogonal(TheoryRng.stream(1), 5);
    expect(Q.transpose().mmul(Q).sub(Matrix.eye(5)).abs().max()).toBeLessThan(1e-14);
  });

  for (const k of [2, 3, 5]) {
    it(`k = ${k}: moments match under every Q; k pairs determine Q; k - 1 pairs do not`, () => {
      const d = prop2Demo({ n: 20, k, seed: k, rotations: 6 });
      expect(d.meanMaxAbsDiff).toBeLessThan(1e-13);
      expect(d.covMaxAbsDiff).toBeLessThan(1e-12);
      expect(d.kPairs.states).toHaveLength(k);
      expect(d.kPairs.minSingularValue).toBeGreaterThan(1e-6); // general position
      expect(d.kPairs.recoveryMaxAbsError).toBeLessThan(1e-12);
      const amb = d.kMinus1Pairs;
      expect(amb.states).toHaveLength(k - 1);
      expect(amb.fitResidual[0]).toBeLessThan(1e-12);
      expect(amb.fitResidual[1]).toBeLessThan(1e-12);
      expect(amb.mapsMaxAbsDiff).toBeGreaterThan(1e-3);
      expect(amb.heldOutMaxDisagreement).toBeGreaterThan(1e-3);
      expect(Math.abs(amb.determinants[0] + amb.determinants[1])).toBeLessThan(1e-12);
      expect(Math.abs(Math.abs(amb.determinants[0]) - 1)).toBeLessThan(1e-12);
    });
  }
});
