// Training speed vs PyTorch in the same run: one step of each arm (good, bad, ntp) on the `cpu` and `minilm-33m`
// presets, ours (tfjs wasm, 1 thread) against tests/bench/train_torch.py (torch, 1 and 2 threads) on the very same
// batches and initial weights (so the per-step losses double as a twin check). Each side runs in a fresh process per
// arm, so peak RSS (and the wasm heap, which only grows) is per arm. The per-step samples/s are photos/s.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { captionScene, drawScenes, NUISANCE } from '../../engine/data';
import {
  PRESETS,
  TrainRng,
  attentionJs,
  backboneParams,
  encode,
  type EncoderConfig,
  type TokenBatch,
} from '../../engine/models';
import { trainWordPiece } from '../../engine/text';
import { SP_GRID } from '../../engine/metrics';
import {
  adamwStep,
  buildCorpus,
  buildModel,
  clipGradients,
  createAdamW,
  drawBatch,
  initBackend,
  sigregDirections,
  sigregOp,
  stepLoss,
  type AdamW,
  type Corpus,
  type JepaLoss,
  type Model,
  type Special,
} from '../../engine/train';
import type { Dataset } from '../../shared/dataset';
import { ViewConfig, type Arm } from '../../shared/train';
import type { BenchSuite } from './run';
import { referenceBlas, referenceEnv } from './reference-env';

const root = join(import.meta.dirname, '..', '..');
const PYTHON = '/usr/bin/python3';
const MAX_LEN = 64; // TrainConfig's default maxLen (both presets are cut to it, as the training loop does)
const LR = 1e-3,
  WEIGHT_DECAY = 0.05,
  LAMBDA = 0.02,
  SLICES = 1024,
  SEED = 0;
const PHOTOS = 1000; // procedural-world scenes (paper-like: diversity off, weak nuisance) the batches are drawn from

// The timed cases: photos per step and steps (the median is over steps 2..N).
const CASES = [
  { preset: 'cpu', arm: 'good', batch: 64, steps: 8 },
  { preset: 'cpu', arm: 'bad', batch: 64, steps: 8 },
  { preset: 'cpu', arm: 'ntp', batch: 64, steps: 12 },
  { preset: 'minilm-33m', arm: 'good', batch: 8, steps: 10 }, // with 4, two of the three timed steps were early slow ones (~1.6x the later steps)
  { preset: 'minilm-33m', arm: 'bad', batch: 8, steps: 10 },
  { preset: 'minilm-33m', arm: 'ntp', batch: 16, steps: 10 },
] as const;

const ArmSpec = z.object({
  preset: z.enum(['cpu', 'minilm-33m']),
  arm: z.enum(['good', 'bad', 'ntp', 'pair-ntp']),
  batch: z.number().int().min(2),
  steps: z.number().int().min(2),
  corpus: z.string(), // JSON of CorpusFile
  dir: z.string(), // where the batches, weights and directions for the torch twin go
});
type ArmSpec = z.infer<typeof ArmSpec>;
type StepBatch = ReturnType<typeof drawBatch>;
type CorpusFile = { vocab: number; special: Special; tokens: number[][][] };

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const round = (x: number, digits = 3): number => +x.toPrecision(digits);
const loadavg = (): number[] => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);

// Matmul FLOPs of one step on the packed (useful) tokens: 2·m·n·k per product, x3 for forward + both backward
// products; the SIGReg projection z = P·A only x2 (A is a constant, so no dA).
// Attention counts QKᵀ and PV per head over the pairs actually used (n² per sequence, n(n+1)/2 when causal).
export function stepFlops(
  c: EncoderConfig,
  lengths: ArrayLike<number>,
  head: { kind: 'jepa'; slices: number } | { kind: 'ntp'; vocab: number },
): number {
  let tokens = 0,
    pairs = 0,
    targets = 0;
  const causal = head.kind === 'ntp';
  for (let b = 0; b < lengths.length; b++) {
    const n = lengths[b];
    tokens += n;
    pairs += causal ? (n * (n + 1)) / 2 : n * n;
    targets += n - 1;
  }
  const perLayer = 2 * tokens * (4 * c.d * c.d + 2 * c.d * c.ffn) + 2 * 2 * pairs * c.d;
  let fwd = c.layers * perLayer;
  if (head.kind === 'ntp') return 3 * (fwd + 2 * targets * c.d * head.vocab);
  let fanIn = c.d;
  for (const out of c.projector.dims) {
    fwd += 2 * lengths.length * fanIn * out;
    fanIn = out;
  }
  return 3 * fwd + 2 * 2 * lengths.length * fanIn * head.slices;
}

// The procedural world's captions, tokenised by a WordPiece trained on them (what `prh train` does by default).
function worldCorpus(file: string): { vocab: number; tokensPerCaption: number } {
  const scenes = drawScenes(SEED, PHOTOS);
  const images: Dataset['images'] = scenes.map((s, i) => {
    const { captions, evalCaption } = captionScene(s, SEED, i, { diversity: false, nuisance: NUISANCE.weak });
    return {
      id: `w${i}`,
      split: 'train',
      file: null,
      captions: captions.map((c) => ({ text: c.text, annotator: c.annotator })),
      evalCaption,
    };
  });
  const ds: Dataset = { version: 1, name: 'bench-world', source: 'world', params: {}, images };
  const tk = trainWordPiece(
    images.flatMap((im) => im.captions.map((c) => c.text)),
    1000,
  );
  const corpus = buildCorpus(ds, tk, MAX_LEN);
  const out: CorpusFile = {
    vocab: tk.vocab.length,
    special: { cls: tk.cls, sep: tk.sep, mask: tk.mask, pad: tk.pad },
    tokens: corpus.tokens,
  };
  writeFileSync(file, JSON.stringify(out));
  const caps = corpus.tokens.flat();
  return { vocab: out.vocab, tokensPerCaption: round(caps.reduce((a, c) => a + c.length, 0) / caps.length) };
}

const tokenRows = (t: TokenBatch): number[][] =>
  Array.from(t.lengths, (n, b) => Array.from(t.ids.subarray(t.offsets[b], t.offsets[b] + n)));

// Wall time of f in ms (wasm kernels run synchronously, so no read-back is needed to time them).
const time = (f: () => void): number => {
  const t0 = performance.now();
  f();
  return performance.now() - t0;
};

// One arm in this (fresh) process: N steps exactly as engine/train/loop.ts runs them, then a profile of one more.
async function runArm(spec: ArmSpec): Promise<Record<string, unknown>> {
  const backend = await initBackend('wasm');
  const cf = JSON.parse(readFileSync(spec.corpus, 'utf8')) as CorpusFile;
  const preset = PRESETS[spec.preset];
  const encoder: EncoderConfig = {
    ...preset,
    maxLen: Math.min(preset.maxLen, MAX_LEN),
    projector: { ...preset.projector, dims: [...preset.projector.dims], norm: [...preset.projector.norm] },
  };
  const all = Int32Array.from(cf.tokens, (_, i) => i);
  const corpus: Corpus = {
    images: cf.tokens.map((_, i) => ({ id: `w${i}`, split: 'train', evalCaption: 0 })),
    tokens: cf.tokens,
    splits: { train: all, val: new Int32Array(0), test: new Int32Array(0) },
  };
  const jepa = spec.arm === 'good' || spec.arm === 'bad';
  const views = ViewConfig.parse({});
  const L: JepaLoss = { variant: 'sp', lamb: LAMBDA, slices: SLICES, grid: SP_GRID, worldSize: 1 };
  const model = buildModel(encoder, cf.vocab, jepa, SEED);
  const opt = createAdamW(model.params, WEIGHT_DECAY);
  const order = TrainRng.seeded(SEED, 'order', 0).permutation(all.length);

  // The twin's inputs: initial weights (in Map order), every step's sequences and SIGReg directions.
  const names = [...model.params.keys()];
  const shapes = names.map((k) => model.params.get(k)!.shape);
  writeFileSync(
    join(spec.dir, 'weights.f32'),
    Buffer.concat(names.map((k) => Buffer.from((model.params.get(k)!.dataSync() as Float32Array).buffer))),
  );
  const K = encoder.projector.dims[encoder.projector.dims.length - 1];
  const batches: { sequences: number[][]; B: number; V: number }[] = [];
  const dirs: Buffer[] = [];

  const rows: StepRow[] = [];
  const draw = (step: number) => {
    const photos = order.subarray(step * spec.batch, (step + 1) * spec.batch);
    return drawBatch(
      { corpus, views, special: cf.special, maxLen: encoder.maxLen },
      photos,
      spec.arm as Arm,
      TrainRng.seeded(SEED, 'batch', step),
    );
  };
  for (let step = 0; step < spec.steps; step++) {
    let batch!: StepBatch;
    const drawMs = time(() => (batch = draw(step)));
    const tb = batch.kind === 'views' ? batch.views.tokens : batch.text;
    batches.push({ sequences: tokenRows(tb), B: spec.batch, V: batch.kind === 'views' ? batch.views.V : 1 });
    if (jepa) dirs.push(Buffer.from(sigregDirections(K, SLICES, step).buffer));
    // --- the body of loop.ts's step (clip off, constant lr) ---
    let parts: { loss: number; inv?: number; sigreg?: number } = { loss: NaN };
    let grads!: Record<string, tf.Tensor>;
    const gradMs = time(() => {
      grads = tf.variableGrads(() => {
        const p = stepLoss(model, batch, L, step, views.globals);
        parts = { loss: p.loss.dataSync()[0], inv: p.inv?.dataSync()[0], sigreg: p.sigreg?.dataSync()[0] };
        return p.loss;
      }, [...model.params.values()]).grads;
    });
    const byName: Record<string, tf.Tensor> = {};
    for (const [k, v] of model.params) byName[k] = grads[v.name];
    const tNorm = performance.now();
    const gradNorm = await clipGradients(byName, null);
    const normMs = performance.now() - tNorm;
    const adamMs = time(() => {
      adamwStep(opt, model.params, byName, LR);
      tf.dispose(Object.values(byName));
    });
    rows.push({
      ...parts,
      gradNorm,
      drawMs,
      gradMs,
      normMs,
      adamMs,
      stepMs: gradMs + normMs + adamMs,
      tokens: tb.N,
      flops: stepFlops(encoder, tb.lengths, jepa ? { kind: 'jepa', slices: SLICES } : { kind: 'ntp', vocab: cf.vocab }),
    });
  }
  writeFileSync(
    join(spec.dir, 'batches.json'),
    JSON.stringify({
      arm: spec.arm,
      encoder,
      vocab: cf.vocab,
      names,
      shapes,
      lr: LR,
      weightDecay: WEIGHT_DECAY,
      lamb: LAMBDA,
      slices: SLICES,
      nGlobal: views.globals,
      batches,
    }),
  );
  if (jepa) writeFileSync(join(spec.dir, 'directions.f32'), Buffer.concat(dirs));
  const params = {
    backbone: backboneParams(encoder, cf.vocab),
    total: [...model.params.values()].reduce((a, v) => a + v.size, 0),
  };
  const summary = summarise(spec, rows, backend.name);
  return {
    ...summary,
    params,
    profile: await profileStep(model, draw(spec.steps), L, spec.steps, opt, encoder, jepa, views.globals, K),
  };
}

type StepRow = {
  loss: number;
  inv?: number;
  sigreg?: number;
  gradNorm: number;
  drawMs: number;
  gradMs: number;
  normMs: number;
  adamMs: number;
  stepMs: number;
  tokens: number;
  flops: number;
};

function summarise(spec: ArmSpec, rows: StepRow[], backend: string): Record<string, unknown> {
  const timed = rows.slice(1); // step 1 is warm-up
  const stepMs = median(timed.map((r) => r.stepMs));
  const tokens = median(timed.map((r) => r.tokens)),
    flops = median(timed.map((r) => r.flops));
  return {
    backend,
    threads: 1,
    medianStepMs: round(stepMs, 4),
    firstStepMs: round(rows[0].stepMs, 4),
    photosPerSec: round((spec.batch * 1000) / stepMs, 4),
    tokensPerSec: round((tokens * 1000) / stepMs, 4),
    gflopPerStep: round(flops / 1e9, 4),
    gflops: round(flops / 1e6 / stepMs, 4),
    peakRssMB: round(process.resourceUsage().maxRSS / 1024, 4),
    phasesMs: {
      drawViews: round(median(timed.map((r) => r.drawMs))),
      forwardBackward: round(median(timed.map((r) => r.gradMs)), 4),
      gradNorm: round(median(timed.map((r) => r.normMs))),
      adamw: round(median(timed.map((r) => r.adamMs))),
    },
    tokensPerStep: tokens,
    stepsMs: rows.map((r) => round(r.stepMs)), // every step (the first is the warm-up), to see whether the median has settled
    losses: rows.map((r) => r.loss),
    gradNorms: rows.map((r) => r.gradNorm),
  };
}

// Where one step's time goes: a forward-only pass, tf.profile's kernels (by name) for a full step, and the custom ops
// (attention, SIGReg) timed alone on this step's shapes: their work runs outside any tf kernel, so tf.profile cannot
// see it.
async function profileStep(
  model: Model,
  batch: StepBatch,
  L: JepaLoss,
  step: number,
  opt: AdamW,
  c: EncoderConfig,
  jepa: boolean,
  nGlobal: number,
  K: number,
): Promise<Record<string, unknown>> {
  const tb = batch.kind === 'views' ? batch.views.tokens : batch.text;
  const forwardMs = time(() => tf.tidy(() => void stepLoss(model, batch, L, step, nGlobal).loss.dataSync()));
  const encodeMs = time(() => tf.tidy(() => void encode(c, model.params, tb, !jepa).at(-1)!.dataSync()));
  // the custom ops as this backend runs them (on wasm their products in heap-kernels.c), on random inputs of this
  // step's shapes, each a second time after a first that warms it; the backward is forward + backward less forward
  const rng = TrainRng.seeded(1, 'profile');
  const random = (shape: [number, number], s = 1) =>
    tf.tensor2d(
      Float32Array.from({ length: shape[0] * shape[1] }, () => rng.normal() * s),
      shape,
    );
  const twice = (f: () => tf.Tensor) => {
    tf.tidy(() => void f().dataSync());
    return time(() => tf.tidy(() => void f().dataSync()));
  };
  const qkv = random([tb.N, 3 * c.d], 0.5),
    dOut = random([tb.N, c.d]);
  const att = (x: tf.Tensor) => attentionJs(x as tf.Tensor2D, c.heads, tb.offsets, tb.lengths, !jepa);
  const attFwd = twice(() => att(qkv));
  const attBoth = twice(() => tf.grad(att)(qkv, dOut));
  const js: Record<string, number> = {
    attentionForward: round(attFwd * c.layers),
    attentionBackward: round((attBoth - attFwd) * c.layers),
  };
  if (jepa) {
    const z = random([tb.rows, SLICES]);
    const sig = (x: tf.Tensor) => sigregOp()(x as tf.Tensor2D);
    const sigFwd = twice(() => sig(z));
    js.sigregStatistic = round(sigFwd);
    js.sigregGradient = round(twice(() => tf.grad(sig)(z)) - sigFwd);
    js.sigregDirections = round(time(() => sigregDirections(K, SLICES, step)));
    z.dispose();
  }
  tf.dispose([qkv, dOut]);
  tf.env().set('CHECK_COMPUTATION_FOR_ERRORS', false);
  {
    const t0 = performance.now();
    const info = await tf.profile(() => {
      const { grads } = tf.variableGrads(
        () => stepLoss(model, batch, L, step, nGlobal).loss,
        [...model.params.values()],
      );
      const byName: Record<string, tf.Tensor> = {};
      for (const [k, v] of model.params) byName[k] = grads[v.name];
      clipGradients(byName, null);
      adamwStep(opt, model.params, byName, LR);
      tf.dispose(Object.values(byName));
    });
    const profiledStepMs = performance.now() - t0;
    const byKernel = new Map<string, { ms: number; calls: number }>();
    for (const k of info.kernels) {
      const e = byKernel.get(k.name) ?? { ms: 0, calls: 0 };
      e.ms += (await k.kernelTimeMs) as number;
      e.calls += 1;
      byKernel.set(k.name, e);
    }
    const kernels = [...byKernel]
      .map(([name, e]) => ({ name, ms: round(e.ms), calls: e.calls }))
      .sort((a, b) => b.ms - a.ms);
    // customGrad ops show up as 'forward' and include the kernels they call (counted again under their own names)
    const kernelMs = kernels.filter((k) => k.name !== 'forward').reduce((a, k) => a + k.ms, 0);
    const jsMs = Object.values(js).reduce((a, b) => a + b, 0);
    return {
      note: "tf kernel ms from tf.profile of one extra step (profiling adds overhead); 'forward' = customGrad ops (JS attention, SIGReg, the cross-entropy), whose time includes the kernels they call, so tfKernelMs leaves them out; customOpsMs = the custom ops (attention x layers, SIGReg) timed alone on this step's shapes as this backend runs them, whose work outside tf kernels tf.profile cannot see",
      forwardOnlyMs: round(forwardMs, 4),
      encoderForwardMs: round(encodeMs, 4),
      profiledStepMs: round(profiledStepMs, 4),
      tfKernelMs: round(kernelMs, 4),
      customOpsMs: js,
      customOpsTotalMs: round(jsMs),
      kernels: kernels.slice(0, 16),
      otherKernelsMs: round(kernels.slice(16).reduce((a, k) => a + k.ms, 0)),
      tensorsAfter: tf.memory().numTensors,
    };
  }
}

function torchStatus(): string | null {
  if (!existsSync(PYTHON)) return `${PYTHON} not found`;
  const r = spawnSync(PYTHON, ['-c', 'import torch, numpy'], { encoding: 'utf8' });
  return r.status === 0 ? null : `torch not importable by ${PYTHON}: ${r.stderr.trim().split('\n').pop()}`;
}

const lastJson = (out: string): Record<string, unknown> => JSON.parse(out.trim().split('\n').pop()!);

export default {
  name: 'train',
  run: async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'prh-bench-train-'));
    const t0 = performance.now();
    const loadBefore = loadavg();
    try {
      const corpusFile = join(tmp, 'corpus.json');
      const world = worldCorpus(corpusFile);
      const torchSkip = torchStatus();
      const cases: Record<string, unknown>[] = [];
      const table: string[] = [
        'preset      arm   B   ours ms  ph/s   tok/s  GF/s  RSS MB | torch1T ms ph/s  GF/s | torch2T ms ph/s  GF/s  RSS MB | ours/t1  ours/(t2/2)  max|Δloss|/loss  t2 vs t1',
      ];
      // BENCH_TRAIN=ntp (or cpu/ntp,minilm-33m/good ...) times only the cases whose preset/arm contains a listed name.
      const only = process.env.BENCH_TRAIN?.split(',').filter(Boolean);
      // BENCH_STEPS=N times N steps per case instead of the table's.
      const steps = process.env.BENCH_STEPS ? z.coerce.number().int().min(2).parse(process.env.BENCH_STEPS) : null;
      for (const c of CASES.filter((c) => !only || only.some((o) => `${c.preset}/${c.arm}`.includes(o))).map((c) =>
        steps ? { ...c, steps } : c,
      )) {
        if ((c.steps + 1) * c.batch > PHOTOS)
          throw new Error(
            `train bench: ${c.preset}/${c.arm} needs ${(c.steps + 1) * c.batch} photos, the world has ${PHOTOS}`,
          );
        const dir = join(tmp, `${c.preset}-${c.arm}`);
        mkdirSync(dir);
        const spec: ArmSpec = { ...c, corpus: corpusFile, dir };
        const ours = lastJson(
          execFileSync(
            join(root, 'node_modules', '.bin', 'tsx'),
            [import.meta.filename, '--arm', JSON.stringify(spec)],
            { encoding: 'utf8', maxBuffer: 1 << 26 },
          ),
        );
        let torch: Record<string, unknown> = { skipped: torchSkip };
        if (!torchSkip)
          torch = lastJson(
            execFileSync(PYTHON, [join(import.meta.dirname, 'train_torch.py'), dir, String(c.steps)], {
              encoding: 'utf8',
              maxBuffer: 1 << 26,
              env: referenceEnv({ OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '2' }),
            }),
          );
        const t1 = torch.t1 as Record<string, number> | undefined,
          t2 = torch.t2 as Record<string, number> | undefined;
        for (const t of [t1, t2])
          if (t) {
            t.tokensPerSec = round(((ours.tokensPerStep as number) * 1000) / t.medianStepMs, 4);
            t.gflops = round(((ours.gflopPerStep as number) * 1000) / t.medianStepMs, 4);
          }
        // Per-step losses against torch's 1-thread run; torch's 2-thread run against its 1-thread one is the drift float
        // order alone gives (minilm's JEPA arms at batch 8 amplify it to 6e-4-8e-3 in 10 steps, in torch as in ours).
        const relDiff = (a: number[], b: number[] | undefined) =>
          b?.length ? Math.max(...a.map((v, i) => Math.abs(v - b[i]) / Math.abs(b[i]))) : null;
        const t1Loss = t1?.losses as unknown as number[] | undefined;
        const lossRelDiff = relDiff(ours.losses as number[], t1Loss);
        const torchSelfDiff = t2 ? relDiff(t2.losses as unknown as number[], t1Loss) : null;
        const ratios =
          t1 && t2
            ? {
                oursOverTorch1T: round((ours.photosPerSec as number) / t1.photosPerSec),
                oursOverTorch2TPerCore: round((ours.photosPerSec as number) / (t2.photosPerSec / 2)),
                oursOverTorch2T: round((ours.photosPerSec as number) / t2.photosPerSec),
              }
            : null;
        cases.push({
          ...c,
          ours,
          torch,
          ratios,
          twin: {
            maxRelLossDiff: lossRelDiff === null ? null : round(lossRelDiff, 2),
            torch2TVs1T: torchSelfDiff === null ? null : round(torchSelfDiff, 2),
            steps: c.steps,
          },
        });
        const f = (x: unknown, w: number, d = 0) => (typeof x === 'number' ? x.toFixed(d) : '-').padStart(w);
        const e = (x: number | null) => (x === null ? '-' : x.toExponential(1));
        table.push(
          `${c.preset.padEnd(11)} ${c.arm.padEnd(4)} ${f(c.batch, 3)} ${f(ours.medianStepMs, 8)} ${f(ours.photosPerSec, 6, 1)} ${f(ours.tokensPerSec, 6)} ${f(ours.gflops, 5, 1)} ${f(ours.peakRssMB, 6)} |` +
            ` ${f(t1?.medianStepMs, 9)} ${f(t1?.photosPerSec, 6, 1)} ${f(t1?.gflops, 5, 1)} | ${f(t2?.medianStepMs, 9)} ${f(t2?.photosPerSec, 6, 1)} ${f(t2?.gflops, 5, 1)} ${f(torch.peakRssMB, 6)} |` +
            ` ${f(ratios?.oursOverTorch1T, 7, 2)} ${f(ratios?.oursOverTorch2TPerCore, 12, 2)}  ${e(lossRelDiff).padStart(14)}  ${e(torchSelfDiff).padStart(8)}`,
        );
        console.log(table[table.length - 1]);
      }
      const cpuJepa = cases
        .filter((c) => c.preset === 'cpu' && (c.arm === 'good' || c.arm === 'bad'))
        .map((c) => (c.ratios as { oursOverTorch2TPerCore: number } | null)?.oursOverTorch2TPerCore ?? NaN);
      return {
        unit: 'median over steps 2..N; photosPerSec = photos (not sequences) per second; tokensPerSec = packed tokens (all views); gflops = analytic matmul FLOPs (useful, on packed tokens) / step time',
        setup: {
          ours: 'tfjs 4.22 wasm (SIMD), 1 thread, the step body of engine/train/loop.ts: variableGrads + grad norm + AdamW (view drawing timed apart as phasesMs.drawViews)',
          torch: `torch (Debian) via ${PYTHON}: 1 thread (OPENBLAS_NUM_THREADS=1, set_num_threads(1)) and 2 threads (OPENBLAS_NUM_THREADS=1, set_num_threads(2)); padded [rows, longest] batches with an additive key mask, same weights/batches/directions`,
          reference: referenceBlas({ OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '2' }),
          world: { photos: PHOTOS, ...world, maxLen: MAX_LEN },
          loss: { variant: 'sp', lamb: LAMBDA, slices: SLICES, points: SP_GRID.points, tMax: SP_GRID.tMax },
          optimizer: { name: 'AdamW', lr: LR, weightDecay: WEIGHT_DECAY },
        },
        load: {
          before: loadBefore,
          after: loadavg(),
          note: '1/5/15-minute load averages; numbers taken with the 1-minute load above ~1.5 are not comparable',
        },
        table,
        targets: { cpuJepaOursOverTorchPerCore: { min: 0.5, goal: 1.0, measured: cpuJepa.map((x) => round(x)) } },
        cases,
        seconds: round((performance.now() - t0) / 1000),
      };
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  },
} satisfies BenchSuite;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv[2] === '--arm') {
  const spec = ArmSpec.parse(JSON.parse(process.argv[3]));
  console.log(JSON.stringify(await runArm(spec)));
}
