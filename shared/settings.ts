// App settings: one JSON file (`config.json` in the app's user-data folder) written by electron-store in the
// desktop app and read by `prh serve` with the same library underneath (conf), so both see the same runs.
import { z } from 'zod';

// Values that land in `#SBATCH` lines and the generated shell script: one line each, and names without spaces or
// quotes, so no setting can end a line and start a command.
const oneLine = z
  .string()
  .min(1)
  .max(500)
  .regex(/^[^\r\n\0]*$/, 'one line, no line breaks');
const slurmName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9_.+-]+$/, 'letters, digits and _ . + - only');

// sbatch options the batch script sets itself (engine/slurm/script.ts), or that change what a job runs, where it
// reads or writes, or whose it is: never taken from `extra`. sbatch takes any unambiguous prefix of a long option
// (`--out=` is `--output=`), so a name that starts one of these is refused too.
const RESERVED_LONG = [
  'output', 'error', 'input', 'chdir', 'export', 'export-file', 'wrap', 'job-name', 'open-mode', 'requeue',
  'no-requeue', 'array', 'get-user-env', 'uid', 'gid', 'parsable', 'wait', 'test-only', 'container', 'container-id',
  'bb', 'bbf', 'nodefile',
]; // prettier-ignore
const RESERVED_SHORT = 'oeiDJaWF';

// One `extra` line: `--name[=value]` or `--name value`, or `-x [value]`, a value without spaces; `#SBATCH ` may
// lead. Returns why the line is refused, or null.
export function extraLineProblem(line: string): string | null {
  const opt = line.replace(/^#SBATCH\s+/, '').trim();
  const long = /^--([A-Za-z][A-Za-z0-9-]*)(?:=\S+|\s+[^\s-]\S*)?$/.exec(opt);
  const short = /^-([A-Za-z])(?:\s+[^\s-]\S*)?$/.exec(opt);
  if (!long && !short) return 'one sbatch option per line, as --name=value (e.g. --qos=high), a value without spaces';
  if (long && RESERVED_LONG.some((r) => r.startsWith(long[1].toLowerCase())))
    return `--${long[1]} is set by the batch script itself, or changes what the job runs or where it writes`;
  if (short && RESERVED_SHORT.includes(short[1]))
    return `-${short[1]} is set by the batch script itself, or changes what the job runs or where it writes`;
  return null;
}
const extraLine = oneLine.superRefine((line, ctx) => {
  const problem = extraLineProblem(line);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

// What one batch job asks the cluster for: named, validated fields only, so that an experiment's own pick (which a
// served page may send) can never choose what a job runs or where it writes.
export const SlurmResources = z.object({
  partition: slurmName.optional(), // default: the cluster's default partition
  account: slurmName.optional(),
  // Slurm's time formats: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S
  time: z
    .string()
    .regex(/^(\d+-\d+(:\d+){0,2}|\d+(:\d+){0,2})$/, 'a Slurm time limit: minutes, H:MM:SS or D-HH:MM:SS')
    .optional(),
  gpus: z.number().int().min(0).max(64).optional(), // --gres=gpu:N (0 or absent: no GPU)
  gpuType: slurmName.optional(), // --gres=gpu:<type>:N, e.g. a100
  cpus: z.number().int().min(1).max(1024).optional(), // --cpus-per-task
  memory: z
    .string()
    .regex(/^\d+[KMGT]?$/i, 'a Slurm memory size: a number of MB, or with K/M/G/T')
    .optional(), // --mem
  qos: slurmName.optional(), // --qos
  reservation: slurmName.optional(), // --reservation
  // --constraint: node features joined by & | , with optional [ ] ( ) * counts, e.g. "a100&ib"
  constraint: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[A-Za-z0-9_.+:&|,*![\]()-]+$/, 'node features joined by &, | or , (e.g. a100&ib)')
    .optional(),
  exclusive: z.boolean().optional(), // --exclusive: no other job on the node
});
export type SlurmResources = z.infer<typeof SlurmResources>;

// The cluster: resources for every child run, plus how a job starts the worker on a node and how often the app looks.
// `extra`, `setup`, `node` and `project` are written by the user in the settings file or the desktop app only.
export const SlurmSettings = SlurmResources.extend({
  // Other #SBATCH options, one per line, e.g. `--mail-type=END`; never one the script sets (extraLineProblem)
  extra: z.array(extraLine).max(32).optional(),
  node: oneLine.optional(), // Node.js on the nodes (default: `node` on the job's PATH)
  project: oneLine.optional(), // this project's folder as the nodes see it (default: where this installation runs from)
  setup: z.array(oneLine).max(32).optional(), // shell lines run before the worker, e.g. `module load nodejs/20`
  requeue: z.boolean().optional(), // let Slurm requeue the job after preemption or node failure (default: yes)
  maxResubmits: z.number().int().min(0).max(20).optional(), // resubmissions after the cluster ended a job (default: 2)
  pollSeconds: z.number().min(1).max(600).optional(), // how often squeue/scontrol is asked (default: 10)
});
export type SlurmSettings = z.infer<typeof SlurmSettings>;

export const Executor = z.enum(['local', 'slurm']);
export type Executor = z.infer<typeof Executor>;

// An experiment's own pick (ExperimentConfig.executor): where its arms compute, and what its jobs ask for over the
// settings' slurm block (a field set here wins). Strict: free-form lines (`extra`, `setup`) come from the settings only.
export const ExecutorChoice = z.strictObject(
  { ...SlurmResources.shape, kind: Executor },
  {
    error: (iss) =>
      iss.code === 'unrecognized_keys'
        ? `not an experiment's executor field: ${iss.keys.join(', ')} (free-form #SBATCH and setup lines are set in the settings file or the desktop app)`
        : undefined,
  },
);
export type ExecutorChoice = z.infer<typeof ExecutorChoice>;

// `<experiment run>/executor.json`, written by the app when it starts or resumes the run, read by its worker: the
// settings and the experiment's pick merged, so the worker needs no settings file of its own.
export const RunExecutor = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('local') }),
  z.object({ kind: z.literal('slurm'), slurm: SlurmSettings }),
]);
export type RunExecutor = z.infer<typeof RunExecutor>;

export function resolveExecutor(settings: Pick<Settings, 'executor' | 'slurm'>, choice?: ExecutorChoice): RunExecutor {
  const kind = choice?.kind ?? settings.executor ?? 'local';
  if (kind === 'local') return { kind };
  const { kind: _, ...overrides } = choice ?? { kind };
  return { kind, slurm: SlurmSettings.parse({ ...settings.slurm, ...overrides }) };
}

export const Settings = z.object({
  runsDir: z.string().min(1).optional(), // default: <user data>/runs
  threads: z.number().int().min(1).max(256).optional(), // jobs at once; default: number of cores
  theme: z.enum(['system', 'light', 'dark']).default('system'),
  dataRoots: z.array(z.string().min(1)).max(32).optional(), // folders the browser of `prh serve` may list, beside the lab's datasets
  executor: Executor.optional(), // where child runs compute: this machine's processes (default) or Slurm batch jobs
  slurm: SlurmSettings.optional(),
});
export type Settings = z.infer<typeof Settings>;

// A change to some settings: every field optional, no default filled (Settings.partial() fills `theme`, so saving one
// field would reset it). A field given a default above needs its unwrap here too.
export const SettingsPatch = Settings.extend({ theme: Settings.shape.theme.unwrap() }).partial();
