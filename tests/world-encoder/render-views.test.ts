// Good image views (renders of the same scene state): without noise every view is one of the image's renders,
// normalised; the V views of an image are V different renders; the noise follows its bound; same stream, same batch.
// A step's objects: uniform, or of distinct kinds (what their renders keep). A pool past one array's 4 GiB: bad input.
import { describe, expect, it } from 'vitest';
import { TrainRng } from '../../engine/models';
import { drawScenes, objectKind } from '../../engine/data';
import { InputError } from '../../engine/errors';
import {
  IMAGENET_MEAN,
  IMAGENET_STD,
  drawObjects,
  objectPool,
  renderPool,
  renderViewBatch,
  type RenderPool,
} from '../../engine/train';

const S = 8,
  K = 5,
  n = 3,
  per = 3 * S * S;
const rng0 = TrainRng.seeded(3, 'pool');
const pool: RenderPool = {
  n,
  renders: K,
  side: S,
  data: Uint8Array.from({ length: n * K * per }, () => rng0.int(0, 255)),
};

// Which render of image i the normalised view equals (to float precision), or -1.
function whichRender(view: Float32Array, i: number): number {
  for (let k = 0; k < K; k++) {
    const src = (i * K + k) * per;
    let same = true;
    for (let c = 0; c < 3 && same; c++)
      for (let q = 0; q < S * S; q++)
        if (
          Math.abs(view[c * S * S + q] - (pool.data[src + c * S * S + q] / 255 - IMAGENET_MEAN[c]) / IMAGENET_STD[c]) >
          1e-5
        ) {
          same = false;
          break;
        }
    if (same) return k;
  }
  return -1;
}

describe('render views', () => {
  it('without noise: each view is a render of its own image, and the V views of an image are distinct renders', () => {
    const ids = [2, 0, 1],
      V = 4,
      B = ids.length;
    const out = renderViewBatch(pool, ids, V, 0, TrainRng.seeded(1, 'v'));
    expect(out.length).toBe(V * B * per);
    for (let b = 0; b < B; b++) {
      const ks = [...Array(V).keys()].map((v) =>
        whichRender(out.subarray((v * B + b) * per, (v * B + b + 1) * per), ids[b]),
      );
      expect(ks.every((k) => k >= 0)).toBe(true);
      expect(new Set(ks).size).toBe(V);
    }
  });

  it('a pool smaller than V cycles through all its renders', () => {
    const small: RenderPool = { ...pool, renders: 2, data: pool.data.slice(0, n * 2 * per) };
    const out = renderViewBatch(small, [1], 4, 0, TrainRng.seeded(2, 'v'));
    const ks = [0, 1, 2, 3].map((v) => {
      const view = out.subarray(v * per, (v + 1) * per);
      return [0, 1].find(
        (k) =>
          Math.abs(view[0] - (small.data[(1 * 2 + k) * per] / 255 - IMAGENET_MEAN[0]) / IMAGENET_STD[0]) < 1e-5 &&
          Math.abs(
            view[per - 1] - (small.data[(1 * 2 + k) * per + per - 1] / 255 - IMAGENET_MEAN[2]) / IMAGENET_STD[2],
          ) < 1e-5,
      );
    });
    expect(ks.filter((k) => k === 0)).toHaveLength(2);
    expect(ks.filter((k) => k === 1)).toHaveLength(2);
  });

  it('noise stays within its bound (std ≤ noise, in [0, 1] pixel units) and is deterministic per stream', () => {
    const a = renderViewBatch(pool, [0, 1], 3, 0.05, TrainRng.seeded(4, 'v'));
    const b = renderViewBatch(pool, [0, 1], 3, 0.05, TrainRng.seeded(4, 'v'));
    expect(Buffer.from(a.buffer).equals(Buffer.from(b.buffer))).toBe(true);
    const clean = renderViewBatch(pool, [0, 1], 3, 0, TrainRng.seeded(4, 'v'));
    // Same stream: the same renders are picked; the residual in pixel units is the noise (clamped to [0, 1]).
    let ss = 0;
    for (let i = 0; i < a.length; i++) {
      const c = Math.floor((i % per) / (S * S));
      ss += ((a[i] - clean[i]) * IMAGENET_STD[c]) ** 2;
    }
    const sd = Math.sqrt(ss / a.length);
    expect(sd).toBeGreaterThan(0.005);
    expect(sd).toBeLessThan(0.05);
  });

  it("a step's objects of distinct kinds: no two keep the same, every object of a kind can be drawn; uniform draws repeat kinds", () => {
    const scenes = drawScenes(1, 300).map((state, index) => ({ index, state }));
    const objects = scenes.flatMap(({ state }) => state.objects.map((_, j) => objectKind(state, j, 'shape-colour')));
    const p = objectPool(1, 8, scenes, 1, 'shape-colour');
    expect(p.n).toBe(objects.length);
    const kinds = new Set(objects).size; // 64 shape-colour pairs, all present in 300 scenes
    expect(kinds).toBe(64);
    for (let i = 0; i < p.n; i++)
      expect(objects.indexOf(objects[i])).toBe(objects.findIndex((_, m) => p.kinds![m] === p.kinds![i])); // kinds = objectKind's partition
    const seen = new Set<number>();
    let repeats = 0;
    for (let step = 0; step < 50; step++) {
      const rng = TrainRng.seeded(0, 'object-views', step);
      const ids = drawObjects(p, 64, 'distinct-kinds', rng);
      expect(new Set(Array.from(ids, (i) => objects[i])).size).toBe(64);
      ids.forEach((i) => seen.add(i));
      const uniform = drawObjects(p, 64, 'uniform', TrainRng.seeded(0, 'object-views', step));
      expect(uniform.every((i) => i >= 0 && i < p.n)).toBe(true);
      repeats += 64 - new Set(Array.from(uniform, (i) => objects[i])).size;
    }
    expect(seen.size).toBeGreaterThan(0.9 * p.n); // 50 steps x 64 draws over ~600 objects of 64 kinds reach nearly all
    expect(repeats / 50).toBeGreaterThan(15); // 64 draws of 64 kinds repeat ~23 kinds (64 (1 - (63/64)^64) ≈ 41 distinct)
    expect(drawObjects(p, 40, 'distinct-kinds', TrainRng.seeded(0, 'object-views', 0))).toHaveLength(40);
    expect(() => drawObjects(p, 65, 'distinct-kinds', TrainRng.seeded(0, 'o'))).toThrow(
      /65 objects of distinct kinds a step, but the object renders have 64 kinds/,
    );
    expect(() => drawObjects(pool, 2, 'distinct-kinds', TrainRng.seeded(0, 'o'))).toThrow(/need an object pool/);
  });

  it("a pool over the 4 GiB one array holds is refused as bad input, naming its size (not V8's bare RangeError)", () => {
    const scenes = drawScenes(0, 2).map((state, index) => ({ index, state }));
    expect(() => renderPool(0, 1024, scenes, 700)).toThrow(InputError); // 2 x 700 x 3 MiB = 4.10 GiB
    expect(() => objectPool(0, 1024, scenes, 2000, 'shape-colour')).toThrow(
      /renders at 1024 px are \d+\.\d+ GiB of renders, over the 4 GiB/,
    );
  });
});
