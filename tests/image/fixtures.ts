// Test images made in the test: PNGs of any colour type / bit depth (written by hand with node:zlib, since no
// encoder at hand writes grayscale or 16-bit PNGs), canvas-encoded JPEG/WebP, and JPEGs with an EXIF orientation.
import { crc32, deflateSync } from 'node:zlib';
import { createCanvas } from '@napi-rs/canvas';

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

// colorType: 0 gray, 2 RGB, 4 gray+alpha, 6 RGBA; samples row-major, `channels` per pixel, values < 2^depth.
export function png(width: number, height: number, colorType: 0 | 2 | 4 | 6, depth: 8 | 16, samples: number[]): Buffer {
  const channels = { 0: 1, 2: 3, 4: 2, 6: 4 }[colorType];
  const bps = depth / 8;
  const raw = Buffer.alloc(height * (1 + width * channels * bps));
  let o = 0;
  for (let y = 0; y < height; y++) {
    raw[o++] = 0; // filter: none
    for (let i = 0; i < width * channels; i++) {
      const v = samples[y * width * channels + i];
      if (depth === 16) raw.writeUInt16BE(v, o);
      else raw[o] = v;
      o += bps;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([depth, colorType, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

// A w x h canvas with four solid quadrants TL, TR, BL, BR (CSS colours).
export function quadrants(w: number, h: number, [tl, tr, bl, br]: string[]) {
  const c = createCanvas(w, h);
  const g = c.getContext('2d');
  for (const [colour, x, y] of [
    [tl, 0, 0],
    [tr, w / 2, 0],
    [bl, 0, h / 2],
    [br, w / 2, h / 2],
  ] as const) {
    g.fillStyle = colour;
    g.fillRect(x, y, w / 2, h / 2);
  }
  return c;
}

// The JPEG with an APP1 Exif segment (big-endian TIFF, one IFD0 entry: Orientation) right after SOI.
export function withExifOrientation(jpeg: Buffer, orientation: number): Buffer {
  const tiff = Buffer.from([
    0x4d,
    0x4d,
    0,
    42,
    0,
    0,
    0,
    8,
    0,
    1,
    0x01,
    0x12,
    0,
    3,
    0,
    0,
    0,
    1,
    0,
    orientation,
    0,
    0,
    0,
    0,
    0,
    0,
  ]);
  const body = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
  const len = Buffer.alloc(2);
  len.writeUInt16BE(body.length + 2);
  return Buffer.concat([jpeg.subarray(0, 2), Buffer.from([0xff, 0xe1]), len, body, jpeg.subarray(2)]);
}

// A baseline JPEG of one 8x8 block per component, each block one flat value (only DC coefficients), written by
// hand because nothing at hand encodes grayscale or CMYK JPEGs. CMYK files carry an Adobe APP14 marker and, as
// Photoshop writes them, store inverted values (255 - ink).
export function flatJpeg(values: number[], adobe = values.length === 4): Buffer {
  const seg = (marker: number, body: number[]) => [
    0xff,
    marker,
    (body.length + 2) >> 8,
    (body.length + 2) & 255,
    ...body,
  ];
  const n = values.length;
  const bits: number[] = [];
  const put = (code: number, len: number) => {
    for (let i = len - 1; i >= 0; i--) bits.push((code >> i) & 1);
  };
  for (const v of values) {
    const dc = 8 * (v - 128); // DC of a flat 8x8 block, orthonormal DCT, quantiser 1
    const cat = dc === 0 ? 0 : Math.floor(Math.log2(Math.abs(dc))) + 1;
    put(cat, 4); // DC table: categories 0..11, all 4-bit codes 0000..1011
    put(dc >= 0 ? dc : dc + (1 << cat) - 1, cat);
    put(0, 1); // AC table: EOB only, code '0'
  }
  while (bits.length % 8) bits.push(1);
  const scan: number[] = [];
  for (let i = 0; i < bits.length; i += 8) {
    const b = parseInt(bits.slice(i, i + 8).join(''), 2);
    scan.push(b, ...(b === 0xff ? [0] : []));
  }
  return Buffer.from([
    0xff,
    0xd8,
    ...(adobe ? seg(0xee, [...Buffer.from('Adobe'), 0, 100, 0, 0, 0, 0, 0]) : []),
    ...seg(0xdb, [0, ...Array(64).fill(1)]),
    ...seg(0xc0, [8, 0, 8, 0, 8, n, ...values.flatMap((_, i) => [i + 1, 0x11, 0])]),
    ...seg(0xc4, [0x00, 0, 0, 0, 12, ...Array(12).fill(0), ...Array.from({ length: 12 }, (_, i) => i)]),
    ...seg(0xc4, [0x10, 1, ...Array(15).fill(0), 0]),
    ...seg(0xda, [n, ...values.flatMap((_, i) => [i + 1, 0x00]), 0, 63, 0]),
    ...scan,
    0xff,
    0xd9,
  ]);
}
