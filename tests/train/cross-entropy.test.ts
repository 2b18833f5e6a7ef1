// NTP's cross-entropy on tfjs-wasm runs in heap-kernels.c (softmax rows with a SIMD exp, then the gradient): each
// softmax row against float64 over the widths that take the SIMD body, its tail or both; its exp against Math.exp over
// float32's whole normal range; the loss and gradient against the tf-ops form on tfjs's cpu backend, incl. a target
// far below the row's max; NaN logits give a NaN loss, as the divergence check needs. (The loss against PyTorch:
// golden.test.ts.)
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrainRng, packBatch } from '../../engine/models';
import type { HeapBackend } from '../../engine/models/wasm-heap';
import { initBackend, ntpLoss } from '../../engine/train';
import { doublesAt, heapAlloc, heapKernels, offsetOf } from '../../engine/models/heap-kernels-wasm';

const backend = () => tf.backend() as unknown as HeapBackend;

// softmax_rows on x [n, V]: the probabilities and each row's (max, Σ exp) as the kernel writes them.
function softmaxRows(x: Float32Array, n: number, V: number): { p: Float32Array; stats: Float64Array } {
  const b = backend();
  const xt = tf.tensor2d(x, [n, V]),
    pt = tf.zeros([n, V]);
  const stats = heapAlloc(b, 16 * n);
  heapKernels(b).softmaxRows(offsetOf(b, xt), n, V, offsetOf(b, pt), stats);
  const out = {
    p: pt.dataSync() as Float32Array,
    stats: doublesAt(b, stats, 2 * n).slice(),
  };
  b.wasm._free(stats);
  tf.dispose([xt, pt]);
  return out;
}

beforeAll(async () => {
  await initBackend('wasm');
});
afterAll(async () => {
  await tf.setBackend('wasm');
});

describe('softmax rows (heap-kernels.c)', () => {
  it('equal float64 softmax to 3e-7, rows whose widths take the SIMD body, its tail, or both', () => {
    const rng = TrainRng.seeded(1, 'softmax-rows');
    for (const V of [1, 3, 4, 7, 16, 442]) {
      const n = 5;
      const x = Float32Array.from({ length: n * V }, () => rng.normal() * 4);
      const { p, stats } = softmaxRows(x, n, V);
      for (let i = 0; i < n; i++) {
        const row = Array.from(x.subarray(i * V, (i + 1) * V));
        const m = Math.max(...row);
        const e = row.map((v) => Math.exp(Math.fround(v - m))); // the shift is a float32 subtraction, as in torch
        const sum = e.reduce((a, v) => a + v, 0);
        expect(stats[2 * i]).toBe(m);
        expect(Math.abs(stats[2 * i + 1] - sum) / sum).toBeLessThan(3e-7);
        for (let j = 0; j < V; j++)
          expect(Math.abs(p[i * V + j] - e[j] / sum)).toBeLessThanOrEqual(4e-7 * (e[j] / sum));
      }
    }
  });

  it('its exp is within 2e-7 of Math.exp from 0 down to −87 and 0 below float32’s normal range', () => {
    // rows [0, x, x, x]: p_1 / p_0 = e^x, and p stays in float32's normal range
    const K = 4001;
    const x = Float32Array.from({ length: K }, (_, i) => (-87 * i) / (K - 1));
    const { p } = softmaxRows(
      Float32Array.from({ length: 4 * K }, (_, j) => (j % 4 ? x[j >> 2] : 0)),
      K,
      4,
    );
    let worst = 0;
    for (let i = 0; i < K; i++)
      worst = Math.max(worst, Math.abs(p[4 * i + 1] / p[4 * i] - Math.exp(x[i])) / Math.exp(x[i]));
    expect(worst).toBeLessThan(2e-7);
    const below = softmaxRows(Float32Array.from([0, -87.5, -200, -1e30, -Infinity]), 1, 5).p;
    expect(Array.from(below)).toEqual([1, 0, 0, 0, 0]);
  });
});

describe('NTP cross-entropy on wasm', () => {
  // Hidden states and embeddings of a small packed batch, and the loss with its gradients on the current backend.
  const rng = TrainRng.seeded(2, 'cross-entropy');
  const d = 8,
    vocab = 23;
  const seqs = [
    [1, 5, 7, 2, 9],
    [3, 4],
    [6, 8, 10, 11, 12, 13, 14],
  ];
  const batch = packBatch(seqs);
  const H = Float32Array.from({ length: batch.N * d }, () => rng.normal()),
    E = Float32Array.from({ length: vocab * d }, () => rng.normal());
  const run = (h: Float32Array, e: Float32Array) =>
    tf.tidy(() => {
      const [Ht, Et] = [tf.tensor2d(h, [batch.N, d]), tf.tensor2d(e, [vocab, d])];
      const loss = (a: tf.Tensor, b: tf.Tensor) => ntpLoss(a as tf.Tensor2D, b as tf.Tensor2D, batch);
      const [gH, gE] = tf.grads(loss)([Ht, Et]);
      return { value: loss(Ht, Et).dataSync()[0], gH: gH.dataSync(), gE: gE.dataSync() };
    });
  const maxRel = (a: ArrayLike<number>, b: ArrayLike<number>) => {
    let m = 0,
      s = 0;
    for (let i = 0; i < a.length; i++) {
      m = Math.max(m, Math.abs(a[i] - b[i]));
      s = Math.max(s, Math.abs(b[i]));
    }
    return m / s;
  };

  it('value and gradients equal the tf-ops form on the cpu backend, also with a target far below the max', async () => {
    for (const scale of [1, 40]) {
      const h = H.map((v) => v * scale);
      await tf.setBackend('wasm');
      const wasm = run(h, E);
      await tf.setBackend('cpu');
      const cpu = run(h, E);
      await tf.setBackend('wasm');
      expect(Number.isFinite(wasm.value)).toBe(true);
      expect(Math.abs(wasm.value - cpu.value) / cpu.value).toBeLessThan(1e-6);
      expect(maxRel(wasm.gH, cpu.gH)).toBeLessThan(1e-5);
      expect(maxRel(wasm.gE, cpu.gE)).toBeLessThan(1e-5);
    }
  });

  it('a NaN logit gives a NaN loss', () => {
    const h = H.slice();
    h[3] = NaN;
    expect(run(h, E).value).toBeNaN();
  });
});
