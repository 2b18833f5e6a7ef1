// Views of one image for the image JEPA (DINOv2-style, deliberately "bad" in the paper's sense: they keep only what
// survives cropping and photometric noise): random resized crop, optional horizontal flip, brightness/contrast
// jitter, Gaussian pixel noise, then ImageNet mean/std, the normalisation the dinov2 preset feeds the exported model.
// No hue jitter: captions name colours, so colour must stay an image feature (docs/reference.md#world-encoder).
// Hand-written (bilinear crop included) because the views must be bit-reproducible from the seeded stream.
import { z } from 'zod';
import type { TrainRng } from '../models';

export const ViewRecipe = z.object({
  scale: z.tuple([z.number().gt(0).max(1), z.number().gt(0).max(1)]), // crop area fraction, U(lo, hi)
  ratio: z.tuple([z.number().positive(), z.number().positive()]), // crop aspect w/h, log-uniform
  flip: z.number().min(0).max(1), // P(horizontal flip); flips erase left/right, which captions mention
  brightness: z.number().min(0).max(1), // factor U(1 − b, 1 + b)
  contrast: z.number().min(0).max(1), // factor U(1 − c, 1 + c) around the view's mean grey
  noise: z.number().min(0), // max pixel noise std, in [0, 1] units; each view draws std U(0, noise)
});
export type ViewRecipe = z.infer<typeof ViewRecipe>;

// ImageNet mean/std, as the dinov2 preset (engine/image/spec.ts) normalises.
export const IMAGENET_MEAN = [0.485, 0.456, 0.406] as const;
export const IMAGENET_STD = [0.229, 0.224, 0.225] as const;

// Square RGB images in [0, 1]: image i is data[i·3S² ..], CHW.
export type ImageSet = { n: number; side: number; data: Float32Array };

// The random draws of one view, kept so tests and the view grid can report them.
export type ViewDraw = {
  x0: number;
  y0: number;
  w: number;
  h: number;
  flip: boolean;
  brightness: number;
  contrast: number;
  noise: number;
};

export function drawView(rng: TrainRng, side: number, r: ViewRecipe): ViewDraw {
  const S = side;
  const area = (r.scale[0] + (r.scale[1] - r.scale[0]) * rng.uniform()) * S * S;
  const logR = Math.log(r.ratio[0]) + (Math.log(r.ratio[1]) - Math.log(r.ratio[0])) * rng.uniform();
  const w = Math.min(S, Math.sqrt(area * Math.exp(logR)));
  const h = Math.min(S, Math.sqrt(area / Math.exp(logR)));
  const x0 = (S - w) * rng.uniform();
  const y0 = (S - h) * rng.uniform();
  const flip = rng.uniform() < r.flip;
  const brightness = 1 + r.brightness * (2 * rng.uniform() - 1);
  const contrast = 1 + r.contrast * (2 * rng.uniform() - 1);
  const noise = r.noise * rng.uniform();
  return { x0, y0, w, h, flip, brightness, contrast, noise };
}

// Renders view `d` of image i of `src` into out[offset .. offset + 3S²): CHW, normalised (or in [0, 1] when raw).
// Bilinear sampling at pixel centres (torch's align_corners=False), edges clamped.
export function renderView(
  src: ImageSet,
  i: number,
  d: ViewDraw,
  rng: TrainRng,
  out: Float32Array,
  offset: number,
  raw = false,
): void {
  const S = src.side,
    plane = S * S,
    img = src.data.subarray(i * 3 * plane, (i + 1) * 3 * plane);
  const sx = d.w / S,
    sy = d.h / S;
  let grey = 0;
  for (let c = 0; c < 3; c++) {
    const o = offset + c * plane;
    for (let yy = 0; yy < S; yy++) {
      const fy = Math.min(S - 1, Math.max(0, d.y0 + (yy + 0.5) * sy - 0.5));
      const y1 = Math.floor(fy),
        y2 = Math.min(S - 1, y1 + 1),
        ty = fy - y1;
      for (let xx = 0; xx < S; xx++) {
        const xs = d.flip ? S - 1 - xx : xx;
        const fx = Math.min(S - 1, Math.max(0, d.x0 + (xs + 0.5) * sx - 0.5));
        const x1 = Math.floor(fx),
          x2 = Math.min(S - 1, x1 + 1),
          tx = fx - x1;
        const p = c * plane;
        const top = img[p + y1 * S + x1] * (1 - tx) + img[p + y1 * S + x2] * tx;
        const bot = img[p + y2 * S + x1] * (1 - tx) + img[p + y2 * S + x2] * tx;
        const v = (top * (1 - ty) + bot * ty) * d.brightness;
        out[o + yy * S + xx] = v;
        grey += v;
      }
    }
  }
  grey /= 3 * plane;
  for (let c = 0; c < 3; c++) {
    const o = offset + c * plane;
    for (let k = 0; k < plane; k++) {
      const v = Math.min(1, Math.max(0, (out[o + k] - grey) * d.contrast + grey + d.noise * rng.normal()));
      out[o + k] = raw ? v : (v - IMAGENET_MEAN[c]) / IMAGENET_STD[c];
    }
  }
}

// V views of each of the B images `ids`: [V·B, 3, S, S] in view-major order (row v·B + b), normalised.
export function imageViewBatch(
  src: ImageSet,
  ids: ArrayLike<number>,
  V: number,
  r: ViewRecipe,
  rng: TrainRng,
): Float32Array {
  const B = ids.length,
    per = 3 * src.side * src.side;
  const out = new Float32Array(V * B * per);
  for (let b = 0; b < B; b++)
    for (let v = 0; v < V; v++) renderView(src, ids[b], drawView(rng, src.side, r), rng, out, (v * B + b) * per);
  return out;
}

// Un-augmented, normalised images (the tfjs side of the ONNX parity check): [n, 3, S, S].
export function normalised(src: ImageSet, ids: ArrayLike<number>): Float32Array {
  const plane = src.side * src.side,
    per = 3 * plane;
  const out = new Float32Array(ids.length * per);
  for (let k = 0; k < ids.length; k++)
    for (let c = 0; c < 3; c++)
      for (let q = 0; q < plane; q++)
        out[k * per + c * plane + q] = (src.data[ids[k] * per + c * plane + q] - IMAGENET_MEAN[c]) / IMAGENET_STD[c];
  return out;
}
