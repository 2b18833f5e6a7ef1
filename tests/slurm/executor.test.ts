// Child runs as Slurm batch jobs on a real single-node Slurm (harness.ts): an experiment whose arms run entirely
// through sbatch scores as the local executor does with the same seeds; a requeued job and a scancelled one continue
// from their checkpoints; a job the cluster ended is resubmitted; errors say what Slurm said.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { fileSettings } from '../../engine/api';
import { Service } from '../../engine/api/service';
import { generateWorld } from '../../engine/data';
import { buildVitOnnx, randomVitWeights } from '../../engine/models/onnx';
import { RunStore, Scheduler, readOwner } from '../../engine/runs';
import { SlurmExecutor } from '../../engine/slurm';
import { workerCommand } from '../../engine/worker';
import type { ExperimentResult } from '../../shared/experiment';
import { RunConfig, type RunEvent, type RunState } from '../../shared/runs';
import type { SlurmSettings } from '../../shared/settings';
import { writeTinyWorld } from '../train/tiny-world';
import { leftovers, startCluster, unavailable, type Cluster } from './harness';

const skip = unavailable();

describe.skipIf(skip)(`child runs as Slurm jobs${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let c: Cluster;
  let work: string;

  beforeAll(async () => {
    c = await startCluster();
    work = mkdtempSync(join(tmpdir(), 'prh-slurm-exec-'));
    process.env.SLURM_CONF = c.conf; // the experiment's worker (a child of this process) submits its arms
  });

  afterAll(async () => {
    if (!c) return;
    const { dir } = c;
    await c.stop();
    rmSync(work, { recursive: true, force: true });
    expect(leftovers(dir)).toEqual([]);
  });

  // A train run (no experiment around it) in its own store, driven by a scheduler with the Slurm executor.
  const trainRun = (name: string, settings: SlurmSettings, epochs = 3) => {
    const data = join(work, 'tiny');
    if (!existsSync(data)) writeTinyWorld(data, { train: 320, val: 16, test: 16 });
    const store = new RunStore(join(work, name));
    const executor = new SlurmExecutor({
      env: c.env,
      settings: { pollSeconds: 1, ...settings },
      worker: workerCommand(),
    });
    const scheduler = new Scheduler(store, { executor });
    const events: RunEvent[] = [];
    scheduler.on('event', (e) => events.push(e));
    const { id } = store.create(
      RunConfig.parse({
        kind: 'train',
        version: 1,
        name,
        data,
        arm: 'good',
        epochs,
        batch: 16,
        slices: 32,
        vocabSize: 100,
        backend: 'wasm',
      }),
    );
    const statuses = () => events.flatMap((e) => (e.type === 'status' && e.runId === id ? [e.state] : []));
    return { store, scheduler, executor, id, dir: store.dir(id), statuses };
  };
  // `jobId`: a timeout also says what Slurm says of that job and its node.
  const until = async (ok: () => boolean, what: string, ms = 120_000, jobId?: string) => {
    const end = Date.now() + ms;
    while (!ok()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}${jobId ? `\n${c.explain(jobId)}` : ''}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const checkpointed = (dir: string, epoch: number) => existsSync(join(dir, 'checkpoints', `epoch-${epoch}`));
  const jobOf = (s: RunState) => s.slurm?.jobId ?? '';

  it('an experiment whose arms run through sbatch gives the same scores as the local executor', async () => {
    const world = join(work, 'world');
    generateWorld(world, { seed: 3, splits: { train: 96, val: 32, test: 32 } });
    const vit = join(work, 'vit.onnx');
    const cfg = { imageSize: 64, patchSize: 8, hidden: 32, depth: 1, heads: 2, mlp: 64 };
    writeFileSync(vit, buildVitOnnx(cfg, randomVitWeights(cfg, 0)));
    const userData = join(work, 'home');
    const settings = fileSettings(userData);
    settings.set({ executor: 'slurm', slurm: { pollSeconds: 1 } });
    const service = new Service({
      runsDir: join(work, 'runs'),
      userData,
      settings,
      transport: 'ws',
      worker: workerCommand(),
    });
    onTestFinished(() => service.close()); // its watch timer must not outlive the test's folder
    const config = (executor: 'local' | 'slurm') =>
      RunConfig.parse({
        kind: 'experiment',
        version: 1,
        name: executor,
        data: world,
        image: { model: vit },
        arms: ['good', 'bad'],
        seeds: [0],
        train: { epochs: 1, batch: 16, slices: 32, vocabSize: 100, backend: 'wasm' },
        eval: { bootstrap: 200, sweepCounts: [10, 20], sweepRepeats: 2 },
        ...(executor === 'local'
          ? { executor: { kind: 'local' } }
          : { executor: { kind: 'slurm', partition: c.partition, time: '30' } }),
      });

    const onSlurm = await service.startRun({ config: config('slurm') });
    await service.scheduler.idle();
    const local = await service.startRun({ config: config('local') });
    await service.scheduler.idle();

    const [s, l] = [onSlurm.id, local.id].map((id) => service.store.get(id));
    expect(s.error).toBeNull();
    expect(l.error).toBeNull();
    expect([s.status, l.status]).toEqual(['done', 'done']);
    // executor.json: the settings' cluster block with the experiment's overrides
    expect(JSON.parse(readFileSync(join(service.store.dir(s.id), 'executor.json'), 'utf8'))).toEqual({
      kind: 'slurm',
      slurm: { pollSeconds: 1, partition: c.partition, time: '30' },
    });
    const arms = new RunStore(join(service.store.dir(s.id), 'arms')).list();
    expect(arms.map((a) => a.status)).toEqual(['done', 'done']);
    for (const a of arms) {
      expect(a.slurm).toMatchObject({
        jobId: expect.stringMatching(/^\d+$/),
        node: c.node,
        state: 'COMPLETED',
        resubmits: 0,
      });
      const dir = join(service.store.dir(s.id), 'arms', a.id);
      expect(readFileSync(join(dir, 'slurm.sh'), 'utf8')).toMatch(/^#SBATCH --partition=debug$/m);
      expect(readFileSync(join(dir, `slurm-${a.slurm!.jobId}.out`), 'utf8')).toMatch(/^\{"type":"done"/m); // computed in the job
      expect(readOwner(dir)).toBeNull(); // released when the arm ended
    }
    for (const a of new RunStore(join(service.store.dir(l.id), 'arms')).list()) expect(a.slurm ?? null).toBeNull();

    const scores = (st: RunState) =>
      (st.result as unknown as ExperimentResult).arms.map(
        ({ arm, seed, epoch, r1, r5, r10, t2iR1, mknn, fitR1, controls }) => ({
          arm,
          seed,
          epoch,
          r1,
          r5,
          r10,
          t2iR1,
          mknn,
          fitR1,
          controls,
        }),
      );
    expect(scores(s)).toEqual(scores(l));
    expect(scores(s).map((a) => a.arm)).toEqual(['good', 'bad']);
    // the arms' curves came through the output files, tagged by arm, as the local run's did
    const evals = (id: string) =>
      service.store
        .metrics(id)
        .filter((m) => m.scope === 'eval')
        .map((m) => `${m.tags?.arm}@${m.x}`)
        .sort();
    expect(evals(s.id)).toEqual(['bad@1', 'good@1']);
    expect(evals(s.id)).toEqual(evals(l.id));
  }, 600_000);

  it('a requeued job continues from its checkpoint; a scancelled one is cancelled and resumes from its checkpoint', async () => {
    const { store, scheduler, id, dir, statuses } = trainRun('requeue-cancel', {}, 3);
    scheduler.submit(id);
    await until(() => checkpointed(dir, 1), 'the first checkpoint');
    const first = store.get(id);
    expect(first).toMatchObject({ status: 'running', slurm: { node: c.node, state: 'RUNNING' } });
    expect(readOwner(dir)).toMatchObject({ executor: 'slurm', jobId: jobOf(first), pid: process.pid });

    const seen = statuses().length;
    c.scontrol('requeue', jobOf(first)); // as the cluster does on preemption: the worker gets SIGTERM, the job waits again
    await until(
      () =>
        statuses()
          .slice(seen)
          .some((s) => s.status === 'queued' && s.slurm?.state === 'PENDING'),
      'the requeued job to wait',
      120_000,
      jobOf(first),
    );
    // It waits for its begin time, the cluster's cred_expire (tests/slurm/harness.ts). Forcing StartTime=now instead
    // raced with slurmd, which refuses to launch a job whose old run's credential it revoked ("already killed"), and
    // the job FAILED (seen in CI).
    await until(
      () => /JobState=RUNNING/.test(c.scontrol('show', 'job', jobOf(first))),
      'the requeued job to run again',
      300_000,
      jobOf(first),
    );
    await until(() => checkpointed(dir, 2), 'the second checkpoint', 120_000, jobOf(first));
    const output = join(dir, `slurm-${jobOf(first)}.out`);
    expect(readFileSync(output, 'utf8')).toMatch(/resumed from epoch 1 \(step 20\)/);
    expect(jobOf(store.get(id))).toBe(jobOf(first)); // Slurm ran the same job again

    expect(spawnSync('scancel', [jobOf(first)], { env: c.env }).status).toBe(0); // a user's scancel, outside the app
    await scheduler.idle();
    expect(store.get(id)).toMatchObject({ status: 'cancelled', error: null, slurm: { state: 'CANCELLED' } });
    expect(readOwner(dir)).toBeNull();

    scheduler.submit(id, true);
    await until(() => store.get(id).slurm?.jobId !== jobOf(first), 'a new job');
    await scheduler.idle();
    const done = store.get(id);
    expect(done.error).toBeNull();
    expect(done).toMatchObject({ status: 'done', attempts: 2, slurm: { state: 'COMPLETED', resubmits: 0 } });
    expect(readFileSync(join(dir, `slurm-${jobOf(done)}.out`), 'utf8')).toMatch(/resumed from epoch 2 \(step 40\)/);
    expect(
      store
        .metrics(id)
        .filter((m) => m.scope === 'epoch')
        .map((m) => m.x),
    ).toEqual([1, 2, 3]);
  }, 900_000);

  it('follows a job whose submitting process died, without submitting another', async () => {
    const { store, scheduler, executor, id, dir } = trainRun('adopted', {}, 1);
    const r = spawnSync(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), join(import.meta.dirname, 'submit-and-exit.ts'), store.root, id],
      { env: c.env, encoding: 'utf8', timeout: 150_000 },
    );
    expect(r.status, r.stderr).toBe(0);
    const owner = readOwner(dir)!;
    expect(owner).toMatchObject({ executor: 'slurm', jobId: expect.stringMatching(/^\d+$/) });
    expect(owner.pid).not.toBe(process.pid);
    // Another process's view: the run is live while its job is, so start-up recovery leaves it running.
    const fresh = new RunStore(store.root, (o) => executor.ownerAlive(o));
    expect(fresh.recover()).toEqual([]);
    expect(fresh.get(id)).toMatchObject({ status: 'running', slurm: { jobId: owner.jobId } });

    scheduler.submit(id);
    expect(readOwner(dir)).toMatchObject({ pid: process.pid, executor: 'slurm', jobId: owner.jobId });
    await scheduler.idle();
    const done = store.get(id);
    expect(done.error).toBeNull();
    expect(done).toMatchObject({ status: 'done', attempts: 1, slurm: { jobId: owner.jobId, state: 'COMPLETED' } });
    expect(readFileSync(join(dir, 'logs.txt'), 'utf8')).toContain(`following Slurm job ${owner.jobId} on`);
    expect(readdirSync(dir).filter((f) => /^slurm-\d+\.out$/.test(f))).toEqual([`slurm-${owner.jobId}.out`]);
    expect(readOwner(dir)).toBeNull();
  }, 300_000);

  it("shows Slurm's message when sbatch rejects the job, and the end of the output of a job that failed", async () => {
    const rejected = trainRun('rejected', { partition: 'nope' });
    rejected.scheduler.submit(rejected.id);
    await rejected.scheduler.idle();
    expect(rejected.store.get(rejected.id)).toMatchObject({ status: 'failed', slurm: null });
    expect(rejected.store.get(rejected.id).error).toBe(
      'sbatch rejected the job: invalid partition specified: nope; Batch job submission failed: Invalid partition name specified (partitions on this cluster: debug)',
    );

    const failing = trainRun('failing', { setup: ['echo "nodejs/99: no such module" >&2', 'exit 7'] });
    failing.scheduler.submit(failing.id);
    await failing.scheduler.idle();
    const s = failing.store.get(failing.id);
    expect(s.status).toBe('failed');
    const out = join(failing.dir, `slurm-${jobOf(s)}.out`);
    expect(s.error).toBe(
      `Slurm job ${jobOf(s)} FAILED on ${c.node}, exit code 7; the end of ${out}:\n${readFileSync(out, 'utf8').trimEnd()}`,
    );
    expect(s.error).toMatch(/nodejs\/99: no such module$/);

    // An experiment on an unknown partition fails before it embeds anything, naming the partitions there are.
    const userData = join(work, 'home-bad');
    const service = new Service({
      runsDir: join(work, 'runs-bad'),
      userData,
      settings: fileSettings(userData),
      transport: 'ws',
      worker: workerCommand(),
    });
    onTestFinished(() => service.close()); // its watch timer must not outlive the test's folder
    const tiny = join(work, 'tiny-world'); // a real dataset: bad data is refused before the run exists
    generateWorld(tiny, { seed: 1, splits: { train: 8, val: 4, test: 12 } });
    const exp = await service.startRun({
      config: RunConfig.parse({
        kind: 'experiment',
        version: 1,
        data: tiny,
        executor: { kind: 'slurm', partition: 'gpu' },
      }),
    });
    await service.scheduler.idle();
    expect(service.store.get(exp.id)).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^unknown Slurm partition 'gpu': the cluster has debug \(default\)/),
    });
  }, 120_000);

  it('resubmits a job the cluster ended (node failure) from its checkpoint, at most maxResubmits times', async () => {
    const { store, scheduler, id, dir } = trainRun('node-fail', { requeue: false, maxResubmits: 1 }, 2);
    scheduler.submit(id);
    await until(() => checkpointed(dir, 1), 'the first checkpoint');
    const first = jobOf(store.get(id));
    c.scontrol('update', `NodeName=${c.node}`, 'State=DOWN', 'Reason=test');
    await until(() => jobOf(store.get(id)) !== first, 'the resubmitted job');
    // ReturnToService=2 may have brought the node back already (slurmd re-registered); else resume it
    if (!/\bState=(IDLE|MIXED|ALLOCATED)/.test(c.scontrol('show', 'node', c.node)))
      c.scontrol('update', `NodeName=${c.node}`, 'State=RESUME');
    await scheduler.idle();
    const done = store.get(id);
    expect(done.error).toBeNull();
    expect(done).toMatchObject({ status: 'done', attempts: 1, slurm: { resubmits: 1, state: 'COMPLETED' } });
    expect(readFileSync(join(dir, 'logs.txt'), 'utf8')).toMatch(
      new RegExp(`Slurm job ${first} NODE_FAIL .*resubmitting \\(1 of at most 1\\)`),
    );
    expect(readFileSync(join(dir, `slurm-${jobOf(done)}.out`), 'utf8')).toMatch(/resumed from epoch 1/);
    expect(readdirSync(dir).filter((f) => /^slurm-\d+\.out$/.test(f))).toHaveLength(2);
  }, 300_000);
});
