// The Slurm client and `prh slurm check` against a real single-node Slurm (Debian's slurm-wlm and munge) that the
// harness starts on 127.0.0.1 and tears down: submit, track to COMPLETED, scancel, requeue, rejection, failure.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunStore } from '../../engine/runs';
import { Slurm, jobFailure, jobPhase, nodeCommand, workerJob, type BatchJob, type SlurmJob } from '../../engine/slurm';
import { workerCommand } from '../../engine/worker';
import { RunConfig } from '../../shared/runs';
import { leftovers, startCluster, unavailable, type Cluster } from './harness';

const prh = join(import.meta.dirname, '..', '..', 'bin', 'prh.js');
const skip = unavailable();

describe.skipIf(skip)(`a private single-node Slurm${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let c: Cluster;
  let slurm: Slurm;
  let work: string;
  const fast = { timeoutMs: 60_000, pollMs: 250 };
  // A trivial job: `sh -c SCRIPT sh ARGS...`, its output in its own folder.
  const shellJob = (name: string, script: string, extra: Partial<BatchJob> = {}): BatchJob => ({
    name,
    output: join(work, name, 'slurm-%j.out'),
    resources: {},
    requeue: false,
    cwd: work,
    command: ['/bin/sh', '-c', script, 'sh'],
    ...extra,
  });
  const submit = (job: BatchJob) => slurm.submit(join(work, job.name), job);
  const phaseOf = (p: ReturnType<typeof jobPhase>) => (j: SlurmJob) => jobPhase(j) === p;

  beforeAll(async () => {
    c = await startCluster();
    slurm = new Slurm({ env: c.env });
    work = mkdtempSync(join(tmpdir(), 'prh-slurm-work-'));
  });

  afterAll(async () => {
    if (!c) return;
    const { dir } = c;
    await c.stop();
    rmSync(work, { recursive: true, force: true });
    expect(leftovers(dir)).toEqual([]); // no daemon, slurmstepd or job left running
    expect(existsSync(dir)).toBe(false);
  });

  it('runs a generated script and tracks its state to COMPLETED', async () => {
    const job = shellJob('trivial', 'echo "hello from $SLURMD_NODENAME: $1"', {
      output: join(work, 'runs with spaces', 'slurm-%j.out'),
    });
    mkdirSync(join(work, 'runs with spaces'));
    job.command.push("it's one arg");
    const { jobId, output, script } = await submit(job);
    expect(output).toBe(join(work, 'runs with spaces', `slurm-${jobId}.out`));
    expect(readFileSync(script, 'utf8')).toMatch(/^#SBATCH --job-name=trivial$/m);
    const seen = new Set<string>();
    const done = await slurm.waitFor(jobId, {
      ...fast,
      until: (j) => (seen.add(j.state), jobPhase(j) === 'completed'),
    });
    expect(done).toMatchObject({
      id: jobId,
      name: 'trivial',
      state: 'COMPLETED',
      node: c.node,
      partition: c.partition,
      exitCode: 0,
      restarts: 0,
      source: 'scontrol',
    });
    expect(readFileSync(output, 'utf8')).toContain(`hello from ${c.node}: it's one arg`);
    expect([...seen].every((s) => ['PENDING', 'RUNNING', 'COMPLETING', 'COMPLETED'].includes(s))).toBe(true);
  });

  it("runs the project's worker for a run folder, as the nodes start it", async () => {
    const store = new RunStore(join(work, 'runs'));
    const run = store.create(RunConfig.parse({ kind: 'theory.prop3', version: 1, params: { worlds: 2 } }));
    const job = workerJob({ id: run.id, dir: store.dir(run.id) }, workerCommand(), {}, false);
    expect(job.command.slice(0, 1)).toEqual(['node']);
    const { jobId, output } = await slurm.submit(store.dir(run.id), job);
    const j = await slurm.waitFor(jobId, { ...fast, timeoutMs: 120_000 });
    expect(j, j ? jobFailure(j, output) : 'forgotten').toMatchObject({ state: 'COMPLETED', exitCode: 0 });
    const lines = readFileSync(output, 'utf8').split('\n');
    expect(lines.some((l) => l.startsWith('{"type":"done"'))).toBe(true);
    expect(store.metrics(run.id).filter((m) => m.scope === 'prop3')).toHaveLength(82); // 2 worlds x 41 grid points, as `prh theory prop3 --worlds 2`
  });

  it('scancel stops a running job with SIGTERM first, and it reads as cancelled', async () => {
    const { jobId, output } = await submit(shellJob('cancel', 'trap "echo got TERM; exit 0" TERM; sleep 300 & wait'));
    expect(jobPhase((await slurm.waitFor(jobId, { ...fast, until: phaseOf('running') }))!)).toBe('running');
    await new Promise((r) => setTimeout(r, 500)); // the trap is set once the shell runs
    await slurm.cancel(jobId);
    const j = await slurm.waitFor(jobId, fast);
    expect(j).toMatchObject({ state: 'CANCELLED' });
    expect(jobPhase(j!)).toBe('cancelled');
    expect(readFileSync(output, 'utf8')).toContain('got TERM');
  });

  it('sees a requeued job as requeued, and its rerun gets the resume flag', async () => {
    const args = join(work, 'requeue', 'args.txt');
    const job = shellJob('requeue', `echo "$*" >> ${args}; sleep 300`, {
      requeue: true,
      resume: { flag: '--resume', now: false },
    });
    job.command.push('first-arg');
    const { jobId } = await submit(job);
    await slurm.waitFor(jobId, { ...fast, until: phaseOf('running') });
    await waitForFile(args);
    c.scontrol('requeue', jobId);
    const requeued = await slurm.waitFor(jobId, { ...fast, until: phaseOf('requeued') });
    expect(requeued).toMatchObject({ state: 'PENDING', restarts: 1 });
    c.scontrol('update', `JobId=${jobId}`, 'StartTime=now'); // a requeued job waits for a begin time otherwise
    const again = await slurm.waitFor(jobId, { ...fast, until: phaseOf('running') });
    expect(again).toMatchObject({ state: 'RUNNING', restarts: 1, node: c.node });
    await waitFor(() => readFileSync(args, 'utf8').split('\n').length > 2);
    expect(readFileSync(args, 'utf8').trim().split('\n')).toEqual(['first-arg', 'first-arg --resume']);
    await slurm.cancel(jobId);
    expect(jobPhase((await slurm.waitFor(jobId, fast))!)).toBe('cancelled');
  });

  it("shows Slurm's message when sbatch rejects a job, and names the partitions there are", async () => {
    await expect(submit(shellJob('rejected', 'true', { resources: { partition: 'nope' } }))).rejects.toThrow(
      /^sbatch rejected the job: invalid partition specified: nope; Batch job submission failed: Invalid partition name specified \(partitions on this cluster: debug\)$/,
    );
    await expect(submit(shellJob('gres', 'true', { resources: { gpus: 1 } }))).rejects.toThrow(
      /sbatch rejected the job: .*Invalid generic resource \(gres\) specification/,
    );
    await expect(slurm.partition('nope')).rejects.toThrow(
      "unknown Slurm partition 'nope': the cluster has debug (default)",
    );
    expect(await slurm.partition()).toMatchObject({ name: 'debug', isDefault: true, state: 'UP' });
  });

  it('says why a job failed, with the end of its output file', async () => {
    const { jobId, output } = await submit(
      shellJob('failing', 'echo step one; echo "boom: no such dataset" >&2; exit 3'),
    );
    const j = (await slurm.waitFor(jobId, fast))!;
    expect(jobPhase(j)).toBe('failed');
    expect(jobFailure(j, output)).toBe(
      `Slurm job ${jobId} FAILED on ${c.node}, exit code 3; the end of ${output}:\n${readFileSync(output, 'utf8').trimEnd()}`,
    );
    expect(jobFailure(j, output)).toMatch(/step one\nboom: no such dataset$/);
    expect(jobFailure(j, join(work, 'elsewhere.out'))).toMatch(
      /no output file .* is the runs folder on a filesystem the nodes share/,
    );
  });

  it('`prh slurm check` passes, with a probe job that wrote into the runs folder from the node', () => {
    const runs = join(work, 'check-runs');
    const r = spawnSync(process.execPath, [prh, 'slurm', 'check', '--runs', runs, '--wait', '60', '--json'], {
      env: { ...c.env, PRH_HOME: join(work, 'home') },
      encoding: 'utf8',
    });
    const report = JSON.parse(r.stdout) as { ok: boolean; checks: { check: string; ok: boolean; detail: string }[] };
    expect(report.checks.filter((x) => !x.ok)).toEqual([]);
    expect(r.status).toBe(0);
    const row = (name: string) => report.checks.find((x) => x.check === name)?.detail;
    expect(report.checks.map((x) => x.check)).toEqual([
      'sbatch',
      'squeue',
      'scontrol',
      'scancel',
      'sacct',
      'controller',
      'accounting',
      'partition',
      'job request',
      'probe job',
      'runs folder shared',
      'node on the nodes',
      'project on the nodes',
    ]);
    expect(row('accounting')).toMatch(/^off/);
    expect(row('partition')).toMatch(/^debug \(default\): UP/);
    expect(row('probe job')).toMatch(new RegExp(`ran on ${c.node}`));
    expect(row('node on the nodes')).toContain(process.version);
    expect(row('project on the nodes')).toBe(`${nodeCommand(workerCommand(), {}).cwd}: the worker starts`);
    expect(readdirSync(join(runs, '.slurm-check'))).toEqual([]); // the probe cleans up after itself when all is well
  });

  it('`prh slurm check` fails on an unknown partition, listing the ones there are', () => {
    const r = spawnSync(
      process.execPath,
      [prh, 'slurm', 'check', '--runs', join(work, 'check-runs'), '--partition', 'gpu', '--json'],
      {
        env: { ...c.env, PRH_HOME: join(work, 'home') },
        encoding: 'utf8',
      },
    );
    expect(r.status).toBe(1);
    const report = JSON.parse(r.stdout) as { ok: boolean; checks: { check: string; ok: boolean; detail: string }[] };
    expect(report.ok).toBe(false);
    expect(report.checks.at(-1)).toEqual({
      check: 'partition',
      ok: false,
      detail: "unknown Slurm partition 'gpu': the cluster has debug (default)",
    });
  });
});

describe('`prh slurm check` without a cluster', () => {
  const home = mkdtempSync(join(tmpdir(), 'prh-noslurm-'));
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  const check = (env: NodeJS.ProcessEnv) => {
    const r = spawnSync(process.execPath, [prh, 'slurm', 'check', '--runs', join(home, 'runs'), '--json'], {
      env: { ...env, PRH_HOME: home },
      encoding: 'utf8',
      timeout: 60_000,
    });
    return {
      status: r.status,
      report: JSON.parse(r.stdout) as { ok: boolean; checks: { check: string; ok: boolean; detail: string }[] },
    };
  };

  it('fails when the Slurm commands are missing, saying so', () => {
    const { status, report } = check({ ...process.env, PATH: join(home, 'empty') });
    expect(status).toBe(1);
    expect(report.ok).toBe(false);
    expect(report.checks[0]).toEqual({
      check: 'sbatch',
      ok: false,
      detail: expect.stringMatching(/^sbatch not found on PATH: run this on a machine that submits to the cluster/),
    });
  });

  const hasSbatch = spawnSync('which', ['sbatch']).status === 0;
  it.skipIf(!hasSbatch || existsSync('/etc/slurm/slurm.conf'))(
    "fails at the controller when no cluster is configured, with Slurm's words",
    () => {
      const env = { ...process.env };
      delete env.SLURM_CONF;
      const { status, report } = check(env);
      expect(status).toBe(1);
      expect(report.checks.slice(0, 5)).toMatchObject(
        ['sbatch', 'squeue', 'scontrol', 'scancel', 'sacct'].map((check) => ({ check, ok: true })),
      ); // the commands are there
      expect(report.checks.at(-1)).toMatchObject({
        check: 'controller',
        ok: false,
        detail: expect.stringMatching(
          /Could not establish a configuration source \(no Slurm configuration here: .* set SLURM_CONF/,
        ),
      });
    },
  );
});

async function waitFor(ok: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 200));
  }
}
const waitForFile = (f: string) => waitFor(() => existsSync(f));
