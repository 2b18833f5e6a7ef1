// One owner per run under every signal. SIGTERM (or SIGINT, SIGHUP) to `prh experiment` cancels its run: the worker
// checkpoints and stops, and its arms with it, before the command exits. After a kill -9 of the command, its worker
// may still write the run: until it is gone, the run stays running and a resume is refused. `prh runs cancel` stops
// a run another process on this machine runs; `prh runs delete` refuses a live run.
// No assertion waits a fixed time for a process to notice its parent's death: a stopped worker (SIGSTOP) stands for
// one that has not noticed yet, however busy the machine is.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateWorld } from '../../engine/data';
import { RunStore } from '../../engine/runs';
import { RunConfig, type RunState } from '../../shared/runs';

const prh = join(import.meta.dirname, '..', '..', 'bin', 'prh.js');
const home = mkdtempSync(join(tmpdir(), 'prh-one-owner-'));
const runs = join(home, 'runs');
const world = join(home, 'world');
generateWorld(world, { seed: 3, splits: { train: 64, val: 12, test: 12 }, imageSize: 16 });
const env = { ...process.env, PRH_HOME: home };
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [prh, ...args, '--runs', runs], { env, encoding: 'utf8' });
const background = (...args: string[]): ChildProcess =>
  spawn(process.execPath, [prh, ...args, '--runs', runs], { env, stdio: 'ignore' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const exited = (p: ChildProcess) =>
  new Promise<number | null>((r) =>
    p.exitCode !== null || p.signalCode !== null ? r(p.exitCode) : p.once('exit', (code) => r(code)),
  );
// Running or stopped, not a zombie (an orphan may wait for a reaper this container's init does not run).
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};
const status = (id: string): RunState => JSON.parse(readFileSync(join(runs, id, 'status.json'), 'utf8'));
// The run's status once it is written whole (the worker writes it atomically), or null.
const statusNow = (id: string): RunState | null => {
  try {
    return status(id);
  } catch {
    return null;
  }
};
const runIds = () => (existsSync(runs) ? readdirSync(runs) : []);
// Until f() holds (bounded by the test's timeout only: how long a busy machine takes is not what is tested).
async function until(f: () => boolean): Promise<void> {
  while (!f()) await sleep(50);
}
const started: number[] = [];
afterAll(() => started.forEach((pid) => alive(pid) && process.kill(pid, 'SIGKILL')));

const trainRun = (epochs: number) => {
  const store = new RunStore(runs);
  const { id } = store.create(
    RunConfig.parse({ kind: 'train', version: 1, data: world, arm: 'good', epochs, batch: 8, slices: 16 }),
  );
  store.update(id, { status: 'interrupted' }); // resumable from nothing: `prh runs resume` starts it
  return id;
};

describe('one owner per run', () => {
  it.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)(
    '%s to prh experiment cancels it: no worker and no arm outlives the command, and arms/ holds only arms that ran',
    async (signal) => {
      const seeds = Array.from({ length: 20 }, (_, i) => i).join(',');
      const before = runIds();
      const cmd = background('experiment', '--data', world, '--epochs', '30', '--parallel', '1', '--seeds', seeds);
      let id = '';
      await until(() => !!(id = runIds().find((r) => !before.includes(r)) ?? ''));
      const armsDir = join(runs, id, 'arms');
      const armIds = () => (existsSync(armsDir) ? readdirSync(armsDir) : []);
      // the experiment's worker and its first arm's worker both running
      await until(() => !!statusNow(id)?.pid && armIds().some((a) => !!statusNow(`${id}/arms/${a}`)?.pid));
      const worker = status(id).pid!;
      const armWorkers = armIds().flatMap((a) => statusNow(`${id}/arms/${a}`)?.pid ?? []);
      cmd.kill(signal);
      expect(await exited(cmd)).toBe(130);
      expect(alive(worker)).toBe(false);
      for (const p of armWorkers) expect(alive(p)).toBe(false);
      expect(status(id).status).toBe('cancelled');
      expect(armIds().length).toBeLessThanOrEqual(2); // 60 arm runs asked, each made as it starts
    },
    120_000,
  );

  it('after kill -9 of its owner, a run whose worker still lives stays running and refuses a resume, until the worker is gone', async () => {
    const id = trainRun(6); // stopped as soon as it runs, then trained whole by the resume
    const owner = background('runs', 'resume', id);
    await until(() => statusNow(id)?.status === 'running' && !!statusNow(id)?.pid);
    const worker = status(id).pid!;
    started.push(worker);
    process.kill(worker, 'SIGSTOP'); // it has not noticed yet
    owner.kill('SIGKILL');
    await exited(owner);

    const refused = cli('runs', 'resume', id);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(
      new RegExp(`run ${id} is running under its worker pid ${worker} on .*, whose parent pid ${owner.pid} is gone`),
    );
    const listed = JSON.parse(cli('runs', 'list', '--json').stdout) as RunState[];
    expect(listed.find((r) => r.id === id)?.status).toBe('running'); // not `interrupted` while it writes
    expect(cli('runs', 'delete', id, '--force').status).toBe(2);

    process.kill(worker, 'SIGCONT'); // it notices its parent is gone and stops
    await until(() => !alive(worker));
    const resumed = cli('runs', 'resume', id, '--json');
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(status(id).status).toBe('done');
  }, 240_000);

  it('prh runs cancel stops a run another process runs; prh runs delete then removes it, asking first', async () => {
    const id = trainRun(40);
    const owner = background('runs', 'resume', id);
    await until(() => statusNow(id)?.status === 'running' && !!statusNow(id)?.pid);
    const worker = status(id).pid!;
    const refused = cli('runs', 'delete', id, '--force');
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(
      new RegExp(
        `run ${id} is running under pid ${owner.pid} .*: cancel it before deleting it \\(prh runs cancel ${id}\\)`,
      ),
    );

    const cancel = cli('runs', 'cancel', id, '--json');
    expect(cancel.status, cancel.stderr).toBe(0);
    expect(JSON.parse(cancel.stdout).status).toBe('cancelled'); // recorded by its owner
    expect(await exited(owner)).toBe(130);
    expect(alive(worker)).toBe(false);
    expect(cli('runs', 'cancel', id).stderr).toMatch(
      /is cancelled: nothing computes it, so there is nothing to cancel \(prh runs resume continues it\)/,
    );

    const ask = cli('runs', 'delete', id); // no terminal to ask on
    expect(ask.status).toBe(2);
    expect(ask.stderr).toMatch(/cannot be undone: add --force/);
    expect(cli('runs', 'delete', id, '--force').status).toBe(0);
    expect(existsSync(join(runs, id))).toBe(false);
  }, 240_000);
});
