// Image encoder throughput: onnxruntime-node (CPU) vs PyTorch eager (Debian torch, same weights, same input) on
// DINOv2-layout ViTs at batch 1 and 16. Each side runs in its own process so its peak RSS is its own. And the conv
// stem's training step (tfjs wasm im2col vs torch Conv2d), what a world-encoder build with a stem pays, and the
// ViT's attention forward + backward (the plain-JS kernels vs torch's batched matmuls), per block of a build step.
// Run as `npm run bench -- image`; the file re-runs itself as the ORT worker (`tsx image.bench.ts --ort ...`).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createCanvas } from '@napi-rs/canvas';
import * as tf from '@tensorflow/tfjs';
import * as ort from 'onnxruntime-node';
import { Preprocessor, decodeImage, resolveSpec } from '../../engine/image';
import { TrainRng, attentionBackward, attentionForward, initVit } from '../../engine/models';
import { stemForward } from '../../engine/models/conv-stem';
import {
  VIT_S14,
  VitConfig,
  buildVitOnnx,
  decodeModel,
  randomVitWeights,
  vitWeightShapes,
} from '../../engine/models/onnx';
import { initBackend } from '../../engine/train';
import type { BenchSuite } from './run';
import { referenceBlas, referenceEnv } from './reference-env';

const root = join(import.meta.dirname, '..', '..');
const PYTHON = '/usr/bin/python3';
const BATCHES = [1, 16];
const ITERS: Record<number, number> = { 1: 10, 16: 3 };
const THREADS = 2;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// ORT worker: load, warm up once, time `iters` runs; prints one JSON line.
async function ortWorker(model: string, inputFile: string, batch: number, iters: number): Promise<void> {
  const t0 = performance.now();
  const s = await ort.InferenceSession.create(model, {
    intraOpNumThreads: THREADS,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
  });
  const loadMs = performance.now() - t0;
  const x = new Float32Array(readFileSync(inputFile).buffer.slice(0));
  const size = Math.round(Math.sqrt(x.length / batch / 3));
  const feeds = { pixel_values: new ort.Tensor('float32', x, [batch, 3, size, size]) };
  const pooled = (await s.run(feeds, ['pooler_output'])).pooler_output.data as Float32Array;
  const times: number[] = [];
  for (let i = 0; i < iters; i++) {
    const t = performance.now();
    await s.run(feeds, ['pooler_output']);
    times.push(performance.now() - t);
  }
  const ms = median(times);
  console.log(
    JSON.stringify({
      loadMs,
      msPerBatch: ms,
      imagesPerSecond: (1000 * batch) / ms,
      peakRssMB: process.resourceUsage().maxRSS / 1024,
      pooled: Array.from(pooled.subarray(0, 64)),
    }),
  );
}

// The weights of a DINOv2-layout ONNX built by this project, read back by their HF names, as torch's input.
function writeTorchWeights(modelFile: string, dir: string): VitConfig {
  const model = decodeModel(readFileSync(modelFile), modelFile);
  const config = VitConfig.parse(JSON.parse(model.docString ?? '{}').config);
  const inits = new Map(model.graph!.initializer!.map((t) => [t.name, t]));
  const tensors: { name: string; shape: number[]; offset: number }[] = [];
  const parts: Uint8Array[] = [];
  let offset = 0;
  // the ViT's tensors, then the embedding head where the graph has one (the world encoder's whitened read-out)
  const head = ['pooler.pool', 'pooler.weight', 'pooler.bias'].flatMap((k) =>
    inits.has(k) ? [[k, inits.get(k)!.dims!.map(Number)] as const] : [],
  );
  for (const [name, shape] of [...Object.entries(vitWeightShapes(config)), ...head]) {
    const raw = inits.get(name)!.rawData!;
    tensors.push({ name, shape, offset });
    parts.push(raw);
    offset += raw.length / 4;
  }
  writeFileSync(join(dir, 'weights.f32'), Buffer.concat(parts));
  writeFileSync(join(dir, 'index.json'), JSON.stringify({ config, tensors }));
  return config;
}

function torchStatus(): string | null {
  if (!existsSync(PYTHON)) return `${PYTHON} not found`;
  const r = spawnSync(PYTHON, ['-c', 'import torch, numpy'], { encoding: 'utf8' });
  return r.status === 0 ? null : `torch not importable by ${PYTHON}: ${r.stderr.trim().split('\n').pop()}`;
}

async function benchModel(name: string, modelFile: string, torchSkip: string | null): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), `prh-bench-image-${name}-`));
  const config = writeTorchWeights(modelFile, dir);
  const rows: Record<string, unknown>[] = [];
  for (const batch of BATCHES) {
    // Deterministic normalised-pixel-like input.
    const x = Float32Array.from({ length: batch * 3 * config.imageSize ** 2 }, (_, i) => Math.sin(i * 0.37) * 1.5);
    const inputFile = join(dir, 'input.f32');
    writeFileSync(inputFile, x);
    const ortRes = JSON.parse(
      execFileSync(
        join(root, 'node_modules', '.bin', 'tsx'),
        [import.meta.filename, '--ort', modelFile, inputFile, String(batch), String(ITERS[batch])],
        { encoding: 'utf8' },
      )
        .trim()
        .split('\n')
        .pop()!,
    );
    let torch: Record<string, unknown> = { skipped: torchSkip };
    let maxAbsDiff: number | null = null;
    if (!torchSkip) {
      const out = execFileSync(
        PYTHON,
        [join(root, 'tests', 'image', 'reference.py'), 'bench', dir, String(batch), String(ITERS[batch])],
        {
          encoding: 'utf8',
          env: referenceEnv({
            OPENBLAS_NUM_THREADS: '1',
            OMP_NUM_THREADS: String(THREADS),
            TORCH_THREADS: String(THREADS),
          }),
        },
      );
      torch = JSON.parse(out.trim().split('\n').pop()!);
      const a = ortRes.pooled as number[];
      const b = torch.pooled as number[];
      maxAbsDiff = Math.max(...a.map((v, i) => Math.abs(v - b[i])));
      delete torch.pooled;
    }
    delete ortRes.pooled;
    const row = {
      model: name,
      batch,
      ort: ortRes,
      torch,
      ortOverTorch: typeof torch.imagesPerSecond === 'number' ? ortRes.imagesPerSecond / torch.imagesPerSecond : null,
      pooledMaxAbsDiff: maxAbsDiff,
    };
    console.log(
      `${name} b${batch}: ORT ${ortRes.imagesPerSecond.toFixed(1)} img/s (${ortRes.peakRssMB.toFixed(0)} MB)` +
        (torchSkip
          ? ` | torch skipped: ${torchSkip}`
          : ` | torch ${(torch.imagesPerSecond as number).toFixed(1)} img/s (${(torch.peakRssMB as number).toFixed(0)} MB) | max |diff| ${maxAbsDiff!.toExponential(1)}`),
    );
    rows.push(row);
  }
  return {
    config,
    params: Object.values(vitWeightShapes(config)).reduce((a, s) => a + s.reduce((x, y) => x * y, 1), 0),
    rows,
  };
}

// Decode + resize/crop + normalise, the dinov2 path, on 40 Flickr-sized (500x375) JPEGs: median ms per image.
async function preprocessBench(dir: string): Promise<Record<string, number>> {
  const files = Array.from({ length: 40 }, (_, i) => {
    const c = createCanvas(500, 375);
    const g = c.getContext('2d');
    for (let k = 0; k < 30; k++) {
      g.fillStyle = `hsl(${(i * 37 + k * 53) % 360},70%,${30 + (k % 5) * 10}%)`;
      g.beginPath();
      g.arc((k * 97 + i * 13) % 500, (k * 61 + i * 7) % 375, 20 + (k % 7) * 9, 0, 2 * Math.PI);
      g.fill();
    }
    const f = join(dir, `p${i}.jpg`);
    writeFileSync(f, c.toBuffer('image/jpeg'));
    return f;
  });
  const info = {
    inputs: [{ name: 'pixel_values', type: 'float32', dims: ['n', 3, 224, 224] }],
    outputs: [{ name: 'last_hidden_state', type: 'float32', dims: ['n', 257, 384] }],
  };
  const spec = resolveSpec(info, 'bench');
  const pre = new Preprocessor(spec);
  const out = new Float32Array(3 * 224 * 224);
  const times: number[] = [];
  for (const round of [0, 1])
    for (const f of files) {
      const t = performance.now();
      pre.draw(await decodeImage(f), out, 0);
      if (round) times.push(performance.now() - t);
    }
  const ms = median(times);
  return { msPerImage: ms, imagesPerSecond: 1000 / ms };
}

// A training-step timing by tests/image/reference.py (`command` and its arguments), torch and BLAS on one thread.
const torchStep = (command: string, ...args: (string | number)[]): { msPerStep: number } =>
  JSON.parse(
    execFileSync(PYTHON, [join(root, 'tests', 'image', 'reference.py'), command, ...args.map(String)], {
      encoding: 'utf8',
      env: referenceEnv({ OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1' }),
    })
      .trim()
      .split('\n')
      .pop()!,
  ) as { msPerStep: number };

// One training step's forward + backward (batch statistics) of the conv stem [16, 32, 64] on 128 64-px images (a
// world-encoder step's 32 scenes x 4 views), tfjs wasm (gathers + matmul per conv, one thread) against torch Conv2d +
// BatchNorm2d on one thread: median of 5 after a warm-up.
async function stemBench(torchSkip: string | null): Promise<Record<string, unknown>> {
  const backend = await initBackend('wasm');
  const stem = [16, 32, 64],
    n = 128,
    S = 64,
    iters = 5;
  const p = initVit(
    { imageSize: S, patchSize: 8, hidden: 16, depth: 1, heads: 1, mlp: 16, stem },
    TrainRng.seeded(0, 'bench'),
    1,
  );
  const vars = [...p].filter(([k]) => k.startsWith('stem')).map(([, v]) => v);
  const x = Float32Array.from({ length: n * 3 * S * S }, (_, i) => Math.sin(i * 0.37) * 1.5);
  const times: number[] = [];
  for (let i = 0; i <= iters; i++) {
    const t = performance.now();
    const { value, grads } = tf.variableGrads(() => tf.sum(tf.square(stemForward(stem, p, x, n, S, 'batch'))), vars);
    await value.data();
    if (i) times.push(performance.now() - t);
    tf.dispose([value, ...Object.values(grads)]);
  }
  tf.dispose([...p.values()]);
  const tfjs = { backend: `${backend.package} (${backend.threads} thread)`, msPerStep: median(times) };
  const torch = torchSkip ? { skipped: torchSkip } : torchStep('stem-bench', n, S, stem.join(','), iters);
  const ratio = 'msPerStep' in torch ? torch.msPerStep / tfjs.msPerStep : null;
  console.log(
    `conv stem ${stem.join('/')} fwd+bwd, ${n} x ${S}px: tfjs ${tfjs.msPerStep.toFixed(0)} ms` +
      ('msPerStep' in torch
        ? ` | torch ${torch.msPerStep.toFixed(0)} ms | torch/tfjs ${ratio!.toFixed(2)}`
        : ` | torch skipped: ${torchSkip}`),
  );
  return { stem, images: n, side: S, tfjs, torch, torchOverTfjs: ratio };
}

// One ViT block's attention forward + backward at the world encoder's build step (128 images x 65 tokens, width 64,
// 4 heads): engine/models/attention.ts's JS kernels (what the wasm backend trains with) against torch's
// q·kᵀ / softmax / ·v on one thread: median of 5 after a warm-up.
function attentionBench(torchSkip: string | null): Record<string, unknown> {
  const B = 128,
    T = 65,
    d = 64,
    heads = 4,
    iters = 5;
  const s = {
    N: B * T,
    d,
    heads,
    offsets: Int32Array.from({ length: B }, (_, b) => b * T),
    lengths: new Int32Array(B).fill(T),
    causal: false,
  };
  const rng = TrainRng.seeded(0, 'bench');
  const qkv = Float32Array.from({ length: s.N * 3 * d }, () => rng.normal() * 0.5);
  const dOut = Float32Array.from({ length: s.N * d }, () => rng.normal());
  const times: number[] = [];
  for (let i = 0; i <= iters; i++) {
    const t = performance.now();
    attentionBackward(qkv, attentionForward(qkv, s).probs, dOut, s);
    if (i) times.push(performance.now() - t);
  }
  const js = { msPerStep: median(times) };
  const torch = torchSkip ? { skipped: torchSkip } : torchStep('attention-bench', B, T, d, heads, iters);
  const ratio = 'msPerStep' in torch ? torch.msPerStep / js.msPerStep : null;
  console.log(
    `attention fwd+bwd, ${B} x ${T} tokens, d ${d}, ${heads} heads: JS ${js.msPerStep.toFixed(0)} ms` +
      ('msPerStep' in torch
        ? ` | torch ${torch.msPerStep.toFixed(0)} ms | torch/JS ${ratio!.toFixed(2)}`
        : ` | torch skipped: ${torchSkip}`),
  );
  return { sequences: B, tokens: T, d, heads, js, torch, torchOverJs: ratio };
}

const suite = {
  name: 'image',
  run: async () => {
    const torchSkip = torchStatus();
    if (torchSkip) console.log(`torch side skipped: ${torchSkip}`);
    const dir = mkdtempSync(join(tmpdir(), 'prh-bench-image-'));
    const vits = join(dir, 'vit-s14.onnx');
    writeFileSync(vits, buildVitOnnx(VIT_S14, randomVitWeights(VIT_S14, 0)));
    const world = join(root, 'resources', 'world-encoder.onnx');
    const worldResult = existsSync(world)
      ? await benchModel('world-encoder', world, torchSkip)
      : { skipped: `${world} not built yet (prh world build-encoder)` };
    if ('skipped' in worldResult) console.log(`world encoder skipped: ${worldResult.skipped}`);
    const preprocess = await preprocessBench(dir);
    console.log(`preprocess 500x375 JPEG -> 224 (dinov2 path): ${preprocess.msPerImage.toFixed(2)} ms/img`);
    return {
      threads: THREADS,
      preprocess,
      note: 'median ms per batch after one warm-up; ORT intraOp=2 graphOptimizationLevel=all; torch eager no_grad, set_num_threads(2), OPENBLAS_NUM_THREADS=1',
      reference: referenceBlas({ OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: String(THREADS) }),
      vitS14: await benchModel('vit-s14', vits, torchSkip),
      worldEncoder: worldResult,
      stemTrainingStep: await stemBench(torchSkip),
      attentionStep: attentionBench(torchSkip),
    };
  },
} satisfies BenchSuite;
export default suite;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv[2] === '--ort') {
  const [model, input, batch, iters] = process.argv.slice(3);
  await ortWorker(model, input, Number(batch), Number(iters));
}
