// The Slurm pieces that need no cluster: the generated batch script (run here by bash, as a node would), the worker
// command as the nodes start it, reading `scontrol -o` and sacct lines, the settings block, the output tail.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  Slurm,
  batchScript,
  jobEnded,
  jobPhase,
  nodeCommand,
  outputTail,
  sbatchOptions,
  workerJob,
  type BatchJob,
  type SlurmJob,
} from '../../engine/slurm';
import { jobFromSacct, jobFromScontrol, keyValues } from '../../engine/slurm/job';
import { nodeSatisfies } from '../../engine/slurm/check';
import { Settings, SlurmSettings } from '../../shared/settings';

const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'prh-slurm-script-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Runs a batch script with bash the way slurmstepd does (#SBATCH lines are comments to the shell).
function runScript(job: BatchJob, env: Record<string, string> = {}): { code: number | null; out: string; err: string } {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.sh`);
  writeFileSync(file, batchScript(job));
  const r = spawnSync('bash', [file], { env: { ...process.env, ...env }, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const argvJob = (extra: Partial<BatchJob> = {}): BatchJob => ({
  name: 'argv',
  output: join(dir, 'slurm-%j.out'),
  resources: {},
  requeue: false,
  cwd: dir,
  command: [
    process.execPath,
    '-e',
    'console.log(JSON.stringify([process.cwd(), ...process.argv.slice(1)]))',
    'two words',
    "it's",
    '$HOME',
    '*',
  ],
  ...extra,
});

describe('the batch script', () => {
  it('asks for the resources in #SBATCH lines', () => {
    const s = batchScript(
      argvJob({
        name: 'prh-20261201-train-abc',
        output: '/runs/a b/slurm-%j.out',
        requeue: true,
        resources: {
          partition: 'gpu',
          account: 'lab-1',
          time: '1-12:00:00',
          gpus: 2,
          gpuType: 'a100',
          cpus: 8,
          memory: '64G',
          extra: ['--qos=high', '#SBATCH --constraint=ib'],
        },
      }),
    );
    expect(s.split('\n').filter((l) => l.startsWith('#SBATCH'))).toEqual([
      '#SBATCH --job-name=prh-20261201-train-abc',
      '#SBATCH --output="/runs/a b/slurm-%j.out"',
      '#SBATCH --open-mode=append',
      '#SBATCH --requeue',
      '#SBATCH --partition=gpu',
      '#SBATCH --account=lab-1',
      '#SBATCH --time=1-12:00:00',
      '#SBATCH --gres=gpu:a100:2',
      '#SBATCH --cpus-per-task=8',
      '#SBATCH --mem=64G',
      '#SBATCH --qos=high',
      '#SBATCH --constraint=ib',
    ]);
    expect(s.startsWith('#!/bin/bash\n')).toBe(true);
    expect(sbatchOptions({ gpus: 0 })).toEqual([]); // no GPU, no --gres
    expect(sbatchOptions({ gpus: 1 })).toEqual(['--gres=gpu:1']);
    expect(batchScript(argvJob())).toMatch(/^#SBATCH --no-requeue$/m);
  });

  it('refuses a value that would break its #SBATCH line', () => {
    expect(() => batchScript(argvJob({ output: '/runs/"x"/out' }))).toThrow(/output path cannot hold a double quote/);
    expect(() => batchScript(argvJob({ name: 'a\nrm -rf /' }))).toThrow(/job name cannot hold .* a line break/);
  });

  it('runs its command in its folder with every argument intact, after the setup lines', () => {
    const r = runScript(argvJob({ setup: ['export PRH_SETUP=done', 'echo "setup $PRH_SETUP" >&2'] }));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual([dir, 'two words', "it's", '$HOME', '*']);
    expect(r.err).toMatch(/^\[prh\] job \? on .*, restarts 0\nsetup done\n$/);
  });

  it('adds the resume flag when asked, and when Slurm restarted the job', () => {
    const job = argvJob({ resume: { flag: '--resume', now: false } });
    expect(JSON.parse(runScript(job).out).slice(-1)).toEqual(['*']);
    expect(JSON.parse(runScript(job, { SLURM_RESTART_COUNT: '0' }).out).slice(-1)).toEqual(['*']);
    expect(JSON.parse(runScript(job, { SLURM_RESTART_COUNT: '2' }).out).slice(-2)).toEqual(['*', '--resume']);
    expect(JSON.parse(runScript({ ...job, resume: { flag: '--resume', now: true } }).out).slice(-2)).toEqual([
      '*',
      '--resume',
    ]);
  });

  it('stops at the first failing setup line, saying so', () => {
    const r = runScript(argvJob({ setup: ['module-load-nodejs 20'] }));
    expect(r.code).toBe(127);
    expect(r.err).toMatch(/module-load-nodejs: command not found/);
  });
});

describe('the worker as the nodes start it', () => {
  const here = {
    command: process.execPath,
    args: [
      '--import',
      pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs')).href,
      join(root, 'engine', 'worker', 'main.ts'),
    ],
    env: {},
  };

  it("is the same entry with the nodes' node, run in the project folder", () => {
    expect(nodeCommand(here, {})).toEqual({ cwd: root, command: ['node', ...here.args] });
    expect(nodeCommand(here, { node: '/opt/node20/bin/node' }).command[0]).toBe('/opt/node20/bin/node');
  });

  it('moves paths into the project onto where the nodes see it', () => {
    expect(nodeCommand(here, { project: '/cluster/home/me/prh' })).toEqual({
      cwd: '/cluster/home/me/prh',
      command: [
        'node',
        '--import',
        'file:///cluster/home/me/prh/node_modules/tsx/dist/esm/index.mjs',
        '/cluster/home/me/prh/engine/worker/main.ts',
      ],
    });
    const outside = { command: process.execPath, args: ['/opt/elsewhere/worker.mjs'], env: {} };
    expect(nodeCommand(outside, { project: '/cluster/prh' }).command).toEqual(['node', '/opt/elsewhere/worker.mjs']);
  });

  it("runs the project's worker entry from the project when the app is the desktop bundle", () => {
    const bundle = {
      command: '/opt/prh/prh-workbench',
      args: ['/opt/prh/resources/app.asar/out/main/worker.js'],
      env: { ELECTRON_RUN_AS_NODE: '1' },
    };
    expect(() => nodeCommand(bundle, {})).toThrow(/set slurm.project/);
    expect(nodeCommand(bundle, { project: '/cluster/prh' })).toEqual({
      cwd: '/cluster/prh',
      command: ['node', 'bin/entry.js', 'engine/worker/main.ts'],
    });
  });

  it('is a job per run: named after it, its output in the run folder, resuming after a requeue', () => {
    const job = workerJob(
      { id: '20261201-110000-train-abc123', dir: '/runs/20261201-110000-train-abc123' },
      here,
      { partition: 'gpu', gpus: 1, setup: ['module load nodejs'] },
      true,
    );
    expect(job).toMatchObject({
      name: 'prh-20261201-110000-train-abc123',
      output: '/runs/20261201-110000-train-abc123/slurm-%j.out',
      requeue: true,
      setup: ['module load nodejs'],
      cwd: root,
      resume: { flag: '--resume', now: true },
      resources: { partition: 'gpu', gpus: 1 },
    });
    expect(job.command.at(-1)).toBe('/runs/20261201-110000-train-abc123');
    expect(workerJob({ id: 'x', dir: '/runs/x' }, here, { requeue: false }, false, { partition: 'big' })).toMatchObject(
      { requeue: false, resources: { partition: 'big' } },
    );
  });
});

describe('job states', () => {
  // Lines as Slurm 22.05 printed them: running, requeued and waiting, cancelled.
  const running =
    'JobId=1 JobName=prh-t UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=4294901759 Nice=0 Account=(null) QOS=(null) JobState=RUNNING Reason=None Dependency=(null) Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0 RunTime=00:00:00 TimeLimit=UNLIMITED TimeMin=N/A SubmitTime=2026-12-01T10:58:10 EligibleTime=2026-12-01T10:58:10 AccrueTime=2026-12-01T10:58:10 StartTime=2026-12-01T10:58:11 EndTime=Unknown Deadline=N/A SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-01T10:58:11 Scheduler=Main Partition=debug AllocNode:Sid=localhost:32026 ReqNodeList=(null) ExcNodeList=(null) NodeList=prhnode BatchHost=prhnode NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:* TRES=cpu=1,node=1,billing=1 Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=* MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0 Features=(null) DelayBoot=00:00:00 OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null) Command=/tmp/a b/job.sh WorkDir=/tmp/a b StdErr=/tmp/a b/job-1.out StdIn=/dev/null StdOut=/tmp/a b/job-1.out Power=';
  const job = (state: string, extra: Partial<SlurmJob> = {}): SlurmJob => ({
    ...jobFromScontrol(running),
    state,
    ...extra,
  });

  it('reads a line of scontrol show job -o, values with spaces included', () => {
    expect(jobFromScontrol(running)).toEqual({
      id: '1',
      name: 'prh-t',
      state: 'RUNNING',
      reason: null,
      node: 'prhnode',
      partition: 'debug',
      restarts: 0,
      exitCode: 0,
      signal: 0,
      submitTime: '2026-12-01T10:58:10',
      startTime: '2026-12-01T10:58:11',
      endTime: null,
      source: 'scontrol',
    });
    const kv = keyValues(running);
    expect([kv.get('StdOut'), kv.get('WorkDir'), kv.get('TRES'), kv.get('AllocNode:Sid'), kv.get('Power')]).toEqual([
      '/tmp/a b/job-1.out',
      '/tmp/a b',
      'cpu=1,node=1,billing=1',
      'localhost:32026',
      '',
    ]);
    const requeued = running
      .replace('JobState=RUNNING Reason=None', 'JobState=PENDING Reason=BeginTime')
      .replace('Restarts=0', 'Restarts=1')
      .replace('NodeList=prhnode BatchHost=prhnode', 'NodeList=(null)');
    expect(jobFromScontrol(requeued)).toMatchObject({ state: 'PENDING', reason: 'BeginTime', restarts: 1, node: null });
    const cancelled = running
      .replace('JobState=RUNNING', 'JobState=CANCELLED')
      .replace('ExitCode=0:0', 'ExitCode=0:15');
    expect(jobFromScontrol(cancelled)).toMatchObject({ state: 'CANCELLED', exitCode: 0, signal: 15 });
    expect(() => jobFromScontrol('slurm_load_jobs error: Invalid job id specified')).toThrow(/not a line of scontrol/);
  });

  it('tells pending from running, requeued from ended by the cluster', () => {
    const phases = Object.fromEntries(
      [
        'PENDING',
        'CONFIGURING',
        'RUNNING',
        'COMPLETING',
        'COMPLETED',
        'FAILED',
        'OUT_OF_MEMORY',
        'CANCELLED',
        'TIMEOUT',
        'PREEMPTED',
        'NODE_FAIL',
        'BOOT_FAIL',
        'DEADLINE',
        'REQUEUED',
        'REQUEUE_HOLD',
        'SPECIAL_EXIT',
      ].map((s) => [s, jobPhase(job(s))]),
    );
    expect(phases).toEqual({
      PENDING: 'pending',
      CONFIGURING: 'pending',
      RUNNING: 'running',
      COMPLETING: 'running',
      COMPLETED: 'completed',
      FAILED: 'failed',
      OUT_OF_MEMORY: 'failed',
      CANCELLED: 'cancelled',
      TIMEOUT: 'interrupted',
      PREEMPTED: 'interrupted',
      NODE_FAIL: 'interrupted',
      BOOT_FAIL: 'interrupted',
      DEADLINE: 'interrupted',
      REQUEUED: 'requeued',
      REQUEUE_HOLD: 'requeued',
      SPECIAL_EXIT: 'failed',
    });
    expect(jobPhase(job('PENDING', { restarts: 1 }))).toBe('requeued');
    expect(jobPhase(job('RUNNING', { restarts: 1 }))).toBe('running'); // running again after a requeue
    expect(['PENDING', 'RUNNING', 'REQUEUED', 'COMPLETED', 'TIMEOUT'].map((s) => jobEnded(job(s)))).toEqual([
      false,
      false,
      false,
      true,
      true,
    ]);
  });

  it('reads sacct records, the last run of a requeued job with the count of earlier ones', () => {
    const text = [
      '4242|prh-x|REQUEUED|Prolog|gpu07|gpu|0:0|2026-12-01T10:00:00|2026-12-01T10:00:05|2026-12-01T10:20:00',
      '4242|prh-x|CANCELLED by 1000|None|gpu03|gpu|0:15|2026-12-01T10:00:00|2026-12-01T10:25:00|2026-12-01T11:00:00',
      '',
    ].join('\n');
    expect(jobFromSacct(text)).toEqual({
      id: '4242',
      name: 'prh-x',
      state: 'CANCELLED',
      reason: null,
      node: 'gpu03',
      partition: 'gpu',
      restarts: 1,
      exitCode: 0,
      signal: 15,
      submitTime: '2026-12-01T10:00:00',
      startTime: '2026-12-01T10:25:00',
      endTime: '2026-12-01T11:00:00',
      source: 'sacct',
    });
    expect(jobFromSacct('\n')).toBeNull();
  });
});

describe('the slurm settings block', () => {
  it('is optional and validated: names without spaces, Slurm time and memory formats, one-line sbatch options', () => {
    expect(Settings.parse({})).toEqual({ theme: 'system' });
    const ok = {
      executor: 'slurm',
      slurm: {
        partition: 'gpu',
        account: 'lab_1',
        time: '2:00:00',
        gpus: 1,
        gpuType: 'a100',
        cpus: 4,
        memory: '32G',
        extra: ['--qos=high'],
        node: '/opt/node/bin/node',
        project: '/shared/prh',
        setup: ['module load nodejs/20'],
        maxResubmits: 3,
      },
    };
    expect(Settings.parse(ok)).toEqual({ theme: 'system', ...ok });
    for (const time of ['30', '30:00', '2:00:00', '1-0', '1-12:00', '1-12:00:00'])
      expect(SlurmSettings.safeParse({ time }).success, time).toBe(true);
    const bad = {
      partition: 'gpu\nrm -rf ~',
      account: 'a b',
      time: '2h',
      memory: '32GB',
      gpus: -1,
      extra: ['qos=high'],
      setup: ['a\nb'],
    };
    for (const [k, v] of Object.entries(bad)) expect(SlurmSettings.safeParse({ [k]: v }).success, k).toBe(false);
    expect(Settings.safeParse({ executor: 'kubernetes' }).success).toBe(false);
  });
});

describe('the client without Slurm', () => {
  it('says that sbatch is missing, and how to get it', async () => {
    const slurm = new Slurm({ env: { PATH: join(dir, 'no-bin') } });
    await expect(slurm.submit(join(dir, 'job'), argvJob())).rejects.toThrow(
      /^sbatch not found on PATH: run this on a machine that submits to the cluster \(a login node\), or load its Slurm module$/,
    );
    await expect(slurm.job('1')).rejects.toThrow(/^scontrol not found on PATH/);
    expect(slurm.locate('sbatch')).toBeNull();
  });
});

describe('small helpers', () => {
  it("compares the nodes' Node.js with the project's engines", () => {
    expect(['v20.19.0', 'v20.20.2', 'v22.1.0', 'v20.11.1', 'v18.20.0'].map((v) => nodeSatisfies(v, '>=20.19'))).toEqual(
      [true, true, true, false, false],
    );
    expect(nodeSatisfies('v16.0.0', '^20 || ^22')).toBe(true); // not a range it reads: the worker's start decides
  });

  it('keeps the last lines of an output file', () => {
    const f = join(dir, 'out.txt');
    writeFileSync(f, Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n') + '\n');
    expect(outputTail(f, 3)).toEqual(['line 47', 'line 48', 'line 49']);
    expect(outputTail(f, 100, 20)).toEqual(['line 48', 'line 49']); // 20 bytes: ' 47' is a cut line, dropped
    expect(outputTail(join(dir, 'none.txt'))).toBeNull();
  });
});
