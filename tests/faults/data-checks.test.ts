// Data checks that catch what a decoder or a schema lets through: truncated PNG/JPEG files and absurd headers
// (`data inspect` and `embed --on-bad-image skip`), duplicate image ids, blank captions, bytes that are not UTF-8,
// an evaluation caption out of range.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Canvas, createCanvas } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import { decodeImage, embedImages, openImageEncoder } from '../../engine/image';
import { buildVitOnnx, randomVitWeights } from '../../engine/models/onnx';

const prh = join(import.meta.dirname, '..', '..', 'bin', 'prh.js');
const home = mkdtempSync(join(tmpdir(), 'prh-data-checks-'));
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [prh, ...args], { env: { ...process.env, PRH_HOME: home }, encoding: 'utf8' });

// A 64 x 48 picture with detail (a gradient), so its PNG and JPEG are several KiB and a cut loses real data.
function picture(): Canvas {
  const c = createCanvas(64, 48);
  const g = c.getContext('2d');
  for (let y = 0; y < 48; y++)
    for (let x = 0; x < 64; x++) {
      g.fillStyle = `rgb(${(x * 4) % 256}, ${(y * 5) % 256}, ${((x * y) >> 2) % 256})`;
      g.fillRect(x, y, 1, 1);
    }
  return c;
}
// A PNG whose IHDR says 100000 x 100000 (CRC left stale: the decoder never gets that far).
function hugeHeader(png: Buffer): Buffer {
  const b = Buffer.from(png);
  b.writeUInt32BE(100000, 16);
  b.writeUInt32BE(100000, 20);
  return b;
}

// A JPEG with 10 KB of metadata (an APP1 segment) before its frame header, whose size is set to 60000 x 60000.
function hugeJpegAfterMetadata(jpeg: Buffer): Buffer {
  const app1 = Buffer.alloc(4 + 10_000);
  app1.writeUInt16BE(0xffe1, 0);
  app1.writeUInt16BE(2 + 10_000, 2);
  const b = Buffer.concat([jpeg.subarray(0, 2), app1, jpeg.subarray(2)]);
  const sof = b.indexOf(Buffer.from([0xff, 0xc0]), 2 + app1.length);
  b.writeUInt16BE(60000, sof + 5);
  b.writeUInt16BE(60000, sof + 7);
  return b;
}

function dataset(name: string, images: unknown[], files: Record<string, Buffer> = {}): string {
  const dir = join(home, name);
  mkdirSync(join(dir, 'images'), { recursive: true });
  for (const [f, b] of Object.entries(files)) writeFileSync(join(dir, 'images', f), b);
  writeFileSync(join(dir, 'dataset.json'), JSON.stringify({ version: 1, name, source: 'world', images }));
  return dir;
}
const image = (id: string, file: string | null, captions = ['a red circle at the left']) => ({
  id,
  split: 'test',
  file,
  captions: captions.map((text) => ({ text })),
  evalCaption: 0,
});

describe('image files', () => {
  const png = picture().toBuffer('image/png');
  const jpeg = picture().toBuffer('image/jpeg');
  const files = {
    'ok.png': png,
    'ok.jpg': jpeg,
    'cut.png': png.subarray(0, Math.floor(png.length * 0.6)),
    'cut.jpg': jpeg.subarray(0, Math.floor(jpeg.length * 0.6)),
    'huge.png': hugeHeader(png),
    'huge.jpg': hugeJpegAfterMetadata(jpeg),
  };
  const dir = dataset(
    'files',
    Object.keys(files).map((f, i) => image(`im${i}`, f)),
    files,
  );

  it('the decoder alone takes a truncated PNG without an error (why the bytes are checked first)', async () => {
    const { loadImage } = await import('@napi-rs/canvas');
    const img = await loadImage(files['cut.png']);
    expect(img.width).toBe(64);
  });

  it('data inspect names the truncated PNG and JPEG and the 100000 x 100000 header', () => {
    const r = cli('data', 'inspect', dir, '--json');
    expect(r.status).toBe(0);
    const f = JSON.parse(r.stdout).files;
    expect(f).toMatchObject({ listed: 6, missing: 0, unreadable: 4 }); // before: 0 unreadable
    expect(f.problems).toEqual([
      expect.stringMatching(
        /^cut\.png: not a readable image \(truncated PNG \(\d+ bytes; the file ends before its format does\)\)$/,
      ),
      expect.stringMatching(/^cut\.jpg: not a readable image \(truncated JPEG/),
      'huge.png: not a readable image (PNG header says 100000 x 100000 px, over the 100 Mpx limit (corrupt, or too big to decode))',
      'huge.jpg: not a readable image (JPEG header says 60000 x 60000 px, over the 100 Mpx limit (corrupt, or too big to decode))',
    ]);
  });

  it('decoding refuses them, so embed --on-bad-image skip counts them instead of embedding grey', async () => {
    await expect(decodeImage(join(dir, 'images', 'cut.png'))).rejects.toThrow(
      /cut\.png: not a readable image \(truncated PNG/,
    );
    await expect(decodeImage(join(dir, 'images', 'huge.png'))).rejects.toThrow(/100000 x 100000 px/);
    expect((await decodeImage(join(dir, 'images', 'ok.jpg'))).width).toBe(64);
    const model = join(home, 'vit.onnx');
    const cfg = { imageSize: 28, patchSize: 14, hidden: 16, depth: 1, heads: 2, mlp: 32 };
    writeFileSync(model, buildVitOnnx(cfg, randomVitWeights(cfg, 0)));
    const enc = await openImageEncoder(model, { threads: 1 });
    const refs = Object.keys(files).map((f) => ({ id: f, file: join(dir, 'images', f) }));
    const res = await embedImages(enc, refs, { onBadImage: 'skip' });
    await enc.release();
    expect(res.ids).toEqual(['ok.png', 'ok.jpg']); // before: cut.png embedded too
    expect(res.skipped.map((s) => s.id)).toEqual(['cut.png', 'cut.jpg', 'huge.png', 'huge.jpg']);
  });
});

describe('captions and ids', () => {
  it('a duplicate image id is an error naming both entries', () => {
    const r = cli('data', 'inspect', dataset('dup', [image('a', null), image('b', null), image('a', null)]));
    expect(r.status).toBe(2); // before: 0
    expect(r.stderr.trim()).toMatch(
      /dataset\.json: images\[2\]: photo id 'a' repeats images\[0\]; image ids must be unique/,
    );
  });

  it('a whitespace-only caption is an error naming the image and the caption', () => {
    const r = cli('data', 'inspect', dataset('blank', [image('a', null, ['a red circle', ' \t '])]));
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toMatch(/dataset\.json: images\[0\]: \(a\) caption 1 is blank \(" \\t "\)$/);
  });

  it('an evaluation caption out of range is an error in inspect, as in train', () => {
    const r = cli('data', 'inspect', dataset('eval', [{ ...image('a', null), evalCaption: 5 }]));
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toMatch(/dataset\.json: images\[0\]: image a has evalCaption 5 but 1 captions$/);
  });

  it('bytes that are not UTF-8 are read (as U+FFFD) with a warning naming the lines', () => {
    const dir = join(home, 'latin1');
    mkdirSync(dir, { recursive: true });
    // A Flickr30k token file written in Latin-1: "café" as 63 61 66 E9 on line 2.
    const rows = ['1.jpg#0\ta dog runs', '1.jpg#1\ta dog at the caf\u00e9', '2.jpg#0\ta cat sleeps', '2.jpg#1\ta cat'];
    writeFileSync(join(dir, 'results_20130124.token'), Buffer.from(rows.join('\n') + '\n', 'latin1'));
    const r = cli('data', 'inspect', dir, '--json');
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.warnings).toEqual([
      `${join(dir, 'results_20130124.token')}: 1 line(s) are not valid UTF-8 and read with U+FFFD in place of the bad bytes: line 2`,
    ]); // before: none
    expect(cli('data', 'inspect', dir).stdout).toMatch(/^warning {6}.*line 2$/m);
    // A file that is UTF-8 says nothing.
    writeFileSync(join(dir, 'results_20130124.token'), rows.join('\n') + '\n');
    expect(JSON.parse(cli('data', 'inspect', dir, '--json').stdout).warnings).toEqual([]);
  });
});
