// The world's video: further renders of one scene state (good image views). View 0 stays the dataset's image to
// the byte; other views are deterministic per (seed, index, view), differ in pixels, and stay the same scene.
import { createHash } from 'node:crypto';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import {
  BACKGROUNDS,
  COLOURS,
  OBJECT_KEEPS,
  SHAPES,
  SIZES,
  drawScenes,
  objectKind,
  objectKindCount,
  renderObjectPixels,
  renderScene,
  renderScenePixels,
  renderSceneView,
  type ObjectKeep,
} from '../../engine/data';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const scenes = drawScenes(7, 24);

// Mean |a − b| over the RGB bytes of two RGBA images.
function meanAbs(a: Uint8ClampedArray, b: Uint8ClampedArray): number {
  let s = 0,
    n = 0;
  for (let i = 0; i < a.length; i += 4) for (let c = 0; c < 3; c++, n++) s += Math.abs(a[i + c] - b[i + c]);
  return s / n;
}

describe('world scene views', () => {
  it('view 0 is the dataset image: the PNG bytes renderScene gave before views existed', () => {
    // sha256 of renderScene(drawScenes(7, 6)[i], 64, 7, i), recorded from the render before this change.
    const before = [
      'c87cd521e6efa623edde6e17f99482613941aac406dae008f187ce081e1b3298',
      '63a9f9fae7daf4e2d87afa9b4568f5f09aa3d63ee5286501112c159492dabb03',
      'e4925db84905160b48d6d1275de0690fdf31c0e9ab30e1e491dfc48e0e2b2b85',
      '4ae07a33802fd4e1179ed78aac28e2ba98f924ee52862d9daeb06aca20741ec4',
      'a9fe116d98536dc7af85bd2854e8635439e96b8a3a24d826bf8810c8605ed470',
      '1184c33f58c1f054cfd26a98a8c11786c723e78f6883890057cdd55c4e5087f6',
    ];
    expect(before.map((_, i) => sha(renderScene(scenes[i], 64, 7, i)))).toEqual(before);
    expect(before.map((_, i) => sha(renderSceneView(scenes[i], 64, 7, i, 0)))).toEqual(before);
  });

  it('the pixels are the PNG decoded, for view 0 and other views', async () => {
    for (const view of [0, 3]) {
      const png = renderSceneView(scenes[2], 48, 7, 2, view);
      const ctx = createCanvas(48, 48).getContext('2d');
      ctx.drawImage(await loadImage(png), 0, 0);
      expect(
        Buffer.from(renderScenePixels(scenes[2], 48, 7, 2, view)).equals(
          Buffer.from(ctx.getImageData(0, 0, 48, 48).data),
        ),
      ).toBe(true);
    }
  });

  it('is deterministic per (seed, index, view); views differ in pixels; another seed or index is another render', () => {
    const px = (i: number, view: number, seed = 7) => Buffer.from(renderScenePixels(scenes[i], 64, seed, i, view));
    expect(px(4, 2).equals(px(4, 2))).toBe(true);
    expect(sha(renderSceneView(scenes[4], 64, 7, 4, 2))).toBe(sha(renderSceneView(scenes[4], 64, 7, 4, 2)));
    const views = [0, 1, 2, 3].map((v) => px(4, v));
    for (let a = 0; a < 4; a++) for (let b = a + 1; b < 4; b++) expect(views[a].equals(views[b])).toBe(false);
    expect(px(4, 1, 8).equals(px(4, 1))).toBe(false);
  });

  it('views of one scene are closer to each other than to views of other scenes (same state, other nuisance)', () => {
    let same = 0,
      other = 0;
    for (let i = 0; i < 12; i++) {
      const a = renderScenePixels(scenes[i], 64, 7, i, 1).slice();
      same += meanAbs(a, renderScenePixels(scenes[i], 64, 7, i, 2));
      other += meanAbs(a, renderScenePixels(scenes[i + 12], 64, 7, i + 12, 2));
    }
    expect(same).toBeGreaterThan(0);
    expect(same / 12).toBeLessThan((0.5 * other) / 12);
  });
});

// Object-level views: one object of a scene drawn alone, anywhere. Pixels that differ from the background by more than
// pixel noise could (sd 6 per channel) form one compact blob no wider than the largest object, and the blob moves.
describe('world object views', () => {
  const S = 64,
    cell = S / 3;
  const multi = scenes.findIndex((sc) => sc.objects.length === 3);
  const bgOf = (px: Uint8ClampedArray) =>
    [0, 1, 2].map((c) => {
      // the background colour: the median of each channel
      const v = Array.from({ length: S * S }, (_, q) => px[4 * q + c]).sort((a, b) => a - b);
      return v[(S * S) >> 1];
    });
  function blob(px: Uint8ClampedArray): { n: number; cx: number; cy: number; reach: number } {
    const bg = bgOf(px),
      pts: [number, number][] = [];
    for (let q = 0; q < S * S; q++)
      if ([0, 1, 2].some((c) => Math.abs(px[4 * q + c] - bg[c]) > 40)) pts.push([q % S, Math.floor(q / S)]);
    const cx = pts.reduce((s, p) => s + p[0], 0) / pts.length,
      cy = pts.reduce((s, p) => s + p[1], 0) / pts.length;
    return { n: pts.length, cx, cy, reach: Math.max(...pts.map(([x, y]) => Math.hypot(x - cx, y - cy))) };
  }

  it('draws one object alone, a different place per view, deterministic per (seed, scene, object, view)', () => {
    expect(multi).toBeGreaterThanOrEqual(0);
    const px = (j: number, view: number) =>
      Buffer.from(renderObjectPixels(scenes[multi], { size: S, seed: 7, index: multi, object: j, view }));
    expect(px(1, 2).equals(px(1, 2))).toBe(true);
    expect(px(1, 2).equals(px(1, 3))).toBe(false);
    expect(px(0, 2).equals(px(1, 2))).toBe(false);
    const largest = 0.44 * cell * 1.08 + 2; // the large radius at the top of its scale nuisance, + the rim
    for (let j = 0; j < 3; j++) {
      const blobs = [0, 1, 2, 3, 4, 5].map((v) =>
        blob(renderObjectPixels(scenes[multi], { size: S, seed: 7, index: multi, object: j, view: v })),
      );
      for (const b of blobs) {
        expect(b.n).toBeGreaterThan(10);
        expect(b.reach).toBeLessThan(largest);
      }
      const spread =
        Math.max(...blobs.map((b) => b.cx)) -
        Math.min(...blobs.map((b) => b.cx)) +
        Math.max(...blobs.map((b) => b.cy)) -
        Math.min(...blobs.map((b) => b.cy));
      expect(spread).toBeGreaterThan(cell); // not held in its grid cell (the scene renders move it by ±0.1 cell)
    }
    // the scene render with all three objects is not one blob
    expect(blob(renderScenePixels(scenes[multi], S, 7, multi, 1)).reach).toBeGreaterThan(largest);
  });

  // The one state that the plain object render draws to the same bytes as render v (the placement streams are shared),
  // searched over every state at 32 px: the renders of two states differ there too, at a quarter of the pixels.
  const stateOf = (j: number, v: number, keep: ObjectKeep) => {
    const side = 32;
    const px = Buffer.from(
      renderObjectPixels(scenes[multi], { size: side, seed: 7, index: multi, object: j, view: v, keep }),
    );
    expect(
      px.equals(
        Buffer.from(renderObjectPixels(scenes[multi], { size: side, seed: 7, index: multi, object: j, view: v, keep })),
      ),
    ).toBe(true);
    const found = BACKGROUNDS.flatMap((background) =>
      SHAPES.flatMap((shape) =>
        COLOURS.flatMap((colour) =>
          SIZES.flatMap((size) => {
            const state = {
              background,
              objects: scenes[multi].objects.map((o, k) => (k === j ? { ...o, shape, colour, size } : o)),
            };
            return px.equals(
              Buffer.from(renderObjectPixels(state, { size: side, seed: 7, index: multi, object: j, view: v })),
            )
              ? [{ background, shape, colour, size }]
              : [];
          }),
        ),
      ),
    );
    expect(found).toHaveLength(1);
    return found[0];
  };

  it('objectKind names what a keep keeps: changing an attribute leaves every render the same exactly when the kind stays the same', () => {
    const j = 1,
      own = scenes[multi].objects[j];
    const other = {
      shape: SHAPES.find((x) => x !== own.shape)!,
      colour: COLOURS.find((x) => x !== own.colour)!,
      size: SIZES.find((x) => x !== own.size)!,
    };
    const changed = [
      { ...scenes[multi], objects: scenes[multi].objects.map((o, k) => (k === j ? { ...o, shape: other.shape } : o)) },
      {
        ...scenes[multi],
        objects: scenes[multi].objects.map((o, k) => (k === j ? { ...o, colour: other.colour } : o)),
      },
      { ...scenes[multi], objects: scenes[multi].objects.map((o, k) => (k === j ? { ...o, size: other.size } : o)) },
      { ...scenes[multi], background: BACKGROUNDS.find((x) => x !== scenes[multi].background)! },
    ];
    const renders = (state: (typeof scenes)[number], keep: ObjectKeep) =>
      [0, 1, 2, 3]
        .map((v) =>
          Buffer.from(renderObjectPixels(state, { size: S, seed: 7, index: multi, object: j, view: v, keep })).toString(
            'base64',
          ),
        )
        .join();
    const sameKind = OBJECT_KEEPS.map((keep) =>
      changed.map((state) => objectKind(state, j, keep) === objectKind(scenes[multi], j, keep)),
    );
    expect(sameKind).toEqual(
      OBJECT_KEEPS.map((keep) => changed.map((state) => renders(state, keep) === renders(scenes[multi], keep))),
    );
    // shape, colour, size, background: kept by 'object'; shape alone; shape and colour; shape, colour and size
    expect(sameKind).toEqual([
      [false, false, false, false],
      [false, true, true, true],
      [false, false, true, true],
      [false, false, false, true],
    ]);
    // objectKindCount: the distinct kinds over every object the lexicon can make
    const every = BACKGROUNDS.flatMap((background) =>
      SHAPES.flatMap((shape) =>
        COLOURS.flatMap((colour) => SIZES.map((size) => ({ background, objects: [{ shape, colour, size, cell: 0 }] }))),
      ),
    );
    expect(OBJECT_KEEPS.map((keep) => new Set(every.map((state) => objectKind(state, 0, keep))).size)).toEqual(
      OBJECT_KEEPS.map(objectKindCount),
    );
    expect(OBJECT_KEEPS.map(objectKindCount)).toEqual([1152, 8, 64, 192]);
  });

  it("keep 'shape' / 'shape-colour' / 'shape-colour-size': each render is the object's own shape (colour, size) with the rest drawn for that render", () => {
    const j = 1,
      own = scenes[multi].objects[j];
    const shapeOnly = [0, 1, 2, 3, 4, 5].map((v) => stateOf(j, v, 'shape'));
    expect(shapeOnly.every((m) => m.shape === own.shape)).toBe(true);
    for (const k of ['colour', 'size', 'background'] as const)
      expect(new Set(shapeOnly.map((m) => m[k])).size).toBeGreaterThan(1);
    const withColour = [0, 1, 2, 3, 4, 5].map((v) => stateOf(j, v, 'shape-colour'));
    expect(withColour.every((m) => m.shape === own.shape && m.colour === own.colour)).toBe(true);
    for (const k of ['size', 'background'] as const)
      expect(new Set(withColour.map((m) => m[k])).size).toBeGreaterThan(1);
    // both draw the same size class and background for a render: only the colour is the object's own
    expect(withColour.map(({ size, background }) => [size, background])).toEqual(
      shapeOnly.map(({ size, background }) => [size, background]),
    );
    const withSize = [0, 1, 2, 3, 4, 5].map((v) => stateOf(j, v, 'shape-colour-size'));
    expect(withSize.every((m) => m.shape === own.shape && m.colour === own.colour && m.size === own.size)).toBe(true);
    expect(withSize.map((m) => m.background)).toEqual(shapeOnly.map((m) => m.background));
    expect(
      Buffer.from(
        renderObjectPixels(scenes[multi], { size: S, seed: 7, index: multi, object: j, view: 2, keep: 'object' }),
      ).equals(Buffer.from(renderObjectPixels(scenes[multi], { size: S, seed: 7, index: multi, object: j, view: 2 }))),
    ).toBe(true);
  });

  it('keeps the scene renders as they were, and names a missing object', () => {
    renderObjectPixels(scenes[multi], { size: S, seed: 7, index: multi, object: 0, view: 0 });
    expect(sha(renderScene(scenes[0], 64, 7, 0))).toBe(
      'c87cd521e6efa623edde6e17f99482613941aac406dae008f187ce081e1b3298',
    );
    expect(() => renderObjectPixels(scenes[multi], { size: S, seed: 7, index: multi, object: 3, view: 0 })).toThrow(
      /3 objects, not object 3/,
    );
  });
});
