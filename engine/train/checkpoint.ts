// Per-epoch checkpoints: checkpoints/epoch-N/{weights,optimizer}.safetensors + state.json, written into a temp
// folder and renamed, so a kill leaves either the whole checkpoint or none. Only the newest keeps optimizer state.
// writeTrainState / readTrainState are that folder, for any training loop (the image JEPA's step checkpoints too).
import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { writeJsonAtomic } from '../atomic';
import { readSafetensors, writeSafetensors } from '../embeddings';
import { InputError } from '../errors';
import { readJson } from '../json-file';
import type { Params } from '../models';
import type { SelectPolicy } from '../../shared/train';
import type { AdamW } from './optimizer';

export const CheckpointState = z.object({
  epoch: z.number().int().min(1), // epochs completed
  step: z.number().int().min(0), // optimizer steps taken (also the SIGReg direction counter)
  adamT: z.number().int().min(0),
  seed: z.number().int(),
  valLoss: z.number().nullable(),
  valPairs: z.number().nullable().optional(), // an experiment arm's fit-pair R@1, two folds (absent before it was kept)
  trainLoss: z.number().nullable(),
  // Random streams are keyed by (seed, purpose, step|epoch), so the counters above are the whole RNG state.
  rng: z.object({ scheme: z.literal('keyed-xoroshiro128plus'), seed: z.number().int() }),
});
export type CheckpointState = z.infer<typeof CheckpointState>;

const dirOf = (runDir: string, epoch: number) => join(runDir, 'checkpoints', `epoch-${epoch}`);

const snapshot = async (vars: Map<string, tf.Variable>) =>
  Object.fromEntries(
    await Promise.all(
      [...vars].map(async ([k, v]) => [k, { shape: v.shape, data: (await v.data()) as Float32Array }] as const),
    ),
  );

export async function saveCheckpoint(
  runDir: string,
  params: Params,
  opt: AdamW,
  state: CheckpointState,
): Promise<string> {
  const final = dirOf(runDir, state.epoch);
  // Temp folders of earlier workers killed mid-save (another pid): this worker owns the run now.
  const dir = join(runDir, 'checkpoints');
  if (existsSync(dir))
    for (const f of readdirSync(dir, { withFileTypes: true }))
      if (/^\.epoch-\d+\.\d+\.tmp$/.test(f.name)) rmSync(join(dir, f.name), { recursive: true, force: true });
  await writeTrainState(final, params, opt, state);
  // Older epochs keep their weights (for checkpoint selection) but not the optimizer (only resume needs it).
  for (const e of listCheckpoints(runDir))
    if (e < state.epoch) rmSync(join(dirOf(runDir, e), 'optimizer.safetensors'), { force: true });
  return final;
}

/** Weights, AdamW moments and `state` (state.json) as the folder `final`: written into a temp folder beside it
 *  (.<name>.<pid>.tmp) and renamed, so a kill leaves the whole folder or none. */
export async function writeTrainState(final: string, params: Params, opt: AdamW, state: object): Promise<void> {
  const tmp = join(dirname(final), `.${basename(final)}.${process.pid}.tmp`);
  // read before the temp folder exists: a failed read leaves nothing behind
  const weights = await snapshot(params),
    m = await snapshot(opt.m),
    v = await snapshot(opt.v);
  rmSync(tmp, { recursive: true, force: true });
  try {
    writeSafetensors(join(tmp, 'weights.safetensors'), weights);
    const moments = {
      ...Object.fromEntries(Object.entries(m).map(([k, x]) => [`m.${k}`, x])),
      ...Object.fromEntries(Object.entries(v).map(([k, x]) => [`v.${k}`, x])),
    };
    writeSafetensors(join(tmp, 'optimizer.safetensors'), moments);
    writeJsonAtomic(join(tmp, 'state.json'), state);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true }); // a full disk: the partial checkpoint goes, the last whole one stays
    throw err;
  }
  rmSync(final, { recursive: true, force: true });
  renameSync(tmp, final);
}

// Completed epochs with a readable state.json, ascending.
export function listCheckpoints(runDir: string): number[] {
  const dir = join(runDir, 'checkpoints');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((f) => /^epoch-(\d+)$/.exec(f))
    .filter((m): m is RegExpExecArray => m !== null && existsSync(join(dir, m[0], 'state.json')))
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
}

export function readState(runDir: string, epoch: number): CheckpointState {
  return readJson(join(dirOf(runDir, epoch), 'state.json'), CheckpointState, 'a checkpoint state');
}

// Loads weights (and the optimizer moments when present) into existing variables; shapes must match.
export function loadCheckpoint(runDir: string, epoch: number, params: Params, opt: AdamW | null): CheckpointState {
  const state = readState(runDir, epoch);
  readTrainState(dirOf(runDir, epoch), params, opt, state.adamT);
  return state;
}

/** A folder writeTrainState wrote, into existing variables (shapes must match): the weights, and with `opt` the AdamW
 *  moments and step count adamT. */
export function readTrainState(dir: string, params: Params, opt: AdamW | null, adamT: number): void {
  const assign = (
    vars: Map<string, tf.Variable>,
    tensors: Record<string, { shape: number[]; data: ArrayLike<number> }>,
    prefix: string,
    file: string,
  ) => {
    for (const [k, v] of vars) {
      const t = tensors[prefix + k];
      if (!t || t.shape.join() !== v.shape.join())
        throw new InputError(`${file}: tensor ${prefix + k} missing or shaped [${t?.shape}] instead of [${v.shape}]`);
      const value = tf.tensor(Float32Array.from(t.data), v.shape);
      v.assign(value); // the variable takes its own reference to the data: the temporary must go, or each load leaks one
      value.dispose();
    }
  };
  const wfile = join(dir, 'weights.safetensors');
  assign(params, readSafetensors(wfile).tensors, '', wfile);
  if (!opt) return;
  const ofile = join(dir, 'optimizer.safetensors');
  if (!existsSync(ofile)) throw new InputError(`${dir}: has no optimizer state (only the newest checkpoint keeps it)`);
  const t = readSafetensors(ofile).tensors;
  assign(opt.m, t, 'm.', ofile);
  assign(opt.v, t, 'v.', ofile);
  opt.t = adamT;
}

export type Selected = { epoch: number; valLoss: number | null; valPairs?: number | null };

// Checkpoint policy: the last epoch, the lowest validation loss, or the highest fit-pair R@1 (ties: the earlier).
// Never test data.
export function selectCheckpoint(runDir: string, policy: SelectPolicy): Selected | null {
  const epochs = listCheckpoints(runDir);
  if (!epochs.length) return null;
  const states = epochs.map((e) => readState(runDir, e));
  const pick = (s: CheckpointState): Selected => ({
    epoch: s.epoch,
    valLoss: s.valLoss,
    ...(s.valPairs !== undefined ? { valPairs: s.valPairs } : {}),
  });
  if (policy === 'last') return pick(states[states.length - 1]);
  const key = policy === 'val-loss' ? (s: CheckpointState) => s.valLoss : (s: CheckpointState) => s.valPairs ?? null;
  const scored = states.filter((s) => key(s) !== null);
  if (!scored.length)
    throw new InputError(
      policy === 'val-loss'
        ? `${runDir}: no checkpoint has a validation loss (the dataset has no val split)`
        : `${runDir}: no checkpoint has a fit-pair score (select val-pairs needs an experiment's arm)`,
    );
  const better = policy === 'val-loss' ? (a: number, b: number) => b < a : (a: number, b: number) => b > a;
  return pick(scored.reduce((a, b) => (better(key(a)!, key(b)!) ? b : a)));
}
