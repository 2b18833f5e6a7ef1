// Views for the image JEPA that are other renderings of the same world state (the paper's "good" image views: frames
// of one clip, not crops of one frame): the V views of an image are V different renders from its pool of K, each
// with light Gaussian pixel noise, then ImageNet mean/std as the crop views (image-views.ts) are normalised.
import { constants } from 'node:buffer';
import { objectKind, renderObjectPixels, renderScenePixels, type ObjectKeep, type Scene } from '../data';
import { InputError } from '../errors';
import type { TrainRng } from '../models';
import { IMAGENET_MEAN, IMAGENET_STD, type ImageSet } from './image-views';

const { MAX_LENGTH } = constants;

// K renders of each of n square RGB images as bytes: render k of image i at (i·K + k)·3S², CHW (S = side).
// kinds (object pools): kinds[i] = the index of what item i's renders keep (objectKind), 0..max; items of one kind
// have renders from one distribution.
export type RenderPool = { n: number; renders: number; side: number; data: Uint8Array; kinds?: Int32Array };

/** K renders of each scene (its index in the world `seed` and its state) as bytes: render k is view k of the scene
 *  (engine/data/world: view 0 is the dataset's PNG, views k > 0 re-draw the nuisance and the drawing order). */
export const renderPool = (
  seed: number,
  side: number,
  scenes: readonly { index: number; state: Scene }[],
  K: number,
): RenderPool =>
  poolOf(scenes.length, K, side, (i, k) => renderScenePixels(scenes[i].state, side, seed, scenes[i].index, k));

/** K renders of every object of the scenes, each drawn alone (renderObjectPixels; `keep`: the object on its scene's
 *  background, or what OBJECT_KEEPS names), as a pool over the objects in scene order, with each object's kind: the image
 *  JEPA's object-level views. */
export function objectPool(
  seed: number,
  side: number,
  scenes: readonly { index: number; state: Scene }[],
  K: number,
  keep: ObjectKeep = 'object',
): RenderPool {
  const objects = scenes.flatMap(({ index, state }) => state.objects.map((_, j) => ({ index, state, j })));
  const ids = new Map<string, number>();
  const kinds = Int32Array.from(objects, ({ state, j }) => {
    const key = objectKind(state, j, keep);
    if (!ids.has(key)) ids.set(key, ids.size);
    return ids.get(key)!;
  });
  return {
    ...poolOf(objects.length, K, side, (i, k) =>
      renderObjectPixels(objects[i].state, {
        size: side,
        seed,
        index: objects[i].index,
        object: objects[i].j,
        view: k,
        keep,
      }),
    ),
    kinds,
  };
}

// K renders of each of n items: render(i, k) gives RGBA bytes [S, S, 4], stored CHW at (i·K + k)·3S². One array, so at
// most MAX_LENGTH bytes (4 GiB in Node 20): 10,206 objects x 8 renders at 128 px is 4.01 GB, just under it.
function poolOf(n: number, K: number, side: number, render: (i: number, k: number) => Uint8ClampedArray): RenderPool {
  const plane = side * side,
    per = 3 * plane;
  if (n * K * per > MAX_LENGTH)
    throw new InputError(
      `${n} images x ${K} renders at ${side} px are ${((n * K * per) / 2 ** 30).toFixed(2)} GiB of renders, over the ${MAX_LENGTH / 2 ** 30} GiB one array holds: fewer renders, scenes or pixels`,
    );
  const data = new Uint8Array(n * K * per);
  for (let i = 0; i < n; i++)
    for (let k = 0; k < K; k++) {
      const rgba = render(i, k);
      const o = (i * K + k) * per;
      for (let q = 0; q < plane; q++) for (let c = 0; c < 3; c++) data[o + c * plane + q] = rgba[4 * q + c];
    }
  return { n, renders: K, side, data };
}

// How a step's objects are drawn: uniformly with replacement (a batch may then hold two objects whose renders keep the
// same, a negative InfoNCE cannot tell from the positive), or one random object of each of B distinct kinds.
export const OBJECT_DRAWS = ['uniform', 'distinct-kinds'] as const;
export type ObjectDraw = (typeof OBJECT_DRAWS)[number];

/** B objects of an object pool for one step's views, drawn as `draw` says. */
export function drawObjects(pool: RenderPool, B: number, draw: ObjectDraw, rng: TrainRng): Int32Array {
  if (draw === 'uniform') return Int32Array.from({ length: B }, () => rng.int(0, pool.n - 1));
  const members = kindMembers(pool);
  if (B > members.length)
    throw new Error(`${B} objects of distinct kinds a step, but the object renders have ${members.length} kinds`);
  return Int32Array.from(
    rng.permutation(members.length).slice(0, B),
    (k) => members[k][rng.int(0, members[k].length - 1)],
  );
}

// The pool's items by kind (members[k]: the items of kind k, in pool order), once per pool.
const membersOf = new WeakMap<RenderPool, number[][]>();
function kindMembers(pool: RenderPool): number[][] {
  let members = membersOf.get(pool);
  if (!members) {
    if (!pool.kinds)
      throw new Error("objects of distinct kinds need an object pool (objectPool), which records each object's kind");
    members = [];
    pool.kinds.forEach((k, i) => (members![k] ??= []).push(i));
    membersOf.set(pool, members);
  }
  return members;
}

/** Render 0 of each scene in [0, 1] (the crop views' input); of the first `count` scenes only, if given. */
export function firstRenders(pool: RenderPool, count = pool.n): ImageSet {
  const n = Math.min(count, pool.n),
    per = 3 * pool.side * pool.side;
  const data = new Float32Array(n * per);
  for (let i = 0; i < n; i++)
    for (let q = 0; q < per; q++) data[i * per + q] = pool.data[i * pool.renders * per + q] / 255;
  return { n, side: pool.side, data };
}

// V views of each of the B images `ids`: [V·B, 3, S, S] in view-major order (row v·B + b), normalised. Each image
// draws V distinct renders (a shuffled pool, cycled when K < V) and each view its noise std from U(0, noise)
// (noise in [0, 1] pixel units).
export function renderViewBatch(
  pool: RenderPool,
  ids: ArrayLike<number>,
  V: number,
  noise: number,
  rng: TrainRng,
): Float32Array {
  const B = ids.length,
    plane = pool.side * pool.side,
    per = 3 * plane,
    K = pool.renders;
  const out = new Float32Array(V * B * per);
  for (let b = 0; b < B; b++) {
    const order = rng.permutation(K);
    for (let v = 0; v < V; v++) {
      const src = (ids[b] * K + order[v % K]) * per;
      const dst = (v * B + b) * per;
      const std = noise * rng.uniform();
      for (let c = 0; c < 3; c++)
        for (let q = 0; q < plane; q++) {
          const x = Math.min(1, Math.max(0, pool.data[src + c * plane + q] / 255 + std * rng.normal()));
          out[dst + c * plane + q] = (x - IMAGENET_MEAN[c]) / IMAGENET_STD[c];
        }
    }
  }
  return out;
}
