// WebGPU next to wasm in one run: training steps/s and photos/s of a good arm per preset (the training loop's own
// parts: views, stepLoss, AdamW with its awaited reads), and image-embedding photos/s of the world encoder on
// onnxruntime's WebGPU EP next to its CPU EP. Each backend runs in a fresh process (one tfjs backend per process).
// On a machine without a GPU the WebGPU side runs on SwiftShader (a CPU emulation): those numbers say the path
// works, not how fast a GPU is. `npm run bench -- gpu`; BENCH_GPU_PRESETS=cpu,minilm-33m BENCH_GPU_BATCH=16
// BENCH_GPU_STEPS=4 BENCH_GPU_IMAGES=32 size it (defaults: cpu only, batch 8, 3 steps, 16 images on an emulated adapter).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { type GpuAdapter, describeAdapter } from '../../shared/gpu';
import { ViewConfig } from '../../shared/train';
import { mayHaveGpu } from '../../engine/gpu';
import { openImageEncoder } from '../../engine/image';
import { PRESETS, TrainRng } from '../../engine/models';
import { trainWordPiece } from '../../engine/text';
import {
  buildCorpus,
  buildModel,
  createAdamW,
  drawBatch,
  initBackend,
  optimizerStep,
  stepLoss,
  type JepaLoss,
} from '../../engine/train';
import { swiftshaderEnv } from '../gpu/swiftshader';
import { tinyWorld } from '../train/tiny-world';
import type { BenchSuite } from './run';

const root = join(import.meta.dirname, '..', '..');
const Spec = z.object({
  kind: z.enum(['train', 'embed']),
  backend: z.enum(['wasm', 'webgpu']),
  preset: z.enum(['cpu', 'minilm-33m', 'bert-base-109m']),
  batch: z.number().int().min(2),
  steps: z.number().int().min(2),
  images: z.number().int().min(1),
});
type Spec = z.infer<typeof Spec>;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x: number): number => +x.toPrecision(3);

// Worker: `steps` good-arm steps (the first is warm-up: shader compilation, wasm heap growth); prints one JSON line.
async function trainWorker(s: Spec): Promise<Record<string, unknown>> {
  const info = await initBackend(s.backend);
  const ds = tinyWorld({ train: s.batch * s.steps, val: 0, test: 0 }, 1);
  const tk = trainWordPiece(
    ds.images.flatMap((im) => im.captions.map((c) => c.text)),
    200,
  );
  const p = PRESETS[s.preset];
  const enc = {
    ...p,
    maxLen: 64,
    projector: { ...p.projector, dims: [...p.projector.dims], norm: [...p.projector.norm] },
  };
  const corpus = buildCorpus(ds, tk, enc.maxLen);
  const model = buildModel(enc, tk.vocab.length, true, 0);
  const opt = createAdamW(model.params, 0.05);
  const sp = { cls: tk.cls, sep: tk.sep, mask: tk.mask, pad: tk.pad };
  const views = ViewConfig.parse({});
  const L: JepaLoss = { variant: 'sp', lamb: 0.02, slices: 1024, grid: { tMax: 3, points: 17 }, worldSize: 1 };
  const ms: number[] = [],
    losses: number[] = [];
  for (let step = 0; step < s.steps; step++) {
    const photos = Int32Array.from({ length: s.batch }, (_, i) => corpus.splits.train[step * s.batch + i]);
    const batch = drawBatch(
      { corpus, views, special: sp, maxLen: enc.maxLen },
      photos,
      'good',
      TrainRng.seeded(0, 'batch', step),
    );
    const t0 = performance.now();
    const r = await optimizerStep(opt, model.params, () => stepLoss(model, batch, L, step, views.globals), null, 1e-3);
    ms.push(performance.now() - t0);
    losses.push(r.values.loss);
  }
  const stepMs = median(ms.slice(1));
  return {
    backend: info.name,
    adapter: info.adapter ?? null,
    firstStepMs: round(ms[0]),
    stepMs: round(stepMs),
    stepsPerSec: round(1000 / stepMs),
    photosPerSec: round((1000 * s.batch) / stepMs),
    losses,
    tensors: tf.memory().numTensors,
  };
}

async function embedWorker(s: Spec): Promise<Record<string, unknown>> {
  const enc = await openImageEncoder(join(root, 'resources', 'world-encoder.onnx'), {
    preset: 'dinov2',
    device: s.backend === 'webgpu' ? 'webgpu' : 'cpu',
    log: () => {},
  });
  const n = Math.min(16, s.images),
    size = enc.spec.size;
  const x = Float32Array.from({ length: n * 3 * size * size }, (_, i) => (i % 251) / 251);
  await enc.encode(x, n); // warm-up
  const ms: number[] = [];
  for (let done = 0; done < s.images; done += n) {
    const t0 = performance.now();
    await enc.encode(x, n);
    ms.push(performance.now() - t0);
  }
  await enc.release();
  const per = ms.reduce((a, b) => a + b, 0) / (ms.length * n);
  return { device: enc.device, adapter: enc.adapter, batch: n, photosPerSec: round(1000 / per) };
}

const lastJson = (out: string) => JSON.parse(out.trim().split('\n').at(-1)!);

export default {
  name: 'gpu',
  async run() {
    // no GPU device node: the WebGPU side runs on SwiftShader, in child processes given its environment (the Vulkan
    // loader's path counts only from a process's start, so this process never loads Dawn itself)
    const emulated = !mayHaveGpu();
    const env = emulated ? { ...process.env, ...swiftshaderEnv(join(root, '.cache')) } : process.env;
    const num = (k: string, d: number) => Number(process.env[k] ?? d);
    const presets = (process.env.BENCH_GPU_PRESETS ?? (emulated ? 'cpu' : 'cpu,minilm-33m')).split(',').filter(Boolean);
    const sized = {
      batch: num('BENCH_GPU_BATCH', emulated ? 8 : 32),
      steps: num('BENCH_GPU_STEPS', emulated ? 3 : 6),
      images: num('BENCH_GPU_IMAGES', emulated ? 16 : 256),
    };
    const worker = (spec: Spec) =>
      lastJson(
        execFileSync(
          join(root, 'node_modules', '.bin', 'tsx'),
          [import.meta.filename, '--worker', JSON.stringify(spec)],
          { encoding: 'utf8', env, maxBuffer: 1 << 26 },
        ),
      );
    const rows: Record<string, unknown>[] = [];
    for (const preset of presets)
      for (const backend of ['wasm', 'webgpu'] as const) {
        let r: Record<string, unknown>;
        try {
          r = worker(Spec.parse({ kind: 'train', backend, preset, ...sized }));
        } catch (err) {
          r = { error: (err as { stderr?: string }).stderr?.trim().split('\n').at(-1) ?? String(err) };
        }
        console.log(`train ${preset} ${backend}: ${r.stepsPerSec} steps/s, ${r.photosPerSec} photos/s`);
        rows.push({ kind: 'train', preset, batch: sized.batch, ...r });
      }
    for (const backend of ['wasm', 'webgpu'] as const) {
      const r = worker(Spec.parse({ kind: 'embed', backend, preset: 'cpu', ...sized }));
      console.log(`embed world encoder ${r.device}: ${r.photosPerSec} photos/s`);
      rows.push({ kind: 'embed', model: 'world-encoder', ...r });
    }
    const adapter = rows.map((r) => r.adapter as GpuAdapter | null).find(Boolean);
    if (!adapter) return { skipped: 'no WebGPU adapter', rows };
    return {
      adapter,
      adapterText: describeAdapter(adapter),
      note: adapter.fallback
        ? 'the adapter is a CPU emulation (SwiftShader or similar): WebGPU numbers here show that the path works, NOT GPU speed'
        : 'a real GPU adapter; wasm is 1 thread',
      ...sized,
      rows,
    };
  },
} satisfies BenchSuite;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv[2] === '--worker') {
  const spec = Spec.parse(JSON.parse(process.argv[3]));
  console.log(JSON.stringify(spec.kind === 'train' ? await trainWorker(spec) : await embedWorker(spec)));
}
