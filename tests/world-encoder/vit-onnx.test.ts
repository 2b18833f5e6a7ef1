// The world encoder's two runtimes agree: the tfjs ViT it is trained as and the DINOv2-layout ONNX it ships as.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { WORLD_ENCODER_RECIPE, onnxParity, openImageEncoder, readWorldEncoderManifest } from '../../engine/image';
import { TrainRng, exportVitOnnx, initVit, type ViTShape } from '../../engine/models';
import { initBackend } from '../../engine/train';

const TINY: ViTShape = { imageSize: 16, patchSize: 4, hidden: 16, depth: 2, heads: 2, mlp: 32 };
const resources = join(import.meta.dirname, '..', '..', 'resources');

beforeAll(async () => {
  await initBackend('wasm');
});

describe('world encoder ViT: tfjs vs ONNX', () => {
  it('pooler_output and last_hidden_state agree to 1e-4 on a tiny ViT with every tensor perturbed', async () => {
    const p = initVit(TINY, TrainRng.seeded(3, 'tiny'), 0.5);
    // LN gains/biases start at 1/0: perturb every tensor so a mis-wired norm, bias or head split shows
    const rng = TrainRng.seeded(4, 'perturb');
    for (const v of p.values())
      v.assign(
        tf.add(
          v,
          tf.tensor(
            Float32Array.from({ length: v.size }, () => 0.3 * rng.normal()),
            v.shape,
          ),
        ),
      );
    const n = 3;
    const px = Float32Array.from({ length: n * 3 * 16 * 16 }, () => rng.normal());
    const res = await onnxParity(await exportVitOnnx(TINY, p), { shape: TINY, params: p }, { pixels: px, n });
    expect(res.maxAbsDiffPooler).toBeLessThan(1e-4);
    expect(res.maxAbsDiffTokens).toBeLessThan(1e-4);
    // not vacuous: the same ONNX against the tfjs model with two heads' query columns swapped no longer matches
    const w = p.get('h0.qkv.w')!;
    const d = w.dataSync().slice();
    for (let r = 0; r < 16; r++)
      for (let c = 0; c < 8; c++) [d[r * 48 + c], d[r * 48 + 8 + c]] = [d[r * 48 + 8 + c], d[r * 48 + c]];
    const onnx = await exportVitOnnx(TINY, p);
    w.assign(tf.tensor2d(d, [16, 48]));
    const res2 = await onnxParity(onnx, { shape: TINY, params: p }, { pixels: px, n });
    expect(res2.maxAbsDiffPooler).toBeGreaterThan(1e-3);
  });

  it.skipIf(!existsSync(join(resources, 'world-encoder.onnx')))(
    'the shipped encoder matches its manifest and opens as a 64-px dinov2 model',
    async () => {
      const file = join(resources, 'world-encoder.onnx');
      const m = readWorldEncoderManifest(join(resources, 'world-encoder.json'));
      expect(createHash('sha256').update(readFileSync(file)).digest('hex')).toBe(m.sha256);
      expect(m.recipe).toEqual(WORLD_ENCODER_RECIPE); // what `build-encoder` builds by default is what ships
      expect(m.parity.maxAbsDiffPooler).toBeLessThan(1e-4);
      expect(m.parity.maxAbsDiffTokens).toBeLessThan(1e-4);
      const enc = await openImageEncoder(file);
      try {
        expect(enc.spec.preset).toBe('dinov2');
        expect(enc.spec.size).toBe(m.recipe.jepa.vit.imageSize);
        expect(enc.spec.embedding.tensor).toBe('pooler_output');
        const out = await enc.encode(new Float32Array(2 * 3 * 64 * 64).fill(0.5), 2);
        expect(out.dim).toBe(m.recipe.pooler?.dims ?? m.recipe.jepa.vit.hidden);
        expect(out.data.every(Number.isFinite)).toBe(true);
      } finally {
        await enc.release();
      }
    },
  );
});
