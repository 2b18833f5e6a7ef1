// Matches engine/theory against tests/theory/golden.json, written by the independent numpy script golden.py.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Matrix } from 'ml-matrix';
import { z } from 'zod';
import {
  kernel,
  nontrivialSpectrum,
  nuisanceFrom,
  prepareProp3,
  prop1,
  prop3Point,
  rotationError,
  thm3Floor,
  whitenedOptimum,
  worldFromJoint,
} from '../../engine/theory';

const Rows = z.array(z.array(z.number()));
const Golden = z.object({
  worlds: z.array(
    z.object({
      name: z.string(),
      n: z.number(),
      W: Rows,
      mu: z.array(z.number()),
      prop1: z.array(z.object({ k: z.number(), loss: z.number(), lossFormula: z.number(), unique: z.boolean() })),
      prop3: z.object({
        m: z.number(),
        nu: z.array(z.number()),
        k: z.number(),
        points: z.array(
          z.object({ rho: z.number(), r: z.number(), error: z.number(), eigenvalues: z.array(z.number()) }),
        ),
      }),
      rotation: z.object({ k: z.number(), f: Rows, error: z.number() }),
      thm3: z.object({
        m: z.number(),
        nu: z.array(z.number()),
        k: z.number(),
        f: Rows,
        error: z.number(),
        bound: z.number(),
        etaBound: z.number(),
      }),
    }),
  ),
});
const golden = Golden.parse(JSON.parse(readFileSync(new URL('./golden.json', import.meta.url), 'utf8')));
const TOL = 1e-9;

describe.each(golden.worlds)('golden world $name', (g) => {
  const world = worldFromJoint(Float64Array.from(g.W.flat()), g.n, `golden.json ${g.name}.W`);

  it('non-trivial spectrum', () => {
    const spec = nontrivialSpectrum(kernel(world), world.pi.map(Math.sqrt));
    expect(spec.values.length).toBe(g.mu.length);
    g.mu.forEach((mu, i) => expect(Math.abs(spec.values[i] - mu)).toBeLessThan(TOL));
  });

  it('Prop 1 losses and uniqueness', () => {
    for (const p of g.prop1) {
      const res = prop1(world, p.k);
      expect(Math.abs(res.loss - p.loss)).toBeLessThan(TOL);
      expect(Math.abs(res.lossFormula - p.lossFormula)).toBeLessThan(TOL);
      expect(res.unique).toBe(p.unique);
    }
  });

  it('Prop 3 r and error over rho (both eigenvector paths)', () => {
    const prep = prepareProp3(world, nuisanceFrom(Float64Array.from(g.prop3.nu)), g.prop3.k);
    for (const p of g.prop3.points) {
      for (const method of ['kronecker', 'joint'] as const) {
        const got = prop3Point(prep, p.rho, method);
        expect(got.r, `${method} rho ${p.rho}`).toBe(p.r);
        expect(Math.abs(got.error - p.error), `${method} rho ${p.rho}`).toBeLessThan(TOL);
      }
    }
  });

  it('best-rotation (nuclear-norm) error against explicit Procrustes', () => {
    const f = new Matrix(g.rotation.f);
    const fStar = whitenedOptimum(world, g.rotation.k).f;
    expect(Math.abs(rotationError(f, fStar, world.pi) - g.rotation.error)).toBeLessThan(TOL);
  });

  it('Thm 3 floor values', () => {
    const floor = thm3Floor(
      world,
      nuisanceFrom(Float64Array.from(g.thm3.nu)),
      new Matrix(g.thm3.f),
      whitenedOptimum(world, g.thm3.k).f,
    );
    expect(Math.abs(floor.error - g.thm3.error)).toBeLessThan(TOL);
    expect(Math.abs(floor.bound - g.thm3.bound)).toBeLessThan(TOL);
    expect(Math.abs(floor.etaBound - g.thm3.etaBound)).toBeLessThan(TOL);
  });
});
