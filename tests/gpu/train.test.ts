// Training on tfjs's WebGPU backend, run on SwiftShader (an emulated GPU: correctness, not speed): 12 steps of a tiny
// good arm give the wasm backend's losses, and a checkpoint written on webgpu resumes to the same next steps.
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { initBackend } from '../../engine/train';
import { swiftshaderMissing, useSwiftShader } from './swiftshader';
import { loadTiny, readParams, saveTiny, tinyModel, tinySteps } from '../train/tiny-steps';

const missing = swiftshaderMissing();
const relGap = (a: number[], b: number[]) => Math.max(...a.map((x, i) => Math.abs(x - b[i]) / Math.abs(b[i])));

describe.skipIf(missing)(`tfjs webgpu backend on SwiftShader${missing ? ` (skipped: ${missing})` : ''}`, () => {
  it(
    '12 steps equal wasm to 1e-4 relative per step; a checkpoint resumes to the same steps',
    { timeout: 300_000 },
    async () => {
      // the wasm reference in a second process (one tfjs backend per process), started first so both run at once
      const script = join(import.meta.dirname, '..', 'train', 'tiny-steps.ts');
      const wasm = promisify(execFile)(process.execPath, ['--import', 'tsx', script, 'wasm', '12'], {
        encoding: 'utf8',
      });
      useSwiftShader();
      const info = await initBackend('webgpu');
      expect(tf.getBackend()).toBe('webgpu');
      expect(info.adapter).toMatchObject({ architecture: 'swiftshader', fallback: true });

      const run = tinyModel();
      const first = await tinySteps(run, 0, 6);
      const dir = mkdtempSync(join(tmpdir(), 'prh-webgpu-ckpt-'));
      await saveTiny(dir, run, 6);
      const rest = await tinySteps(run, 6, 12);
      const ref = JSON.parse((await wasm).stdout) as { backend: string; losses: number[] };
      expect(ref.backend).toBe('wasm');
      const gpu = [...first, ...rest];
      expect(relGap(gpu, ref.losses)).toBeLessThan(1e-4);
      expect(gpu[11]).toBeLessThan(gpu[0]); // it trains

      const resumed = loadTiny(dir);
      expect(resumed.opt.t).toBe(6);
      const again = await tinySteps(resumed, 6, 8);
      expect(relGap(again, rest.slice(0, 2))).toBeLessThan(1e-6);
      const [a, b] = [await readParams(resumed), await readParams(tinyModel())];
      expect(a.some((p, i) => p.some((x, j) => x !== b[i][j]))).toBe(true); // the checkpoint's weights, not a fresh init
    },
  );
});
