// How the transformer blocks are drawn (engine/models/encoder.ts initBlocks, EncoderConfig.init), against torch's own
// initialisers: nn.Linear's U(±1/√fan_in) for weight and bias, and nn.MultiheadAttention's _reset_parameters
// (xavier_uniform_ on in_proj_weight [3d, d]: U(±√(6/(d + 3d))), in_proj_bias and out_proj.bias constant 0).
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { TrainRng, initVit, type Params } from '../../engine/models';
import { initBackend } from '../../engine/train';

const d = 64,
  shape = { imageSize: 32, patchSize: 8, hidden: d, depth: 2, heads: 4, mlp: 256 };
const values = (p: Params, k: string) => Array.from(p.get(k)!.dataSync());
const maxAbs = (a: number[]) => Math.max(...a.map(Math.abs));
const std = (a: number[]) => Math.sqrt(a.reduce((s, x) => s + x * x, 0) / a.length);

// A uniform fill of ±bound: every value inside, the largest near it, std bound/√3 (to 4.5 standard errors, ~.45/√n).
function expectUniform(a: number[], bound: number): void {
  expect(maxAbs(a)).toBeLessThanOrEqual(bound);
  expect(maxAbs(a)).toBeGreaterThan((1 - 8 / a.length) * bound);
  expect(Math.abs(std(a) / (bound / Math.sqrt(3)) - 1)).toBeLessThan(2 / Math.sqrt(a.length));
}

describe('transformer block init', () => {
  beforeAll(async () => {
    await initBackend('wasm');
  });

  it("torch-mha draws q|k|v xavier-uniform with zero attention biases, every other Linear as torch's", () => {
    const p = initVit(shape, TrainRng.seeded(0, 'init-test'), 1, 'torch-mha');
    for (const l of [0, 1]) {
      expectUniform(values(p, `h${l}.qkv.w`), Math.sqrt(6 / (d + 3 * d)));
      expect(values(p, `h${l}.qkv.b`).every((x) => x === 0)).toBe(true);
      expectUniform(values(p, `h${l}.o.w`), 1 / Math.sqrt(d));
      expect(values(p, `h${l}.o.b`).every((x) => x === 0)).toBe(true);
      expectUniform(values(p, `h${l}.fc1.w`), 1 / Math.sqrt(d));
      expectUniform(values(p, `h${l}.fc2.w`), 1 / Math.sqrt(4 * d));
    }
    tf.dispose([...p.values()]);
  });

  it('torch (the default, every recipe without vitInit) draws every Linear, biases too, as nn.Linear, the same bits as before', () => {
    const p = initVit(shape, TrainRng.seeded(0, 'init-test'), 1);
    const same = initVit(shape, TrainRng.seeded(0, 'init-test'), 1, 'torch');
    for (const l of [0, 1]) {
      expectUniform(values(p, `h${l}.qkv.w`), 1 / Math.sqrt(d));
      expectUniform(values(p, `h${l}.qkv.b`), 1 / Math.sqrt(d));
      expectUniform(values(p, `h${l}.o.b`), 1 / Math.sqrt(d));
    }
    for (const k of p.keys()) expect(values(same, k)).toEqual(values(p, k));
    tf.dispose([...p.values(), ...same.values()]);
  });
});
