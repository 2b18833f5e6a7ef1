// Loading a checkpoint into live variables copies the saved values in and keeps no tensor of its own: a resumed run
// (or the image drop, which loads a final checkpoint per arm) does not grow tfjs's memory with each load.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { initBackend, loadCheckpoint } from '../../engine/train';
import { readParams, saveTiny, tinyModel, tinySteps } from './tiny-steps';

describe('checkpoint load', () => {
  it('restores weights and optimizer state and leaves the tensor count as it was', async () => {
    await initBackend('wasm');
    const t = tinyModel();
    await tinySteps(t, 0, 2);
    const dir = mkdtempSync(join(tmpdir(), 'prh-ckpt-'));
    await saveTiny(dir, t, 2);
    const saved = await readParams(t);
    const fresh = tinyModel();
    const before = tf.memory().numTensors;
    for (let i = 0; i < 3; i++) loadCheckpoint(dir, 1, fresh.model.params, fresh.opt);
    expect(tf.memory().numTensors).toBe(before);
    expect(await readParams(fresh)).toEqual(saved);
    expect(fresh.opt.t).toBe(t.opt.t);
    rmSync(dir, { recursive: true, force: true });
  });
});
