import { describe, expect, it } from 'vitest';
import type { Prop3Row } from '../../shared/theory';
import { prop3Grid, summarizeProp3 } from '../../engine/theory';
import { InputError } from '../../engine/errors';

describe('Prop 3 grid experiment', () => {
  it('default uniform grid: 820 rows, good views exact, error = 2r above threshold, rho = 1 gives r = 4 and error 8', () => {
    const { rows, summary, params } = prop3Grid({});
    expect(params).toMatchObject({ worlds: 20, states: 30, k: 4, m: 6, grid: 41, seed: 0, worldKind: 'uniform' });
    expect(rows).toHaveLength(820);
    expect(summary.below + summary.above).toBe(800);
    expect(summary.goodMaxAbsError).toBeLessThan(1e-12);
    expect(summary.belowMaxAbsError).toBeLessThan(1e-12);
    expect(summary.aboveMinR).toBeGreaterThanOrEqual(1);
    expect(summary.aboveMaxAbsErrMinus2r).toBeLessThan(1e-12);
    expect(summary.rFormulaMismatches).toBe(0);
    expect(summary.rhoOne.rows).toBe(20);
    expect(summary.rhoOne.r.every((r) => r === 4)).toBe(true);
    expect(summary.rhoOne.error.every((e) => Math.abs(e - 8) < 1e-12)).toBe(true);
    // Uniform worlds have alpha_4 ~ .1, so most of the grid is above threshold (docs/reference.md#prop-3-grid-experiment).
    expect(summary.meanAlphaK).toBeGreaterThan(0.08);
    expect(summary.meanAlphaK).toBeLessThan(0.12);
    expect(summary.below).toBeGreaterThan(60);
    expect(summary.below).toBeLessThan(110);
  });

  it('clustered worlds put alpha_4 near .67, so most of the grid is below threshold (the paper: 545 / 255)', () => {
    const { summary } = prop3Grid({ worldKind: 'clustered' });
    expect(summary.meanAlphaK).toBeGreaterThan(0.6);
    expect(summary.meanAlphaK).toBeLessThan(0.75);
    expect(summary.below).toBeGreaterThan(480);
    expect(summary.below).toBeLessThan(610);
    expect(summary.aboveMaxAbsErrMinus2r).toBeLessThan(1e-12);
    expect(summary.rhoOne.r.every((r) => r === 4)).toBe(true);
  });

  it('is deterministic, and resuming at a world gives the same rows as the full run', () => {
    const params = { worlds: 4, states: 12, k: 3, m: 4, grid: 9, seed: 7 };
    const a = prop3Grid(params);
    const b = prop3Grid(params);
    expect(b.rows).toEqual(a.rows);
    const seen: Array<[number, Prop3Row[]]> = [];
    const resumed = prop3Grid(params, { startWorld: 2, onWorld: (i, rows) => seen.push([i, rows]) });
    expect(seen.map(([i]) => i)).toEqual([2, 3]);
    expect(resumed.rows).toEqual(a.rows.filter((r) => r.world >= 2));
    expect(summarizeProp3([...a.rows.filter((r) => r.world < 2), ...resumed.rows])).toEqual(a.summary);
    expect(prop3Grid({ ...params, seed: 8 }).rows).not.toEqual(a.rows);
  });

  it('the joint (brute-force) method gives the same rows as the Kronecker one', () => {
    const params = { worlds: 2, states: 8, k: 2, m: 3, grid: 11, seed: 3 };
    const a = prop3Grid(params).rows;
    const b = prop3Grid({ ...params, method: 'joint' }).rows;
    expect(b.map((r) => [r.r, r.rFormula, r.tie])).toEqual(a.map((r) => [r.r, r.rFormula, r.tie]));
    b.forEach((r, i) => expect(Math.abs(r.error - a[i].error)).toBeLessThan(1e-12));
  });

  it('validates its parameters', () => {
    expect(() => prop3Grid({ k: 30 })).toThrow(/at most n - 1 = 29/);
    expect(() => prop3Grid({ worlds: 0 })).toThrow(InputError);
    expect(() => prop3Grid({ worldKind: 'sticky' })).toThrow(/worldKind/);
  });
});
