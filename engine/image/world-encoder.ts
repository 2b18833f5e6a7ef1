// The procedural world's frozen image encoder, DINOv2's role for the world: a small ViT trained as an image JEPA on
// unlabelled world scenes (never a caption), exported in the HF Dinov2 ONNX layout so it runs through the same
// `dinov2` image path a real DINOv2 does. The build is a fixed recipe on the wasm backend (single thread), so it is
// reproducible to the byte; resources/world-encoder.json records recipe, hash, parity, probe and build conditions.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import * as tf from '@tensorflow/tfjs';
import * as ort from 'onnxruntime-node';
import { z } from 'zod';
import type { Dataset } from '../../shared/dataset';
import { callChild, entryCommand } from '../child';
import {
  OBJECT_KEEPS,
  objectKindCount,
  type ObjectKeep,
  drawScenes,
  generateWorld,
  readDataset,
  resolveWorld,
  worldScene,
} from '../data';
import type { Embeddings } from '../embeddings';
import { InputError } from '../errors';
import { readJson } from '../json-file';
import { mean } from '../metrics';
import { exportVitOnnx, vitForward, vitOnnxConfig, type Params, type PoolerHead, type ViTShape } from '../models';
import {
  buildVitOnnx,
  decodeModel,
  numPatches,
  vitWeightShapes,
  type VitConfigInput,
  type VitWeights,
} from '../models/onnx';
import {
  ImageJepaRecipe,
  calibrateStemOn,
  firstRenders,
  initImageVit,
  initBackend,
  normalised,
  objectPool,
  renderPool,
  trainImageJepa,
  type ImageSet,
  type ImageStep,
  type RenderPool,
} from '../train';
import { type ProbeResult, pixelFeatures, probeAttributes } from './attribute-probe';
import { embedImages } from './embed';
import { openImageEncoder, sha256 } from './encoder';
import { PoolerRecipe, applyPooler, describePooler, fitPooler } from './whitened-pooler';

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
const memberOf = (r: { jepa: { seed: number; steps: number } }, m: MemberSpec) =>
  typeof m === 'number' ? { seed: m, steps: r.jepa.steps } : m;
// what tells two members apart, and names a member (its log lines, its checkpoint folder member-<name>): the seed, or
// <seed>-<steps> when its steps are its own
const memberName = (r: { jepa: { seed: number; steps: number } }, m: MemberSpec): string => {
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

// Conv stem [16, 32, 64] + ViT p8 w64 d2 trained on objects alone: every object of the 5,000 training scenes drawn
// alone in 8 renders (anywhere in the image, shape and colour kept, size and background redrawn), two of them a view
// pair, 64 objects a step, InfoNCE (τ .1), all 2,000 steps; the scenes serve only the stem's BatchNorm statistics and
// the pooler. 73 min on 2 cores (2.15 s/step; with this read-out 1,500 steps gave ceiling .625, shape .55, 2,000
// .809, .76). Scene-level JEPAs (crops or good views, ViT or stem, up to 2,400 steps) never read shape above chance
// and stayed at ceiling .39-.43; InfoNCE on objects learns shape (LeJEPA's views agree through colour and size
// alone), and alone, not beside the scene term, is when it leaves its plateau (docs/reference.md, "objects that keep
// shape and colour"). The scene views (crops ≥ 80%, no flips, no hue jitter) are drawn by no step; their pixel noise
// is the object views'. Position table std 1: at .02 the CLS carried no position.
// Three of them (jepa seeds 0, 1, 2) read out together: one draw reads ceiling .809 / .731 / .713, shape .76 / .56 /
// .58, size .86 / .85 / .86; the three .871, .75, .90 (docs/reference.md, "An ensemble of draws in the workbench").
// A fourth, seed 1 trained 6,000 steps (alone: shape .91, background .95: longer training sharpens the object code and
// drops scene), brings the shape the 2,000-step draws lack; the four: .931, shape .91, size .93 (stop 45). The build:
// ~3.5 h on 2 cores (the long member on one core, the three short ones after each other on the other).
export const WORLD_ENCODER_RECIPE: WorldEncoderRecipe = {
  world: { seed: 1, scenes: 5000, imageSize: 64, objectRenders: 8, objectKeep: 'shape-colour' },
  jepa: {
    vit: { imageSize: 64, patchSize: 8, hidden: 64, depth: 2, heads: 4, mlp: 256, stem: [16, 32, 64] },
    posStd: 1,
    projector: { dims: [256, 64], norm: [true, false], act: 'gelu' },
    views: { scale: [0.8, 1], ratio: [0.9, 1.1], flip: 0, brightness: 0.2, contrast: 0.2, noise: 0.04 },
    V: 4,
    batch: 32,
    steps: 2000,
    lr: 2e-3,
    warmupSteps: 50,
    minLr: 0.05,
    weightDecay: 0.05,
    lamb: 0.08,
    slices: 256,
    clip: 1,
    seed: 0,
    objects: { views: 2, weight: 1, batch: 64, loss: 'infonce', aloneSteps: 2000 },
  },
  // CLS + the mean of all patch tokens of each member (4 x 128 features), whitened to 160: for object-trained ViTs
  // position-free features read best (one ViT, ceiling on a selection world, seed 2: .767 at 100 of 128, .609 with CLS
  // + 4x4 regions to 192). The width grows with the members (two 6,000-step draws at 100 of 256 lost position, .80);
  // 160 of 512 read best on the selection world (ceiling .887, shape .92, size .90; .854 / .90 / .87 at 100, .878 /
  // .91 / .88 at 128). Whitening scales the smallest kept direction by 1/√λ (λ 9.0e-4 here; at 1.3e-5 WebGPU and CPU
  // differed by 1.1e-4). Fitted on all 5,000 training renders (`--repool` refits it in seconds).
  pooler: { grid: 1, dims: 160, scenes: 5000 },
  members: [0, 1, 2, { seed: 1, steps: 6000 }],
};

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

// Scenes 0..n-1 of the world `seed`, rendered (with the generator's image nuisance) and decoded to [0, 1] CHW.
export async function worldImages(seed: number, n: number, side: number): Promise<ImageSet> {
  const params = resolveWorld({ seed, splits: { train: n, val: 0, test: 0 }, imageSize: side });
  const scenes = drawScenes(seed, n);
  const data = new Float32Array(n * 3 * side * side);
  const ctx = createCanvas(side, side).getContext('2d');
  const plane = side * side;
  for (let i = 0; i < n; i++) {
    ctx.drawImage(await loadImage(worldScene(params, scenes, i).png), 0, 0);
    const px = ctx.getImageData(0, 0, side, side).data;
    for (let q = 0; q < plane; q++)
      for (let c = 0; c < 3; c++) data[i * 3 * plane + c * plane + q] = px[4 * q + c] / 255;
  }
  return { n, side, data };
}

// max |a − b| of two outputs of the same shape (`what` names the pair in the error)
function maxAbsDiff(a: Float32Array, b: Float32Array, what: string): number {
  if (a.length !== b.length) throw new Error(`parity: ${what} gave ${a.length} and ${b.length} values`);
  return a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);
}

// Max |ONNX − tfjs| over n normalised images for pooler_output (the CLS, or the head applied to tfjs's tokens in JS)
// and last_hidden_state.
export async function onnxParity(
  bytes: Uint8Array,
  shape: ViTShape,
  params: Params,
  pixels: Float32Array,
  n: number,
  head?: PoolerHead,
): Promise<{ images: number; maxAbsDiffPooler: number; maxAbsDiffTokens: number }> {
  const session = await ort.InferenceSession.create(bytes);
  const S = shape.imageSize;
  const res = await session.run({
    pixel_values: new ort.Tensor('float32', pixels.slice(0, n * 3 * S * S), [n, 3, S, S]),
  });
  await session.release();
  const out = tf.tidy(() => vitForward(shape, params, pixels, n));
  const tokens = (await out.tokens.data()) as Float32Array;
  const ref = {
    tokens,
    pooler: head
      ? applyPooler(tokens, n, 1 + numPatches(shape), shape.hidden, head)
      : ((await out.cls.data()) as Float32Array),
  };
  tf.dispose([out.tokens, out.cls]);
  return {
    images: n,
    maxAbsDiffPooler: maxAbsDiff(res.pooler_output.data as Float32Array, ref.pooler, 'ONNX and tfjs'),
    maxAbsDiffTokens: maxAbsDiff(res.last_hidden_state.data as Float32Array, ref.tokens, 'ONNX and tfjs'),
  };
}

// Output `name` of the graph `bytes` on the first n images (normalised in batches), one ORT thread: the same bytes
// in, the same floats out, so a head fitted on last_hidden_state [n, T, D] rebuilds to the byte.
async function onnxOutput(
  bytes: Uint8Array,
  images: ImageSet,
  n: number,
  name: 'last_hidden_state' | 'pooler_output',
): Promise<Float32Array> {
  const session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  const S = images.side,
    B = 250;
  let out: Float32Array | null = null; // [n, ...], sized by the first batch
  try {
    for (let i = 0; i < n; i += B) {
      const ids = Array.from({ length: Math.min(B, n - i) }, (_, j) => i + j);
      const t = (
        await session.run({ pixel_values: new ort.Tensor('float32', normalised(images, ids), [ids.length, 3, S, S]) })
      )[name].data as Float32Array;
      out ??= new Float32Array((n * t.length) / ids.length);
      out.set(t, (i * t.length) / ids.length);
    }
  } finally {
    await session.release();
  }
  return out ?? new Float32Array(0);
}

// The whitened pooler of the ViT `params` (or an ensemble's members), fitted on the first `pooler.scenes` of its
// (unlabelled) training images; base: the same ViT(s) with the CLS pooler, whose tokens it was fitted on.
export async function fitVitPooler(
  shape: ViTShape,
  params: Params | readonly Params[],
  images: ImageSet,
  pooler: PoolerRecipe,
): Promise<{ head: PoolerHead; eigenvalues: Float64Array; base: Uint8Array }> {
  const base = await exportVitOnnx(shape, params);
  const { head, eigenvalues } = await fitHeadOn(base, shape, images, pooler, Array.isArray(params) ? params.length : 1);
  return { head, eigenvalues, base };
}

// The head fitted on the CLS-pooler graph `base`'s tokens [n, T, K·D] (K members) for the first n = min(scenes,
// images) renders.
async function fitHeadOn(
  base: Uint8Array,
  shape: ViTShape,
  images: ImageSet,
  pooler: PoolerRecipe,
  members = 1,
): Promise<{ head: PoolerHead; eigenvalues: Float64Array; tokens: Float32Array }> {
  const n = Math.min(pooler.scenes, images.n);
  const tokens = await onnxOutput(base, images, n, 'last_hidden_state');
  return { ...(await fitPooler(tokens, n, shape.imageSize / shape.patchSize, shape.hidden * members, pooler)), tokens };
}

// The graph of the ViT(s) `weights` (read back from ONNX) with the head fitted on their CLS graph `base`, and that head
// in ONNX against the same head in JS on base's tokens (first 8 renders): a head refitted on a built model (repool)
// and an ensemble's read-out over its members.
async function withHeadOn(
  base: Uint8Array,
  shape: ViTShape,
  weights: readonly VitWeights[],
  images: ImageSet,
  pooler: PoolerRecipe,
): Promise<{ bytes: Uint8Array; eigenvalues: Float64Array; parity: number }> {
  const { head, eigenvalues, tokens } = await fitHeadOn(base, shape, images, pooler, weights.length);
  const bytes = buildVitOnnx(vitOnnxConfig(shape), weights, head);
  const T = 1 + numPatches(shape),
    W = shape.hidden * weights.length,
    m = 8;
  const parity = maxAbsDiff(
    await onnxOutput(bytes, images, m, 'pooler_output'),
    applyPooler(tokens.subarray(0, m * T * W), m, T, W, head),
    'ONNX and the JS head',
  );
  return { bytes, eigenvalues, parity };
}

// The training scenes' render 0, in [0, 1]: the crop views' images, and the pooler's and the stem statistics' in every
// recipe; from the render pool where the recipe has one (renders, the same pixels), else decoded from the PNGs.
async function sceneImages(w: WorldEncoderRecipe['world'], pool: RenderPool | null): Promise<ImageSet> {
  return pool ? firstRenders(pool) : worldImages(w.seed, w.scenes, w.imageSize);
}

// The same render 0 without a build's pool at hand: a read-out fitted after training (repool, an ensemble's).
const firstSceneImages = (w: WorldEncoderRecipe['world']): Promise<ImageSet> =>
  sceneImages(
    w,
    w.renders
      ? renderPool(
          w.seed,
          w.imageSize,
          drawScenes(w.seed, w.scenes).map((state, index) => ({ index, state })),
          1,
        )
      : null,
  );

// onWindow: after each LOSS_WINDOW steps (and the last), the step count, the window's mean loss and its steps.
export type BuildHooks = {
  onStep?(s: ImageStep): void;
  onWindow?(step: number, meanLoss: number, window: number): void;
  log?(text: string): void;
};

// Steps per point of the manifest's loss curve: 40 points for the shipped 2,000 steps, enough to see InfoNCE's plateaus.
const LOSS_WINDOW = 50;

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
const built = (bytes: Uint8Array, manifest: Omit<BuiltEncoder['manifest'], 'sha256' | 'bytes'>): BuiltEncoder => {
  const digest = sha256(bytes);
  return { bytes, sha256: digest, manifest: { sha256: digest, bytes: bytes.length, ...manifest } };
};

// the build log's words for what object renders keep
const KEEP_WORDS: Record<ObjectKeep, string> = {
  object: '',
  shape: ' keeping the shape only',
  'shape-colour': ' keeping shape and colour',
  'shape-colour-size': ' keeping shape, colour and size',
};

// Where a build keeps its step checkpoints (an ensemble: member-<seed>/ in it, one per member) and every how many steps.
export const BuildCheckpoints = z.object({ dir: z.string().min(1), every: z.number().int().positive() });
export type BuildCheckpoints = z.infer<typeof BuildCheckpoints>;

// With checkpoints a killed build started again goes on from its newest checkpoint, to the same bytes; the folder is
// the caller's to remove once the model is written.
export async function buildWorldEncoder(
  recipe: WorldEncoderRecipe = WORLD_ENCODER_RECIPE,
  hooks: BuildHooks = {},
  checkpoints?: BuildCheckpoints,
): Promise<BuiltEncoder> {
  if (recipe.members) return buildEnsemble(recipe, hooks, checkpoints);
  const t0 = performance.now();
  const load0 = loadavg();
  const backend = await initBackend('wasm');
  const log = hooks.log ?? (() => {});
  const w = recipe.world;
  // the scene states, for the render pools only (the crop path's worldImages draws its own)
  const scenes =
    w.renders || w.objectRenders ? drawScenes(w.seed, w.scenes).map((state, index) => ({ index, state })) : [];
  const pool = w.renders ? renderPool(w.seed, w.imageSize, scenes, w.renders) : null;
  const images = await sceneImages(w, pool);
  const objects = w.objectRenders ? objectPool(w.seed, w.imageSize, scenes, w.objectRenders, w.objectKeep) : undefined;
  const o = recipe.jepa.objects;
  const views =
    (pool ? `renders of ${w.renders}` : 'crops') +
    (objects && o
      ? `; + ${o.views} views of ${o.batch ?? recipe.jepa.batch} of ${objects.n} objects drawn alone (renders of ${objects.renders}${KEEP_WORDS[w.objectKeep ?? 'object']}; ${o.loss === 'infonce' ? 'InfoNCE' : 'LeJEPA'}${o.draw === 'distinct-kinds' ? ', distinct kinds a step' : ''}${o.aloneSteps ? `, alone for the first ${o.aloneSteps} steps` : ''})`
      : '');
  log(
    `${images.n} world scenes (seed ${w.seed}) rendered in ${((performance.now() - t0) / 1000).toFixed(1)} s; training ${recipe.jepa.steps} steps of ${recipe.jepa.batch} images x ${recipe.jepa.V} views (${views}) on ${backend.name}`,
  );
  let losses: number[] = [],
    last: ImageStep | null = null,
    before = 0,
    resumed: number[] = [];
  const tTrain = performance.now();
  // the training images and views are the world's and the jepa's: a checkpoint of those two goes on, the pooler aside
  const key = JSON.stringify({ world: recipe.world, jepa: recipe.jepa });
  const params = await trainImageJepa(
    recipe.jepa,
    { ...(pool ? { pool, noise: recipe.jepa.views.noise } : images), objects },
    {
      onResume: (h) => {
        losses = [...h.losses]; // a copy: the trainer goes on appending to its own
        last = h.last;
        before = h.seconds;
        resumed = h.resumed;
        log(
          `resumed from ${checkpoints!.dir} at step ${h.step}/${recipe.jepa.steps} (loss ${h.last.loss.toFixed(4)}; ${(h.seconds / 60).toFixed(0)} min of training before)`,
        );
      },
      onStep: (s) => {
        last = s;
        losses.push(s.loss);
        hooks.onStep?.(s);
        const window = ((losses.length - 1) % LOSS_WINDOW) + 1; // steps in the current window so far
        if (hooks.onWindow && (window === LOSS_WINDOW || losses.length === recipe.jepa.steps))
          hooks.onWindow(losses.length, mean(losses.slice(-window)), window);
      },
    },
    checkpoints && { ...checkpoints, key, warn: (m) => log(`warning: ${m}`) },
  );
  const trainSeconds = before + (performance.now() - tTrain) / 1000;
  const shape = recipe.jepa.vit as ViTShape;
  const tHead = performance.now();
  const fitted = recipe.pooler ? await fitVitPooler(shape, params, images, recipe.pooler) : null;
  if (fitted)
    log(
      `pooler: ${describePooler(recipe.pooler!)} on ${Math.min(recipe.pooler!.scenes, images.n)} renders in ${((performance.now() - tHead) / 1000).toFixed(1)} s`,
    );
  const bytes = await exportVitOnnx(shape, params, fitted?.head);
  const parity = await onnxParity(bytes, shape, params, normalised(images, [0, 1, 2, 3, 4, 5, 6, 7]), 8, fitted?.head);
  tf.dispose([...params.values()]);
  const l = last as ImageStep | null;
  if (!l) throw new Error('world encoder: no training steps ran');
  const load1 = loadavg();
  return built(bytes, {
    recipe,
    onnx: {
      input: 'pixel_values',
      outputs: ['last_hidden_state', 'pooler_output'],
      embedding: 'pooler_output',
      layerNormEps: 1e-5,
      gelu: 'tanh',
    },
    tfjs: tf.version.tfjs,
    backend: `${backend.package} (${backend.threads} thread)`,
    loss: {
      first: losses[0],
      last: l.loss,
      lastInv: l.inv,
      lastSigreg: l.sigreg,
      ...(l.objectNce !== undefined && { lastObjectNce: l.objectNce }),
      curve: lossCurve(losses),
    },
    parity,
    ...(fitted && {
      pooler: {
        baseSha256: sha256(fitted.base),
        eigenvalues: [fitted.eigenvalues[0], fitted.eigenvalues[fitted.eigenvalues.length - 1]],
        seconds: (performance.now() - tHead) / 1000,
      },
    }),
    build: {
      seconds: before + (performance.now() - t0) / 1000,
      secondsPerStep: trainSeconds / recipe.jepa.steps,
      loadavg: [load0[0], load1[0]], // 1-min load at start and end: the machine is shared
      cpus: cpus().length,
      node: process.version,
      at: new Date().toISOString(),
      ...(resumed.length ? { resumed } : {}),
    },
  });
}

// The weights of each of the `members` ViTs in a model buildVitOnnx wrote: its initializers, by the names it gave them
// (float32 raw data).
function onnxVitWeights(bytes: Uint8Array, cfg: VitConfigInput, source: string, members = 1): VitWeights[] {
  const inits = new Map((decodeModel(bytes, source).graph!.initializer ?? []).map((t) => [t.name ?? '', t]));
  return Array.from({ length: members }, (_, k) =>
    Object.fromEntries(
      Object.keys(vitWeightShapes(cfg)).map((name) => {
        const full = members > 1 ? `member${k}.${name}` : name; // buildVitOnnx's names
        const raw = inits.get(full)?.rawData;
        if (!raw)
          throw new InputError(
            `${source}: no weight ${full}; not a world encoder this workbench built (with ${members} member${members > 1 ? 's' : ''})`,
          );
        return [name, new Float32Array(Uint8Array.from(raw).buffer)]; // a copy: raw may be a view into a larger buffer
      }),
    ),
  );
}

// A member of an ensemble: the one-ViT recipe at that jepa seed (and its steps), without a read-out (its graph is the
// CLS graph).
function memberRecipe(r: WorldEncoderRecipe, m: MemberSpec): WorldEncoderRecipe {
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
// what a member's process is given (its checkpoints: a folder of the ensemble's, member-<memberName>) and gives back
export const MemberInput = z.object({ recipe: WorldEncoderRecipe, checkpoints: BuildCheckpoints.optional() });
export type MemberInput = z.infer<typeof MemberInput>;
const MemberBuild = z.object({ bytes: z.string(), manifest: WorldEncoderManifest.omit({ file: true, probe: true }) }); // bytes: base64

// An ensemble world encoder: each member built as the one-ViT recipe at its seed, each in a process of its own (tfjs's
// wasm backend trains on one thread, so members train side by side only as processes), then joined. Members of one
// length all at once (three on two cores take 1.5x one member's time, where two at a time would take 2x); of different
// lengths, longest first and one per core, so the long one has a core to itself (3 x 2,000 + 6,000 steps on two cores:
// 6,000 steps' time, where all at once would take 8,000's). A member that fails stops the others. Its bytes are the
// in-process build's (same code, one wasm thread each).
async function buildEnsemble(
  recipe: WorldEncoderRecipe,
  hooks: BuildHooks,
  checkpoints?: BuildCheckpoints,
): Promise<BuiltEncoder> {
  const t0 = performance.now(),
    load0 = loadavg();
  const log = hooks.log ?? (() => {});
  const specs = recipe.members!,
    lengths = specs.map((m) => memberOf(recipe, m).steps);
  const slots = new Set(lengths).size === 1 ? specs.length : cpus().length;
  const describe = specs
    .map((m, k) => `${memberOf(recipe, m).seed}${lengths[k] === recipe.jepa.steps ? '' : ` (${lengths[k]} steps)`}`)
    .join(', ');
  log(
    `an ensemble of ${specs.length} ViTs (jepa seeds ${describe}), each training in its own process, ${Math.min(slots, specs.length)} at a time, on ${cpus().length} cores`,
  );
  const cmd = entryCommand(import.meta.url, 'encoder-member.ts', 'encoder-member.js');
  const stop = new AbortController();
  const buildOne = async (m: MemberSpec) => {
    const name = memberName(recipe, m);
    try {
      const input: MemberInput = {
        recipe: memberRecipe(recipe, m),
        ...(checkpoints && { checkpoints: { ...checkpoints, dir: join(checkpoints.dir, `member-${name}`) } }),
      };
      const b = MemberBuild.parse(
        await callChild(cmd, input, `world-encoder member ${name}`, {
          onLine: (line) => log(`member ${name}: ${line}`),
          signal: stop.signal,
        }),
      );
      return { bytes: Buffer.from(b.bytes, 'base64'), manifest: b.manifest, source: `world-encoder member ${name}` };
    } catch (err) {
      stop.abort();
      throw err;
    }
  };
  // `slots` workers, each taking the longest member left (a few lines: the order is the point); none starts after a failure
  const order = specs.map((_, k) => k).sort((a, b) => lengths[b] - lengths[a]);
  const builds: Awaited<ReturnType<typeof buildOne>>[] = [];
  await Promise.all(
    Array.from({ length: Math.min(slots, specs.length) }, async () => {
      for (let k = order.shift(); k !== undefined && !stop.signal.aborted; k = order.shift())
        builds[k] = await buildOne(specs[k]);
    }),
  );
  const joined = await joinMembers(recipe, builds.flatMap(membersOf), log);
  const m0 = builds[0].manifest;
  return {
    ...joined,
    manifest: {
      ...joined.manifest,
      backend: `${m0.backend} per member, ${specs.length} processes`,
      build: {
        seconds: (performance.now() - t0) / 1000,
        secondsPerStep: joined.manifest.build.secondsPerStep,
        loadavg: [load0[0], loadavg()[0]],
        cpus: cpus().length,
        node: process.version,
        at: new Date().toISOString(),
      },
    },
  };
}

// The hash of a built model's ViT alone (its CLS graph): the file's own, or with a read-out the base it was fitted on.
const vitSha256 = (m: Pick<WorldEncoderManifest, 'sha256' | 'pooler'>): string => m.pooler?.baseSha256 ?? m.sha256;
type ModelFile = { bytes: Uint8Array; manifest: Omit<WorldEncoderManifest, 'file' | 'probe'>; source: string };
// One trained ViT as a join takes it: its weights, its build's record (the manifest's `members` row) and the model it
// came from (whose onnx, tfjs, backend and parity the join keeps).
type Member = {
  weights: VitWeights;
  record: NonNullable<WorldEncoderManifest['members']>[number];
  spec: { seed: number; steps: number };
  from: ModelFile;
};

// The ViTs of a built model: a one-ViT build's one, or each member of an ensemble with its recorded build.
function membersOf(b: ModelFile): Member[] {
  const m = b.manifest,
    cfg = vitOnnxConfig(m.recipe.jepa.vit as ViTShape);
  if (!m.recipe.members) {
    const record = {
      seed: m.recipe.jepa.seed,
      sha256: vitSha256(m),
      loss: { first: m.loss.first, last: m.loss.last, curve: m.loss.curve },
      seconds: m.build.seconds,
      secondsPerStep: m.build.secondsPerStep,
    };
    return [
      {
        weights: onnxVitWeights(b.bytes, cfg, b.source)[0],
        record,
        spec: { seed: m.recipe.jepa.seed, steps: m.recipe.jepa.steps },
        from: b,
      },
    ];
  }
  const specs = m.recipe.members;
  if (m.members?.length !== specs.length)
    throw new InputError(`${b.source}: an ensemble of ${specs.length} without a build record for each member`);
  return onnxVitWeights(b.bytes, cfg, b.source, specs.length).map((weights, k) => ({
    weights,
    record: m.members![k],
    spec: memberOf(m.recipe, specs[k]),
    from: b,
  }));
}

// Members' ViTs (weights read back from their graphs) in one graph, and `recipe.pooler` fitted on their joint tokens.
// build: this join's own time (the members' are in `members`).
async function joinMembers(
  recipe: WorldEncoderRecipe,
  members: readonly Member[],
  log: (t: string) => void,
): Promise<BuiltEncoder> {
  const t0 = performance.now();
  const pooler = recipe.pooler!;
  const shape = recipe.jepa.vit as ViTShape,
    cfg = vitOnnxConfig(shape);
  for (const { weights, record, from } of members) {
    const own = sha256(buildVitOnnx(cfg, weights));
    if (own !== record.sha256)
      throw new InputError(
        `${from.source}: its ViT${from.manifest.recipe.members ? ` of seed ${record.seed}` : ''} rebuilds to sha256 ${own.slice(0, 16)}…, not its manifest's ${record.sha256.slice(0, 16)}…`,
      );
  }
  const weights = members.map((m) => m.weights);
  const base = buildVitOnnx(cfg, weights);
  const { bytes, eigenvalues, parity } = await withHeadOn(
    base,
    shape,
    weights,
    await firstSceneImages(recipe.world),
    pooler,
  );
  log(
    `pooler: ${describePooler(pooler)} over ${members.length} members' tokens, fitted in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  const m0 = members[0].from.manifest;
  const load = loadavg()[0];
  return built(bytes, {
    recipe,
    onnx: m0.onnx,
    tfjs: m0.tfjs,
    backend: m0.backend,
    loss: m0.loss,
    parity: {
      images: m0.parity.images,
      maxAbsDiffPooler: parity,
      maxAbsDiffTokens: Math.max(...members.map((m) => m.from.manifest.parity.maxAbsDiffTokens)),
    },
    pooler: {
      baseSha256: sha256(base),
      eigenvalues: [eigenvalues[0], eigenvalues[eigenvalues.length - 1]],
      seconds: (performance.now() - t0) / 1000,
    },
    build: {
      seconds: (performance.now() - t0) / 1000,
      secondsPerStep: mean(members.map((m) => m.record.secondsPerStep)),
      loadavg: [load, load],
      cpus: cpus().length,
      node: process.version,
      at: new Date().toISOString(),
    },
    members: members.map((m) => m.record),
  });
}

/** An ensemble from world encoders already built (of one recipe at distinct jepa seeds: one-ViT builds made on other
 *  machines or as Slurm jobs, or ensembles, whose members join as they are, so an ensemble grows without training its
 *  members again), with `pooler` (default: the first's) fitted on their joint tokens: the bytes a build of the recipe
 *  with all those `members` gives, without training. Refused unless each ViT rebuilds to its manifest's record. */
export async function joinWorldEncoders(
  models: readonly { bytes: Uint8Array; manifest: WorldEncoderManifest; source: string }[],
  pooler?: PoolerRecipe,
  log: (t: string) => void = () => {},
): Promise<BuiltEncoder> {
  const r0 = models[0]?.manifest.recipe;
  // the recipe with seed and length taken out (memberRecipe stretches an object term trained alone throughout with them)
  const shared = (r: WorldEncoderRecipe) => JSON.stringify(memberRecipe(r, { seed: 0, steps: 1 }));
  const odd = models.find((b) => shared(b.manifest.recipe) !== shared(r0));
  if (odd)
    throw new InputError(
      `${odd.source}: its recipe differs from ${models[0].source}'s in more than jepa.seed and steps; an ensemble's members share one recipe`,
    );
  const members = models.flatMap(membersOf);
  if (members.length < 2)
    throw new InputError(`join: ${members.length} ViT${members.length === 1 ? '' : 's'}; an ensemble needs at least 2`);
  // each member as r0's members name it: its seed, with its steps where they are not r0's
  const specs = members.map(({ spec }): MemberSpec => (spec.steps === r0.jepa.steps ? spec.seed : spec));
  const names = specs.map((m) => memberName(r0, m));
  const twice = specs.find((_, i) => names.indexOf(names[i]) !== i);
  if (twice !== undefined)
    throw new InputError(
      `join: two ViTs of jepa seed ${typeof twice === 'number' ? twice : `${twice.seed} at ${twice.steps} steps`}; an ensemble's members are distinct draws`,
    );
  const read = pooler ?? r0.pooler;
  if (!read)
    throw new InputError(`join: ${models[0].source} has no read-out to fit over the members; give a pooler recipe`);
  const joined = await joinMembers(WorldEncoderRecipe.parse({ ...r0, pooler: read, members: specs }), members, log);
  return {
    ...joined,
    manifest: {
      ...joined.manifest,
      joined: { from: models.map((b) => b.manifest.sha256), at: new Date().toISOString() },
    },
  };
}

/** A new read-out `pooler` for a built world encoder, without training it again: the ViT's weights are read back from
 *  the ONNX file and rebuilt into the CLS-pooler graph, which must hash to the manifest's `pooler.baseSha256` (then the
 *  weights are the trained ones to the bit), and the head is fitted as the build fits it. So the bytes are those a
 *  full build of the recipe with this pooler gives (`--check` rebuilds them), in seconds instead of an hour. */
export async function repoolWorldEncoder(
  bytes: Uint8Array,
  manifest: WorldEncoderManifest,
  pooler: PoolerRecipe,
  source: string,
): Promise<BuiltEncoder> {
  const t0 = performance.now();
  const shape = manifest.recipe.jepa.vit as ViTShape,
    cfg = vitOnnxConfig(shape);
  const weights = onnxVitWeights(bytes, cfg, source, manifest.recipe.members?.length);
  const base = buildVitOnnx(cfg, weights);
  const want = vitSha256(manifest);
  if (sha256(base) !== want)
    throw new InputError(
      `${source}: its ViT rebuilds to sha256 ${sha256(base).slice(0, 16)}…, not the manifest's base ${want.slice(0, 16)}…`,
    );
  const {
    bytes: out,
    eigenvalues,
    parity,
  } = await withHeadOn(base, shape, weights, await firstSceneImages(manifest.recipe.world), pooler);
  const { file: _file, probe: _probe, sha256: _sha256, bytes: _bytes, ...rest } = manifest;
  return built(out, {
    ...rest,
    recipe: { ...manifest.recipe, pooler },
    parity: { ...manifest.parity, maxAbsDiffPooler: parity },
    pooler: {
      baseSha256: want,
      eigenvalues: [eigenvalues[0], eigenvalues[eigenvalues.length - 1]],
      seconds: (performance.now() - t0) / 1000,
    },
    repooled: { from: manifest.sha256, at: new Date().toISOString() },
  });
}

export type ProbeTable = NonNullable<WorldEncoderManifest['probe']>;

// The experiments' default world (seed 0, 5,000 / 1,014 / 1,000): the probes' and the ceiling's held-out scenes, so the
// ceiling recorded here is the one `prh demo` reports. The encoder trains on another seed (recipe.world.seed).
const PROBE_WORLD = { seed: 0, splits: { train: 5000, val: 1014, test: 1000 } } as const;

// Scores the image side of a world dataset: the ceiling, given by the caller (engine/experiment owns it).
export type CeilingOf = (
  dataset: Dataset,
  emb: Embeddings,
  ids: string[],
) => Promise<{ r1: number; mknn: number | null; dim: number } | null>;

// Linear probes (and, given `ceiling`, the image-side ceiling) on a held-out world (generated into a temp folder unless
// `worldDir` holds one): the encoder through the dinov2 image path, next to raw 16-px pixels and the same ViT at its
// random init (also through ONNX).
export async function probeWorldEncoder(
  onnxPath: string,
  recipe: WorldEncoderRecipe,
  worldDir?: string,
  log: (t: string) => void = () => {},
  ceiling?: CeilingOf,
): Promise<ProbeTable> {
  await initBackend('wasm'); // the random-init ViT is built with tfjs
  const tmp = mkdtempSync(join(tmpdir(), 'prh-world-probe-'));
  try {
    const world = { ...PROBE_WORLD, imageSize: recipe.world.imageSize };
    const dir = worldDir ?? join(tmp, 'world');
    if (!worldDir) generateWorld(dir, world);
    const ds = readDataset(dir);
    const refs = ds.images.flatMap((im) => (im.file ? [{ id: im.id, file: join(dir, 'images', im.file) }] : []));
    if (!refs.length) throw new InputError(`${dir}: no images to probe`);
    const embed = async (path: string) => {
      const side = recipe.world.imageSize; // the whole render, as it trained (engine/experiment/images.ts feeds it so)
      const enc = await openImageEncoder(path, { preset: 'dinov2', overrides: { size: side, resize: side } });
      try {
        return await embedImages(enc, refs, { batchSize: 64 });
      } finally {
        await enc.release();
      }
    };
    const trained = await embed(onnxPath);
    log(`probe: embedded ${trained.ids.length} held-out scenes`);
    const shape = recipe.jepa.vit as ViTShape;
    const randomPath = join(tmp, 'random-init.onnx');
    // an ensemble's members each at their random init
    const rnd = (recipe.members ?? [recipe.jepa.seed]).map((m) => initImageVit(memberRecipe(recipe, m).jepa));
    // the random-init ViT gets its own pooler (and stem statistics), fitted the same way: the comparison is of the trained weights
    const seen =
      recipe.pooler || shape.stem
        ? await worldImages(recipe.world.seed, recipe.pooler?.scenes ?? 1000, recipe.world.imageSize)
        : null;
    if (shape.stem && seen) for (const p of rnd) await calibrateStemOn(shape.stem, p, seen);
    const params = recipe.members ? rnd : rnd[0];
    const own = recipe.pooler && seen ? (await fitVitPooler(shape, params, seen, recipe.pooler)).head : undefined;
    writeFileSync(randomPath, await exportVitOnnx(shape, params, own));
    tf.dispose(rnd.flatMap((p) => [...p.values()]));
    const random = await embed(randomPath);
    const pixels = await pixelFeatures(refs.map((r) => r.file));
    const pixelIds = refs.map((r) => r.id);
    const rows = (r: ProbeResult[]) => r.map((x) => ({ ...x }));
    const ceilings =
      ceiling && (await Promise.all([ceiling(ds, trained.emb, trained.ids), ceiling(ds, random.emb, random.ids)]));
    return {
      ...(ceilings?.[0] && ceilings[1] ? { ceiling: { trained: ceilings[0], randomInit: ceilings[1] } } : {}),
      world: worldDir ? { dir: worldDir } : world,
      trained: rows(probeAttributes(trained.emb, trained.ids, ds.images)),
      pixels: rows(probeAttributes(pixels, pixelIds, ds.images)),
      randomInit: rows(probeAttributes(random.emb, random.ids, ds.images)),
    };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

export const readWorldEncoderManifest = (path: string): WorldEncoderManifest =>
  readJson(path, WorldEncoderManifest, 'a world-encoder manifest');
