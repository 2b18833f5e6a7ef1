// The New experiment form as the user edits it, the ExperimentConfig input it stands for, and what blocks starting
// it, in words next to the field: the seed list as typed, the backend's own schema's issues, and a dataset that does
// not exist yet.
import { computed, reactive, type Ref } from 'vue';
import type { DatasetInfo } from '../../../shared/api';
import {
  EvalProtocol,
  ExperimentConfig,
  ImageViews,
  WORLD_ARM_LR,
  type ExperimentConfigInput,
} from '../../../shared/experiment';
import { issuePath, issueText } from '../../../shared/issues';
import type { ImageDevice } from '../../../shared/gpu';
import { ARMS, DEFAULT_LAMB, DEFAULT_LAMB_EFF, TRAIN_DEFAULTS, type Arm } from '../../../shared/train';

// The schemas' defaults, read once: the form starts where a config file that names nothing would.
const EVAL = EvalProtocol.parse({}),
  IMAGE_VIEWS = ImageViews.parse({});

export const defaultForm = () => ({
  name: '',
  data: '',
  model: 'world' as string, // 'world' or an .onnx path
  modelKind: 'world' as 'world' | 'onnx',
  onnxPreset: '' as '' | 'dinov2' | 'imagenet-cnn' | 'custom',
  imageOutput: '', // tensor holding the embedding ('' = the preset's); a graph output or an intermediate
  imagePool: '' as '' | 'none' | 'cls' | 'mean-patches',
  images: '', // image folder, when not beside the captions
  fitPairs: '' as number | '', // '' = every val photo (or the seeded split's default)
  testPairs: '' as number | '',
  imageDevice: 'auto' as ImageDevice, // where the image encoder runs
  backend: TRAIN_DEFAULTS.backend, // the tfjs backend the arms train on
  select: TRAIN_DEFAULTS.select, // the checkpoint each arm is scored at
  arms: ['good', 'bad', 'ntp'] as Arm[],
  lr: TRAIN_DEFAULTS.lr, // peak learning rate of every arm without its own
  armLr: { good: '', bad: '', ntp: '', 'pair-ntp': '' } as Record<Arm, number | ''>, // '' = lr
  preset: TRAIN_DEFAULTS.preset,
  epochs: TRAIN_DEFAULTS.epochs,
  batch: TRAIN_DEFAULTS.batch,
  loss: TRAIN_DEFAULTS.loss,
  lambdaMode: 'lamb' as 'lamb' | 'lambEff',
  lamb: DEFAULT_LAMB,
  lambEff: DEFAULT_LAMB_EFF,
  seeds: '0',
  k: EVAL.k,
  bootstrap: EVAL.bootstrap,
  imageViews: false, // the 2x2: image arms (good/bad image views) trained inside the experiment, procedural worlds only
  imageSteps: IMAGE_VIEWS.steps, // AdamW steps per image arm
  imageRenders: IMAGE_VIEWS.renders, // renders per training scene the good image arm draws its views from
  executor: '' as '' | 'local' | 'slurm', // '': the settings' executor
  partition: '', // Slurm overrides of the settings' slurm block; '' or 0: the settings' value
  time: '',
  gpus: 0,
});
export type ExperimentForm = ReturnType<typeof defaultForm>;

// Config paths as the form labels them.
const FIELD_NAMES: Record<string, string> = {
  data: 'dataset',
  'image.model': 'model path',
  arms: 'arms',
  'train.epochs': 'epochs',
  'train.batch': 'batch',
  'train.lamb': 'λ',
  'train.lambEff': 'λ_eff',
  'eval.k': 'mutual k-NN k',
  'eval.bootstrap': 'bootstrap resamples',
  'eval.fitPairs': 'fit pairs',
  'eval.testPairs': 'test pairs',
  name: 'name',
  'image.output': 'embedding tensor',
  'image.pool': 'pooling',
  images: 'image folder',
  'imageViews.steps': 'image-arm steps',
  'imageViews.renders': 'renders per scene',
  image: 'image encoder',
  'executor.partition': 'partition',
  'executor.time': 'time limit',
  'executor.gpus': 'GPUs per job',
  'train.lr': 'learning rate',
  ...Object.fromEntries(ARMS.map((a) => [`armLr.${a}`, `${a} learning rate`])),
};

// The rates of the checked arms that have their own (an unchecked arm's rate stays in the form, out of the config).
function armLrOf(f: ExperimentForm): ExperimentConfigInput['armLr'] {
  const own = f.arms.filter((a) => f.armLr[a] !== '').map((a) => [a, f.armLr[a]]);
  return own.length ? Object.fromEntries(own) : undefined;
}
// Fills each arm's rate with the one picked for it on the default world (prh demo's).
export const fillWorldRates = (f: ExperimentForm) => Object.assign(f.armLr, WORLD_ARM_LR);

// Where the arms run: nothing (the settings decide), this machine, or Slurm with the overrides the form sets.
function executorOf(f: ExperimentForm): ExperimentConfigInput['executor'] {
  if (!f.executor) return undefined;
  if (f.executor === 'local') return { kind: 'local' };
  return {
    kind: 'slurm',
    ...(f.partition.trim() ? { partition: f.partition.trim() } : {}),
    ...(f.time.trim() ? { time: f.time.trim() } : {}),
    ...(f.gpus ? { gpus: f.gpus } : {}),
  };
}

export function useExperimentForm(datasets: Ref<DatasetInfo[]>) {
  const form = reactive(defaultForm());
  const seedParts = computed(() =>
    form.seeds
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
  // The seeds the list names (an entry that is not a whole number is not a seed: it is an issue below).
  const seedList = computed(() => seedParts.value.filter((x) => /^\d+$/.test(x)).map(Number));
  // The list as typed, and the entries that are not seeds: "seeds: 1, 2, x: x is not a whole number".
  const seedIssue = computed(() => {
    const bad = seedParts.value.filter((s) => !/^\d+$/.test(s));
    if (!seedParts.value.length) return 'seeds: give at least one seed, e.g. 0 or 0, 1, 2';
    return bad.length
      ? `seeds: ${seedParts.value.join(', ')}: ${bad.join(', ')} ${bad.length > 1 ? 'are not whole numbers' : 'is not a whole number'} (0 or more)`
      : '';
  });
  const config = computed<ExperimentConfigInput>(() => ({
    kind: 'experiment',
    version: 1,
    ...(form.name.trim() ? { name: form.name.trim() } : {}),
    data: form.data,
    ...(form.images.trim() ? { images: form.images.trim() } : {}),
    image: {
      ...(form.modelKind === 'world' || form.imageViews
        ? { model: 'world' }
        : {
            model: form.model,
            ...(form.onnxPreset ? { preset: form.onnxPreset } : {}),
            ...(form.imageOutput ? { output: form.imageOutput } : {}),
            ...(form.imagePool ? { pool: form.imagePool } : {}),
          }),
      ...(form.imageDevice !== 'auto' ? { device: form.imageDevice } : {}),
    },
    arms: [...form.arms],
    seeds: seedList.value,
    train: {
      preset: form.preset,
      epochs: form.epochs,
      batch: form.batch,
      lr: form.lr,
      loss: form.loss,
      ...(form.backend !== TRAIN_DEFAULTS.backend ? { backend: form.backend } : {}),
      ...(form.select !== TRAIN_DEFAULTS.select ? { select: form.select } : {}),
      ...(form.lambdaMode === 'lamb' ? { lamb: form.lamb } : { lambEff: form.lambEff }),
    },
    armLr: armLrOf(form),
    eval: {
      k: form.k,
      bootstrap: form.bootstrap,
      ...(form.fitPairs !== '' ? { fitPairs: form.fitPairs } : {}),
      ...(form.testPairs !== '' ? { testPairs: form.testPairs } : {}),
    },
    ...(form.executor ? { executor: executorOf(form) } : {}),
    ...(form.imageViews
      ? { imageViews: { arms: ['good', 'bad'], steps: form.imageSteps, renders: form.imageRenders } }
      : {}),
  }));
  const check = computed(() => ExperimentConfig.safeParse(config.value));
  const issues = computed(() => [
    ...(seedIssue.value ? [{ path: 'seeds', message: seedIssue.value }] : []),
    ...(check.value.success
      ? []
      : check.value.error.issues
          .filter((i) => !(seedIssue.value && i.path[0] === 'seeds'))
          .map((i) => ({
            path: issuePath(i) || '(config)',
            message: `${FIELD_NAMES[issuePath(i)] ?? issuePath(i)}: ${issueText(i)}`,
          }))),
  ]);
  // The issue to show beside one field (by its config path), '' when it is fine.
  const issueFor = (path: string) =>
    issues.value
      .filter((i) => i.path === path || i.path.startsWith(`${path}.`))
      .map((i) => i.message)
      .join('; ');
  const selectedInfo = computed(() => datasets.value.find((d) => d.path === form.data));
  const dataIssue = computed(() =>
    !form.data
      ? 'choose a dataset'
      : selectedInfo.value && !selectedInfo.value.exists
        ? 'this dataset is not generated yet'
        : form.imageViews && selectedInfo.value && selectedInfo.value.source !== 'world'
          ? 'the 2x2 (image views) renders the scenes again: it needs a procedural world, not ' +
            selectedInfo.value.source +
            ' photos'
          : '',
  );
  // A dataset chosen when none is: the first generated one in the list.
  const pickListed = () => {
    // Only an empty choice: a path the user typed or browsed to (not a lab dataset) must survive the list loading.
    if (!form.data) form.data = (datasets.value.find((d) => d.exists) ?? datasets.value[0])?.path ?? '';
  };
  const ready = computed(() => !issues.value.length && !dataIssue.value);
  return { form, config, seedList, issues, issueFor, selectedInfo, dataIssue, pickListed, ready };
}
