// The batch script of one job: `#SBATCH` lines from the resources, the setup lines, then one command run with exec
// (so Slurm's SIGTERM on cancel, preemption or time limit reaches it). Written into the run's folder, it can be
// resubmitted by hand with `sbatch`.
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { extraLineProblem, type SlurmResources, type SlurmSettings } from '../../shared/settings';
import type { EntryCommand } from '../child';
import { SlurmError } from './command';

// What a job's #SBATCH lines come from: its resources, and the settings' extra lines.
export type JobResources = SlurmResources & Pick<SlurmSettings, 'extra'>;

export type BatchJob = {
  name: string; // --job-name
  output: string; // --output: stdout and stderr in one file; %j is the job id
  resources: JobResources;
  requeue: boolean; // --requeue (else --no-requeue): Slurm may run it again after preemption or node failure
  setup?: string[]; // shell lines before the command, e.g. `module load nodejs/20`
  cwd: string; // where the command runs (on the node)
  command: string[]; // argv
  // `flag` is appended when `now`, or when Slurm restarted the job (SLURM_RESTART_COUNT > 0): a requeued worker
  // continues from its checkpoint instead of starting over.
  resume?: { flag: string; now: boolean };
};

// POSIX shell quoting: one word, whatever it holds.
export const shellQuote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

// sbatch reads `#SBATCH` lines itself and takes a double-quoted value with spaces, but has no escape for a quote.
function sbatchValue(s: string, what: string): string {
  if (/["\r\n\0]/.test(s))
    throw new SlurmError(
      `${what} cannot hold a double quote or a line break for an #SBATCH line: ${JSON.stringify(s)}`,
    );
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `"${s}"`;
}

// The job's own #SBATCH options from its resources, then the settings' `extra` lines (checked again here: whatever
// route a line came by, none may replace an option the script sets).
export function sbatchOptions(r: JobResources): string[] {
  const gres = r.gpus ? `gpu:${r.gpuType ? `${r.gpuType}:` : ''}${r.gpus}` : null;
  const extra = (r.extra ?? []).map((line) => {
    const problem = extraLineProblem(line);
    if (problem) throw new SlurmError(`slurm.extra ${JSON.stringify(line)}: ${problem}`);
    return line.replace(/^#SBATCH\s+/, '').trim();
  });
  return [
    r.partition && `--partition=${r.partition}`,
    r.account && `--account=${r.account}`,
    r.time && `--time=${r.time}`,
    gres && `--gres=${gres}`,
    r.cpus && `--cpus-per-task=${r.cpus}`,
    r.memory && `--mem=${r.memory}`,
    r.qos && `--qos=${r.qos}`,
    r.reservation && `--reservation=${r.reservation}`,
    r.constraint && `--constraint=${r.constraint}`,
    r.exclusive && '--exclusive',
    ...extra,
  ].filter((x): x is string => Boolean(x));
}

export function batchScript(j: BatchJob): string {
  const sbatch = [
    `--job-name=${sbatchValue(j.name, 'the job name')}`,
    `--output=${sbatchValue(j.output, 'the output path')}`,
    '--open-mode=append', // a requeued job adds to its output file instead of truncating it
    j.requeue ? '--requeue' : '--no-requeue',
    ...sbatchOptions(j.resources),
  ];
  const resume = j.resume
    ? [
        `resume=${j.resume.now ? shellQuote(j.resume.flag) : "''"}`,
        `if [ "\${SLURM_RESTART_COUNT:-0}" -gt 0 ]; then resume=${shellQuote(j.resume.flag)}; fi`,
      ]
    : [];
  const argv = j.command.map(shellQuote).join(' ') + (j.resume ? ' ${resume:+"$resume"}' : '');
  return [
    '#!/bin/bash',
    `# prh-workbench: ${j.name}, generated; \`sbatch\` this file to run it again`,
    ...sbatch.map((o) => `#SBATCH ${o}`),
    'set -eu',
    'echo "[prh] job ${SLURM_JOB_ID:-?} on $(hostname), start $(date -Is), restarts ${SLURM_RESTART_COUNT:-0}" >&2',
    ...(j.setup ?? []),
    `cd ${shellQuote(j.cwd)}`,
    ...resume,
    `exec ${argv}`,
    '',
  ].join('\n');
}

// This installation's project folder when it runs from source (tsx); null inside the bundled desktop app.
const here = fileURLToPath(import.meta.url);
export const localProject = (): string | null => (here.endsWith('.ts') ? resolve(dirname(here), '..', '..') : null);

const under = (root: string, p: string): boolean => p === root || p.startsWith(root + sep);

// How a node starts the worker that `worker` starts here (engine/worker's workerCommand(), or a stand-in): the same
// entry with the nodes' Node, run in the project's folder as the nodes see it. Paths and file: URLs into this
// project are moved onto `project` (same place on a shared filesystem). The desktop app's bundle has no sources,
// so there the project's own worker entry is run from `project`, which must then be set.
export function nodeCommand(
  worker: EntryCommand,
  s: Pick<SlurmSettings, 'node' | 'project'>,
): { cwd: string; command: string[] } {
  const node = s.node ?? 'node';
  const local = localProject();
  if (!local || worker.env.ELECTRON_RUN_AS_NODE) {
    if (!s.project)
      throw new SlurmError(
        "set slurm.project to the project's folder on the nodes: the desktop app does not carry the worker's sources",
      );
    return { cwd: s.project, command: [node, join('bin', 'entry.js'), join('engine', 'worker', 'main.ts')] };
  }
  const remote = s.project ?? local;
  const move = (a: string): string => {
    if (a.startsWith('file:')) {
      const p = fileURLToPath(a);
      return under(local, p) ? pathToFileURL(join(remote, relative(local, p))).href : a;
    }
    return isAbsolute(a) && under(local, a) ? join(remote, relative(local, a)) : a;
  };
  return { cwd: remote, command: [node, ...worker.args.map(move)] };
}

// The batch job of one run: the worker for the run's folder, its output beside the run's logs.
export function workerJob(
  run: { id: string; dir: string },
  worker: EntryCommand,
  s: SlurmSettings,
  resume: boolean,
  resources: JobResources = s,
): BatchJob {
  const { cwd, command } = nodeCommand(worker, s);
  return {
    name: `prh-${run.id}`,
    output: join(run.dir, 'slurm-%j.out'),
    resources,
    requeue: s.requeue ?? true,
    setup: s.setup,
    cwd,
    command: [...command, run.dir],
    resume: { flag: '--resume', now: resume },
  };
}
