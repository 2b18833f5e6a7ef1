// `prh train`: one training run (an arm on a dataset) into a run folder, with a progress bar and a line per epoch.
import { join, resolve } from 'node:path';
import { SingleBar, Presets } from 'cli-progress';
import type { Command } from 'commander';
import { ARMS, BACKENDS, DEFAULT_LAMB, PRESET_NAMES, TRAIN_DEFAULTS as D, TrainConfig } from '../../shared/train';
import { writeJsonAtomic } from '../atomic';
import { claim, heartbeat, HEARTBEAT_MS, release } from '../runs';
import { EXIT, numberOption, parseFlags } from './output';

const num = numberOption;

// The training flags `prh train` and `prh experiment` share, and the TrainConfig fields they set.
const TRAIN_FLAGS = [
  'preset',
  'epochs',
  'batch',
  'lamb',
  'lambEff',
  'loss',
  'slices',
  'lr',
  'clip',
  'select',
  'backend',
  'vocabSize',
] as const;
// The help names each default as the schema holds it (TRAIN_DEFAULTS), or as a command sets it (`prh demo`'s epochs
// and rates); the flags set nothing themselves, so a config's own values and the schema's defaults are the only sources.
export type ShownDefaults = { epochs?: number; lr?: string };
export const addTrainingOptions = (c: Command, own: ShownDefaults = {}): Command => {
  const d = { ...D, ...own };
  return c
    .option('--preset <name>', `${PRESET_NAMES.join(' | ')} (default ${D.preset})`)
    .option('--epochs <n>', `epochs (default ${d.epochs})`, num('epochs'))
    .option('--batch <n>', `photos per step (default ${D.batch})`, num('batch'))
    .option('--lamb <x>', `SIGReg weight λ (default ${DEFAULT_LAMB})`, num('lamb'))
    .option(
      '--lamb-eff <x>',
      'effective SIGReg weight λ·N·world_size (keeps the experiment when the batch changes); not with --lamb',
      num('lamb-eff'),
    )
    .option(
      '--loss <variant>',
      `sp (inv + λ·SIGReg pooled) | paper ((1−λ)inv + λ·mean per-view SIGReg) (default ${D.loss})`,
    )
    .option('--slices <n>', `SIGReg directions per step (default ${D.slices})`, num('slices'))
    .option('--lr <x>', `peak learning rate (default ${d.lr})`, num('lr'))
    .option('--clip <x>', `gradient-norm clip (default ${D.clip ?? 'off'})`, num('clip'))
    .option(
      '--select <policy>',
      `checkpoint scored: last | val-loss | val-pairs (an experiment: the best map R@1 on the fit pairs, two folds); never test (default ${D.select})`,
    )
    .option('--backend <name>', `${BACKENDS.join(' | ')} (default ${D.backend})`)
    .option(
      '--vocab-size <n>',
      'vocabulary of the trained WordPiece (default: chosen from the training captions)',
      num('vocab-size'),
    );
};
// The flags given, as TrainConfig fields; the schema checks them (λ or λ_eff, not both, is its rule).
export const trainingSettings = (o: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(TRAIN_FLAGS.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));

export function registerTrain(program: Command, setExit: (code: number) => void): void {
  addTrainingOptions(program.command('train'))
    .description(
      'train a text encoder arm (good/bad views LeJEPA, NTP, pair-NTP) and write checkpoints + embeddings per epoch',
    )
    .requiredOption('--data <path>', 'a dataset folder or caption file in any format `prh data inspect` reads')
    .option('--images <dir>', 'the image folder, when it is not beside the captions')
    .option('--split-seed <n>', 'seed of the split of data without one (default 0)', num('split-seed'))
    .requiredOption('--arm <arm>', ARMS.join(' | '))
    .requiredOption('--out <dir>', 'run folder')
    .option('--tokenizer <file>', 'Hugging Face tokenizer.json (default: WordPiece trained on the training captions)')
    .option('--seed <n>', 'seed for init, data order, views and directions', num('seed'))
    .option('--resume', 'continue from the last checkpoint in --out')
    .option('--json', 'print one JSON document')
    .action(async (o) => {
      const config = parseFlags(TrainConfig, {
        kind: 'train',
        version: 1,
        data: resolve(o.data),
        images: o.images && resolve(o.images),
        split: o.splitSeed === undefined ? undefined : { seed: o.splitSeed },
        arm: o.arm,
        ...trainingSettings(o),
        tokenizer: o.tokenizer,
        seed: o.seed,
      });
      // The folder is this process's while it trains: a second `prh train --out` on it is refused, not run twice.
      let owner = claim(o.out);
      const beat = setInterval(() => (owner = heartbeat(o.out, owner)), HEARTBEAT_MS).unref();
      try {
        await trainInto(o, config, setExit);
      } finally {
        clearInterval(beat);
        release(o.out);
      }
    });
}

// One training into the folder this process owns, with a progress bar (or one JSON document) and its exit code.
async function trainInto(
  o: { out: string; json?: boolean; resume?: boolean },
  config: TrainConfig,
  setExit: (code: number) => void,
): Promise<void> {
  writeJsonAtomic(join(o.out, 'config.json'), config);
  const { train } = await import('../train'); // tfjs and the models (engine/cli/main.ts)
  const json = Boolean(o.json);
  const bar = json
    ? null
    : new SingleBar(
        { format: '{bar} {percentage}% | step {value}/{total} | {msg} | loss {loss}', hideCursor: true },
        Presets.shades_classic,
      );
  let started = false,
    lastLoss = '-';
  const say = (t: string) => {
    if (json) return;
    if (bar && started) bar.stop();
    console.log(t);
    started = false;
  };
  const out = await train(
    config,
    o.out,
    {
      log: say,
      warn: (t) => say(`warning: ${t}`),
      onStep: (_s, v) => (lastLoss = v.loss.toFixed(4)),
      progress: (d, t, msg) => {
        if (!bar) return;
        if (!started) {
          bar.start(t, d, { msg, loss: lastLoss });
          started = true;
        }
        bar.update(d, { msg, loss: lastLoss });
      },
    },
    Boolean(o.resume),
  );
  if (bar && started) bar.stop();
  const summary = {
    status: out.status,
    arm: config.arm,
    ...out.setup.lambda,
    backend: out.setup.backend,
    epochs: out.epochs,
    ...(out.status !== 'cancelled' ? { selected: out.selected, warnings: out.warnings } : {}),
    ...(out.status === 'diverged' ? { message: out.message } : {}),
  };
  writeJsonAtomic(join(o.out, 'train-summary.json'), summary);
  if (json) console.log(JSON.stringify(summary));
  else {
    const kept =
      out.status === 'diverged'
        ? out.selected
          ? `, last good checkpoint: epoch ${out.selected.epoch}`
          : ', no good checkpoint'
        : '';
    console.log(
      `${out.status}: ${out.epochs.length} epoch(s)${out.status === 'done' && out.selected ? `, selected epoch ${out.selected.epoch} (${config.select})` : ''}${kept}; λ=${out.setup.lambda.lamb.toPrecision(4)} λ_eff=${out.setup.lambda.lambEff.toPrecision(4)}`,
    );
  }
  setExit(out.status === 'done' ? EXIT.ok : out.status === 'diverged' ? EXIT.diverged : EXIT.cancelled);
}
