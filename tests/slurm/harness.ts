// A private single-node Slurm for tests: munged with its own key and socket, then
// slurmctld and slurmd in the foreground as child processes, all state in one temporary folder, ports picked free,
// on 127.0.0.1. stop() cancels every job, stops the daemons by their pid files and removes the folder; a cluster
// left by a killed test process is swept at the next start. Needs Debian's slurm-wlm and munge, and root.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
  chmodSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { randomBytes } from 'node:crypto';

const PREFIX = 'prh-slurm-cluster-';
const DAEMONS = ['munged', 'slurmctld', 'slurmd'] as const;
const CRED_EXPIRE_S = 10; // a requeued job's wait before it runs again (Slurm's default: 120 s)
const COMMANDS = ['sbatch', 'squeue', 'scontrol', 'scancel', 'sinfo'];

export type Cluster = {
  dir: string;
  conf: string;
  env: NodeJS.ProcessEnv; // process.env plus SLURM_CONF: what every Slurm command of a test needs
  partition: string;
  node: string;
  scontrol(...args: string[]): string; // for what the app never does itself (requeue, release)
  explain(jobId: string): string; // the job, the node and the daemons' last log lines: why a wait timed out
  stop(): Promise<void>;
};

function findBinary(name: string): string | null {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/sbin', '/usr/bin'];
  return dirs.map((d) => join(d, name)).find((p) => existsSync(p)) ?? null;
}

// Why the cluster cannot start here, or null.
export function unavailable(): string | null {
  if (process.platform !== 'linux') return 'Slurm tests need Linux';
  const missing = [...DAEMONS, ...COMMANDS].filter((c) => !findBinary(c));
  if (missing.length) return `Slurm tests need Debian's slurm-wlm and munge (missing: ${missing.join(', ')})`;
  if (process.getuid?.() !== 0) return 'Slurm tests start slurmd, which runs jobs as their users: they need root';
  return null;
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const readPid = (file: string): number | null => {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 1 ? pid : null;
  } catch {
    return null;
  }
};

// Every process whose environment names this cluster's config: the daemons' children (slurmstepd) and the jobs.
export function processesOf(conf: string): number[] {
  const needle = Buffer.from(`SLURM_CONF=${conf}\0`);
  const out: number[] = [];
  for (const e of readdirSync('/proc')) {
    const pid = Number(e);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/environ`).includes(needle)) out.push(pid);
    } catch {
      /* gone, or not ours to read */
    }
  }
  return out;
}

// The daemons' pids from their pid files, and every process that carries the cluster's config.
export function leftovers(dir: string): number[] {
  const pids = DAEMONS.map((d) => readPid(join(dir, `${d}.pid`))).filter((p): p is number => p !== null && alive(p));
  return [...new Set([...pids, ...processesOf(join(dir, 'slurm.conf'))])];
}

const signal = (pid: number, sig: NodeJS.Signals) => {
  try {
    process.kill(pid, sig);
  } catch {
    /* already gone */
  }
};

async function killAll(pids: () => number[], graceMs: number): Promise<void> {
  for (const p of pids()) signal(p, 'SIGTERM');
  const end = Date.now() + graceMs;
  while (pids().length && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
  for (const p of pids()) signal(p, 'SIGKILL');
}

// Clusters whose test process died without stop(): their daemons are stopped and their folders removed.
async function sweep(): Promise<void> {
  for (const name of readdirSync(tmpdir()).filter((n) => n.startsWith(PREFIX))) {
    const dir = join(tmpdir(), name);
    const owner = readPid(join(dir, 'owner.pid'));
    if (owner === null || alive(owner)) continue; // not a cluster folder, or its test still runs
    await killAll(() => leftovers(dir), 3000);
    rmSync(dir, { recursive: true, force: true });
  }
}

function slurmConf(dir: string, ports: { ctld: number; d: number }, node: string, partition: string): string {
  const ncpu = Math.max(1, cpus().length);
  return [
    'ClusterName=prhtest',
    'SlurmctldHost=localhost',
    'SlurmUser=root',
    'SlurmdUser=root',
    'AuthType=auth/munge',
    // cred_expire: how long a requeued job waits before it may run again, and how long slurmd refuses to launch it
    // ("Job N already killed, do not launch batch job": the old run's credential is revoked until then); default 120 s
    `AuthInfo=socket=${join(dir, 'munge.socket')},cred_expire=${CRED_EXPIRE_S}`,
    'CredType=cred/munge',
    `StateSaveLocation=${join(dir, 'spool', 'ctld')}`,
    `SlurmdSpoolDir=${join(dir, 'spool', 'd')}`,
    `SlurmctldPidFile=${join(dir, 'slurmctld.pid')}`,
    `SlurmdPidFile=${join(dir, 'slurmd.pid')}`,
    `SlurmctldPort=${ports.ctld}`,
    `SlurmdPort=${ports.d}`,
    `SlurmctldLogFile=${join(dir, 'slurmctld.log')}`,
    `SlurmdLogFile=${join(dir, 'slurmd.log')}`,
    // cgroup plugins need a cgroup setup containers may not give
    'ProctrackType=proctrack/linuxproc',
    'TaskPlugin=task/none',
    'JobAcctGatherType=jobacct_gather/none',
    'SelectType=select/cons_tres',
    'SelectTypeParameters=CR_Core',
    'ReturnToService=2',
    'MpiDefault=none',
    'SchedulerType=sched/backfill',
    'KillWait=5', // seconds from SIGTERM to SIGKILL on scancel (30 by default)
    `NodeName=${node} NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=${ncpu} RealMemory=1000 State=UNKNOWN`,
    `PartitionName=${partition} Nodes=${node} Default=YES MaxTime=INFINITE State=UP`,
    '',
  ].join('\n');
}

export async function startCluster(): Promise<Cluster> {
  await sweep();
  const dir = mkdtempSync(join(tmpdir(), PREFIX));
  writeFileSync(join(dir, 'owner.pid'), String(process.pid));
  mkdirSync(join(dir, 'spool', 'ctld'), { recursive: true });
  mkdirSync(join(dir, 'spool', 'd'), { recursive: true });
  const key = join(dir, 'munge.key');
  writeFileSync(key, randomBytes(1024));
  chmodSync(key, 0o600);
  const node = 'prhnode';
  const partition = 'debug';
  const conf = join(dir, 'slurm.conf');
  writeFileSync(conf, slurmConf(dir, { ctld: await freePort(), d: await freePort() }, node, partition));
  const env = { ...process.env, SLURM_CONF: conf };
  const children: ChildProcess[] = [];
  const cluster: Cluster = {
    dir,
    conf,
    env,
    partition,
    node,
    scontrol: (...args) => {
      const r = spawnSync('scontrol', args, { env, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`scontrol ${args.join(' ')}: ${r.stderr.trim()}`);
      return r.stdout;
    },
    explain: (jobId) => {
      const show = (...args: string[]) => {
        const r = spawnSync('scontrol', ['show', ...args], { env, encoding: 'utf8' });
        return (r.stdout || r.stderr || '').trim();
      };
      const tail = (name: string) =>
        existsSync(join(dir, name))
          ? readFileSync(join(dir, name), 'utf8').trimEnd().split('\n').slice(-15).join('\n')
          : `(no ${name})`;
      return [
        show('job', jobId),
        show('node', node),
        `slurmctld.log:\n${tail('slurmctld.log')}`,
        `slurmd.log:\n${tail('slurmd.log')}`,
      ].join('\n');
    },
    stop: async () => {
      process.off('exit', onExit);
      const jobs =
        spawnSync('squeue', ['-h', '-o', '%i'], { env, encoding: 'utf8' }).stdout?.split('\n').filter(Boolean) ?? [];
      if (jobs.length) spawnSync('scancel', jobs, { env });
      await killAll(() => leftovers(dir), 10_000);
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const onExit = () => {
    for (const p of leftovers(dir)) signal(p, 'SIGKILL');
  };
  process.on('exit', onExit);

  const start = (name: (typeof DAEMONS)[number], args: string[]) => {
    const log = join(dir, `${name}.out`);
    const child = spawn(findBinary(name)!, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    child.stdout!.on('data', (b: Buffer) => lines.push(String(b)));
    child.stderr!.on('data', (b: Buffer) => lines.push(String(b)));
    child.on('exit', () => existsSync(dir) && writeFileSync(log, lines.join('')));
    children.push(child);
    return { child, output: () => lines.join('') };
  };
  const daemons = [
    start('munged', [
      '--foreground',
      `--key-file=${key}`,
      `--socket=${join(dir, 'munge.socket')}`,
      `--pid-file=${join(dir, 'munged.pid')}`,
      `--seed-file=${join(dir, 'munged.seed')}`,
      `--log-file=${join(dir, 'munged.log')}`,
      '--force',
    ]),
  ];
  try {
    await until(() => existsSync(join(dir, 'munge.socket')), 10_000, 'munged did not create its socket', daemons);
    daemons.push(start('slurmctld', ['-D', '-c', '-f', conf]));
    daemons.push(start('slurmd', ['-D', '-N', node, '-f', conf]));
    // idle: slurmd has registered and the node takes jobs
    await until(
      () => spawnSync('sinfo', ['-h', '-o', '%t'], { env, encoding: 'utf8' }).stdout?.trim() === 'idle',
      30_000,
      'the node did not become idle',
      daemons,
    );
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}

async function until(
  ok: () => boolean,
  ms: number,
  what: string,
  daemons: { child: ChildProcess; output: () => string }[],
): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    const dead = daemons.find((d) => d.child.exitCode !== null);
    if (dead || Date.now() > end) {
      const said = daemons.map((d) => d.output().trim().split('\n').slice(-5).join('\n')).join('\n');
      throw new Error(
        `${what}${dead ? ` (${dead.child.spawnfile} exited with ${dead.child.exitCode})` : ` within ${ms / 1000} s`}:\n${said}`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
