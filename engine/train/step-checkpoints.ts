// A long image-JEPA build's checkpoints: every N steps <dir>/step-<s>/ (writeTrainState's folder: weights, AdamW
// moments, state.json), the newest only. Its random streams are keyed by (seed, purpose, step) and its schedule by
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
// refused, not resumed
export type StepCheckpoints = { dir: string; every: number; key: string };

// What a checkpoint's state.json holds at least (the loop adds its own record of the steps taken).
export type StepState = { key: string; step: number; adamT: number };

const STEP_DIR = /^step-(\d+)$/;

// The newest whole checkpoint's step, or null (an unfinished .tmp folder is a kill mid-write: not a checkpoint).
function newestStep(dir: string): number | null {
  if (!existsSync(dir)) return null;
  const steps = readdirSync(dir).flatMap((f) => {
    const m = STEP_DIR.exec(f);
    return m && existsSync(join(dir, f, 'state.json')) ? [Number(m[1])] : [];
  });
  return steps.length ? Math.max(...steps) : null;
}

/** The newest checkpoint in c.dir loaded into params and opt, with its state; null when there is none. Another build's
 *  checkpoints (another key) are an InputError: resuming them would be a different build, starting over would lose them. */
export function resumeSteps<S extends StepState>(
  c: StepCheckpoints,
  schema: z.ZodType<S>,
  params: Params,
  opt: AdamW,
): S | null {
  const step = newestStep(c.dir);
  if (step === null) return null;
  const at = join(c.dir, `step-${step}`);
  const state = readJson(join(at, 'state.json'), schema, 'a build checkpoint');
  if (state.key !== c.key)
    throw new InputError(
      `${c.dir}: holds the checkpoints of another build (step ${state.step}); remove that folder to start this one over, or build into another --out`,
    );
  readTrainState(at, params, opt, state.adamT);
  return state;
}

/** state as <dir>/step-<state.step>; the older checkpoints and temp folders of killed writers go once it is whole. */
export async function saveSteps<S extends StepState>(
  c: StepCheckpoints,
  params: Params,
  opt: AdamW,
  state: S,
): Promise<void> {
  const name = `step-${state.step}`;
  await writeTrainState(join(c.dir, name), params, opt, state);
  for (const f of readdirSync(c.dir))
    if (f !== name && (STEP_DIR.test(f) || f.endsWith('.tmp')))
      rmSync(join(c.dir, f), { recursive: true, force: true });
}
