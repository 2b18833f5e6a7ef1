// A long image-JEPA build's checkpoints: every N steps <dir>/step-<s>/ (writeTrainState's folder: weights, AdamW
// moments, state.json), the newest two (a newest one torn by a lost write falls back to the one before). Its random streams are keyed by (seed, purpose, step) and its schedule by
// step, so weights + moments + step are the whole state: a build killed and started again goes on from its newest
// checkpoint to the bytes an unbroken build gives.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { InputError } from '../errors';
import { readJson } from '../json-file';
import type { Params } from '../models';
import { readTrainState, writeTrainState } from './checkpoint';
import type { AdamW } from './optimizer';

// where and how often; key: everything that fixes the build (its recipe and images), so a folder of another build is
// refused, not resumed; warn: hears a fall-back to the checkpoint before a torn one
export type StepCheckpoints = { dir: string; every: number; key: string; warn?: (message: string) => void };

// What a checkpoint's state.json holds at least (the loop adds its own record of the steps taken).
export type StepState = { key: string; step: number; adamT: number };

const STEP_DIR = /^step-(\d+)$/;

// The whole checkpoints' steps, newest first (an unfinished .tmp folder is a kill mid-write: not a checkpoint).
function steps(dir: string): number[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .flatMap((f) => {
      const m = STEP_DIR.exec(f);
      return m && existsSync(join(dir, f, 'state.json')) ? [Number(m[1])] : [];
    })
    .sort((a, b) => b - a);
}

/** The newest readable checkpoint in c.dir loaded into params and opt, with its state; null when there is none. A
 *  torn newest one (a lost write) falls back to the one before, saying so; none readable is an InputError that says
 *  which folder to remove. Another build's checkpoints (another key) are an InputError: resuming them would be a
 *  different build, starting over would lose them. */
export function resumeSteps<S extends StepState>(
  c: StepCheckpoints,
  schema: z.ZodType<S>,
  params: Params,
  opt: AdamW,
): S | null {
  const found = steps(c.dir);
  const torn: string[] = [];
  for (const step of found) {
    const at = join(c.dir, `step-${step}`);
    try {
      const state = readJson(join(at, 'state.json'), schema, 'a build checkpoint');
      if (state.key !== c.key)
        throw new AnotherBuild(
          `${c.dir}: holds the checkpoints of another build (step ${state.step}); remove that folder to start this one over, or build into another --out`,
        );
      readTrainState(at, params, opt, state.adamT);
      if (torn.length) c.warn?.(`${torn.join('; ')}; going on from the checkpoint before it, ${at}`);
      return state;
    } catch (err) {
      if (!(err instanceof InputError) || err instanceof AnotherBuild) throw err;
      torn.push(err.message);
    }
  }
  if (torn.length)
    throw new InputError(
      `no readable checkpoint in ${c.dir}: ${torn.join('; ')}; remove that folder to start the build over (its ${found[0]} steps are lost)`,
    );
  return null;
}
class AnotherBuild extends InputError {}

/** state as <dir>/step-<state.step>; checkpoints older than the one before it, and temp folders of killed writers,
 *  go once it is whole. */
export async function saveSteps<S extends StepState>(
  c: StepCheckpoints,
  params: Params,
  opt: AdamW,
  state: S,
): Promise<void> {
  const name = `step-${state.step}`;
  await writeTrainState(join(c.dir, name), params, opt, state);
  const keep = new Set(
    steps(c.dir)
      .slice(0, 2)
      .map((s) => `step-${s}`),
  );
  for (const f of readdirSync(c.dir))
    if (!keep.has(f) && (STEP_DIR.test(f) || f.endsWith('.tmp')))
      rmSync(join(c.dir, f), { recursive: true, force: true });
}
