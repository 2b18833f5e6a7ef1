// What a build leaves beside the model (<model>.json): its recipe, hashes, loss curve, parity, read-out, build
// conditions, members and probes; and the built model with it.
import { z } from 'zod';
import { readJson } from '../../json-file';
import { mean } from '../../metrics';
import { sha256 } from '../encoder';
import { WorldEncoderRecipe } from './recipe';

export const ProbeRow = z.object({
  task: z.string(),
  classes: z.number(),
  train: z.number(),
  test: z.number(),
  accuracy: z.number(),
  chance: z.number(),
  lambda: z.number(),
});
// The image-side ceiling (engine/experiment/ceiling.ts) of the encoder on the probe world: R@1 against the oracle text.
const CeilingRow = z.object({ r1: z.number(), mknn: z.number().nullable(), dim: z.number() });
export const WorldEncoderManifest = z.object({
  file: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number().int().positive(),
  recipe: WorldEncoderRecipe,
  onnx: z.object({
    input: z.literal('pixel_values'),
    outputs: z.array(z.string()),
    embedding: z.literal('pooler_output'),
    layerNormEps: z.number(),
    gelu: z.literal('tanh'),
  }),
  tfjs: z.string(),
  backend: z.string(),
  // curve: [step, the mean loss of the LOSS_WINDOW steps up to it] (absent in manifests built before it was kept)
  loss: z.object({
    first: z.number(),
    last: z.number(),
    lastInv: z.number(),
    lastSigreg: z.number(),
    lastObjectNce: z.number().optional(),
    curve: z.array(z.tuple([z.number().int().positive(), z.number()])).optional(),
  }),
  parity: z.object({ images: z.number(), maxAbsDiffPooler: z.number(), maxAbsDiffTokens: z.number() }),
  // with recipe.pooler: the CLS-pooler graph's hash (same training, same bytes as a build without the pooler), the
  // kept eigenvalues (largest, smallest) and the fit's seconds
  pooler: z.object({ baseSha256: z.string(), eigenvalues: z.array(z.number()), seconds: z.number() }).optional(),
  // seconds: wall time (a build resumed from checkpoints: this session's + the training before it); resumed: the steps
  // at which sessions after the first took it up
  build: z.object({
    seconds: z.number(),
    secondsPerStep: z.number(),
    loadavg: z.array(z.number()),
    cpus: z.number(),
    node: z.string(),
    at: z.string(),
    resumed: z.array(z.number().int().positive()).optional(),
  }),
  // a read-out refitted on a built model (repoolWorldEncoder): `from` the model it was (sha256); build, loss and
  // parity.maxAbsDiffTokens are that build's, parity.maxAbsDiffPooler the head against the JS head on ONNX tokens
  repooled: z.object({ from: z.string().regex(/^[0-9a-f]{64}$/), at: z.string() }).optional(),
  // with recipe.members: each member's build (its CLS graph's hash, loss and time); loss above is member 0's
  members: z
    .array(
      z.object({
        seed: z.number().int(),
        sha256: z.string().regex(/^[0-9a-f]{64}$/),
        loss: z.object({
          first: z.number(),
          last: z.number(),
          curve: z.array(z.tuple([z.number().int().positive(), z.number()])).optional(),
        }),
        seconds: z.number(),
        secondsPerStep: z.number(),
      }),
    )
    .optional(),
  // an ensemble joined from built models (joinWorldEncoders): their sha256s; build is the join's, members' their own
  joined: z.object({ from: z.array(z.string().regex(/^[0-9a-f]{64}$/)), at: z.string() }).optional(),
  probe: z
    .object({
      world: z.record(z.string(), z.unknown()),
      trained: z.array(ProbeRow),
      pixels: z.array(ProbeRow),
      randomInit: z.array(ProbeRow),
      ceiling: z.object({ trained: CeilingRow, randomInit: CeilingRow }).optional(), // absent in manifests from before it was measured
    })
    .nullable(),
});
export type WorldEncoderManifest = z.infer<typeof WorldEncoderManifest>;

// Steps per point of the manifest's loss curve: 40 points for the shipped 2,000 steps, enough to see InfoNCE's plateaus.
export const LOSS_WINDOW = 50;

/** The loss as [step, mean of the `every` steps up to it], the last window possibly shorter. */
export function lossCurve(losses: readonly number[], every = LOSS_WINDOW): [number, number][] {
  const out: [number, number][] = [];
  for (let s = 0; s < losses.length; s += every) {
    const w = losses.slice(s, s + every);
    out.push([s + w.length, mean(w)]);
  }
  return out;
}

export type BuiltEncoder = {
  bytes: Uint8Array;
  sha256: string;
  manifest: Omit<WorldEncoderManifest, 'probe' | 'file'>;
};
// A built model with its manifest, whose sha256 and size are the bytes' own (set here once, for every way of building).
export const built = (
  bytes: Uint8Array,
  manifest: Omit<BuiltEncoder['manifest'], 'sha256' | 'bytes'>,
): BuiltEncoder => {
  const digest = sha256(bytes);
  return { bytes, sha256: digest, manifest: { sha256: digest, bytes: bytes.length, ...manifest } };
};

// The hash of a built model's ViT alone (its CLS graph): the file's own, or with a read-out the base it was fitted on.
export const vitSha256 = (m: Pick<WorldEncoderManifest, 'sha256' | 'pooler'>): string =>
  m.pooler?.baseSha256 ?? m.sha256;

export const readWorldEncoderManifest = (path: string): WorldEncoderManifest =>
  readJson(path, WorldEncoderManifest, 'a world-encoder manifest');
