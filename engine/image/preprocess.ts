// Image file -> normalised float32 CHW pixels, with @napi-rs/canvas (Skia): measured 2.5x faster than sharp here
// (3.2 vs 8.4 ms per 500x375 JPEG). Skia decodes JPEG (incl. grayscale and CMYK), PNG (any bit depth, alpha),
// WebP, GIF, BMP and AVIF, and applies the EXIF orientation while decoding (orientation, CMYK, grayscale,
// 16-bit and alpha are checked in tests/image).
import { readFile } from 'node:fs/promises';
import type { Canvas, Image, SKRSContext2D } from '@napi-rs/canvas';
import { skia } from '../skia';
import { HEAD_BYTES, imageFileProblem, TAIL_BYTES } from '../data';
import { InputError } from '../errors';
import type { ImageSpec } from './spec';

// A file that is not a decodable image; `file` names it so a job can skip and count it.
export class BadImageError extends InputError {
  override name = 'BadImageError';
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`${file}: not a readable image (${reason})`);
  }
}

export async function decodeImage(file: string): Promise<Image> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    throw new BadImageError(file, (err as NodeJS.ErrnoException).code ?? String(err));
  }
  const problem = imageFileProblem(
    bytes.subarray(0, HEAD_BYTES),
    bytes.subarray(Math.max(0, bytes.length - TAIL_BYTES)),
    bytes.length,
  );
  if (problem) throw new BadImageError(file, problem); // the decoder would take a truncated file silently, or a huge one
  try {
    const img = await skia().loadImage(bytes);
    if (!(img.width > 0 && img.height > 0)) throw new Error('zero-sized image');
    return img;
  } catch (err) {
    throw new BadImageError(file, (err as Error).message);
  }
}

// Python's round(): halves go to the even neighbour (torchvision's crop offset uses it).
const roundHalfEven = (v: number): number => (Math.abs(v % 1) === 0.5 ? 2 * Math.round(v / 2) : Math.round(v));

// The source rectangle (in oriented image px) that "resize shorter side to `resize`, centre crop `size`" keeps,
// with torchvision's rounding: longer side int(resize*long/short), crop offset round((side-size)/2).
export function cropRect(
  width: number,
  height: number,
  spec: Pick<ImageSpec, 'size' | 'resize'>,
): { sx: number; sy: number; sw: number; sh: number } {
  const short = Math.min(width, height);
  const rw = width <= height ? spec.resize : Math.floor((spec.resize * width) / short);
  const rh = height <= width ? spec.resize : Math.floor((spec.resize * height) / short);
  const kx = width / rw; // source px per resized px
  const ky = height / rh;
  return {
    sx: roundHalfEven((rw - spec.size) / 2) * kx,
    sy: roundHalfEven((rh - spec.size) / 2) * ky,
    sw: spec.size * kx,
    sh: spec.size * ky,
  };
}

// Draws images into one reusable size x size canvas and writes [3, size, size] normalised floats.
export class Preprocessor {
  private readonly canvas: Canvas;
  private readonly ctx: SKRSContext2D;
  private readonly scale: Float32Array; // per output channel: value = pixel * scale + shift
  private readonly shift: Float32Array;
  private readonly source: number[]; // RGBA offset feeding each output channel

  constructor(private readonly spec: ImageSpec) {
    this.canvas = skia().createCanvas(spec.size, spec.size);
    this.ctx = this.canvas.getContext('2d');
    // Skia's filters: smoothing off = nearest; 'low' = bilinear; 'high' = cubic (mipmapped when shrinking).
    this.ctx.imageSmoothingEnabled = spec.interpolation !== 'nearest';
    this.ctx.imageSmoothingQuality = spec.interpolation === 'bicubic' ? 'high' : 'low';
    const unit = spec.range === '0-1' ? 1 / 255 : 1;
    this.scale = Float32Array.from(spec.std, (s) => unit / s);
    this.shift = Float32Array.from(spec.mean, (m, c) => -m / spec.std[c]);
    this.source = spec.channels === 'rgb' ? [0, 1, 2] : [2, 1, 0];
  }

  // out[offset .. offset + 3*size*size) = CHW pixels of `img`; transparency is composited over white.
  draw(img: Image, out: Float32Array, offset: number): void {
    const { size } = this.spec;
    const { sx, sy, sw, sh } = cropRect(img.width, img.height, this.spec);
    this.ctx.fillStyle = '#ffffff';
    this.ctx.fillRect(0, 0, size, size);
    this.ctx.drawImage(img, sx, sy, sw, sh, 0, 0, size, size);
    const rgba = this.ctx.getImageData(0, 0, size, size).data;
    const plane = size * size;
    for (let c = 0; c < 3; c++) {
      const a = this.scale[c];
      const b = this.shift[c];
      const o = offset + c * plane;
      for (let i = 0, j = this.source[c]; i < plane; i++, j += 4) out[o + i] = rgba[j] * a + b;
    }
  }
}

// One file, for tests and single-image use: [3, size, size].
export async function preprocessFile(file: string, spec: ImageSpec): Promise<Float32Array> {
  const out = new Float32Array(3 * spec.size * spec.size);
  new Preprocessor(spec).draw(await decodeImage(file), out, 0);
  return out;
}
