// Image-JEPA training is a pure function of (recipe, images): same seed, same bytes; the loss goes down. The world
// encoder's build too, with crop views, with good image views (renders of one scene state), or with object views
// (LeJEPA or InfoNCE; objects kept whole, or their shape only; trained alone for the first steps, or not; drawn
// uniformly or of distinct kinds), with its loss curve (the mean of each window of steps) in the manifest; an ensemble of
// such builds.
import { mkdtempSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import * as tf from '@tensorflow/tfjs';
import * as ort from 'onnxruntime-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateWorld, readDataset } from '../../engine/data';
import { exportVitOnnx, type ViTShape } from '../../engine/models';
import {
  initBackend,
  normalised,
  trainImageJepa,
  type ImageJepaRecipe,
  type ImageSet,
  type ImageStep,
} from '../../engine/train';
import {
  WorldEncoderRecipe,
  buildWorldEncoder,
  joinWorldEncoders,
  lossCurve,
  repoolWorldEncoder,
  worldImages,
  type BuiltEncoder,
} from '../../engine/image';

let images: ImageSet;
const recipe: ImageJepaRecipe = {
  vit: { imageSize: 32, patchSize: 8, hidden: 16, depth: 1, heads: 2, mlp: 32 },
  posStd: 0.5,
  projector: { dims: [32, 16], norm: [true, false], act: 'gelu' },
  views: { scale: [0.6, 1], ratio: [3 / 4, 4 / 3], flip: 0, brightness: 0.2, contrast: 0.2, noise: 0.04 },
  V: 3,
  batch: 8,
  steps: 6,
  lr: 5e-3,
  warmupSteps: 1,
  minLr: 0.1,
  weightDecay: 0.05,
  lamb: 0.4,
  slices: 32,
  clip: 1,
  seed: 5,
};

beforeAll(async () => {
  await initBackend('wasm');
  images = worldImages(1, 16, 32);
});

async function run(r: ImageJepaRecipe): Promise<{ onnx: Uint8Array; steps: ImageStep[] }> {
  const steps: ImageStep[] = [];
  const p = await trainImageJepa(r, images, { onStep: (s) => steps.push(s) });
  const onnx = await exportVitOnnx(r.vit as ViTShape, p);
  tf.dispose([...p.values()]);
  return { onnx, steps };
}

describe('image JEPA training', () => {
  it('is deterministic on the wasm backend: same recipe, byte-identical ONNX and identical losses', async () => {
    const a = await run(recipe);
    const b = await run(recipe);
    expect(b.steps.map((s) => s.loss)).toEqual(a.steps.map((s) => s.loss));
    expect(Buffer.from(b.onnx).equals(Buffer.from(a.onnx))).toBe(true);
    const c = await run({ ...recipe, seed: 6 });
    expect(Buffer.from(c.onnx).equals(Buffer.from(a.onnx))).toBe(false);
    // SIGReg dominates at init (all projections alike) and falls within a few steps
    expect(a.steps[a.steps.length - 1].sigreg).toBeLessThan(a.steps[0].sigreg);
  }, 60_000);
});

describe('world encoder build', () => {
  it("trains on the world's own images: worldImages is its PNGs decoded, [0, 1] CHW", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prh-world-images-'));
    generateWorld(dir, { seed: 1, splits: { train: 16, val: 0, test: 0 }, imageSize: 32 });
    const { images: rows } = readDataset(dir);
    const ctx = createCanvas(32, 32).getContext('2d');
    for (const [i, row] of rows.entries()) {
      ctx.drawImage(await loadImage(join(dir, 'images', row.file!)), 0, 0);
      const px = ctx.getImageData(0, 0, 32, 32).data; // [32, 32, 4] RGBA
      const chw = Float32Array.from({ length: 3 * 32 * 32 }, (_, j) => px[4 * (j % 1024) + Math.floor(j / 1024)] / 255);
      expect(images.data.subarray(i * chw.length, (i + 1) * chw.length)).toEqual(chw);
    }
  });
  const world: WorldEncoderRecipe = { world: { seed: 1, scenes: 16, imageSize: 32 }, jepa: { ...recipe, steps: 3 } };
  it('is deterministic with good image views (renders of each scene state) and the whitened pooler, and they are not the crop views', async () => {
    const good = { ...world, world: { ...world.world, renders: 3 }, pooler: { grid: 2, dims: 8, scenes: 16 } };
    const a = await buildWorldEncoder(good);
    const b = await buildWorldEncoder(good);
    expect(b.sha256).toBe(a.sha256);
    expect(b.manifest.loss).toEqual(a.manifest.loss);
    expect(a.manifest.recipe.world.renders).toBe(3);
    // the pooler only adds a head: the same training without it gives the recorded CLS-pooler graph
    const cls = await buildWorldEncoder({ ...good, pooler: undefined });
    expect(a.manifest.pooler?.baseSha256).toBe(cls.sha256);
    expect(cls.manifest.pooler).toBeUndefined();
    const crops = await buildWorldEncoder(world);
    expect(crops.sha256).not.toBe(cls.sha256);
    // the exported graph computes what tfjs trained (and the head what the JS head computes on tfjs's tokens)
    expect(a.manifest.parity.maxAbsDiffPooler).toBeLessThan(1e-4);
    expect(a.manifest.parity.maxAbsDiffTokens).toBeLessThan(1e-4);
  }, 180_000);

  it('is deterministic with a conv stem, whose exported graph (BatchNorm folded) computes what tfjs does', async () => {
    const stem: WorldEncoderRecipe = { ...world, jepa: { ...world.jepa, vit: { ...world.jepa.vit, stem: [4, 8, 8] } } };
    const a = await buildWorldEncoder(stem);
    const b = await buildWorldEncoder(stem);
    expect(b.sha256).toBe(a.sha256);
    expect(b.manifest.loss).toEqual(a.manifest.loss);
    expect(a.sha256).not.toBe((await buildWorldEncoder(world)).sha256);
    expect(a.manifest.parity.maxAbsDiffPooler).toBeLessThan(1e-4);
    expect(a.manifest.parity.maxAbsDiffTokens).toBeLessThan(1e-4);
  }, 180_000);

  it('a new read-out on a built model (repool) gives the bytes of a full build with that read-out, and only for its own ViT', async () => {
    const stem: WorldEncoderRecipe = {
      ...world,
      jepa: { ...world.jepa, vit: { ...world.jepa.vit, stem: [4, 8, 8] } },
      pooler: { grid: 2, dims: 8, scenes: 16 },
    };
    const other = { grid: 1, dims: 6, scenes: 12 };
    const a = await buildWorldEncoder(stem);
    const full = await buildWorldEncoder({ ...stem, pooler: other });
    const manifest = { file: 'a.onnx', ...a.manifest, probe: null };
    const r = await repoolWorldEncoder(a.bytes, manifest, other, 'a.onnx');
    expect(r.sha256).toBe(full.sha256);
    expect(Buffer.from(r.bytes).equals(Buffer.from(full.bytes))).toBe(true);
    expect(r.manifest.recipe).toEqual(full.manifest.recipe);
    expect(r.manifest.pooler!.baseSha256).toBe(a.manifest.pooler!.baseSha256);
    expect(r.manifest.repooled!.from).toBe(a.sha256);
    expect(r.manifest.parity.maxAbsDiffPooler).toBeLessThan(1e-4);
    // another ViT under the same manifest: its weights do not rebuild to the recorded base
    const b = await buildWorldEncoder({ ...stem, jepa: { ...stem.jepa, seed: 6 } });
    await expect(repoolWorldEncoder(b.bytes, manifest, other, 'b.onnx')).rejects.toThrow(
      /b\.onnx: its ViT rebuilds to sha256 \w+…, not the manifest's base/,
    );
  }, 180_000);

  it('an ensemble trains each member in a process of its own, as the in-process build of its seed, and fits one read-out over their joint tokens', async () => {
    const pooled: WorldEncoderRecipe = { ...world, pooler: { grid: 1, dims: 8, scenes: 16 } };
    const r: WorldEncoderRecipe = { ...pooled, members: [5, 9] };
    const lines: string[] = [];
    const [a, b] = [await buildWorldEncoder(r, { log: (t) => lines.push(t) }), await buildWorldEncoder(r)];
    expect(b.sha256).toBe(a.sha256);
    // member k is the one-ViT build at its seed (no read-out), to the byte, and the manifest records each
    const solo = await Promise.all(
      [5, 9].map((seed) => buildWorldEncoder({ ...world, jepa: { ...world.jepa, seed } })),
    );
    expect(a.manifest.members!.map((m) => [m.seed, m.sha256])).toEqual([
      [5, solo[0].sha256],
      [9, solo[1].sha256],
    ]);
    expect(a.manifest.loss).toEqual(solo[0].manifest.loss);
    expect(a.manifest.members![1].loss.curve).toEqual(solo[1].manifest.loss.curve);
    expect(lines.filter((l) => /^member (5|9): step 3\/3: loss \d/.test(l))).toHaveLength(2);
    // its graph: both members' tokens side by side ([n, 5, 32]), the head on them, as the JS head computes
    const x = new ort.Tensor('float32', normalised(images, [0, 1, 2]), [3, 3, 32, 32]);
    const run = async (bytes: Uint8Array) => (await ort.InferenceSession.create(bytes)).run({ pixel_values: x });
    const [joint, m0, m1] = await Promise.all([a.bytes, solo[0].bytes, solo[1].bytes].map(run));
    expect(joint.last_hidden_state.dims).toEqual([3, 17, 32]);
    expect(joint.pooler_output.dims).toEqual([3, 8]);
    const [J, A, B] = [joint, m0, m1].map((o) => o.last_hidden_state.data as Float32Array);
    expect([J[0], J[16], J[32]]).toEqual([A[0], B[0], A[16]]);
    expect(a.manifest.parity.maxAbsDiffPooler).toBeLessThan(1e-4);
    expect(a.manifest.pooler!.baseSha256).not.toBe(a.sha256);
    // a new read-out on the ensemble reads both members back: the bytes of a full build with it
    const other = { grid: 1, dims: 6, scenes: 12 };
    const re = await repoolWorldEncoder(a.bytes, { file: 'a.onnx', ...a.manifest, probe: null }, other, 'a.onnx');
    expect(re.sha256).toBe((await buildWorldEncoder({ ...r, pooler: other })).sha256);
    // joined from the two builds made apart: the same bytes, and only from one recipe's distinct draws
    const file = (b: BuiltEncoder, k: number) => ({
      bytes: b.bytes,
      manifest: { file: `m${k}.onnx`, ...b.manifest, probe: null },
      source: `m${k}.onnx`,
    });
    const join = await joinWorldEncoders(solo.map(file), pooled.pooler);
    expect(join.sha256).toBe(a.sha256);
    expect(join.manifest.joined!.from).toEqual(solo.map((x) => x.sha256));
    expect(join.manifest.members).toEqual(
      a.manifest.members!.map((m) => ({ ...m, seconds: expect.any(Number), secondsPerStep: expect.any(Number) })),
    );
    await expect(joinWorldEncoders(solo.map(file))).rejects.toThrow(/m0\.onnx has no read-out to fit/);
    await expect(joinWorldEncoders([file(solo[0], 0), file(solo[0], 1)], pooled.pooler)).rejects.toThrow(
      /two ViTs of jepa seed 5/,
    );
    const slower = await buildWorldEncoder({ ...world, jepa: { ...world.jepa, seed: 9, lr: 1e-3 } });
    await expect(joinWorldEncoders([file(solo[0], 0), file(slower, 1)], pooled.pooler)).rejects.toThrow(
      /m1\.onnx: its recipe differs from m0\.onnx's in more than jepa.seed and steps/,
    );
    await expect(
      joinWorldEncoders([file(solo[0], 0), { ...file(solo[1], 1), bytes: solo[0].bytes }], pooled.pooler),
    ).rejects.toThrow(/m1\.onnx: its ViT rebuilds to sha256 \w+…, not its manifest's/);
    // an ensemble joins as its members: grown by a third draw, the bytes of the three one-ViT builds joined
    const third = await buildWorldEncoder({ ...world, jepa: { ...world.jepa, seed: 3 } });
    const grown = await joinWorldEncoders([file(a, 0), file(third, 1)]);
    const three = await joinWorldEncoders([...solo, third].map(file), pooled.pooler);
    expect(grown.sha256).toBe(three.sha256);
    expect(grown.manifest.recipe.members).toEqual([5, 9, 3]);
    expect(grown.manifest.members!.map((m) => [m.seed, m.sha256])).toEqual(
      three.manifest.members!.map((m) => [m.seed, m.sha256]),
    );
    expect(grown.manifest.joined!.from).toEqual([a.sha256, third.sha256]);
    await expect(joinWorldEncoders([file(a, 0), file(solo[1], 1)])).rejects.toThrow(/two ViTs of jepa seed 9/);
    const forged = file(a, 0);
    forged.manifest.members = a.manifest.members!.map((m, k) => (k === 1 ? { ...m, sha256: solo[0].sha256 } : m));
    await expect(joinWorldEncoders([forged, file(third, 1)])).rejects.toThrow(
      /m0\.onnx: its ViT of seed 9 rebuilds to sha256 \w+…, not its manifest's/,
    );
    // the recipe: distinct draws (a seed at other steps is one), the first jepa.seed, and a read-out to join them
    expect(WorldEncoderRecipe.safeParse({ ...r, members: [9, 5] }).error?.issues[0].message).toMatch(
      /the first jepa.seed/,
    );
    expect(WorldEncoderRecipe.safeParse({ ...r, members: [5, 5] }).success).toBe(false);
    expect(WorldEncoderRecipe.safeParse({ ...r, members: [5, { seed: 5, steps: 3 }] }).success).toBe(false);
    expect(WorldEncoderRecipe.safeParse({ ...r, members: [5, { seed: 5, steps: 2 }] }).success).toBe(true);
    expect(WorldEncoderRecipe.safeParse({ ...world, members: [5, 9] }).error?.issues[0].message).toMatch(
      /members need a pooler/,
    );
    // a member that fails fails the build with its own message
    const bad = { ...r, jepa: { ...r.jepa, objects: { views: 2, weight: 1 } } }; // object views without object renders
    await expect(buildWorldEncoder(bad)).rejects.toThrow(/world.objectRenders and jepa.objects go together/);
  }, 300_000);

  it("an ensemble's members may run schedules of their own: longest first, one per core, the bytes of their one-ViT builds joined", async () => {
    const obj: WorldEncoderRecipe = {
      world: { ...world.world, objectRenders: 3, objectKeep: 'shape-colour' },
      jepa: { ...world.jepa, objects: { views: 2, weight: 1, batch: 4, loss: 'infonce', aloneSteps: 3 } },
      pooler: { grid: 1, dims: 8, scenes: 16 },
    };
    const r: WorldEncoderRecipe = { ...obj, members: [5, { seed: 5, steps: 5 }, 9] };
    const lines: string[] = [];
    const full = await buildWorldEncoder(r, { log: (t) => lines.push(t) });
    expect(lines[0]).toMatch(
      new RegExp(
        String.raw`jepa seeds 5, 5 \(5 steps\), 9\), each training in its own process, ${Math.min(3, cpus().length)} at a time, on \d+ cores`,
      ),
    );
    expect(lines.filter((l) => /^member 5-5: step 5\/5: loss \d/.test(l))).toHaveLength(1);
    // the long member is the one-ViT build of that seed for 5 steps, its object term alone throughout as the recipe's is
    const { members: _m, pooler: _p, ...one } = r;
    const file = (b: BuiltEncoder, k: number) => ({
      bytes: b.bytes,
      manifest: { file: `m${k}.onnx`, ...b.manifest, probe: null },
      source: `m${k}.onnx`,
    });
    const solo = await Promise.all(
      [
        { seed: 5, steps: 3 },
        { seed: 5, steps: 5 },
        { seed: 9, steps: 3 },
      ].map(({ seed, steps }) =>
        buildWorldEncoder({
          ...one,
          jepa: { ...one.jepa, seed, steps, objects: { ...one.jepa.objects!, aloneSteps: steps } },
        }),
      ),
    );
    expect(full.manifest.members!.map((m) => m.sha256)).toEqual(solo.map((b) => b.sha256));
    expect(new Set(solo.map((b) => b.sha256)).size).toBe(3);
    const join = await joinWorldEncoders(solo.map(file), r.pooler);
    expect(join.sha256).toBe(full.sha256);
    expect(join.manifest.recipe.members).toEqual([5, { seed: 5, steps: 5 }, 9]);
    await expect(joinWorldEncoders([file(solo[0], 0), file(solo[1], 1), file(solo[1], 2)], r.pooler)).rejects.toThrow(
      /two ViTs of jepa seed 5 at 5 steps/,
    );
    // a member shorter than an object term that does not train alone throughout is refused up front
    const half: WorldEncoderRecipe = {
      ...r,
      jepa: { ...r.jepa, objects: { ...r.jepa.objects!, aloneSteps: 2 } },
      members: [5, { seed: 9, steps: 1 }],
    };
    expect(WorldEncoderRecipe.safeParse(half).error?.issues[0].message).toMatch(
      /a member runs at least objects.aloneSteps/,
    );
    expect(WorldEncoderRecipe.safeParse({ ...r, members: [5, { seed: 9, step: 5 }] }).error?.issues[0].message).toMatch(
      /a member is a jepa seed \(an integer ≥ 0\) or \{ "seed": s, "steps": n \}/,
    );
  }, 300_000);

  it('is deterministic with object views (objects drawn alone), which change what is learnt; the recipe needs both halves', async () => {
    const obj: WorldEncoderRecipe = {
      world: { ...world.world, objectRenders: 3 },
      jepa: { ...world.jepa, objects: { views: 2, weight: 0.5 } },
    };
    const a = await buildWorldEncoder(obj);
    const b = await buildWorldEncoder(obj);
    expect(b.sha256).toBe(a.sha256);
    expect(b.manifest.loss).toEqual(a.manifest.loss);
    expect(a.sha256).not.toBe((await buildWorldEncoder(world)).sha256);
    // the logged parts are the two terms' weighted sums: loss = inv + λ·sigreg still
    const { last, lastInv, lastSigreg } = a.manifest.loss;
    expect(last).toBeCloseTo(lastInv + world.jepa.lamb * lastSigreg, 5);
    expect(WorldEncoderRecipe.safeParse({ ...obj, world: world.world }).success).toBe(false);
    expect(WorldEncoderRecipe.safeParse({ ...obj, jepa: world.jepa }).success).toBe(false);
    await expect(trainImageJepa(obj.jepa, images)).rejects.toThrow(/no object renders were given/);
  }, 180_000);

  it('is deterministic with shape-only (or shape-and-colour) object renders and an InfoNCE object term, each of which changes what is learnt', async () => {
    const obj: WorldEncoderRecipe = {
      world: { ...world.world, objectRenders: 3 },
      jepa: { ...world.jepa, objects: { views: 2, weight: 0.5 } },
    };
    const shapeOnly: WorldEncoderRecipe = { ...obj, world: { ...obj.world, objectKeep: 'shape' } };
    const nce: WorldEncoderRecipe = {
      ...shapeOnly,
      jepa: { ...obj.jepa, objects: { views: 2, weight: 0.5, loss: 'infonce', temperature: 0.2 } },
    };
    const [a, b] = [await buildWorldEncoder(nce), await buildWorldEncoder(nce)];
    expect(b.sha256).toBe(a.sha256);
    expect(b.manifest.loss).toEqual(a.manifest.loss);
    const lejepa = await buildWorldEncoder(shapeOnly);
    const withColour = await buildWorldEncoder({ ...nce, world: { ...nce.world, objectKeep: 'shape-colour' } });
    expect(new Set([a.sha256, lejepa.sha256, (await buildWorldEncoder(obj)).sha256, withColour.sha256]).size).toBe(4);
    expect(WorldEncoderRecipe.safeParse(withColour.manifest.recipe).success).toBe(true);
    // an InfoNCE object term is logged apart: loss = inv + λ·sigreg + weight·objectNce
    const { last, lastInv, lastSigreg, lastObjectNce } = a.manifest.loss;
    expect(lastObjectNce).toBeGreaterThan(0);
    expect(last).toBeCloseTo(lastInv + world.jepa.lamb * lastSigreg + 0.5 * lastObjectNce!, 5);
    expect(lejepa.manifest.loss.lastObjectNce).toBeUndefined();
    expect(
      WorldEncoderRecipe.safeParse({ ...shapeOnly, world: { ...world.world, objectKeep: 'shape' }, jepa: world.jepa })
        .error?.issues[0].message,
    ).toMatch(/objectKeep .* needs world.objectRenders/);
    expect(
      WorldEncoderRecipe.safeParse({
        ...obj,
        jepa: { ...obj.jepa, objects: { views: 2, weight: 1, temperature: 0.1 } },
      }).error?.issues[0].message,
    ).toMatch(/temperature is InfoNCE's/);
  }, 180_000);

  it('trains the object term alone for objects.aloneSteps steps, then beside the scene term (or throughout); objects.batch sets its objects per step', async () => {
    const objects = { views: 2, weight: 0.5, loss: 'infonce' as const, batch: 6, aloneSteps: 2 };
    const r: WorldEncoderRecipe = {
      world: { ...world.world, objectRenders: 3, objectKeep: 'shape' },
      jepa: { ...world.jepa, steps: 4, objects },
    };
    const build = async (x: WorldEncoderRecipe) => {
      const steps: ImageStep[] = [],
        windows: [number, number][] = [];
      return {
        ...(await buildWorldEncoder(x, {
          onStep: (s) => steps.push(s),
          onWindow: (step, mean) => windows.push([step, mean]),
        })),
        steps,
        windows,
      };
    };
    const [a, b] = [await build(r), await build(r)];
    expect(b.sha256).toBe(a.sha256);
    expect(b.steps.map((s) => s.loss)).toEqual(a.steps.map((s) => s.loss));
    // the manifest's loss curve: 4 steps are one (short) window, its mean, also reported as the build runs
    const mean = a.steps.reduce((t, s) => t + s.loss, 0) / 4;
    expect(a.manifest.loss.curve).toEqual([[4, mean]]);
    expect(a.windows).toEqual([[4, mean]]);
    // alone: no scene term at all, the loss is the weighted InfoNCE; after: the scene term is back (loss = inv + λ·sigreg + w·nce)
    for (const s of a.steps.slice(0, 2)) {
      expect([s.inv, s.sigreg]).toEqual([0, 0]);
      expect(s.loss).toBeCloseTo(0.5 * s.objectNce!, 6);
    }
    for (const s of a.steps.slice(2)) {
      expect(s.sigreg).toBeGreaterThan(0);
      expect(s.loss).toBeCloseTo(s.inv + world.jepa.lamb * s.sigreg + 0.5 * s.objectNce!, 5);
    }
    const together = await build({ ...r, jepa: { ...r.jepa, objects: { ...objects, aloneSteps: undefined } } });
    const eightObjects = await build({ ...r, jepa: { ...r.jepa, objects: { ...objects, batch: undefined } } });
    expect(new Set([a.sha256, together.sha256, eightObjects.sha256]).size).toBe(3);
    expect(eightObjects.steps[0].objectNce).not.toBe(a.steps[0].objectNce); // 8 objects (the scenes' batch), not 6, at step 0 already
    expect(together.steps[0].sigreg).toBeGreaterThan(0);
    expect(
      WorldEncoderRecipe.safeParse({ ...r, jepa: { ...r.jepa, objects: { ...objects, aloneSteps: 5 } } }).error
        ?.issues[0].message,
    ).toMatch(/aloneSteps is at most steps/);
    // alone throughout: no step has a scene term
    const alone = await build({ ...r, jepa: { ...r.jepa, objects: { ...objects, aloneSteps: 4 } } });
    expect(alone.steps.every((s) => s.sigreg === 0 && s.inv === 0)).toBe(true);
    expect(alone.steps.slice(0, 2).map((s) => s.loss)).toEqual(a.steps.slice(0, 2).map((s) => s.loss));
    // objects of distinct kinds (here shapes: 'shape' keeps only the shape): deterministic, not the uniform draw; 9 of 8 shapes is an error
    const distinct: WorldEncoderRecipe = { ...r, jepa: { ...r.jepa, objects: { ...objects, draw: 'distinct-kinds' } } };
    const [d1, d2] = [await build(distinct), await build(distinct)];
    expect(d2.sha256).toBe(d1.sha256);
    expect(d1.sha256).not.toBe(a.sha256);
    expect(d1.steps[0].objectNce).not.toBe(a.steps[0].objectNce);
    const nine = { ...distinct, jepa: { ...distinct.jepa, objects: { ...distinct.jepa.objects!, batch: 9 } } };
    expect(WorldEncoderRecipe.safeParse(nine).error?.issues[0]).toMatchObject({
      path: ['jepa', 'objects', 'batch'],
      message: expect.stringMatching(/at most the kinds world.objectKeep has \(shape 8/),
    });
    await expect(build(nine)).rejects.toThrow(
      /9 objects of distinct kinds a step, but the object renders have 8 kinds/,
    ); // unparsed: the draw's own guard
  }, 180_000);
});

it('the loss curve is the mean of each window of steps, the last one possibly shorter', () => {
  expect(lossCurve([1, 2, 3, 4, 5], 2)).toEqual([
    [2, 1.5],
    [4, 3.5],
    [5, 5],
  ]);
  expect(lossCurve([1, 2, 3, 4], 2)).toEqual([
    [2, 1.5],
    [4, 3.5],
  ]);
  expect(lossCurve([])).toEqual([]);
});
