// `prh experiment` (the paper's experiment on any dataset and image encoder) and `prh demo` (the newcomer's
// one command: the default world, the shipped world encoder, three arms, the comparison table).
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  DEMO_EPOCHS,
  ExperimentConfig,
  WORLD_ARM_LR,
  ratesText,
  type ExperimentConfigInput,
  type ExperimentResult,
} from '../../shared/experiment';
import {
  armsTable,
  differencesTable,
  gridDifferencesTable,
  gridTable,
  gridVerdict,
  imageArmsTable,
  protocolLine,
  spreadTable,
} from '../../shared/experiment-figures';
import { IMAGE_DEVICES } from '../../shared/gpu';
import { ARMS } from '../../shared/train';
import { timeLine } from '../../shared/time-figures';
import { defaultWorldDir, userDataDir } from '../api';
import { generateWorld } from '../data';
import { tableToMarkdown } from '../report';
import { InputError } from '../errors';
import { issueText } from '../../shared/issues';
import { numberOption as num } from './output';
import { openService, runAndWait } from './runs';
import { addTrainingOptions, trainingSettings, type ShownDefaults } from './train';

const list = (v: string) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const numbers = (name: string) => (v: string) => list(v).map(num(name));
// --arm-lr good=4e-3,bad=1e-3: arm -> rate (the config's schema checks the arms).
const armRates = (v: string) =>
  Object.fromEntries(
    list(v).map((entry) => {
      const [arm, rate, ...rest] = entry.split('=').map((s) => s.trim());
      if (!arm || rate === undefined || rest.length)
        throw new InputError(`--arm-lr: expected arm=rate pairs, e.g. good=4e-3,bad=1e-3; got '${entry}'`);
      return [arm, num('arm-lr')(rate)];
    }),
  );

// The demo's per-arm rates: the world-tuned ones (none when --lr sets one rate for all), then --arm-lr's over them.
export const demoRates = (o: { lr?: number; armLr?: Record<string, number> }): Record<string, number> | undefined =>
  o.lr === undefined ? { ...WORLD_ARM_LR, ...o.armLr } : o.armLr;

function printResult(r: ExperimentResult): void {
  console.log(`\n${protocolLine(r)}`);
  const grid = r.grid
    ? [
        imageArmsTable(r),
        gridTable(r),
        { ...gridDifferencesTable(r), rows: gridDifferencesTable(r).rows.filter((d) => d.metric === 'R@1') },
      ]
    : [];
  for (const t of [...grid, armsTable(r.arms), differencesTable(r), spreadTable(r)])
    console.log(`\n${tableToMarkdown(t)}`);
  for (const line of gridVerdict(r)) console.log(`\n${line}`);
  for (const w of r.warnings ?? []) console.log(`warning: ${w}`);
}

// The flag that sets a field of the experiment's config, so that a bad value is named as it was typed
// (`--bootstrap 50: must be at least 100`, not `config.eval.bootstrap`).
const kebab = (k: PropertyKey) => String(k).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const EVAL_FLAGS: Record<string, string> = { fitPairs: '--fit-pairs', testPairs: '--test-pairs' };
export function experimentFlag(path: readonly PropertyKey[]): string {
  const [head, key] = path;
  if (head === 'eval') return EVAL_FLAGS[String(key)] ?? `--${kebab(key)}`;
  if (head === 'executor') return key === 'kind' || key === undefined ? '--executor' : `--${kebab(key)}`;
  if (head === 'train' && key !== undefined) return `--${kebab(key)}`;
  if (head === 'image') return key === 'model' || key === undefined ? '--image-model' : `--image-${kebab(key)}`;
  if (head === 'imageViews') return key === 'arms' || key === undefined ? '--image-views' : `--image-${kebab(key)}`;
  return `--${kebab(head)}`;
}
// A flag with the value given for it: `--seeds 0,1,2`, `--arm-lr good=0.004`.
function typed(config: ExperimentConfigInput, path: readonly PropertyKey[]): string {
  const depth = ['eval', 'executor', 'train', 'image', 'imageViews'].includes(String(path[0])) ? 2 : 1;
  let v: unknown = config;
  for (const k of path.slice(0, depth)) v = (v as Record<PropertyKey, unknown> | undefined)?.[k];
  const text = Array.isArray(v)
    ? v.join(',')
    : v && typeof v === 'object'
      ? Object.entries(v)
          .map(([a, x]) => `${a}=${x}`)
          .join(',')
      : v;
  if (text === undefined) return experimentFlag(path);
  const shown = String(text).length > 40 ? `${String(text).slice(0, 40)}…` : String(text);
  return `${experimentFlag(path)} ${shown}${Array.isArray(v) && v.length > 8 ? ` (${v.length} values)` : ''}`;
}
function checkFlags(config: ExperimentConfigInput): void {
  const r = ExperimentConfig.safeParse(config);
  if (!r.success)
    throw new InputError(r.error.issues.map((i) => `${typed(config, i.path)}: ${issueText(i)}`).join('; '));
}

async function runExperiment(
  config: ExperimentConfigInput,
  o: { runs?: string; json?: boolean },
  setExit: (c: number) => void,
): Promise<void> {
  checkFlags(config);
  const service = openService(o.runs);
  const { state, code } = await runAndWait(service, config, Boolean(o.json));
  setExit(code);
  if (o.json) {
    const r = state.result as unknown as ExperimentResult | null;
    return console.log(
      JSON.stringify({
        id: state.id,
        status: state.status,
        dir: service.store.dir(state.id),
        protocol: r ? protocolLine(r) : null,
        result: state.result,
        error: state.error,
      }),
    );
  }
  if (state.status === 'done') {
    printResult(state.result as unknown as ExperimentResult);
    console.log(`\nreport: ${join(service.store.dir(state.id), 'report', 'index.md')}`);
    const time = (state.result as unknown as ExperimentResult).time;
    if (time) console.log(`time: ${timeLine(time)} (where it went: prh runs show ${state.id})`);
  } else if (state.error) console.error(state.error);
}

const rgb = (name: string) => (v: string) => {
  const xs = list(v).map(num(name));
  if (xs.length !== 3) throw new InputError(`--${name}: expected r,g,b (three numbers), got '${v}'`);
  return xs;
};

// The image side: `prh embed`'s model and spec flags, prefixed with image-, or precomputed embeddings.
const addImageOptions = (c: Command) =>
  c
    .option('--image-model <path>', "frozen image encoder: 'world' (shipped) or an .onnx file", 'world')
    .option('--image-preset <name>', 'dinov2 | imagenet-cnn | custom (detected when absent)')
    .option(
      '--image-device <d>',
      `${IMAGE_DEVICES.join(' | ')}: where the image encoder runs (auto: CUDA, else WebGPU on a real GPU, else CPU)`,
    )
    .option('--image-input <name>', 'graph input to feed')
    .option(
      '--image-output <tensor>',
      'tensor holding the embedding: a graph output or any intermediate (e.g. MobileNetV2 int8: 464_quantized, the 1,280-d pooled feature)',
    )
    .option('--image-pool <how>', 'none (flatten) | cls (token 0) | mean-patches')
    .option(
      '--image-prefix-tokens <n>',
      'tokens before the patch tokens (CLS + registers), for mean-patches',
      num('image-prefix-tokens'),
    )
    .option('--image-size <px>', 'centre-crop side fed to the model', num('image-size'))
    .option('--image-resize <px>', 'shorter side after resizing, before the crop', num('image-resize'))
    .option('--image-interpolation <kind>', 'nearest | bilinear | bicubic')
    .option('--image-mean <r,g,b>', 'per-channel mean (units of --image-range)', rgb('image-mean'))
    .option('--image-std <r,g,b>', 'per-channel std', rgb('image-std'))
    .option('--image-channels <order>', 'rgb | bgr')
    .option('--image-range <r>', '0-1 | 0-255: pixel scale before mean/std')
    .option(
      '--image-embeddings <file.npy>',
      'image embeddings computed elsewhere: [photos, D] .npy with <file>.npy.ids.json (photo ids); no model is run',
    );

const IMAGE_FLAGS = [
  'preset',
  'device',
  'input',
  'output',
  'pool',
  'prefixTokens',
  'size',
  'resize',
  'interpolation',
  'mean',
  'std',
  'channels',
  'range',
  'embeddings',
] as const;
function imageChoice(o: Record<string, unknown>): Record<string, unknown> {
  const key = (k: string) => `image${k[0].toUpperCase()}${k.slice(1)}`;
  const choice: Record<string, unknown> = Object.fromEntries(
    IMAGE_FLAGS.filter((k) => o[key(k)] !== undefined).map((k) => [k, o[key(k)]]),
  );
  // Paths as absolute: the run's config is read again by its workers and on resume, from anywhere.
  if (typeof choice.embeddings === 'string') choice.embeddings = resolve(choice.embeddings);
  return { model: o.imageModel === 'world' ? 'world' : resolve(String(o.imageModel)), ...choice };
}

// The 2x2 (ExperimentConfig.imageViews): image arms trained inside the experiment, with their recipe knobs.
const addImageViewOptions = (c: Command) =>
  c
    .option(
      '--image-views <list>',
      'the 2x2: image arms to train (comma list of good, bad) x the text arms; procedural worlds only, text arms good/bad (default then: good,bad)',
      list,
    )
    .option('--image-steps <n>', 'image arms: AdamW steps each (default 300)', num('image-steps'))
    .option(
      '--image-renders <n>',
      'image arms: renders of each training scene the good arm draws its views from (default 4)',
      num('image-renders'),
    )
    .option('--image-batch <n>', 'image arms: scenes per step, 4 views each (default 32)', num('image-batch'))
    .option('--image-hidden <n>', 'image arms: ViT width, a multiple of 16 (default 64)', num('image-hidden'))
    .option('--image-depth <n>', 'image arms: ViT blocks (default 2)', num('image-depth'));

type ImageViewFlags = {
  imageViews?: string[];
  imageSteps?: number;
  imageRenders?: number;
  imageBatch?: number;
  imageHidden?: number;
  imageDepth?: number;
};
const KNOBS = {
  imageSteps: 'steps',
  imageRenders: 'renders',
  imageBatch: 'batch',
  imageHidden: 'hidden',
  imageDepth: 'depth',
} as const;
function imageViewsOf(o: ImageViewFlags): ExperimentConfigInput['imageViews'] {
  const knobs = Object.fromEntries(
    Object.entries(KNOBS)
      .filter(([flag]) => o[flag as keyof typeof KNOBS] !== undefined)
      .map(([flag, key]) => [key, o[flag as keyof typeof KNOBS]]),
  );
  if (!o.imageViews) {
    if (Object.keys(knobs).length)
      throw new InputError(`--image-${Object.keys(knobs)[0]} applies to the 2x2 only: add --image-views good,bad`);
    return undefined;
  }
  return { arms: o.imageViews as ('good' | 'bad')[], ...knobs };
}

// An experiment's flags: the shared training flags (passed to every arm) plus replicates and evaluation.
const addTrainOptions = (c: Command, own?: ShownDefaults) =>
  addTrainingOptions(c, own)
    .option('--arm-lr <list>', "each arm's peak learning rate over --lr, e.g. good=4e-3,bad=1e-3,ntp=1e-3", armRates)
    .option('--seeds <list>', 'training seeds (replicates), e.g. 0,1,2', numbers('seeds'))
    .option('--bootstrap <B>', 'paired bootstrap resamples', num('bootstrap'))
    .option(
      '--parallel <n>',
      'arms trained at once (default: cores, and at least the arms of one seed)',
      num('parallel'),
    )
    .option('--executor <where>', 'where the arms run: local | slurm (default: the settings)')
    .option('--partition <name>', 'Slurm partition for the arms (over the settings)')
    .option('--time <limit>', 'Slurm time limit per arm job, e.g. 4:00:00')
    .option('--gpus <n>', 'GPUs per arm job (--gres=gpu:N)', num('gpus'))
    .option('--runs <dir>', 'runs folder')
    .option('--json', 'print one JSON document');

// --executor and its Slurm overrides as ExperimentConfig.executor (validated with the config).
type ExecutorFlags = { executor?: string; partition?: string; time?: string; gpus?: number };
const executorOf = (o: ExecutorFlags): ExperimentConfigInput['executor'] => {
  const slurm = {
    ...(o.partition ? { partition: o.partition } : {}),
    ...(o.time ? { time: o.time } : {}),
    ...(o.gpus !== undefined ? { gpus: o.gpus } : {}),
  };
  if (!o.executor && !Object.keys(slurm).length) return undefined;
  return { kind: (o.executor ?? 'slurm') as 'local' | 'slurm', ...slurm };
};

// `prh demo`'s experiment on the world in dir: the three text arms at their world-tuned rates, DEMO_EPOCHS unless --epochs.
type DemoFlags = Record<string, unknown> &
  ExecutorFlags &
  Parameters<typeof demoRates>[0] & { seeds?: number[]; parallel?: number };
export const demoConfig = (dir: string, o: DemoFlags): ExperimentConfigInput => ({
  kind: 'experiment',
  version: 1,
  name: 'demo: good vs bad views vs NTP on the procedural world',
  data: dir,
  image: { model: 'world' },
  arms: ['good', 'bad', 'ntp'],
  seeds: o.seeds,
  train: { epochs: DEMO_EPOCHS, ...trainingSettings(o) },
  armLr: demoRates(o),
  parallel: o.parallel,
  executor: executorOf(o),
});

export function registerExperiment(program: Command, setExit: (code: number) => void): void {
  addTrainOptions(
    addImageViewOptions(
      addImageOptions(
        program
          .command('experiment')
          .description(
            'train the arms on one dataset, score every epoch, compare them with paired-bootstrap CIs, write the report',
          )
          .requiredOption(
            '--data <path>',
            'a dataset folder or caption file in any format `prh data inspect` reads (Flickr8k, Flickr30k, Karpathy, Multi30k, COCO, image,caption CSV/JSONL, dataset.json)',
          )
          .option('--images <dir>', 'the image folder, when it is not beside the captions')
          .option(
            '--fit-pairs <n>',
            'photos the map is fitted on (default: every val photo; a seeded split holds out min(1,014, 10%))',
            num('fit-pairs'),
          )
          .option(
            '--test-pairs <n>',
            'photos it is scored on (default: every test photo; a seeded split holds out min(1,000, 10%))',
            num('test-pairs'),
          )
          .option(
            '--split-seed <n>',
            'seed of the split of data without one, and of fit/test subsets (default 0)',
            num('split-seed'),
          )
          .option(
            '--arms <list>',
            `comma list of ${ARMS.join(', ')} (default good,bad,ntp; with --image-views good,bad)`,
            list,
          ),
      ),
    ),
  ).action(async (o) => {
    const imageViews = imageViewsOf(o);
    await runExperiment(
      {
        kind: 'experiment',
        version: 1,
        data: resolve(o.data),
        images: o.images && resolve(o.images),
        splitSeed: o.splitSeed,
        image: imageChoice(o),
        arms: o.arms ?? (imageViews ? ['good', 'bad'] : ['good', 'bad', 'ntp']),
        seeds: o.seeds,
        train: trainingSettings(o),
        armLr: o.armLr,
        parallel: o.parallel,
        executor: executorOf(o),
        ...(imageViews ? { imageViews } : {}),
        eval: {
          ...(o.bootstrap ? { bootstrap: o.bootstrap } : {}),
          ...(o.fitPairs ? { fitPairs: o.fitPairs } : {}),
          ...(o.testPairs ? { testPairs: o.testPairs } : {}),
        },
      },
      o,
      setExit,
    );
  });

  addTrainOptions(
    program
      .command('demo')
      .description(
        `the whole experiment on the default procedural world with the shipped world encoder (${DEMO_EPOCHS} epochs, about 5-7 minutes on 2 cores); each arm at its world-tuned rate (${ratesText(WORLD_ARM_LR)}): --arm-lr changes single arms, --lr sets one rate for all`,
      )
      .option('--world <dir>', 'where the default world lives (generated when absent)'),
    { epochs: DEMO_EPOCHS, lr: `each arm's world-tuned rate, ${ratesText(WORLD_ARM_LR)}` },
  ).action(async (o) => {
    const dir = o.world ?? defaultWorldDir(userDataDir());
    if (!existsSync(join(dir, 'dataset.json'))) {
      if (!o.json) console.error(`generating the default world in ${dir} ...`);
      generateWorld(dir, { preset: 'paper-like', seed: 0 });
    }
    await runExperiment(demoConfig(dir, o), o, setExit);
  });
}
