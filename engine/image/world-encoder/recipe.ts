// A world encoder's recipe: the world it trains on, its image JEPA, its read-out and, for an ensemble, its members;
// and the shipped recipe.
import { z } from 'zod';
import { OBJECT_KEEPS, objectKindCount } from '../../data';
import { IMAGE_JEPA_BASE, ImageJepaRecipe, imageLamb } from '../../train';
import { PoolerRecipe } from '../whitened-pooler';

// A member of an ensemble: a jepa seed (the recipe at that seed), or a seed with a schedule of its own: `steps`, the
// cosine's length and, where the recipe trains the object term alone throughout (objects.aloneSteps = steps), that too.
const MemberSpec = z.union(
  [
    z.number().int().nonnegative(),
    z.object({ seed: z.number().int().nonnegative(), steps: z.number().int().positive() }).strict(),
  ],
  {
    error: 'a member is a jepa seed (an integer ≥ 0) or { "seed": s, "steps": n }',
  },
);
export type MemberSpec = z.infer<typeof MemberSpec>;
export const memberOf = (r: { jepa: { seed: number; steps: number } }, m: MemberSpec) =>
  typeof m === 'number' ? { seed: m, steps: r.jepa.steps } : m;
// what tells two members apart, and names a member (its log lines, its checkpoint folder member-<name>): the seed, or
// <seed>-<steps> when its steps are its own
export const memberName = (r: { jepa: { seed: number; steps: number } }, m: MemberSpec): string => {
  const { seed, steps } = memberOf(r, m);
  return steps === r.jepa.steps ? `${seed}` : `${seed}-${steps}`;
};

export const WorldEncoderRecipe = z
  .object({
    // training images: scenes 0..scenes-1 of the world with this seed (only images are read; a seed other than the
    // experiments' default 0, so the encoder never saw the scenes it later embeds)
    // renders: the JEPA's views are that many renders of each scene state (good image views, the world's video: the
    // nuisance and drawing order re-drawn, plus pixel noise up to jepa.views.noise); absent: crops and colour changes
    // of the one render (jepa.views; bad image views, DINOv2's kind)
    // objectRenders: that many renders of every object of those scenes drawn alone, for jepa.objects (both or neither);
    // objectKeep: what those renders keep, the object on its scene's background (absent), 'shape' only, 'shape-colour' or
    // 'shape-colour-size'
    world: z
      .object({
        seed: z.number().int().nonnegative(),
        scenes: z.number().int().positive(),
        imageSize: z.number().int().positive(),
        renders: z.number().int().min(2).max(64).optional(),
        objectRenders: z.number().int().min(2).max(64).optional(),
        objectKeep: z.enum(OBJECT_KEEPS).optional(),
      })
      .refine((w) => !w.objectKeep || w.objectRenders, {
        message: 'world.objectKeep says what object renders keep: it needs world.objectRenders',
      }),
    jepa: ImageJepaRecipe,
    // the embedding (pooler_output): absent = the CLS token, as DINOv2; else whitened CLS + region means
    pooler: PoolerRecipe.optional(),
    // an ensemble: one ViT per member, each the jepa recipe with that seed (the first is jepa.seed: member 0 is the
    // one-ViT build), trained in their own processes, their tokens side by side under the one read-out; at most 4 (each
    // build holds ~3.7 GB with the shipped recipe's object renders). A member { seed, steps } runs its own schedule.
    members: z.array(MemberSpec).min(2).max(4).optional(),
  })
  .refine((r) => !r.world.objectRenders === !r.jepa.objects, {
    message: 'world.objectRenders and jepa.objects go together: object views need object renders',
  })
  .refine(
    (r) =>
      !r.members ||
      (memberName(r, r.members[0]) === memberName(r, r.jepa.seed) &&
        new Set(r.members.map((m) => memberName(r, m))).size === r.members.length),
    {
      message: 'members: distinct draws (jepa seed and steps), the first jepa.seed at jepa.steps',
      path: ['members'],
    },
  )
  .refine(
    (r) =>
      !r.members ||
      r.members.every((m) => {
        const a = r.jepa.objects?.aloneSteps ?? 0;
        return a === r.jepa.steps || a <= memberOf(r, m).steps;
      }),
    {
      message: 'members: a member runs at least objects.aloneSteps (unless the object term trains alone throughout)',
      path: ['members'],
    },
  )
  .refine((r) => !r.members || r.pooler, {
    message: 'members need a pooler: the read-out joins their tokens',
    path: ['members'],
  })
  .refine(
    (r) =>
      r.jepa.objects?.draw !== 'distinct-kinds' ||
      (r.jepa.objects.batch ?? r.jepa.batch) <= objectKindCount(r.world.objectKeep ?? 'object'),
    {
      message: `draw "distinct-kinds" takes this many objects of distinct kinds a step: at most the kinds world.objectKeep has (${(['shape', 'shape-colour', 'shape-colour-size'] as const).map((k) => `${k} ${objectKindCount(k)}`).join(', ')})`,
      path: ['jepa', 'objects', 'batch'],
    },
  );
export type WorldEncoderRecipe = z.infer<typeof WorldEncoderRecipe>;

// The shipped recipe: four conv stem [16, 32, 64] + ViT p8 w64 d2 trained on objects alone (every object of the 5,000
// training scenes drawn alone in 8 renders, shape and colour kept, size and background redrawn; two renders a view
// pair, 64 objects a step, InfoNCE (τ .1) alone throughout), from jepa seeds 0, 1, 2 for 2,000 steps and seed 1 for
// 6,000 (the long schedule sharpens the object code: shape; the short ones keep more of the scene), read out together
// whitened to 160: image-side ceiling .931, linear probes shape .91, colour 1.00, size .93, position and background
// 1.00 (docs/reference.md#world-encoder; what was tried on the way: docs/world-encoder-log.md). The scenes serve only
// the stem's BatchNorm statistics and the pooler; the scene views (IMAGE_JEPA_BASE's) are drawn by no step, their
// pixel noise is the object views'. The build: ~3.5 h on 2 cores (the long member on one core, the three short ones
// after each other on the other).
export const WORLD_ENCODER_RECIPE: WorldEncoderRecipe = {
  world: { seed: 1, scenes: 5000, imageSize: 64, objectRenders: 8, objectKeep: 'shape-colour' },
  // the shared crop-view JEPA (IMAGE_JEPA_BASE), parsed so that its keys keep the schema's order (a build's
  // checkpoints are keyed by the recipe's JSON)
  jepa: ImageJepaRecipe.parse({
    ...IMAGE_JEPA_BASE,
    vit: { imageSize: 64, patchSize: 8, hidden: 64, depth: 2, heads: 4, mlp: 256, stem: [16, 32, 64] },
    projector: { ...IMAGE_JEPA_BASE.projector, dims: [256, 64] },
    steps: 2000,
    warmupSteps: 50,
    lamb: imageLamb(IMAGE_JEPA_BASE),
    seed: 0,
    objects: { views: 2, weight: 1, batch: 64, loss: 'infonce', aloneSteps: 2000 },
  }),
  // CLS + the mean of all patch tokens of each member (4 x 128 features), whitened to 160: for object-trained ViTs
  // position-free features read best (one ViT, ceiling on a selection world, seed 2: .767 at 100 of 128, .609 with CLS
  // + 4x4 regions to 192). The width grows with the members (two 6,000-step draws at 100 of 256 lost position, .80);
  // 160 of 512 read best on the selection world (ceiling .887, shape .92, size .90; .854 / .90 / .87 at 100, .878 /
  // .91 / .88 at 128). Whitening scales the smallest kept direction by 1/√λ (λ 9.0e-4 here; at 1.3e-5 WebGPU and CPU
  // differed by 1.1e-4). Fitted on all 5,000 training renders (`--repool` refits it in seconds).
  pooler: { grid: 1, dims: 160, scenes: 5000 },
  members: [0, 1, 2, { seed: 1, steps: 6000 }],
};

// A member of an ensemble: the one-ViT recipe at that jepa seed (and its steps), without a read-out (its graph is the
// CLS graph).
export function memberRecipe(r: WorldEncoderRecipe, m: MemberSpec): WorldEncoderRecipe {
  const { seed, steps } = memberOf(r, m),
    o = r.jepa.objects;
  return {
    world: r.world,
    jepa: {
      ...r.jepa,
      seed,
      steps,
      ...(o && { objects: { ...o, ...(o.aloneSteps === r.jepa.steps && { aloneSteps: steps }) } }),
    },
  };
}
