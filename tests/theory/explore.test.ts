import { describe, expect, it } from 'vitest';
import { ExploreParams } from '../../shared/theory';
import { explore, prop2Demo, thm1Demo, thm3Demo } from '../../engine/theory';
import { InputError } from '../../engine/errors';

describe('explore and the JSON demos', () => {
  it('explore: defaults, threshold, curve and Prop 1 readout', () => {
    const res = explore({});
    expect(res.params).toEqual(ExploreParams.parse({}));
    expect(res.alpha).toHaveLength(12);
    expect(res.threshold.alphaK).toBe(res.alpha[3]);
    expect(res.threshold.bad).toBe(0.5 > res.threshold.alphaK);
    expect(res.curve.rho).toHaveLength(41);
    expect(res.curve.r[0]).toBe(0);
    expect(res.curve.r[40]).toBe(4);
    expect(Math.abs(res.curve.error[40] - 8)).toBeLessThan(1e-12);
    res.curve.error.forEach((e, i) => expect(Math.abs(e - 2 * res.curve.r[i])).toBeLessThan(1e-12));
    expect(Math.abs(res.prop1.loss - res.prop1.lossFormula)).toBeLessThan(1e-12);
    const small = explore({ n: 5, k: 2, m: 3, rho: 1 });
    expect(small.alpha).toHaveLength(4);
    expect(small.r).toBe(2);
  });

  it('all demo outputs are plain JSON (no typed arrays, no matrices)', () => {
    for (const out of [explore({ n: 8, k: 2 }), thm1Demo({}), prop2Demo({}), thm3Demo({ embeddings: 2 })]) {
      expect(JSON.parse(JSON.stringify(out))).toEqual(out);
    }
  });

  it('bad input is an InputError naming the field', () => {
    expect(() => explore({ n: 5, k: 5 })).toThrow(/at most n - 1/);
    expect(() => explore({ rho: 2 })).toThrow(InputError);
    expect(() => explore({ rho: 2 })).toThrow(/rho/);
    expect(() => explore({ n: 1000 })).toThrow(/n:/);
  });
});
