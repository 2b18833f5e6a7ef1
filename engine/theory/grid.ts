// The Prop 3 experiment: random worlds x a rho grid, exact eigenvectors, no training (docs/reference.md#prop-3-grid-experiment: 20 worlds x 41 rho = 820 rows).
import { TheoryRng } from './rng';
import { makeWorld } from './world';
import { checkK } from './prop1';
import { prepareProp3, prop3Point, uniformNuisance } from './prop3';
import { Prop3GridParams, type Prop3Row, type Prop3Summary } from '../../shared/theory';
import { parseParams } from './params';

export type Prop3GridResult = { params: Prop3GridParams; rows: Prop3Row[]; summary: Prop3Summary };

export type Prop3GridHooks = {
  onWorld?: (world: number, rows: Prop3Row[]) => void; // after each world, e.g. to persist a resumable job
  startWorld?: number; // resume: skip worlds before this index (world i's RNG depends only on seed and i)
};

export function rhoGrid(points: number): number[] {
  return Array.from({ length: points }, (_, j) => j / (points - 1)); // exact 0 and 1 at the ends
}

export function prop3World(params: Prop3GridParams, world: number): Prop3Row[] {
  checkK(params.k, params.states);
  const w = makeWorld(TheoryRng.stream(params.seed, world), params.states, params.k, params);
  const prep = prepareProp3(w, uniformNuisance(params.m), params.k);
  return rhoGrid(params.grid).map((rho) => {
    const p = prop3Point(prep, rho, params.method);
    return { world, rho, alphaK: p.alphaK, beta1: p.beta1, r: p.r, rFormula: p.rFormula, error: p.error, tie: p.tie };
  });
}

// Rows for worlds startWorld..worlds-1 and the summary of those rows (use summarizeProp3 to summarise a resumed job's union).
export function prop3Grid(input: unknown, hooks: Prop3GridHooks = {}): Prop3GridResult {
  const params = parseParams(Prop3GridParams, input, 'prop3 grid');
  const rows: Prop3Row[] = [];
  for (let i = hooks.startWorld ?? 0; i < params.worlds; i++) {
    const worldRows = prop3World(params, i);
    rows.push(...worldRows);
    hooks.onWorld?.(i, worldRows);
  }
  return { params, rows, summary: summarizeProp3(rows) };
}

export function summarizeProp3(rows: Prop3Row[]): Prop3Summary {
  const maxAbs = (xs: number[]) => xs.reduce((a, x) => Math.max(a, Math.abs(x)), 0);
  const inner = rows.filter((r) => r.rho < 1);
  const below = inner.filter((r) => r.rho <= r.alphaK);
  const above = inner.filter((r) => r.rho > r.alphaK);
  const one = rows.filter((r) => r.rho === 1);
  const alphaByWorld = new Map(rows.map((r) => [r.world, r.alphaK]));
  return {
    rows: rows.length,
    meanAlphaK: [...alphaByWorld.values()].reduce((a, x) => a + x, 0) / Math.max(1, alphaByWorld.size),
    goodMaxAbsError: maxAbs(rows.filter((r) => r.rho === 0).map((r) => r.error)),
    below: below.length,
    above: above.length,
    belowMaxAbsError: maxAbs(below.map((r) => r.error)),
    aboveMinR: above.length ? Math.min(...above.map((r) => r.r)) : null,
    aboveMaxAbsErrMinus2r: maxAbs(above.map((r) => r.error - 2 * r.r)),
    rFormulaMismatches: rows.filter((r) => r.r !== r.rFormula).length,
    ties: rows.filter((r) => r.tie).length,
    rhoOne: {
      rows: one.length,
      world: one.map((r) => r.world),
      r: one.map((r) => r.r),
      error: one.map((r) => r.error),
    },
  };
}
