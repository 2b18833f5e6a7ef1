// The wasm backend's replaced kernels and gradients (engine/train/wasm-kernels.ts): a saved or same-dtype cast tensor
// shares its buffer (and outlives the tensor it came from); a sum over leading axes has the bits of wasm's own Sum
// over the transposed tensor, with no transpose run; Sum's and Mean's gradients have the bits of tfjs's
// dy · ones(x) (/ n), with no product run.
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { TrainRng } from '../../engine/models';
import { initBackend } from '../../engine/train';

const rand = (shape: number[], seed: number): tf.Tensor => {
  const rng = TrainRng.seeded(seed, 'wasm-kernels');
  return tf.tensor(
    Float32Array.from({ length: tf.util.sizeFromShape(shape) }, () => rng.normal() * 3),
    shape,
  );
};
const bits = (t: tf.Tensor) => Array.from(t.dataSync(), (v) => (Object.is(v, -0) ? '-0' : String(v)));
const dataIds = () => (tf.backend() as unknown as { numDataIds(): number }).numDataIds();
// The kernels that running f launched, by name.
const kernels = async (f: () => tf.Tensor | tf.Tensor[]) => (await tf.profile(f)).kernels.map((k) => k.name);
// How many buffers the wasm backend allocated while f ran (outputs and any kernel's scratch copies).
function allocations(f: () => tf.Tensor): number {
  const spy = vi.spyOn(tf.backend() as unknown as { makeOutput(...a: unknown[]): unknown }, 'makeOutput');
  try {
    tf.dispose(f());
    return spy.mock.calls.length;
  } finally {
    spy.mockRestore();
  }
}

beforeAll(async () => {
  await initBackend('wasm');
});

describe('Identity and Cast', () => {
  it('share the buffer of the tensor they copy, which stays readable after that one is disposed', () => {
    const before = dataIds();
    const x = tf.tensor1d([1.5, -2, 3]);
    const y = tf.clone(x); // the Identity kernel tfjs saves every tensor a gradient needs with
    const z = tf.cast(x, 'float32');
    expect(y.dataId).toBe(x.dataId);
    expect(z.dataId).toBe(x.dataId);
    expect(dataIds()).toBe(before + 1);
    x.dispose();
    expect(Array.from(y.dataSync())).toEqual([1.5, -2, 3]);
    y.dispose();
    expect(Array.from(z.dataSync())).toEqual([1.5, -2, 3]);
    z.dispose();
    expect(dataIds()).toBe(before);
  });

  it('a cast to another dtype still converts', () => {
    const x = tf.tensor1d([1.7, -2.5, 3]);
    const i = tf.cast(x, 'int32');
    expect(i.dtype).toBe('int32');
    expect(i.dataId).not.toBe(x.dataId);
    expect(Array.from(i.dataSync())).toEqual([1, -2, 3]);
    tf.dispose([x, i]);
  });

  it("a gradient's saved tensors are not copied", async () => {
    const x = rand([64, 32], 1);
    const grad = () => tf.grad((a: tf.Tensor) => tf.sum(tf.mul(a, a)))(x);
    const ran = await kernels(grad);
    expect(ran).toContain('Identity'); // x saved for the product's gradient
    // at most one buffer for each kernel that computes something; none for a save or a reshape
    expect(allocations(grad)).toBeLessThanOrEqual(ran.filter((k) => k !== 'Identity' && k !== 'Reshape').length);
    expect(bits(grad())).toEqual(bits(tf.mul(x, 2)));
  });
});

describe('Sum over leading axes', () => {
  for (const [shape, axis] of [
    [[4700, 64], 0],
    [[300, 7], [0]],
    [[1, 9], 0],
    [
      [5, 6, 7],
      [0, 1],
    ],
  ] as [number[], number | number[]][])
    it(`[${shape}] over ${JSON.stringify(axis)}: the bits of wasm's Sum of the transposed tensor, no transpose run`, async () => {
      const x = rand(shape, shape.length);
      const k = Array.isArray(axis) ? axis.length : 1;
      const inner = shape.slice(k);
      // the stock kernel: the reduced axes last (a Sum over trailing axes is not replaced)
      const flat = tf.reshape(x, [tf.util.sizeFromShape(shape.slice(0, k)), tf.util.sizeFromShape(inner)]);
      const ref = tf.reshape(tf.sum(tf.transpose(flat), 1), inner);
      const out = tf.sum(x, axis);
      expect(out.shape).toEqual(inner);
      expect(bits(out)).toEqual(bits(ref));
      expect(tf.sum(x, axis, true).shape).toEqual([...shape.slice(0, k).fill(1), ...inner]);
      expect(allocations(() => tf.sum(x, axis))).toBe(1); // the output alone: no transposed copy
    });

  it('other reductions keep the stock kernel', () => {
    const x = rand([4, 5, 6], 3);
    // axes [1, 0] are summed in that order, so they keep wasm's transpose
    expect(allocations(() => tf.sum(x, [1, 0]))).toBe(2);
    expect(bits(tf.sum(x, [1, 0]))).toEqual(bits(tf.sum(tf.transpose(x, [2, 1, 0]), [1, 2])));
    expect(tf.sum(x, 1).shape).toEqual([4, 6]);
    expect(tf.sum(x).dataSync()[0]).toBeCloseTo(tf.sum(tf.sum(x, 2)).dataSync()[0], 3);
    expect(Array.from(tf.sum(tf.tensor1d([1, 2, 3], 'int32'), 0).dataSync())).toEqual([6]);
  });
});

describe("Sum's and Mean's gradients", () => {
  for (const [shape, axis] of [
    [[40, 24], 0],
    [[40, 24], 1],
    [
      [40, 24],
      [0, 1],
    ],
    [
      [6, 5, 7],
      [0, 2],
    ],
    [[6, 5, 7], 1],
    [[9], 0],
  ] as [number[], number | number[]][])
    it(`[${shape}] over ${JSON.stringify(axis)}: the bits of dy · ones(x) (/ n), with no product or tile`, async () => {
      const x = rand(shape, 5);
      const dy = rand(tf.sum(x, axis).shape, 6);
      const kept = x.shape.slice();
      for (const a of tf.util.parseAxisParam(axis, x.shape)) kept[a] = 1;
      const n = x.size / tf.util.sizeFromShape(kept);
      const ones = tf.mul(tf.reshape(dy, kept), tf.ones(x.shape)); // tfjs's own gradient
      const gSum = tf.grad((a: tf.Tensor) => tf.sum(a, axis));
      const gMean = tf.grad((a: tf.Tensor) => tf.mean(a, axis));
      expect(bits(gSum(x, dy))).toEqual(bits(ones));
      expect(bits(gMean(x, dy))).toEqual(bits(tf.div(ones, n)));
      const ran = [...(await kernels(() => gSum(x, dy))), ...(await kernels(() => gMean(x, dy)))];
      for (const k of ['Multiply', 'Fill', 'Tile']) expect(ran).not.toContain(k);
    });
});
