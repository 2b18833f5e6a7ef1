// The world's knobs, and its presets (docs/reference.md#world-presets):
//   paper-like  diversity off + weak nuisance: graded good > bad (bad/good ~0.6 there), the default
//   strong      diversity on + strong nuisance: bad and NTP collapse to chance, good stays well above
//   null        diversity off + no nuisance: the 5 captions are identical, good = bad up to run noise
import { z } from 'zod';
import { InputError } from '../../errors';
import { issuePath } from '../../json-file';
import { NUISANCE, NUISANCE_LEVELS } from './nuisance';

export const PRESETS = {
  'paper-like': { diversity: false, nuisance: 'weak' },
  strong: { diversity: true, nuisance: 'strong' },
  null: { diversity: false, nuisance: 'none' },
} as const;
export const PRESET_NAMES = Object.keys(PRESETS) as (keyof typeof PRESETS)[];
export type Preset = keyof typeof PRESETS;

const count = z.number().int().nonnegative();
export const WorldOptions = z.object({
  seed: z
    .number()
    .int()
    .nonnegative()
    .max(2 ** 31 - 1)
    .default(0),
  preset: z.enum(PRESET_NAMES as [Preset, ...Preset[]]).default('paper-like'),
  diversity: z.boolean().optional(), // overrides the preset
  nuisance: z.enum(NUISANCE_LEVELS).optional(), // overrides the preset
  splits: z.object({ train: count, val: count, test: count }).default({ train: 5000, val: 1014, test: 1000 }), // Flickr30k-shaped
  imageSize: z.number().int().min(16).max(1024).default(64), // pixels, square
});
export type WorldOptions = z.input<typeof WorldOptions>;

export type WorldParams = {
  seed: number;
  preset: Preset;
  diversity: boolean;
  nuisance: (typeof NUISANCE_LEVELS)[number];
  nuisanceTokens: number; // per caption
  consistency: number; // P(a nuisance token is from the caption's own style)
  splits: { train: number; val: number; test: number };
  imageSize: number;
};

export function resolveWorld(options: WorldOptions): WorldParams {
  const r = WorldOptions.safeParse(options);
  if (!r.success)
    throw new InputError(
      `world options: ${r.error.issues.map((i) => `${issuePath(i.path)}: ${i.message}`).join('; ')}`,
    );
  const o = r.data;
  const p = PRESETS[o.preset];
  const nuisance = o.nuisance ?? p.nuisance;
  return {
    seed: o.seed,
    preset: o.preset,
    diversity: o.diversity ?? p.diversity,
    nuisance,
    nuisanceTokens: NUISANCE[nuisance].tokens,
    consistency: NUISANCE[nuisance].consistency,
    splits: o.splits,
    imageSize: o.imageSize,
  };
}
