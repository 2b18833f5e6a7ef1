import { existsSync, mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { registerImage } from '../../engine/cli/image';
import { readEmbeddings } from '../../engine/embeddings';
import {
  BadImageError,
  cacheKey,
  embedCached,
  embedImages,
  listImages,
  openImageEncoder,
  readImageEmbeddings,
} from '../../engine/image';
import { ElemType, GraphBuilder, buildVitOnnx, randomVitWeights, valueInfo } from '../../engine/models/onnx';
import { Cancelled } from '../../engine/runs/job';
import { quadrants } from './fixtures';

const dir = mkdtempSync(join(tmpdir(), 'prh-embed-'));
const cfg = { imageSize: 28, patchSize: 14, hidden: 16, depth: 2, heads: 2, mlp: 32, layerNormEps: 1e-6 };
const model = join(dir, 'vit.onnx');
writeFileSync(model, buildVitOnnx(cfg, randomVitWeights(cfg, 1)));

// A dataset folder: 7 test images (one not an image), 2 train images, one caption-only entry.
const data = join(dir, 'data');
mkdirSync(join(data, 'images'), { recursive: true });
const colours = ['#ff0000', '#00ff00', '#0000ff', '#ffff00', '#00ffff', '#ff00ff', '#808080', '#ffffff'];
const images = Array.from({ length: 9 }, (_, i) => {
  const file = i === 3 ? 'broken.jpg' : `img${i}.${i % 2 ? 'png' : 'jpg'}`;
  const c = quadrants(40 + 8 * i, 30, [
    colours[i % 8],
    colours[(i + 1) % 8],
    colours[(i + 2) % 8],
    colours[(i + 3) % 8],
  ]);
  writeFileSync(
    join(data, 'images', file),
    i === 3 ? Buffer.from('garbage') : i % 2 ? c.toBuffer('image/png') : c.toBuffer('image/jpeg'),
  );
  return { id: `im${i}`, split: i < 7 ? 'test' : 'train', file, captions: [{ text: 'a picture' }], evalCaption: 0 };
});
images.push({
  id: 'nofile',
  split: 'test',
  file: null as unknown as string,
  captions: [{ text: 'x' }],
  evalCaption: 0,
});
writeFileSync(join(data, 'dataset.json'), JSON.stringify({ version: 1, name: 't', source: 'world', images }));

afterAll(() => vi.restoreAllMocks());

describe('image lists', () => {
  it('reads a split of dataset.json, skipping caption-only entries', () => {
    const test = listImages(data, 'test');
    expect(test.map((r) => r.id)).toEqual(['im0', 'im1', 'im2', 'im3', 'im4', 'im5', 'im6']);
    expect(test[1].file).toBe(join(data, 'images', 'img1.png'));
    expect(listImages(data)).toHaveLength(9);
  });
  it('a plain folder of images, ids = file names', () => {
    expect(listImages(join(data, 'images')).map((r) => r.id)).toEqual([
      'broken.jpg',
      'img0.jpg',
      'img1.png',
      'img2.jpg',
      'img4.jpg',
      'img5.png',
      'img6.jpg',
      'img7.png',
      'img8.jpg',
    ]);
    expect(() => listImages(join(data, 'images'), 'test')).toThrow(/plain folder of images, so it has no splits/);
  });
});

describe('batched embedding', () => {
  it('skips unreadable files (counted, named) or fails on them, by the setting', async () => {
    const enc = await openImageEncoder(model, { device: 'cpu', threads: 1 });
    const refs = listImages(data, 'test');
    const progress: number[] = [];
    const res = await embedImages(enc, refs, { batchSize: 3, onBadImage: 'skip', onProgress: (d) => progress.push(d) });
    expect(res.emb.rows).toBe(6);
    expect(res.emb.dim).toBe(16);
    expect(res.ids).toEqual(['im0', 'im1', 'im2', 'im4', 'im5', 'im6']);
    expect(res.skipped).toHaveLength(1);
    expect(res.skipped[0].reason).toContain('broken.jpg');
    expect(progress).toEqual([3, 6, 7]);
    await expect(embedImages(enc, refs, { batchSize: 3 })).rejects.toBeInstanceOf(BadImageError);
    // Batching does not change the numbers: batch 1 and batch 4 agree.
    const one = await embedImages(enc, refs.slice(4), { batchSize: 1 });
    const four = await embedImages(enc, refs.slice(4), { batchSize: 4 });
    let m = 0;
    for (let i = 0; i < one.emb.data.length; i++) m = Math.max(m, Math.abs(one.emb.data[i] - four.emb.data[i]));
    expect(m).toBeLessThan(1e-5);
    // Different images give different rows.
    expect(Math.abs(one.emb.data[0] - one.emb.data[16])).toBeGreaterThan(1e-4);
  });

  it('stops between batches when the signal is aborted', async () => {
    const enc = await openImageEncoder(model, { device: 'cpu', threads: 1 });
    const ac = new AbortController();
    const run = embedImages(enc, listImages(data, 'test'), {
      batchSize: 2,
      onBadImage: 'skip',
      signal: ac.signal,
      onProgress: (done) => done >= 2 && ac.abort(),
    });
    await expect(run).rejects.toBeInstanceOf(Cancelled);
    await expect(run).rejects.toThrow(/cancelled after 2 of 7 images/);
  });
});

describe('cache: one embedding per model + spec + image list', () => {
  it('a second run is a cache hit; a changed spec or file is a miss', async () => {
    const cache = join(dir, 'cache');
    const enc = await openImageEncoder(model, { device: 'cpu', threads: 1 });
    const refs = listImages(data, 'train');
    const first = await embedCached(enc, refs, cache, {});
    expect(first.cached).toBe(false);
    expect(existsSync(first.cacheFile!)).toBe(true);
    const second = await embedCached(enc, refs, cache, {});
    expect(second.cached).toBe(true);
    expect(Array.from(second.emb.data)).toEqual(Array.from(first.emb.data));
    expect(second.ids).toEqual(['im7', 'im8']);
    expect(second.record.spec).toEqual(enc.spec);
    expect(second.record.model.sha256).toMatch(/^[0-9a-f]{64}$/);

    const other = await openImageEncoder(model, {
      device: 'cpu',
      threads: 1,
      overrides: { interpolation: 'bilinear' },
    });
    expect(cacheKey(other.modelSha256, other.spec, refs)).not.toBe(first.record.cacheKey);
    utimesSync(refs[0].file, new Date(), new Date(Date.now() + 5000));
    expect(cacheKey(enc.modelSha256, enc.spec, refs)).not.toBe(first.record.cacheKey);
  });
});

describe('model errors', () => {
  const write = (
    name: string,
    g: GraphBuilder,
    inputs: ReturnType<typeof valueInfo>[],
    outputs: ReturnType<typeof valueInfo>[],
  ) => {
    const p = join(dir, name);
    writeFileSync(p, g.encode(inputs, outputs, name));
    return p;
  };

  it('wrong input rank names expected vs actual', async () => {
    const g = new GraphBuilder();
    g.op('Identity', ['x'], {}, 'y');
    const p = write(
      'rank3.onnx',
      g,
      [valueInfo('x', ElemType.FLOAT, ['n', 3, 224])],
      [valueInfo('y', ElemType.FLOAT, ['n', 3, 224])],
    );
    await expect(openImageEncoder(p)).rejects.toThrow(
      /input 'x' expected rank 4 \[N, 3, 224, 224\] \(NCHW\), actual rank 3 \[n, 3, 224\]/,
    );
  });

  it('a model with no float output lists the outputs it has', async () => {
    const g = new GraphBuilder();
    g.op('Shape', ['x'], {}, 'shape');
    const p = write(
      'int-out.onnx',
      g,
      [valueInfo('x', ElemType.FLOAT, ['n', 3, 224, 224])],
      [valueInfo('shape', ElemType.INT64, [4])],
    );
    await expect(openImageEncoder(p)).rejects.toThrow(/no usable float output; its outputs are shape \(int64 \[4\]\)/);
  });

  it('a file that is not ONNX is named', async () => {
    const p = join(dir, 'fake.onnx');
    writeFileSync(p, 'hello');
    await expect(openImageEncoder(p)).rejects.toThrow(new RegExp(`${p}: not an ONNX model`));
  });
});

describe('prh embed', () => {
  it('writes .npy + ids + spec sidecars and prints one JSON document', async () => {
    const out = join(dir, 'out', 'test.npy');
    const logs: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((s: string) => void logs.push(s));
    let code = -1;
    const program = new Command('prh').exitOverride();
    registerImage(program, (c) => (code = c));
    const args = [
      'embed',
      '--model',
      model,
      '--data',
      data,
      '--split',
      'test',
      '--out',
      out,
      '--on-bad-image',
      'skip',
      '--batch',
      '4',
      '--threads',
      '1',
      '--no-cache-dir',
      '--json',
    ];
    await program.parseAsync(args, { from: 'user' });
    spy.mockRestore();
    expect(code).toBe(0);
    const summary = JSON.parse(logs.join('\n'));
    expect(summary).toMatchObject({
      rows: 6,
      dim: 16,
      skipped: 1,
      cached: false,
      preset: 'dinov2',
      tensor: 'pooler_output',
    });
    const file = readEmbeddings(out);
    expect(file.ids).toEqual(['im0', 'im1', 'im2', 'im4', 'im5', 'im6']);
    expect(readImageEmbeddings(out).record.skipped[0].id).toBe('im3');
    expect(JSON.parse(readFileSync(`${out}.spec.json`, 'utf8')).spec.preset).toBe('dinov2');
  });

  it('rejects bad flags through zod', async () => {
    const program = new Command('prh').exitOverride();
    registerImage(program, () => {});
    await expect(
      program.parseAsync(['embed', '--model', model, '--data', data, '--out', join(dir, 'x.txt')], { from: 'user' }),
    ).rejects.toThrow(/\.npy or \.safetensors/);
    await expect(
      program.parseAsync(['embed', '--model', model, '--data', data, '--out', join(dir, 'x.npy'), '--mean', '1,2'], {
        from: 'user',
      }),
    ).rejects.toThrow();
  });
});

// A real quantized CNN from the ONNX model zoo: its 1280-d pooled feature is a uint8 tensor inside the graph,
// read through an added DequantizeLinear output.
const mobilenet = join(import.meta.dirname, '..', '..', '..', 'shared', 'models', 'mobilenetv2-12-int8.onnx');
if (!existsSync(mobilenet)) console.warn(`skipping the mobilenet tests: ${mobilenet} is absent`);
describe.skipIf(!existsSync(mobilenet))('mobilenetv2-12-int8 from ../shared/models', () => {
  it('gives the 1280-d pooled feature through the intermediate-output path', async () => {
    const enc = await openImageEncoder(mobilenet, {
      device: 'cpu',
      threads: 1,
      overrides: { embedding: { tensor: '464_quantized' } },
    });
    expect(enc.spec).toMatchObject({ preset: 'imagenet-cnn', input: 'input', size: 224, resize: 256 });
    const res = await embedImages(enc, listImages(data, 'train'), { batchSize: 2 });
    expect(res.emb.dim).toBe(1280);
    const row = (i: number) => res.emb.data.subarray(i * 1280, (i + 1) * 1280);
    // Average-pooled ReLU6 activations: non-negative, not all zero, and image-dependent.
    expect(Math.min(...row(0))).toBeGreaterThanOrEqual(0);
    expect(Math.max(...row(0))).toBeGreaterThan(0.1);
    expect(row(0).some((v, i) => Math.abs(v - row(1)[i]) > 1e-3)).toBe(true);
  });
  it('without --output it reads the 1000 logits', async () => {
    const enc = await openImageEncoder(mobilenet, { device: 'cpu', threads: 1 });
    expect(enc.spec.embedding.tensor).toBe('output');
    expect((await embedImages(enc, listImages(data, 'train'))).emb.dim).toBe(1000);
  });
});
