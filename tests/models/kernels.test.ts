// The custom kernels: the JS attention op equals the tf-ops path (values and gradients), finite-difference checks of
// the attention and SIGReg gradients, the wasm gather-gradient (UnsortedSegmentSum) kernel against a plain sum, and the wasm row-gather (GatherV2) override;
// on wasm the heap kernels give the plain loops' bits, also with their buffers past 2 GB of wasm memory.
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import {
  TrainRng,
  attentionBackward,
  attentionForward,
  attentionJs,
  attentionTf,
  packBatch,
  type AttentionShape,
} from '../../engine/models';
import { eppsPulleyMoments, SP_GRID } from '../../engine/metrics';
import { heapAlloc, offsetOf } from '../../engine/models/heap-kernels-wasm';
import type { HeapBackend } from '../../engine/models/wasm-heap';
import { initBackend, ntpLoss, sigregGradient, sigregOp } from '../../engine/train';

const rand = (n: number, rng: TrainRng, s = 1) => Float32Array.from({ length: n }, () => rng.normal() * s);
const maxAbs = (a: ArrayLike<number>, b: ArrayLike<number>) =>
  Array.from(a).reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

beforeAll(async () => {
  await initBackend('wasm');
});

// f's result, asserting that it read no tensor back from the backend (the ops on wasm work in its heap).
function noReadBack<T>(f: () => T): T {
  const reads = vi.spyOn(tf.backend(), 'readSync');
  try {
    const out = f();
    expect(reads).not.toHaveBeenCalled();
    return out;
  } finally {
    reads.mockRestore();
  }
}

describe('attention kernel', () => {
  const batch = packBatch([[1, 2, 3, 4, 5], [1, 2], [3, 3, 3, 3, 3, 3, 3], [7]]);
  const causalShape = (d: number, heads: number): AttentionShape => ({
    N: batch.N,
    d,
    heads,
    offsets: batch.offsets,
    lengths: batch.lengths,
    causal: true,
  });
  for (const causal of [false, true])
    it(`JS kernel == tf ops, forward and gradient (${causal ? 'causal' : 'bidirectional'})`, () => {
      const rng = TrainRng.seeded(1, 'att', Number(causal));
      const qkv = tf.tensor2d(rand(batch.N * 24, rng), [batch.N, 24]);
      const w = tf.tensor2d(rand(batch.N * 8, rng), [batch.N, 8]); // a random linear read-out makes the gradient non-trivial
      const f = (op: typeof attentionJs) => (x: tf.Tensor) =>
        tf.sum(tf.mul(op(x as tf.Tensor2D, 2, batch.offsets, batch.lengths, causal), w));
      expect(
        maxAbs(
          attentionJs(qkv, 2, batch.offsets, batch.lengths, causal).dataSync(),
          attentionTf(qkv, 2, batch.offsets, batch.lengths, causal).dataSync(),
        ),
      ).toBeLessThan(1e-5);
      expect(maxAbs(tf.grad(f(attentionJs))(qkv).dataSync(), tf.grad(f(attentionTf))(qkv).dataSync())).toBeLessThan(
        1e-5,
      );
    });
  // The heap kernels' eight-key and eight-column SIMD blocks and what is left after them: head widths 4, 16, 12 and 5,
  // sequences of 1 to 19 tokens, causal and bidirectional.
  const long = packBatch([Array(19).fill(2), [1, 2, 3, 4, 5, 6, 7, 8], [4, 4, 4], Array(11).fill(5), [9]]);
  for (const [name, tb, d, heads, causal] of [
    ['d 8, 2 heads, causal', batch, 8, 2, true],
    ['d 32, 2 heads, causal', long, 32, 2, true],
    ['d 32, 2 heads, bidirectional', long, 32, 2, false],
    ['d 36, 3 heads, bidirectional', long, 36, 3, false],
    ['d 10, 2 heads, causal', long, 10, 2, true],
  ] as const)
    it(`on wasm reads q|k|v and dy in the heap (no read-back) and gives the plain arrays' bits, past a heap growth (${name})`, () => {
      const rng = TrainRng.seeded(3, 'att-heap', d);
      const s: AttentionShape = { N: tb.N, d, heads, offsets: tb.offsets, lengths: tb.lengths, causal };
      const x = rand(tb.N * 3 * d, rng),
        dy = rand(tb.N * d, rng);
      const { out, probs } = attentionForward(x, s);
      const g = attentionBackward(x, probs, dy, s);
      const [y, dx] = noReadBack(() =>
        tf.tidy(() => {
          const qkv = tf.tensor2d(x, [tb.N, 3 * d]);
          const op = (a: tf.Tensor) => {
            const y = attentionJs(a as tf.Tensor2D, heads, tb.offsets, tb.lengths, causal);
            tf.fill([16 << 20], 1); // 64 MB between forward and backward: the wasm memory grows, detaching older views
            return y;
          };
          return [op(qkv), tf.grad(op)(qkv, tf.tensor2d(dy, [tb.N, d]))];
        }),
      );
      expect(Array.from(y.dataSync())).toEqual(Array.from(out));
      expect(Array.from(dx.dataSync())).toEqual(Array.from(g));
      tf.dispose([y, dx]);
    });
  it('finite-difference gradient check (float64 central differences)', () => {
    const rng = TrainRng.seeded(2, 'att-fd');
    const s = causalShape(6, 3);
    const x = rand(batch.N * 18, rng);
    const w = rand(batch.N * 6, rng);
    const L = (q: Float32Array) => attentionForward(q, s).out.reduce((a, o, i) => a + o * w[i], 0);
    const { probs } = attentionForward(x, s);
    const g = attentionBackward(x, probs, Float32Array.from(w), s);
    const h = 1e-2;
    for (let i = 0; i < x.length; i += 7) {
      const xp = x.slice(),
        xm = x.slice();
      xp[i] += h;
      xm[i] -= h;
      expect(Math.abs((L(xp) - L(xm)) / (2 * h) - g[i])).toBeLessThan(2e-3);
    }
  });
});

describe('SIGReg kernel', () => {
  const N = 40,
    M = 6;
  const z = rand(N * M, TrainRng.seeded(3, 'sig-fd'), 1.3);
  const mom = eppsPulleyMoments(z, N, M, SP_GRID, 1);
  const g = sigregGradient(z, N, M, SP_GRID, 1, mom);
  it('finite-difference gradient check', () => {
    const h = 1e-2;
    for (let i = 0; i < z.length; i += 5) {
      const zp = z.slice(),
        zm = z.slice();
      zp[i] += h;
      zm[i] -= h;
      const fd =
        (eppsPulleyMoments(zp, N, M, SP_GRID, 1).value - eppsPulleyMoments(zm, N, M, SP_GRID, 1).value) / (2 * h);
      expect(Math.abs(fd - g[i])).toBeLessThan(1e-3 * Math.max(1, Math.abs(g[i])));
    }
  });
  // [40, 6]: the kernels' one-slice loops alone; [33, 19]: two eight-slice SIMD blocks and three slices after them
  for (const [n, m] of [
    [N, M],
    [33, 19],
  ])
    it(`on wasm reads z in the heap (no read-back) and gives the plain arrays' value and gradient bits, [${n}, ${m}]`, () => {
      const x = n === N ? z : rand(n * m, TrainRng.seeded(5, 'sig-simd'), 1.3);
      const mx = eppsPulleyMoments(x, n, m, SP_GRID, 1);
      const [value, grad] = noReadBack(() =>
        tf.tidy(() => {
          const zt = tf.tensor2d(x, [n, m]);
          return [sigregOp()(zt), tf.grad((a: tf.Tensor) => sigregOp()(a as tf.Tensor2D))(zt)];
        }),
      );
      expect(value.dataSync()[0]).toBe(Math.fround(mx.value));
      expect(Array.from(grad.dataSync())).toEqual(Array.from(sigregGradient(x, n, m, SP_GRID, 1, mx)));
    });
  it('angle-addition recurrence equals direct cos/sin', () => {
    const z = Float32Array.from([0.3, -1.7, 2.9, 0]);
    const direct = (() => {
      const J = 17,
        dt = 3 / 16;
      let tot = 0;
      const w = Array.from(
        { length: J },
        (_, j) => Math.exp(-((j * dt) ** 2) / 2) * dt * (j === 0 || j === J - 1 ? 1 : 2),
      );
      for (let j = 0; j < J; j++) {
        const t = j * dt;
        const c = Array.from(z).reduce((a, x) => a + Math.cos(t * x), 0) / 4,
          s = Array.from(z).reduce((a, x) => a + Math.sin(t * x), 0) / 4;
        tot += w[j] * ((c - Math.exp((-t * t) / 2)) ** 2 + s * s);
      }
      return 4 * tot;
    })();
    expect(eppsPulleyMoments(z, 4, 1, SP_GRID, 1).value).toBeCloseTo(direct, 10);
  });
});

describe('gather gradient on wasm (UnsortedSegmentSum)', () => {
  it('embedding gradient equals the scatter-add of the upstream rows, and is finite-difference exact', () => {
    const rng = TrainRng.seeded(4, 'uss');
    const E = tf.tensor2d(rand(7 * 3, rng), [7, 3]);
    const ids = [1, 4, 1, 6, 0, 1];
    const up = rand(ids.length * 3, rng);
    const g = tf
      .grad((e: tf.Tensor) =>
        tf.sum(tf.mul(tf.gather(e, tf.tensor1d(ids, 'int32')), tf.tensor2d(up, [ids.length, 3]))),
      )(E)
      .dataSync();
    const want = new Float32Array(21);
    ids.forEach((id, r) => {
      for (let k = 0; k < 3; k++) want[id * 3 + k] += up[r * 3 + k];
    });
    expect(maxAbs(g, want)).toBeLessThan(1e-6);
  });
});

describe('row gather on wasm (GatherV2 override)', () => {
  it('axis-0 gathers copy the indexed rows (2-D, 3-D, 1-D); other axes and int32 data go to the stock kernel', () => {
    const rng = TrainRng.seeded(5, 'gather');
    const x = rand(6 * 4 * 2, rng);
    const ids = [5, 0, 5, 2, 3];
    const rows = (inner: number) =>
      Float32Array.from(ids.flatMap((r) => Array.from(x.subarray(r * inner, (r + 1) * inner))));
    const idx = tf.tensor1d(ids, 'int32');
    expect(Array.from(tf.gather(tf.tensor3d(x, [6, 4, 2]), idx).dataSync())).toEqual(Array.from(rows(8)));
    expect(tf.gather(tf.tensor3d(x, [6, 4, 2]), idx).shape).toEqual([5, 4, 2]);
    expect(
      Array.from(
        tf
          .gather(
            tf.tensor2d(x, [12, 4]),
            tf.tensor2d(
              [
                [5, 0],
                [5, 2],
              ],
              [2, 2],
              'int32',
            ),
          )
          .dataSync(),
      ),
    ).toEqual(Array.from(rows(4).subarray(0, 16)));
    expect(Array.from(tf.gather(tf.tensor1d(x.subarray(0, 6)), idx).dataSync())).toEqual(ids.map((r) => x[r]));
    const m = tf.tensor2d(x.subarray(0, 24), [6, 4]);
    expect(Array.from(tf.gather(m, tf.tensor1d([3, 1], 'int32'), 1).dataSync())).toEqual(
      [0, 1, 2, 3, 4, 5].flatMap((r) => [x[r * 4 + 3], x[r * 4 + 1]]),
    );
    expect(Array.from(tf.gather(tf.tensor1d([7, 8, 9], 'int32'), tf.tensor1d([2, 0], 'int32')).dataSync())).toEqual([
      9, 7,
    ]);
    expect(() => tf.gather(m, tf.tensor1d([6], 'int32'))).toThrow(/index 6 is not in \[0, 5\]/);
  });
});

describe('heap kernels past 2 GB of wasm memory', () => {
  // The paper's 33M encoder grows tfjs-wasm's memory past 2^31 bytes, where offsets no longer fit a signed int32.
  it('the attention, SIGReg, cross-entropy and leading-sum ops give the same bits with their buffers above 2 GB', () => {
    const rng = TrainRng.seeded(6, 'heap-2gb');
    const tb = packBatch([Array(11).fill(2), [1, 2, 3], Array(9).fill(4)]);
    const x = rand(tb.N * 48, rng),
      z = rand(24 * 19, rng, 1.3),
      h = rand(tb.N * 16, rng),
      e = rand(29 * 16, rng);
    const ops = () =>
      tf.tidy(() => {
        const qkv = tf.tensor2d(x, [tb.N, 48]);
        const att = (a: tf.Tensor) => attentionJs(a as tf.Tensor2D, 2, tb.offsets, tb.lengths, true);
        const sig = (a: tf.Tensor) => sigregOp()(a as tf.Tensor2D);
        const ntp = (a: tf.Tensor, b: tf.Tensor) => ntpLoss(a as tf.Tensor2D, b as tf.Tensor2D, tb);
        const [H, E] = [tf.tensor2d(h, [tb.N, 16]), tf.tensor2d(e, [29, 16])];
        return [
          att(qkv),
          tf.grad(att)(qkv),
          sig(tf.tensor2d(z, [24, 19])),
          tf.grad(sig)(tf.tensor2d(z, [24, 19])),
          ntp(H, E),
          ...tf.grads(ntp)([H, E]),
          tf.sum(qkv, 0),
        ].map((t) => Array.from(t.dataSync()));
      });
    const below = ops();
    const b = tf.backend() as unknown as HeapBackend;
    // 2.5 GB reserved (never written), then every free chunk below it taken, so that what the ops allocate lies above
    const taken = [heapAlloc(b, 600 << 22)];
    for (let size = 1 << 20; size >= 16; size >>= 2)
      for (let at = heapAlloc(b, size); ; at = heapAlloc(b, size)) {
        taken.push(at);
        if (at > 2 ** 31) break;
      }
    try {
      const t = tf.ones([4]);
      expect(offsetOf(b, t)).toBeGreaterThan(2 ** 31);
      t.dispose();
      expect(ops()).toEqual(below);
    } finally {
      for (const at of taken) b.wasm._free(at);
    }
  });
});
