// The training core, usable without the run store: tokenise, build the model, run epochs of AdamW steps, and per
// epoch write an atomic checkpoint, the validation loss and the val/test evaluation embeddings.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { describeAdapter } from '../../shared/gpu';
import type { TrainPhase } from '../../shared/timing';
import {
  armSteps,
  DEFAULT_LAMB,
  isJepaArm,
  lrReached,
  resolveLambda,
  warmupFor,
  type ResolvedLambda,
  type TrainConfig,
} from '../../shared/train';
import { openDataset } from '../data';
import { writeEmbeddings, writeNpyTensor } from '../embeddings';
import { InputError } from '../errors';
import { PRESETS, TrainRng, backboneParams, initEncoder, initProjector, type EncoderConfig } from '../models';
import { corpusVocabSize, loadTokenizer, saveTokenizer, trainWordPiece, vocabCoverage, type Tokenizer } from '../text';
import { initBackend, type BackendInfo } from './backend';
import { listCheckpoints, loadCheckpoint, saveCheckpoint, selectCheckpoint, type Selected } from './checkpoint';
import { buildCorpus } from './corpus';
import { embedSplit, type SplitEmbeddings } from './embed';
import type { JepaLoss } from './lejepa';
import { drawBatch, stepLoss, type BatchSource, type Model, type Special } from './objective';
import { createAdamW, lrAt, optimizerStep, type Schedule } from './optimizer';

export type EpochEmbeddings = { val: SplitEmbeddings | null; test: SplitEmbeddings | null };
export type EpochSummary = {
  epoch: number;
  step: number;
  trainLoss: number;
  valLoss: number | null;
  seconds: number;
  samplesPerSec: number;
};
export type StepValues = { loss: number; inv?: number; sigreg?: number; lr: number; gradNorm: number };

export type TrainHooks = {
  onStep?(step: number, values: StepValues): void;
  onEpoch?(epoch: number, embeddings: EpochEmbeddings, summary: EpochSummary): void | Promise<void>;
  // An experiment arm's score of the epoch on its fit pairs (higher is better), kept in the checkpoint for select val-pairs.
  valPairs?(embeddings: EpochEmbeddings): Promise<number | null>;
  log?(text: string): void;
  warn?(text: string): void; // a result that may not mean much (default: log)
  progress?(done: number, total: number, message?: string): void;
  phase?(name: TrainPhase): void; // what the loop works on from now on (the run's time.jsonl)
  signal?: AbortSignal;
};

export type TrainSetup = {
  config: TrainConfig;
  lambda: ResolvedLambda;
  encoder: EncoderConfig;
  vocab: number;
  params: number; // backbone parameters
  stepsPerEpoch: number;
  totalSteps: number;
  schedule?: { warmupSteps: number; lrReached: number }; // as it runs: the warmup resolved, the highest lr reached
  backend: BackendInfo;
};

// selected: the checkpoint the selection policy picks (for a diverged run: among the good ones before the NaN).
export type TrainOutcome =
  | { status: 'done'; setup: TrainSetup; epochs: EpochSummary[]; selected: Selected | null; warnings: string[] }
  | {
      status: 'diverged';
      setup: TrainSetup;
      epochs: EpochSummary[];
      selected: Selected | null;
      warnings: string[];
      message: string;
    }
  | { status: 'cancelled'; setup: TrainSetup; epochs: EpochSummary[] };

// An epoch's mean loss this many times the first step's (the untrained model's) has blown up, even with every number finite.
export const EXPLODED = 1e3;
// A JEPA arm whose λ·SIGReg outweighs the invariance term this much at its first step learns only the SIGReg term.
export const SIGREG_DOMINATES = 1e4;

// The tokenizer: saved (resume), given, or WordPiece trained on the training captions with vocabSize, or a size
// chosen from them (engine/text/vocabulary.ts). `how` says which, for the log.
function tokenizerFor(
  c: TrainConfig,
  corpusTexts: () => string[],
  outDir: string,
  resume: boolean,
): { tk: Tokenizer; how: string } {
  const saved = join(outDir, 'tokenizer.json');
  if (resume && existsSync(saved)) return { tk: loadTokenizer(saved), how: 'saved' };
  let tk: Tokenizer, how: string;
  if (c.tokenizer) [tk, how] = [loadTokenizer(c.tokenizer), c.tokenizer];
  else if (c.vocabSize)
    [tk, how] = [trainWordPiece(corpusTexts(), c.vocabSize), `WordPiece, vocab size ${c.vocabSize} as set`];
  else {
    const chosen = corpusVocabSize(corpusTexts());
    tk = trainWordPiece(corpusTexts(), chosen.size);
    how = `WordPiece, vocab size chosen from the training captions: ${chosen.words} distinct words, ${chosen.frequentWords} seen twice or more`;
  }
  saveTokenizer(tk, saved);
  return { tk, how };
}

export function buildModel(encoder: EncoderConfig, vocab: number, jepa: boolean, seed: number): Model {
  const rng = TrainRng.seeded(seed, 'init');
  const params = initEncoder(encoder, vocab, rng);
  if (jepa) initProjector(encoder.projector, encoder.d, rng, params);
  return { cfg: encoder, params };
}

// The mean loss of fixed-seed batches of the val photos (identical across epochs, so curves compare), drawn as the
// training batches are (the same source: the encoder's sequence length).
async function validationLoss(m: Model, source: BatchSource, c: TrainConfig, L: JepaLoss): Promise<number | null> {
  const photos = source.corpus.splits.val;
  if (photos.length < 2) return null;
  let sum = 0,
    n = 0;
  for (let s = 0; s < photos.length; s += c.batch) {
    const chunk = photos.subarray(s, Math.min(photos.length, s + c.batch));
    if (chunk.length < 2) break;
    const rng = TrainRng.seeded(c.seed, 'val', s);
    const batch = drawBatch(source, chunk, c.arm, rng);
    // SIGReg's N follows the batch, so a short last chunk is weighted by its photos
    const t = tf.tidy(() => stepLoss(m, batch, L, 0x7fffffff - s, c.views.globals).loss);
    const v = (await t.data())[0];
    t.dispose();
    sum += v * chunk.length;
    n += chunk.length;
  }
  return sum / n;
}

function writeEpochEmbeddings(outDir: string, epoch: number, emb: EpochEmbeddings): void {
  for (const split of ['val', 'test'] as const) {
    const e = emb[split];
    if (!e) continue;
    const base = join(outDir, 'embeddings', `epoch-${epoch}`);
    writeEmbeddings(join(base, `${split}.npy`), e.last, e.ids);
    writeNpyTensor(join(base, `${split}.layers.npy`), { shape: [e.nLayers, e.last.rows, e.last.dim], data: e.layers });
  }
}

export async function train(
  config: TrainConfig,
  outDir: string,
  hooks: TrainHooks = {},
  resume = false,
): Promise<TrainOutcome> {
  const c = config;
  const log = hooks.log ?? (() => {});
  const phase = hooks.phase ?? (() => {});
  phase('setup');
  const warnings: string[] = [];
  const warn = (text: string) => {
    warnings.push(text);
    (hooks.warn ?? log)(text);
  };
  const backend = await initBackend(c.backend);
  mkdirSync(outDir, { recursive: true });
  const ds = openDataset(c.data, { imagesDir: c.images, split: c.split }).dataset;
  const { tk, how } = tokenizerFor(
    c,
    () => ds.images.filter((im) => im.split === 'train').flatMap((im) => im.captions.map((x) => x.text)),
    outDir,
    resume,
  );
  const held = vocabCoverage(
    tk,
    ds.images.filter((im) => im.split !== 'train').flatMap((im) => im.captions.map((x) => x.text)),
  );
  log(
    `tokenizer: ${how}; vocab ${tk.vocab.length}; on the val + test captions ${(100 * held.unknownShare).toFixed(2)}% of tokens are [UNK] ` +
      `(${held.unknown} of ${held.tokens}), ${(100 * held.splitShare).toFixed(1)}% of words are cut into pieces`,
  );
  const preset = PRESETS[c.preset];
  const encoder: EncoderConfig = {
    ...preset,
    maxLen: Math.min(preset.maxLen, c.maxLen),
    pool: c.pool,
    projector: { ...preset.projector, dims: [...preset.projector.dims], norm: [...preset.projector.norm] },
  };
  if (encoder.d % encoder.heads)
    throw new InputError(`preset ${c.preset}: width ${encoder.d} is not divisible by ${encoder.heads} heads`);
  const corpus = buildCorpus(ds, tk, encoder.maxLen);
  const nTrain = corpus.splits.train.length;
  if (nTrain < c.batch)
    throw new InputError(`${c.data}: ${nTrain} training photos is fewer than one batch of ${c.batch}`);
  const jepa = isJepaArm(c.arm);
  const lambda = resolveLambda(c);
  const { perEpoch: stepsPerEpoch, total: totalSteps } = armSteps(nTrain, c); // the last partial batch dropped
  const setup: TrainSetup = {
    config: c,
    lambda,
    encoder,
    vocab: tk.vocab.length,
    params: backboneParams(encoder, tk.vocab.length),
    stepsPerEpoch,
    totalSteps,
    backend,
  };
  const sp: Special = { cls: tk.cls, sep: tk.sep, mask: tk.mask, pad: tk.pad };
  const L: JepaLoss = {
    variant: c.loss,
    lamb: lambda.lamb,
    slices: c.slices,
    grid: { tMax: c.tMax, points: c.points },
    worldSize: lambda.worldSize,
  };
  const sched: Schedule = {
    lr: c.lr,
    warmupSteps: warmupFor(c, totalSteps),
    warmupStart: c.warmupStart,
    minLr: c.minLr,
    totalSteps,
  };
  setup.schedule = { warmupSteps: sched.warmupSteps, lrReached: lrReached(sched) };
  if (sched.warmupSteps >= totalSteps)
    warn(
      `the warmup of ${sched.warmupSteps} steps is not shorter than the run's ${totalSteps} steps: the lr reaches ${lrReached(sched).toExponential(2)}, not its peak ${c.lr.toExponential(2)} (fewer warmup steps, or more epochs)`,
    );

  const model = buildModel(encoder, tk.vocab.length, jepa, c.seed);
  const opt = createAdamW(model.params, c.weightDecay);
  let startEpoch = 0,
    step = 0;
  let firstLoss: number | null = null; // this session's first step (after a resume: the first one trained again)
  const epochs: EpochSummary[] = [];
  const done = resume ? listCheckpoints(outDir) : [];
  if (done.length) {
    const st = loadCheckpoint(outDir, done[done.length - 1], model.params, opt);
    if (st.seed !== c.seed)
      throw new InputError(`${outDir}: checkpoint was trained with seed ${st.seed}, config says ${c.seed}`);
    startEpoch = st.epoch;
    step = st.step;
    log(`resumed from epoch ${st.epoch} (step ${st.step})`);
  }
  log(
    `backend ${backend.name} (${backend.package}${backend.threads ? `, ${backend.threads} thread(s)` : ''}${backend.matmul === 'mlas' ? ", matmul on onnxruntime's MLAS" : ''}${backend.adapter ? ` on ${describeAdapter(backend.adapter)}` : ''}); arm ${c.arm}; preset ${c.preset}: ${setup.params.toLocaleString('en')} backbone params, vocab ${tk.vocab.length}`,
  );
  if (jepa)
    log(
      `SIGReg λ = ${lambda.lamb.toPrecision(4)}, λ_eff = λ·N·world_size = ${lambda.lamb.toPrecision(4)}·${lambda.sigregN}·${lambda.worldSize} = ${lambda.lambEff.toPrecision(4)} (${c.loss} loss, ${c.slices} slices)`,
    );

  const source: BatchSource = { corpus, views: c.views, special: sp, maxLen: encoder.maxLen };
  for (let epoch = startEpoch; epoch < c.epochs; epoch++) {
    phase('steps');
    const t0 = performance.now();
    const order = TrainRng.seeded(c.seed, 'order', epoch).permutation(nTrain);
    let lossSum = 0;
    for (let i = 0; i < stepsPerEpoch; i++, step++) {
      if (hooks.signal?.aborted) return { status: 'cancelled', setup, epochs };
      const photos = Int32Array.from(order.subarray(i * c.batch, (i + 1) * c.batch), (j) => corpus.splits.train[j]);
      const batch = drawBatch(source, photos, c.arm, TrainRng.seeded(c.seed, 'batch', step));
      const lr = lrAt(sched, step);
      const {
        values: parts,
        gradNorm,
        finite,
      } = await optimizerStep(opt, model.params, () => stepLoss(model, batch, L, step, c.views.globals), c.clip, lr);
      if (!finite) {
        const message = `loss ${parts.loss} / gradient norm ${gradNorm} at step ${step} (epoch ${epoch + 1}); kept the last good checkpoint (epoch ${epoch || 'none'})`;
        log(message);
        return { status: 'diverged', setup, epochs, selected: selectCheckpoint(outDir, c.select), warnings, message };
      }
      if (
        step === 0 &&
        jepa &&
        parts.inv !== undefined &&
        parts.sigreg !== undefined &&
        lambda.lamb * parts.sigreg > SIGREG_DOMINATES * parts.inv
      )
        warn(
          `λ·SIGReg = ${(lambda.lamb * parts.sigreg).toPrecision(3)} is over ${SIGREG_DOMINATES.toExponential(0)} × the invariance term ${parts.inv.toPrecision(3)} at the first step: the views barely shape the encoder (λ = ${lambda.lamb.toPrecision(3)}; the default is ${DEFAULT_LAMB})`,
        );
      lossSum += parts.loss;
      firstLoss ??= parts.loss;
      if (step % c.metricEvery === 0 || i === stepsPerEpoch - 1) hooks.onStep?.(step, { ...parts, lr, gradNorm });
      hooks.progress?.(step + 1, totalSteps, `epoch ${epoch + 1}/${c.epochs}`);
      await new Promise((r) => setImmediate(r)); // lets cancel signals and progress events through
    }
    const seconds = (performance.now() - t0) / 1000;
    phase('validation');
    const valLoss = await validationLoss(model, source, c, L);
    phase('evaluation');
    const emb: EpochEmbeddings = {
      val: await embedSplit(model, corpus, 'val', !jepa, sp),
      test: await embedSplit(model, corpus, 'test', !jepa, sp),
    };
    // A last step with a finite loss and gradient can still overflow the weights (a huge lr): then the epoch's
    // embeddings are NaN/Inf, and neither they nor its checkpoint are kept.
    const broken = [emb.val, emb.test].some((e) => e && !e.layers.every(Number.isFinite));
    if (broken || (valLoss !== null && !Number.isFinite(valLoss))) {
      const message = `non-finite ${broken ? 'embeddings' : `val loss ${valLoss}`} after step ${step - 1} (epoch ${epoch + 1}): the weights overflowed; kept the last good checkpoint (epoch ${epoch || 'none'})`;
      log(message);
      return { status: 'diverged', setup, epochs, selected: selectCheckpoint(outDir, c.select), warnings, message };
    }
    writeEpochEmbeddings(outDir, epoch + 1, emb);
    const trainLoss = lossSum / stepsPerEpoch;
    const valPairs = hooks.valPairs ? await hooks.valPairs(emb) : null;
    phase('checkpoints');
    await saveCheckpoint(outDir, model.params, opt, {
      epoch: epoch + 1,
      step,
      adamT: opt.t,
      seed: c.seed,
      valLoss,
      valPairs,
      trainLoss,
      rng: { scheme: 'keyed-xoroshiro128plus', seed: c.seed },
    });
    const summary: EpochSummary = {
      epoch: epoch + 1,
      step,
      trainLoss,
      valLoss,
      seconds,
      samplesPerSec: (stepsPerEpoch * c.batch) / seconds,
    };
    epochs.push(summary);
    if (
      firstLoss !== null &&
      Math.abs(trainLoss) > EXPLODED * Math.abs(firstLoss) &&
      !warnings.some((w) => w.startsWith('loss exploded'))
    )
      warn(
        `loss exploded: epoch ${epoch + 1} train loss ${trainLoss.toPrecision(3)} is over ${EXPLODED.toExponential(0)} × the first step's ${firstLoss.toPrecision(3)}, without a NaN; lower --lr or set --clip`,
      );
    log(
      `epoch ${epoch + 1}/${c.epochs}  train ${trainLoss.toFixed(4)}  val ${valLoss === null ? '-' : valLoss.toFixed(4)}  ${seconds.toFixed(1)} s  ${summary.samplesPerSec.toFixed(1)} photos/s`,
    );
    await hooks.onEpoch?.(epoch + 1, emb, summary);
  }
  return { status: 'done', setup, epochs, selected: selectCheckpoint(outDir, c.select), warnings };
}
