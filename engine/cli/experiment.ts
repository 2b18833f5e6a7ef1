// `prh experiment` (the paper's experiment on any dataset and image encoder) and `prh demo` (the newcomer's
// one command: the default world, the shipped world encoder, three arms, the comparison table).
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ExperimentConfigInput, ExperimentResult } from '../../shared/experiment';
import { armsTable, differencesTable, spreadTable } from '../../shared/experiment-figures';
import { ARMS } from '../../shared/train';
import { defaultWorldDir, userDataDir } from '../api';
import { generateWorld } from '../data';
import { tableToMarkdown } from '../report';
import { numberOption as num } from './output';
import { openService, runAndWait } from './runs';
import { addTrainingOptions, trainingSettings } from './train';

const list = (v: string) => v.split(',').map((s) => s.trim()).filter(Boolean);
const numbers = (name: string) => (v: string) => list(v).map(num(name));

function printResult(r: ExperimentResult): void {
  for (const t of [armsTable(r.arms), differencesTable(r), spreadTable(r)]) console.log(`\n${tableToMarkdown(t)}`);
  for (const w of r.warnings ?? []) console.log(`warning: ${w}`);
}

async function runExperiment(config: ExperimentConfigInput, o: { runs?: string; json?: boolean }, setExit: (c: number) => void): Promise<void> {
  const service = openService(o.runs);
  const { state, code } = await runAndWait(service, config, Boolean(o.json));
  setExit(code);
  if (o.json) return console.log(JSON.stringify({ id: state.id, status: state.status, dir: service.store.dir(state.id), result: state.result, error: state.error }));
  if (state.status === 'done') {
    printResult(state.result as unknown as ExperimentResult);
    console.log(`\nreport: ${join(service.store.dir(state.id), 'report', 'index.md')}`);
  } else if (state.error) console.error(state.error);
}

// An experiment's flags: the shared training flags (passed to every arm) plus replicates and evaluation.
const addTrainOptions = (c: Command) =>
  addTrainingOptions(c)
    .option('--seeds <list>', 'training seeds (replicates), e.g. 0,1,2', numbers('seeds'))
    .option('--bootstrap <B>', 'paired bootstrap resamples', num('bootstrap'))
    .option('--parallel <n>', 'arms trained at once (default: cores)', num('parallel'))
    .option('--executor <where>', 'where the arms run: local | slurm (default: the settings)')
    .option('--partition <name>', 'Slurm partition for the arms (over the settings)')
    .option('--time <limit>', 'Slurm time limit per arm job, e.g. 4:00:00')
    .option('--gpus <n>', 'GPUs per arm job (--gres=gpu:N)', num('gpus'))
    .option('--runs <dir>', 'runs folder')
    .option('--json', 'print one JSON document');

// --executor and its Slurm overrides as ExperimentConfig.executor (validated with the config).
type ExecutorFlags = { executor?: string; partition?: string; time?: string; gpus?: number };
const executorOf = (o: ExecutorFlags): ExperimentConfigInput['executor'] => {
  const slurm = { ...(o.partition ? { partition: o.partition } : {}), ...(o.time ? { time: o.time } : {}), ...(o.gpus !== undefined ? { gpus: o.gpus } : {}) };
  if (!o.executor && !Object.keys(slurm).length) return undefined;
  return { kind: (o.executor ?? 'slurm') as 'local' | 'slurm', ...slurm };
};

export function registerExperiment(program: Command, setExit: (code: number) => void): void {
  addTrainOptions(
    program
      .command('experiment')
      .description('train the arms on one dataset, score every epoch, compare them with paired-bootstrap CIs, write the report')
      .requiredOption('--data <dir>', 'dataset folder (dataset.json + images/)')
      .option('--image-model <path>', "frozen image encoder: 'world' (shipped) or an .onnx file", 'world')
      .option('--image-preset <name>', 'dinov2 | imagenet-cnn | custom (detected when absent)')
      .option('--arms <list>', `comma list of ${ARMS.join(', ')}`, list, ['good', 'bad', 'ntp']),
  ).action(async (o) => {
    await runExperiment({
      kind: 'experiment', version: 1, data: o.data, image: { model: o.imageModel, preset: o.imagePreset }, arms: o.arms, seeds: o.seeds,
      train: trainingSettings(o), eval: o.bootstrap ? { bootstrap: o.bootstrap } : undefined, parallel: o.parallel, executor: executorOf(o),
    }, o, setExit);
  });

  addTrainOptions(
    program
      .command('demo')
      .description('the whole experiment on the default procedural world with the shipped world encoder (about 10 minutes on 2 cores)')
      .option('--world <dir>', 'where the default world lives (generated when absent)'),
  ).action(async (o) => {
    const dir = o.world ?? defaultWorldDir(userDataDir());
    if (!existsSync(join(dir, 'dataset.json'))) {
      if (!o.json) console.error(`generating the default world in ${dir} ...`);
      generateWorld(dir, { preset: 'paper-like', seed: 0 });
    }
    await runExperiment({
      kind: 'experiment', version: 1, name: 'demo: good vs bad views vs NTP on the procedural world', data: dir, image: { model: 'world' },
      arms: ['good', 'bad', 'ntp'], seeds: o.seeds, train: trainingSettings(o), parallel: o.parallel, executor: executorOf(o),
    }, o, setExit);
  });
}
