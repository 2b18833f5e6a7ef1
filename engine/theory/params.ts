// zod schemas for every input of the theory API (CLI options, GUI requests); defaults are the CLI defaults.
import { z } from 'zod';
import { InputError } from '../errors';

// Clustered worlds: stickiness .8 with k + 1 clusters gives alpha_4 ~ .67 at n = 30 (spec G's 545/255 regime).
export const DEFAULT_STICKINESS = 0.8;

const int = (min: number, max: number) => z.number().int().min(min).max(max);
const seed = int(0, 2 ** 31 - 1).default(0);
const worldFields = {
  worldKind: z.enum(['uniform', 'clustered']).default('uniform'),
  stickiness: z.number().min(0).max(1).default(DEFAULT_STICKINESS), // clustered only
  clusters: int(2, 1000).optional(), // clustered only; default k + 1
};

export const WorldParams = z.object(worldFields);
export type WorldParams = z.infer<typeof WorldParams>;

export const Prop3GridParams = z.object({
  worlds: int(1, 100_000).default(20),
  states: int(2, 500).default(30),
  k: int(1, 499).default(4),
  m: int(2, 64).default(6),
  grid: int(2, 10_001).default(41),
  seed,
  ...worldFields,
  method: z.enum(['kronecker', 'joint']).default('kronecker'),
});
export type Prop3GridParams = z.infer<typeof Prop3GridParams>;

export const ExploreParams = z.object({
  n: int(3, 60).default(30),
  k: int(1, 59).default(4),
  m: int(2, 16).default(6),
  rho: z.number().min(0).max(1).default(0.5),
  grid: int(2, 201).default(41),
  seed,
  ...worldFields,
});
export type ExploreParams = z.infer<typeof ExploreParams>;

export const Thm1Params = z.object({
  n: int(3, 200).default(12),
  k: int(1, 199).default(3),
  observationsA: int(3, 2000).default(20), // size of modality A's observation set (>= n; states land on n of them)
  observationsB: int(3, 2000).default(24),
  seed,
  ...worldFields,
});
export type Thm1Params = z.infer<typeof Thm1Params>;

export const Prop2Params = z.object({
  n: int(3, 200).default(12),
  k: int(2, 199).default(3),
  rotations: int(1, 100).default(8), // random Q in O(k) checked for identical moments
  seed,
  ...worldFields,
});
export type Prop2Params = z.infer<typeof Prop2Params>;

export const Thm3Params = z.object({
  n: int(3, 100).default(12),
  k: int(1, 99).default(3),
  m: int(2, 16).default(4),
  embeddings: int(1, 200).default(20), // random whitened embeddings on (s, u) checked against the floor
  seed,
  ...worldFields,
});
export type Thm3Params = z.infer<typeof Thm3Params>;

// Parse `input` with `schema`, turning zod issues into one InputError that names `what`.
export function parseParams<S extends z.ZodType>(schema: S, input: unknown, what: string): z.infer<S> {
  const out = schema.safeParse(input);
  if (out.success) return out.data;
  const issues = out.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
  throw new InputError(`${what}: ${issues}`);
}
