// One world-encoder ViT built in this process: the world rendered, the image JEPA trained (on the wasm backend, one
// thread: reproducible to the byte), the read-out fitted, the ONNX graph and its manifest.
import { cpus, loadavg } from 'node:os';
import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { drawScenes, type ObjectKeep } from '../../data';
import { mean } from '../../metrics';
import { exportVitOnnx, type ViTShape } from '../../models';
import { initBackend, normalised, objectPool, renderPool, trainImageJepa, type ImageStep } from '../../train';
import { sha256 } from '../encoder';
import { describePooler } from '../whitened-pooler';
import { built, lossCurve, LOSS_WINDOW, type BuiltEncoder } from './manifest';
import { fitVitPooler, onnxParity } from './readout';
import type { WorldEncoderRecipe } from './recipe';
import { sceneImages } from './renders';

// onWindow: after each LOSS_WINDOW steps (and the last), the step count, the window's mean loss and its steps.
export type BuildHooks = {
  onStep?(s: ImageStep): void;
  onWindow?(step: number, meanLoss: number, window: number): void;
  log?(text: string): void;
};

// the build log's words for what object renders keep
const KEEP_WORDS: Record<ObjectKeep, string> = {
  object: '',
  shape: ' keeping the shape only',
  'shape-colour': ' keeping shape and colour',
  'shape-colour-size': ' keeping shape, colour and size',
};

// Where a build keeps its step checkpoints (an ensemble: member-<seed>/ in it, one per member) and every how many steps.
export const BuildCheckpoints = z.object({ dir: z.string().min(1), every: z.number().int().positive() });
export type BuildCheckpoints = z.infer<typeof BuildCheckpoints>;

// One ViT trained on the recipe's world (in this process, one wasm thread), its read-out fitted, exported to ONNX. With
// checkpoints a killed build started again goes on from its newest checkpoint, to the same bytes; the folder is the
// caller's to remove once the model is written.
export async function buildVit(
  recipe: WorldEncoderRecipe,
  hooks: BuildHooks = {},
  checkpoints?: BuildCheckpoints,
): Promise<BuiltEncoder> {
  if (recipe.members) throw new Error('buildVit builds one ViT: an ensemble recipe goes to buildWorldEncoder');
  const t0 = performance.now();
  const load0 = loadavg();
  const backend = await initBackend('wasm', { matmul: 'wasm' }); // the shipped manifest's bits (engine/train/backend.ts)
  const log = hooks.log ?? (() => {});
  const w = recipe.world;
  // the scene states, for the render pools only (the crop path's worldImages draws its own)
  const scenes =
    w.renders || w.objectRenders ? drawScenes(w.seed, w.scenes).map((state, index) => ({ index, state })) : [];
  const pool = w.renders ? renderPool(w.seed, w.imageSize, scenes, w.renders) : null;
  const images = sceneImages(w, pool);
  const objects = w.objectRenders ? objectPool(w.seed, w.imageSize, scenes, w.objectRenders, w.objectKeep) : undefined;
  const o = recipe.jepa.objects;
  const views =
    (pool ? `renders of ${w.renders}` : 'crops') +
    (objects && o
      ? `; + ${o.views} views of ${o.batch ?? recipe.jepa.batch} of ${objects.n} objects drawn alone (renders of ${objects.renders}${KEEP_WORDS[w.objectKeep ?? 'object']}; ${o.loss === 'infonce' ? 'InfoNCE' : 'LeJEPA'}${o.draw === 'distinct-kinds' ? ', distinct kinds a step' : ''}${o.aloneSteps ? `, alone for the first ${o.aloneSteps} steps` : ''})`
      : '');
  log(
    `${images.n} world scenes (seed ${w.seed}) rendered in ${((performance.now() - t0) / 1000).toFixed(1)} s; training ${recipe.jepa.steps} steps of ${recipe.jepa.batch} images x ${recipe.jepa.V} views (${views}) on ${backend.name}`,
  );
  let losses: number[] = [],
    last: ImageStep | null = null,
    before = 0,
    resumed: number[] = [];
  const tTrain = performance.now();
  // the training images and views are the world's and the jepa's: a checkpoint of those two goes on, the pooler aside
  const key = JSON.stringify({ world: recipe.world, jepa: recipe.jepa });
  const params = await trainImageJepa(
    recipe.jepa,
    { ...(pool ? { pool, noise: recipe.jepa.views.noise } : images), objects },
    {
      onResume: (h) => {
        losses = [...h.losses]; // a copy: the trainer goes on appending to its own
        last = h.last;
        before = h.seconds;
        resumed = h.resumed;
        log(
          `resumed from ${checkpoints!.dir} at step ${h.step}/${recipe.jepa.steps} (loss ${h.last.loss.toFixed(4)}; ${(h.seconds / 60).toFixed(0)} min of training before)`,
        );
      },
      onStep: (s) => {
        last = s;
        losses.push(s.loss);
        hooks.onStep?.(s);
        const window = ((losses.length - 1) % LOSS_WINDOW) + 1; // steps in the current window so far
        if (hooks.onWindow && (window === LOSS_WINDOW || losses.length === recipe.jepa.steps))
          hooks.onWindow(losses.length, mean(losses.slice(-window)), window);
      },
    },
    checkpoints && { ...checkpoints, key, warn: (m) => log(`warning: ${m}`) },
  );
  const trainSeconds = before + (performance.now() - tTrain) / 1000;
  const shape = recipe.jepa.vit as ViTShape;
  const tHead = performance.now();
  const fitted = recipe.pooler ? await fitVitPooler(shape, params, images, recipe.pooler) : null;
  if (fitted)
    log(
      `pooler: ${describePooler(recipe.pooler!)} on ${Math.min(recipe.pooler!.scenes, images.n)} renders in ${((performance.now() - tHead) / 1000).toFixed(1)} s`,
    );
  const bytes = await exportVitOnnx(shape, params, fitted?.head);
  const parity = await onnxParity(
    bytes,
    { shape, params, head: fitted?.head },
    { pixels: normalised(images, [0, 1, 2, 3, 4, 5, 6, 7]), n: 8 },
  );
  tf.dispose([...params.values()]);
  const l = last as ImageStep | null;
  if (!l) throw new Error('world encoder: no training steps ran');
  const load1 = loadavg();
  return built(bytes, {
    recipe,
    onnx: {
      input: 'pixel_values',
      outputs: ['last_hidden_state', 'pooler_output'],
      embedding: 'pooler_output',
      layerNormEps: 1e-5,
      gelu: 'tanh',
    },
    tfjs: tf.version.tfjs,
    backend: `${backend.package} (${backend.threads} thread)`,
    loss: {
      first: losses[0],
      last: l.loss,
      lastInv: l.inv,
      lastSigreg: l.sigreg,
      ...(l.objectNce !== undefined && { lastObjectNce: l.objectNce }),
      curve: lossCurve(losses),
    },
    parity,
    ...(fitted && {
      pooler: {
        baseSha256: sha256(fitted.base),
        eigenvalues: [fitted.eigenvalues[0], fitted.eigenvalues[fitted.eigenvalues.length - 1]],
        seconds: (performance.now() - tHead) / 1000,
      },
    }),
    build: {
      seconds: before + (performance.now() - t0) / 1000,
      secondsPerStep: trainSeconds / recipe.jepa.steps,
      loadavg: [load0[0], load1[0]], // 1-min load at start and end: the machine is shared
      cpus: cpus().length,
      node: process.version,
      at: new Date().toISOString(),
      ...(resumed.length ? { resumed } : {}),
    },
  });
}
