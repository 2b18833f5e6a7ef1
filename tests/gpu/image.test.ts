// Image encoders on onnxruntime's WebGPU execution provider, run on SwiftShader: outputs equal to the CPU EP's,
// the adapter recorded, and `auto` never choosing an emulated adapter.
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { registerImage } from '../../engine/cli/image';
import { realGpu, requestWebGpu } from '../../engine/gpu';
import { type ImageEncoder, openImageEncoder, readImageEmbeddings, readWorldEncoderManifest } from '../../engine/image';
import { buildVitOnnx, randomVitWeights } from '../../engine/models/onnx';
import { swiftshaderMissing, useSwiftShader } from './swiftshader';
import { quadrants } from '../image/fixtures';

const missing = swiftshaderMissing();
const dir = mkdtempSync(join(tmpdir(), 'prh-webgpu-image-'));
const worldEncoder = join(import.meta.dirname, '..', '..', 'resources', 'world-encoder.onnx');
const cfg = { imageSize: 28, patchSize: 14, hidden: 16, depth: 2, heads: 2, mlp: 32, layerNormEps: 1e-6 };
const vit = join(dir, 'vit.onnx');
writeFileSync(vit, buildVitOnnx(cfg, randomVitWeights(cfg, 3)));

// n images of side s, values in [0, 1], from a fixed LCG (deterministic, not all equal).
function pixels(n: number, s: number): Float32Array {
  let x = 12345;
  return Float32Array.from({ length: n * 3 * s * s }, () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

async function both(model: string, n: number): Promise<{ gpu: ImageEncoder; diff: number; dim: number }> {
  const cpu = await openImageEncoder(model, { preset: 'dinov2', device: 'cpu', threads: 1 });
  const gpu = await openImageEncoder(model, { preset: 'dinov2', device: 'webgpu', threads: 1, log: () => {} });
  try {
    const x = pixels(n, cpu.spec.size);
    const a = await cpu.encode(x, n),
      b = await gpu.encode(x, n);
    expect(b.dim).toBe(a.dim);
    return { gpu, diff: a.data.reduce((m, v, i) => Math.max(m, Math.abs(v - b.data[i])), 0), dim: a.dim };
  } finally {
    await cpu.release();
    await gpu.release();
  }
}

describe.skipIf(missing)(`onnxruntime WebGPU EP on SwiftShader${missing ? ` (skipped: ${missing})` : ''}`, () => {
  beforeAll(() => useSwiftShader());

  it('finds the SwiftShader adapter and marks it as an emulation, which auto never picks', async () => {
    const w = await requestWebGpu();
    expect('gpu' in w).toBe(true);
    if (!('gpu' in w)) return;
    expect(w.info).toMatchObject({ vendor: 'google', architecture: 'swiftshader', fallback: true });
    expect(w.info.description).toMatch(/SwiftShader/);
    expect(await realGpu()).toBeNull();
    const enc = await openImageEncoder(vit, { preset: 'dinov2', device: 'auto', threads: 1 });
    expect(enc.device).toBe('cpu');
    await enc.release();
  });

  it('the world encoder: WebGPU = CPU within 1e-4, adapter recorded', async () => {
    const { gpu, diff, dim } = await both(worldEncoder, 4);
    expect(dim).toBe(readWorldEncoderManifest(worldEncoder.replace(/\.onnx$/, '.json')).recipe.pooler!.dims); // the whitened pooler's width
    expect(gpu.device).toBe('webgpu');
    expect(gpu.adapter?.architecture).toBe('swiftshader');
    expect(diff).toBeLessThan(1e-4);
  });

  it('a DINOv2-layout ViT: WebGPU = CPU within 1e-4', async () => {
    const { diff, dim } = await both(vit, 3);
    expect(dim).toBe(16);
    expect(diff).toBeLessThan(1e-4);
  });

  it('prh embed --device webgpu stores the adapter with the embedding record', async () => {
    const data = join(dir, 'photos');
    mkdirSync(data);
    for (let i = 0; i < 3; i++)
      writeFileSync(
        join(data, `p${i}.png`),
        quadrants(32, 32, ['red', 'green', 'blue', `#${i}${i}${i}`]).toBuffer('image/png'),
      );
    const out = join(dir, 'out.npy');
    const logs: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((s: string) => void logs.push(s));
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    let code = -1;
    const program = new Command('prh').exitOverride();
    registerImage(program, (c) => (code = c));
    try {
      await program.parseAsync(
        [
          'embed',
          '--model',
          vit,
          '--data',
          data,
          '--out',
          out,
          '--device',
          'webgpu',
          '--batch',
          '2',
          '--no-cache-dir',
          '--json',
        ],
        { from: 'user' },
      );
    } finally {
      spy.mockRestore();
      err.mockRestore();
    }
    expect(code).toBe(0);
    const summary = JSON.parse(logs.join('\n'));
    expect(summary).toMatchObject({ rows: 3, device: 'webgpu', gpu: { architecture: 'swiftshader', fallback: true } });
    expect(summary.adapter).toMatch(/not GPU speed/);
    expect(readImageEmbeddings(out).record.device).toEqual({ kind: 'webgpu', adapter: summary.gpu });
    expect(JSON.parse(readFileSync(`${out}.spec.json`, 'utf8')).device.kind).toBe('webgpu');
  });
});
