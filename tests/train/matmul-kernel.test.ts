// The wasm backend's matrix product on onnxruntime's GEMM (engine/train/matmul-kernel.ts): the same bits as
// onnxruntime's own Gemm run through its public API, for every transpose pattern, against a float64 product, through
// tf's gradient, past a wasm memory growth; batched products on wasm's kernel; `matmul: 'wasm'` (what the world
// encoder's build uses) back on wasm's own kernel, whose bits differ from MLAS's, its transposed operands transposed
// first.
import * as tf from '@tensorflow/tfjs';
import * as ort from 'onnxruntime-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { gemmModel } from '../../engine/linalg/gemm';
import { TrainRng } from '../../engine/models';
import { initBackend } from '../../engine/train';

const rand = (n: number, rng: TrainRng) => Float32Array.from({ length: n }, () => rng.normal());

// C = op(A) op(B) in float64, from the float32 inputs: the independent reference.
function product(a: Float32Array, [a0, a1]: number[], b: Float32Array, [b0, b1]: number[], tA: boolean, tB: boolean) {
  const [m, k] = tA ? [a1, a0] : [a0, a1],
    n = tB ? b0 : b1;
  const c = new Float64Array(m * n);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let p = 0; p < k; p++) s += (tA ? a[p * a1 + i] : a[i * a1 + p]) * (tB ? b[j * b1 + p] : b[p * b1 + j]);
      c[i * n + j] = s;
    }
  return c;
}
const relErr = (x: ArrayLike<number>, ref: Float64Array) => {
  let num = 0,
    den = 0;
  for (let i = 0; i < ref.length; i++) {
    num = Math.max(num, Math.abs(x[i] - ref[i]));
    den = Math.max(den, Math.abs(ref[i]));
  }
  return num / den;
};
const sameBits = (x: Float32Array, y: Float32Array) => x.length === y.length && x.every((v, i) => Object.is(v, y[i]));

// onnxruntime's Gemm through its public (async) API: what the kernel must give, bit for bit.
async function ortGemm(a: Float32Array, sa: number[], b: Float32Array, sb: number[], transA: boolean, transB: boolean) {
  const s = await ort.InferenceSession.create(gemmModel({ float32: true, transA, transB }), {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
  });
  const out = await s.run({ A: new ort.Tensor('float32', a, sa), B: new ort.Tensor('float32', b, sb) });
  return out.C.data as Float32Array;
}

beforeAll(async () => {
  expect((await initBackend('wasm')).matmul).toBe('mlas');
});

describe('BatchMatMul on MLAS', () => {
  // minilm-33m's Linear shapes are [N, 384] x [384, 1152]; [67, 131] x [131, 45] is smaller and odd, so no kernel's
  // blocking is exact; [300, 64] x [64, 256] is written in five row tiles (64 KB of C each, the last short), and
  // [257, 64] x [64, 256] in four, the last of 65 rows: a tile of one row would go through MLAS's one-row path, whose
  // sums round otherwise.
  for (const [m, k, n] of [
    [67, 131, 45],
    [300, 64, 256],
    [257, 64, 256],
  ])
    for (const [tA, tB] of [
      [false, false],
      [true, false],
      [false, true],
      [true, true],
    ])
      it(`[${m}, ${k}] x [${k}, ${n}], transposeA ${tA}, transposeB ${tB}: onnxruntime's bits, within float32 rounding of a float64 product`, async () => {
        const rng = TrainRng.seeded(3, `mlas ${m}`, 2 * +tA + +tB);
        const sa = tA ? [k, m] : [m, k],
          sb = tB ? [n, k] : [k, n];
        const a = rand(m * k, rng),
          b = rand(k * n, rng);
        const c = tf.matMul(tf.tensor2d(a, sa as [number, number]), tf.tensor2d(b, sb as [number, number]), tA, tB);
        expect(c.shape).toEqual([m, n]);
        const got = c.dataSync() as Float32Array;
        expect(sameBits(got, await ortGemm(a, sa, b, sb, tA, tB))).toBe(true);
        expect(relErr(got, product(a, sa, b, sb, tA, tB))).toBeLessThan(1e-6);
      });

  it('keeps a rank-3 product of batch 1 as rank 3; a batch of 2 goes to wasm and is right', () => {
    const rng = TrainRng.seeded(4, 'mlas-batch');
    const a = rand(2 * 5 * 7, rng),
      b = rand(2 * 7 * 3, rng);
    const one = tf.matMul(tf.tensor3d(a.subarray(0, 35), [1, 5, 7]), tf.tensor3d(b.subarray(0, 21), [1, 7, 3]));
    expect(one.shape).toEqual([1, 5, 3]);
    expect(
      relErr(one.dataSync(), product(a.subarray(0, 35), [5, 7], b.subarray(0, 21), [7, 3], false, false)),
    ).toBeLessThan(1e-6);
    const two = tf.matMul(tf.tensor3d(a, [2, 5, 7]), tf.tensor3d(b, [2, 7, 3])).dataSync();
    for (const i of [0, 1])
      expect(
        relErr(
          two.subarray(i * 15, (i + 1) * 15),
          product(a.subarray(i * 35, (i + 1) * 35), [5, 7], b.subarray(i * 21, (i + 1) * 21), [7, 3], false, false),
        ),
      ).toBeLessThan(1e-6);
  });

  it("gives tf's gradient: dA = dY Bᵀ, dB = Aᵀ dY (both transposed products)", () => {
    const rng = TrainRng.seeded(5, 'mlas-grad');
    const a = rand(9 * 17, rng),
      b = rand(17 * 11, rng),
      w = rand(9 * 11, rng); // dY: a random read-out of C
    const [da, db] = tf.grads((x: tf.Tensor, y: tf.Tensor) => tf.sum(tf.mul(tf.matMul(x, y), tf.tensor2d(w, [9, 11]))))(
      [tf.tensor2d(a, [9, 17]), tf.tensor2d(b, [17, 11])],
    );
    expect(relErr(da.dataSync(), product(w, [9, 11], b, [17, 11], false, true))).toBeLessThan(1e-6);
    expect(relErr(db.dataSync(), product(a, [9, 17], w, [9, 11], true, false))).toBeLessThan(1e-6);
  });

  it('writes a product whose output grows the wasm memory', () => {
    const rng = TrainRng.seeded(6, 'mlas-grow');
    const before = tf.memory().numBytes;
    const a = rand(3000 * 4, rng),
      b = rand(4 * 5000, rng); // C: 60 MB, more than the heap holds so far
    const c = tf.matMul(tf.tensor2d(a, [3000, 4]), tf.tensor2d(b, [4, 5000]));
    const got = c.dataSync();
    for (const i of [0, 1234, 2999])
      for (const j of [0, 777, 4999]) {
        let s = 0;
        for (let p = 0; p < 4; p++) s += a[i * 4 + p] * b[p * 5000 + j];
        expect(got[i * 5000 + j]).toBeCloseTo(s, 4);
      }
    expect(tf.memory().numBytes - before).toBeGreaterThanOrEqual(60e6);
    c.dispose();
  });

  it("switches to wasm's own kernel and back (the world encoder's build uses wasm's)", async () => {
    const rng = TrainRng.seeded(7, 'mlas-switch');
    const a = rand(64 * 384, rng),
      b = rand(384 * 96, rng);
    const run = () => tf.matMul(tf.tensor2d(a, [64, 384]), tf.tensor2d(b, [384, 96])).dataSync() as Float32Array;
    const ours = await ortGemm(a, [64, 384], b, [384, 96], false, false);
    expect((await initBackend('wasm', { matmul: 'wasm' })).matmul).toBe('wasm');
    const wasm = run();
    expect(sameBits(wasm, ours)).toBe(false); // so the bit-equality above tells the two kernels apart
    expect(relErr(wasm, product(a, [64, 384], b, [384, 96], false, false))).toBeLessThan(1e-6);
    // a transposed operand is transposed first, then multiplied plainly: the bits world-encoder builds have always had
    const [at, bt] = [tf.tensor2d(a, [384, 64]), tf.tensor2d(b, [96, 384])];
    for (const [tA, tB] of [
      [true, false],
      [false, true],
      [true, true],
    ] as const) {
      const x = tA ? at : tf.tensor2d(a, [64, 384]),
        y = tB ? bt : tf.tensor2d(b, [384, 96]);
      const got = tf.matMul(x, y, tA, tB).dataSync() as Float32Array;
      const want = tf.matMul(tA ? tf.transpose(x) : x, tB ? tf.transpose(y) : y).dataSync() as Float32Array;
      expect(sameBits(got, want)).toBe(true);
    }
    expect((await initBackend('auto')).matmul).toBe('wasm'); // a call without `matmul` keeps it
    expect((await initBackend('wasm', { matmul: 'mlas' })).matmul).toBe('mlas');
    expect(sameBits(run(), ours)).toBe(true);
  });
});
