// One small world for the interactive Theory screen: spectrum, Prop 1 uniqueness, and Prop 3 at one rho and over a grid.
import { TheoryRng } from './rng';
import { makeWorld } from './world';
import { checkK, pairLoss, whitenedOptimum } from './prop1';
import { prepareProp3, prop3Point, uniformNuisance } from './prop3';
import { rhoGrid } from './grid';
import { ExploreParams, type ExploreResult } from '../../shared/theory';
import { parseParams } from './params';

export function explore(input: unknown): ExploreResult {
  const params = parseParams(ExploreParams, input, 'theory explore');
  const { n, k, m, rho } = params;
  checkK(k, n);
  const world = makeWorld(TheoryRng.stream(params.seed, 0), n, k, params);
  const prep = prepareProp3(world, uniformNuisance(m), k);
  const opt = whitenedOptimum(world, k, prep.spectrum);
  const alpha = Array.from(prep.alpha);
  const here = prop3Point(prep, rho);
  const points = rhoGrid(params.grid).map((x) => prop3Point(prep, x));
  return {
    params,
    alpha: alpha.slice(0, Math.min(n - 1, 12)),
    threshold: { alphaK: here.alphaK, rho, bad: rho > here.alphaK },
    r: here.r,
    rFormula: here.rFormula,
    error: here.error,
    tie: here.tie,
    curve: {
      rho: points.map((p) => p.rho),
      r: points.map((p) => p.r),
      rFormula: points.map((p) => p.rFormula),
      error: points.map((p) => p.error),
    },
    prop1: {
      unique: opt.unique,
      gap: opt.gap,
      loss: pairLoss(world, opt.f),
      lossFormula: 2 * (k - alpha.slice(0, k).reduce((a, x) => a + x, 0)),
    },
  };
}
