import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCanvas } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import { BadImageError, type ImageSpec, cropRect, decodeImage, preprocessFile } from '../../engine/image';
import { flatJpeg, png, quadrants, withExifOrientation } from './fixtures';

const golden = JSON.parse(readFileSync(join(import.meta.dirname, 'preprocess-golden.json'), 'utf8')) as {
  pixels: number[];
  imagenet_rgb_01: number[];
  caffe_bgr_0255: number[];
};
const dir = mkdtempSync(join(tmpdir(), 'prh-image-pre-'));
const file = (name: string, bytes: Buffer): string => {
  const p = join(dir, name);
  writeFileSync(p, bytes);
  return p;
};

// Fed at its own size (resize = size = image side), the draw is a 1:1 copy, so normalisation can be checked exactly.
const spec = (over: Partial<ImageSpec> = {}): ImageSpec => ({
  preset: 'custom',
  input: 'x',
  size: 16,
  resize: 16,
  interpolation: 'bicubic',
  mean: [0.485, 0.456, 0.406],
  std: [0.229, 0.224, 0.225],
  channels: 'rgb',
  range: '0-1',
  embedding: { tensor: 'y', pool: 'none', prefixTokens: 0 },
  ...over,
});

const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
};

// The golden 16x16 pattern as RGBA samples.
const rgba = (alpha: (i: number) => number = () => 255): number[] =>
  Array.from({ length: 256 }, (_, i) => [...golden.pixels.slice(3 * i, 3 * i + 3), alpha(i)]).flat();

describe('normalisation against numpy (tests/image/reference.py)', () => {
  const patternPng = file('pattern.png', png(16, 16, 2, 8, golden.pixels));

  it('ImageNet mean/std, RGB, 0-1', async () => {
    expect(maxAbsDiff(await preprocessFile(patternPng, spec()), golden.imagenet_rgb_01)).toBeLessThan(1e-5);
  });

  it('caffe style: BGR, 0-255, mean only', async () => {
    const caffe = spec({ channels: 'bgr', range: '0-255', mean: [103.939, 116.779, 123.68], std: [1, 1, 1] });
    expect(maxAbsDiff(await preprocessFile(patternPng, caffe), golden.caffe_bgr_0255)).toBeLessThan(1e-4);
  });

  it('16-bit RGB PNG, RGBA PNG and lossless WebP give the same pixels', async () => {
    const want = await preprocessFile(patternPng, spec());
    const deep = file(
      'pattern16.png',
      png(
        16,
        16,
        2,
        16,
        golden.pixels.map((v) => v * 257),
      ),
    );
    const alpha = file('pattern-rgba.png', png(16, 16, 6, 8, rgba()));
    const c = createCanvas(16, 16);
    const img = c.getContext('2d').createImageData(16, 16);
    img.data.set(rgba());
    c.getContext('2d').putImageData(img, 0, 0);
    const webp = file('pattern.webp', await c.encode('webp', 100));
    for (const f of [deep, alpha, webp])
      expect(maxAbsDiff(await preprocessFile(f, spec()), want), f).toBeLessThan(1e-6);
  });
});

describe('colour types', () => {
  const unit = spec({ mean: [0, 0, 0], std: [1, 1, 1] }); // values = pixel / 255

  it('grayscale (8- and 16-bit) is replicated into R, G and B', async () => {
    const gray = Array.from({ length: 256 }, (_, i) => i);
    for (const f of [
      file('gray8.png', png(16, 16, 0, 8, gray)),
      file(
        'gray16.png',
        png(
          16,
          16,
          0,
          16,
          gray.map((v) => v * 257),
        ),
      ),
    ]) {
      const x = await preprocessFile(f, unit);
      for (let c = 0; c < 3; c++)
        expect(
          maxAbsDiff(
            x.subarray(c * 256, (c + 1) * 256),
            gray.map((v) => v / 255),
          ),
          f,
        ).toBeLessThan(1e-6);
    }
  });

  it('grayscale and CMYK (Adobe, inverted) JPEGs are converted to RGB', async () => {
    const unit8 = { ...unit, size: 8, resize: 8 };
    const rgbOf = async (f: string) => {
      const x = await preprocessFile(f, unit8);
      return [0, 1, 2].map((c) => Math.round(x[c * 64 + 27] * 255));
    };
    expect(await rgbOf(file('gray.jpg', flatJpeg([200])))).toEqual([200, 200, 200]);
    // Stored 255 - ink: (255, 0, 0, 255) is magenta + yellow ink, no cyan, no black = red.
    expect(await rgbOf(file('cmyk-red.jpg', flatJpeg([255, 0, 0, 255])))).toEqual([255, 0, 0]);
    expect(await rgbOf(file('cmyk-k50.jpg', flatJpeg([255, 255, 255, 128])))).toEqual([128, 128, 128]);
    expect(await rgbOf(file('cmyk-black.jpg', flatJpeg([0, 255, 255, 0])))).toEqual([0, 0, 0]);
  });

  it('transparent pixels are composited over white, opaque ones kept', async () => {
    const f = file(
      'half-transparent.png',
      png(
        16,
        16,
        6,
        8,
        rgba((i) => (i % 16 < 8 ? 0 : 255)),
      ),
    );
    const x = await preprocessFile(f, unit);
    for (let c = 0; c < 3; c++)
      for (let i = 0; i < 256; i++)
        expect(x[c * 256 + i]).toBeCloseTo(i % 16 < 8 ? 1 : golden.pixels[3 * i + c] / 255, 6);
    const ga = file(
      'gray-alpha.png',
      png(16, 16, 4, 8, Array.from({ length: 256 }, (_, i) => [40, i < 128 ? 0 : 255]).flat()),
    );
    const y = await preprocessFile(ga, unit);
    expect(y[0]).toBeCloseTo(1, 6);
    expect(y[255]).toBeCloseTo(40 / 255, 6);
  });
});

describe('EXIF orientation (applied by the decoder)', () => {
  // Stored 32x16: TL red, TR green, BL blue, BR white; expected displayed corners per EXIF orientation 1..8.
  const R = [255, 0, 0],
    G = [0, 255, 0],
    B = [0, 0, 255],
    W = [255, 255, 255];
  const expected: Record<number, number[][]> = {
    1: [R, G, B, W],
    2: [G, R, W, B],
    3: [W, B, G, R],
    4: [B, W, R, G],
    5: [R, B, G, W],
    6: [B, R, W, G],
    7: [W, G, B, R],
    8: [G, W, R, B],
  };
  const jpeg = quadrants(32, 16, ['#ff0000', '#00ff00', '#0000ff', '#ffffff']).toBuffer('image/jpeg');

  for (const o of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`orientation ${o}`, async () => {
      const img = await decodeImage(file(`o${o}.jpg`, withExifOrientation(jpeg, o)));
      const [w, h] = o >= 5 ? [16, 32] : [32, 16];
      expect([img.width, img.height]).toEqual([w, h]);
      const c = createCanvas(w, h);
      c.getContext('2d').drawImage(img, 0, 0);
      const px = (x: number, y: number) => [...c.getContext('2d').getImageData(x, y, 1, 1).data.slice(0, 3)];
      const corners = [px(w / 4, h / 4), px((3 * w) / 4, h / 4), px(w / 4, (3 * h) / 4), px((3 * w) / 4, (3 * h) / 4)];
      corners.forEach((got, i) =>
        got.forEach((v, ch) => expect(Math.abs(v - expected[o][i][ch]), `corner ${i}`).toBeLessThan(24)),
      );
    });
  }

  it('a portrait photo is cropped to a square from its centre', async () => {
    // A 64x32 landscape, left half blue, right half red, shown with orientation 6 (90 deg clockwise): a 32x64
    // portrait, blue above red. Resized to 16x32 and centre-cropped to rows 8..23: blue on top, red below.
    const land = quadrants(64, 32, ['#0000ff', '#ff0000', '#0000ff', '#ff0000']).toBuffer('image/jpeg');
    const f = file('portrait.jpg', withExifOrientation(land, 6));
    const x = await preprocessFile(f, spec({ size: 16, resize: 16, mean: [0, 0, 0], std: [1, 1, 1] }));
    expect(x.length).toBe(3 * 16 * 16);
    const topRed = x[0 * 256 + 2 * 16 + 8];
    const bottomRed = x[0 * 256 + 13 * 16 + 8];
    expect(topRed).toBeLessThan(0.2);
    expect(bottomRed).toBeGreaterThan(0.8);
  });
});

describe('geometry and bad files', () => {
  it('crop rectangle follows torchvision Resize(256) + CenterCrop(224)', () => {
    // 500x375: resized 341x256, left = round(58.5) = 58 (half to even, as Python), top 16
    const r = cropRect(500, 375, { size: 224, resize: 256 });
    expect(r.sx).toBeCloseTo((58 * 500) / 341, 9);
    expect(r.sy).toBeCloseTo((16 * 375) / 256, 9);
    expect(r.sw).toBeCloseTo((224 * 500) / 341, 9);
    expect(r.sh).toBeCloseTo((224 * 375) / 256, 9);
    expect(cropRect(16, 16, { size: 16, resize: 16 })).toEqual({ sx: 0, sy: 0, sw: 16, sh: 16 });
  });

  it('non-images, truncated files and missing files are BadImageError naming the file', async () => {
    const text = file('notes.jpg', Buffer.from('this is not a picture'));
    const cut = file('cut.png', png(16, 16, 2, 8, golden.pixels).subarray(0, 30));
    for (const f of [text, cut, join(dir, 'missing.png')]) {
      const err = await decodeImage(f).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BadImageError);
      expect((err as BadImageError).file).toBe(f);
      expect((err as Error).message).toContain(f);
    }
  });
});
