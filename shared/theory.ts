// Parameters of the finite-world theory computations (reference-spec section G), shared by CLI, API and GUI.
import { z } from 'zod';

export const WorldKind = z.enum(['uniform', 'clustered']);
export type WorldKind = z.infer<typeof WorldKind>;

const int = () => z.number().int();

// The grid experiment: one row per (world, rho); rho = linspace(0, 1, grid).
export const Prop3Params = z
  .object({
    worlds: int().min(1).max(1000).default(20),
    states: int().min(3).max(200).default(30),
    k: int().min(1).default(4),
    m: int().min(2).max(32).default(6), // nuisance values u in {1..m}
    grid: int().min(2).max(1001).default(41),
    seed: int().min(0).default(0),
    worldKind: WorldKind.default('uniform'),
  })
  .refine((p) => p.k < p.states, { message: 'k must be below the number of states (at most n-1 non-trivial directions)', path: ['k'] });
export type Prop3Params = z.infer<typeof Prop3Params>;

export const Prop3Row = z.object({
  world: int(),
  rho: z.number(),
  alphaK: z.number(),
  beta1: z.number(),
  r: int(),
  rFormula: int(),
  error: z.number(),
  tie: z.boolean(),
});
export type Prop3Row = z.infer<typeof Prop3Row>;

export const Prop3Summary = z.object({
  rows: int(),
  goodMaxAbsError: z.number(), // rho = 0
  below: int(), // rho <= alpha_k, rho < 1
  above: int(), // rho > alpha_k, rho < 1
  belowMaxAbsError: z.number(),
  aboveMinR: int(),
  aboveMaxAbsErrMinus2r: z.number(),
  rhoOne: z.object({ rows: int(), r: z.array(int()), error: z.array(z.number()) }),
});
export type Prop3Summary = z.infer<typeof Prop3Summary>;
