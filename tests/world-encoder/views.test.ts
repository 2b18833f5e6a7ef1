// The image views: identity draw reproduces the image, and the random draws follow the recipe's ranges.
import { describe, expect, it } from 'vitest';
import { TrainRng } from '../../engine/models';
import {
  IMAGENET_MEAN,
  IMAGENET_STD,
  drawView,
  imageViewBatch,
  renderView,
  type ImageSet,
  type ViewRecipe,
} from '../../engine/train';

const S = 16;
const rng0 = TrainRng.seeded(1, 'img');
const img: ImageSet = { n: 2, side: S, data: Float32Array.from({ length: 2 * 3 * S * S }, () => rng0.uniform()) };
const recipe: ViewRecipe = {
  scale: [0.6, 1],
  ratio: [3 / 4, 4 / 3],
  flip: 0.5,
  brightness: 0.2,
  contrast: 0.2,
  noise: 0.04,
};

describe('image views', () => {
  it('the identity draw reproduces the image, normalised with the ImageNet mean/std', () => {
    const out = new Float32Array(3 * S * S);
    renderView(
      img,
      1,
      { x0: 0, y0: 0, w: S, h: S, flip: false, brightness: 1, contrast: 1, noise: 0 },
      TrainRng.seeded(0, 'x'),
      out,
      0,
    );
    for (let c = 0; c < 3; c++)
      for (let q = 0; q < S * S; q++)
        expect(out[c * S * S + q]).toBeCloseTo(
          (img.data[3 * S * S + c * S * S + q] - IMAGENET_MEAN[c]) / IMAGENET_STD[c],
          5,
        );
  });

  it('a flip mirrors columns', () => {
    const out = new Float32Array(3 * S * S);
    renderView(
      img,
      0,
      { x0: 0, y0: 0, w: S, h: S, flip: true, brightness: 1, contrast: 1, noise: 0 },
      TrainRng.seeded(0, 'x'),
      out,
      0,
      true,
    );
    expect(out[3 * S + 0]).toBeCloseTo(img.data[3 * S + S - 1], 6);
    expect(out[S * S + 5 * S + 2]).toBeCloseTo(img.data[S * S + 5 * S + S - 3], 6);
  });

  it('draws follow the recipe: area fraction, aspect, flip rate, jitter ranges; crops stay inside the image', () => {
    const rng = TrainRng.seeded(2, 'draws');
    const n = 4000;
    let flips = 0,
      area = 0;
    for (let i = 0; i < n; i++) {
      const d = drawView(rng, S, recipe);
      expect(d.x0).toBeGreaterThanOrEqual(0);
      expect(d.y0).toBeGreaterThanOrEqual(0);
      expect(d.x0 + d.w).toBeLessThanOrEqual(S + 1e-9);
      expect(d.y0 + d.h).toBeLessThanOrEqual(S + 1e-9);
      const a = (d.w * d.h) / (S * S);
      expect(a).toBeGreaterThanOrEqual(0.6 * (3 / 4) - 1e-9); // clamping a side to S can only shrink the area
      expect(a).toBeLessThanOrEqual(1 + 1e-9);
      expect(Math.abs(d.brightness - 1)).toBeLessThanOrEqual(0.2);
      expect(Math.abs(d.contrast - 1)).toBeLessThanOrEqual(0.2);
      expect(d.noise).toBeLessThanOrEqual(0.04);
      flips += +d.flip;
      area += a;
    }
    expect(flips / n).toBeGreaterThan(0.46);
    expect(flips / n).toBeLessThan(0.54);
    expect(area / n).toBeGreaterThan(0.7); // U(0.6, 1) has mean 0.8, less where a side is clamped
    expect(area / n).toBeLessThan(0.82);
  });

  it('a batch is V views of B images, view-major, each a different draw, reproducible from the seed', () => {
    const a = imageViewBatch(img, [1, 0], 3, recipe, TrainRng.seeded(9, 'v'));
    const b = imageViewBatch(img, [1, 0], 3, recipe, TrainRng.seeded(9, 'v'));
    expect(a.length).toBe(3 * 2 * 3 * S * S);
    expect(Buffer.from(a.buffer).equals(Buffer.from(b.buffer))).toBe(true);
    const per = 3 * S * S;
    expect(a.subarray(0, per)).not.toEqual(a.subarray(2 * per, 3 * per)); // views 0 and 1 of image 1
  });
});
