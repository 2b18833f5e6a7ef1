// Global-norm clipping against a float64 sum: at minilm-33m's sizes ([30522, 384] word embeddings, [384, 1536] MLP)
// wasm's one-accumulator Sum was 1e-2 / 1e-4 off; the norm (and so the clip scale) must hold to 1e-6.
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { TrainRng } from '../../engine/models';
import { clipGradients, initBackend } from '../../engine/train';

// Seeded values in ±scale/2 from the project's training stream.
const values = (n: number, seed: number, scale: number): Float32Array => {
  const rng = TrainRng.seeded(seed, 'clip-test');
  return Float32Array.from({ length: n }, () => (rng.uniform() - 0.5) * scale);
};

describe('clipGradients', () => {
  it('gives the global norm to 1e-6 at minilm sizes, and scales every gradient to maxNorm', async () => {
    await initBackend('wasm');
    const shapes: [number, number][] = [
      [30522, 384],
      [384, 1536],
      [64, 256],
      [1, 384],
    ];
    const data = shapes.map(([r, c], i) => values(r * c, 7 + i, i === 3 ? 1 : 1e-3));
    let exact = 0; // float64
    for (const x of data) for (const v of x) exact += v * v;
    const grads = Object.fromEntries(shapes.map((s, i) => [`g${i}`, tf.tensor2d(data[i], s)]));
    const norm = await clipGradients(grads, 1);
    expect(Math.abs(norm - Math.sqrt(exact)) / Math.sqrt(exact)).toBeLessThan(1e-6);
    expect(norm).toBeGreaterThan(1);
    let after = 0; // float64, of the clipped gradients
    for (const g of Object.values(grads)) for (const v of await g.data()) after += v * v;
    const clipped = Math.sqrt(after);
    expect(clipped).toBeCloseTo(1, 5);
    tf.dispose(Object.values(grads));
  });
});
