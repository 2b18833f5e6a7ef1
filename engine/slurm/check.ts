// `prh slurm check`: can child runs go to this cluster? The Slurm commands, the controller, accounting, the
// partition, whether sbatch takes the job as configured, and a probe job that writes into the runs folder from a
// node (the shared filesystem), reporting the nodes' Node.js and whether the project's worker starts there.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { SlurmSettings } from '../../shared/settings';
import type { EntryCommand } from '../child';
import { Slurm, jobFailure } from './client';
import { notFound, type SlurmEnv } from './command';
import { jobEnded, jobPhase } from './job';
import { localProject, nodeCommand, sbatchOptions, workerJob, type BatchJob } from './script';

export type CheckRow = { check: string; ok: boolean; detail: string };
export type CheckReport = { ok: boolean; checks: CheckRow[]; kept: string | null }; // kept: the probe's folder, left when a check failed

export type CheckOptions = SlurmEnv & {
  runsDir: string;
  settings: SlurmSettings;
  worker: EntryCommand; // how this machine starts the worker (engine/worker's workerCommand())
  probe?: boolean; // submit the probe job (default: yes)
  waitMs?: number; // how long the probe may wait in the queue and run (default 300 s)
  pollMs?: number;
};

// Runs on the node with the nodes' Node: writes what it sees into the runs folder, and starts the worker without
// arguments (it answers with its usage line and exit code 2 once the project and tsx load).
const PROBE = [
  "const { spawnSync } = require('node:child_process'); const fs = require('node:fs'); const os = require('node:os');",
  'const [out, ...worker] = process.argv.slice(1);',
  "const r = spawnSync(process.execPath, worker, { encoding: 'utf8', timeout: 120000 });",
  'fs.writeFileSync(out, JSON.stringify({ host: os.hostname(), node: process.version, cwd: process.cwd(),',
  "  worker: { code: r.status, output: String(r.stderr || '') + String(r.stdout || '') + (r.error ? r.error.message : '') } }));",
].join(' ');

type Probe = { host: string; node: string; cwd: string; worker: { code: number | null; output: string } };

// `>=20.19` against `v20.11.1`.
export function nodeSatisfies(version: string, engines: string): boolean {
  const want = /^>=\s*(\d+)(?:\.(\d+))?/.exec(engines.trim());
  const have = /^v?(\d+)\.(\d+)/.exec(version.trim());
  if (!want || !have) return true; // a range this check does not read: the worker's start decides
  const [wm, wn, hm, hn] = [want[1], want[2] ?? '0', have[1], have[2]].map(Number);
  return hm > wm || (hm === wm && hn >= wn);
}

function enginesNode(): string | null {
  const root = localProject();
  if (!root) return null;
  try {
    return (
      (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines?: { node?: string } }).engines?.node ??
      null
    );
  } catch {
    return null;
  }
}

export async function slurmCheck(o: CheckOptions): Promise<CheckReport> {
  const slurm = new Slurm(o);
  const s = o.settings;
  const checks: CheckRow[] = [];
  const add = (check: string, ok: boolean, detail: string) => void checks.push({ check, ok, detail });
  const message = (e: unknown) => (e instanceof Error ? e.message : String(e));
  let kept: string | null = null;
  const report = (): CheckReport => ({ ok: checks.every((c) => c.ok), checks, kept });

  for (const cmd of ['sbatch', 'squeue', 'scontrol', 'scancel']) {
    const at = slurm.locate(cmd);
    add(cmd, at !== null, at ?? notFound(cmd));
  }
  if (!checks.every((c) => c.ok)) return report();
  add('sacct', true, slurm.locate('sacct') ?? 'not installed: job states come from squeue and scontrol');

  try {
    const ping = await slurm.ping();
    const conf = await slurm.config();
    add(
      'controller',
      true,
      `${ping}; cluster ${conf.get('ClusterName') ?? '?'}, Slurm ${conf.get('SLURM_VERSION') ?? '?'}`,
    );
    add(
      'accounting',
      true,
      (await slurm.accounting())
        ? `on (${conf.get('AccountingStorageType')}): finished jobs are read with sacct`
        : `off: a finished job is read from scontrol while the controller remembers it (MinJobAge ${conf.get('MinJobAge') ?? '?'}), then from the run's own files`,
    );
    const p = await slurm.partition(s.partition);
    add(
      'partition',
      p.state === 'UP',
      `${p.name}${p.isDefault ? ' (default)' : ''}: ${p.state}, nodes ${p.nodes}, ${p.totalCpus} CPUs, max time ${p.maxTime}`,
    );
  } catch (e) {
    add(checks.some((c) => c.check === 'controller') ? 'partition' : 'controller', false, message(e));
  }
  if (!checks.every((c) => c.ok)) return report();

  const dir = join(
    o.runsDir,
    '.slurm-check',
    `${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}-${randomBytes(3).toString('hex')}`,
  );
  mkdirSync(dir, { recursive: true });
  let job: BatchJob;
  try {
    job = workerJob({ id: 'slurm-check', dir }, o.worker, s, false);
    add(
      'job request',
      true,
      `${sbatchOptions(s).join(' ') || '(cluster defaults)'}: ${await slurm.testOnly(dir, job)}`,
    );
  } catch (e) {
    add('job request', false, message(e));
    kept = dir;
    return report();
  }

  if (o.probe !== false) await probeJob(slurm, o, dir, job, add);
  if (checks.every((c) => c.ok)) rmSync(dir, { recursive: true, force: true });
  else kept = dir;
  return report();
}

async function probeJob(
  slurm: Slurm,
  o: CheckOptions,
  dir: string,
  worker: BatchJob,
  add: (check: string, ok: boolean, detail: string) => void,
): Promise<void> {
  const out = join(dir, 'probe.json');
  const [node, ...args] = nodeCommand(o.worker, o.settings).command;
  const probe: BatchJob = {
    ...worker,
    name: 'prh-slurm-check',
    resources: { ...worker.resources, time: '5' },
    requeue: false,
    command: [node, '-e', PROBE, out, ...args],
    resume: undefined,
  };
  const waitMs = o.waitMs ?? 300_000;
  const t0 = Date.now();
  const { jobId, output } = await slurm.submit(dir, probe);
  const j = await slurm.waitFor(jobId, { timeoutMs: waitMs, pollMs: o.pollMs });
  if (!j) return add('probe job', false, `job ${jobId} is gone from the controller and there is no accounting to ask`);
  if (!jobEnded(j)) {
    await slurm.cancel(jobId).catch(() => undefined);
    return add(
      'probe job',
      false,
      `job ${jobId} still ${j.state}${j.reason ? ` (${j.reason})` : ''} after ${Math.round(waitMs / 1000)} s; cancelled. Allow more with --wait, or pick a partition that starts sooner`,
    );
  }
  if (jobPhase(j) !== 'completed') return add('probe job', false, jobFailure(j, output));
  add(
    'probe job',
    true,
    `job ${jobId} ran on ${j.node ?? '?'} (${((Date.now() - t0) / 1000).toFixed(1)} s from sbatch to done)`,
  );

  if (!existsSync(out)) {
    return add(
      'runs folder shared',
      false,
      `the job completed on ${j.node ?? '?'} but its file ${out} is not here: the runs folder must be on a filesystem the nodes share, at the same path`,
    );
  }
  const seen = JSON.parse(readFileSync(out, 'utf8')) as Probe;
  add('runs folder shared', true, `${o.runsDir}: written on ${seen.host}, read here`);
  const engines = enginesNode();
  add(
    'node on the nodes',
    !engines || nodeSatisfies(seen.node, engines),
    `${seen.node} on ${seen.host}${engines ? ` (the project needs ${engines})` : ''}`,
  );
  const starts = seen.worker.code === 2 && /usage: worker/.test(seen.worker.output);
  add(
    'project on the nodes',
    starts,
    starts
      ? `${seen.cwd}: the worker starts`
      : `${seen.cwd}: the worker did not start (exit ${seen.worker.code}):\n${seen.worker.output.trim().split('\n').slice(-12).join('\n')}`,
  );
}
