// Two owners for one run: a second `prh` process must not mark a run another live process runs as interrupted,
// nor start a second worker on it; once the owner dies, the run is interrupted and resumable.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunConfig } from '../../shared/runs';
import { claim, ownerAlive, readOwner, release, RunStore, Scheduler, type OwnerRecord } from '../../engine/runs';
import { processStartTime, STALE_MS } from '../../engine/runs/owner';
import { writeTinyWorld } from '../train/tiny-world';

const prh = join(import.meta.dirname, '..', '..', 'bin', 'prh.js');
const home = mkdtempSync(join(tmpdir(), 'prh-owner-'));
const runs = join(home, 'runs');
const env = { ...process.env, PRH_HOME: home };
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [prh, ...args, '--runs', runs], { env, encoding: 'utf8' });
const list = () =>
  JSON.parse(
    execFileSync(process.execPath, [prh, 'runs', 'list', '--json', '--runs', runs], { env, encoding: 'utf8' }),
  ) as { id: string; status: string; pid: number | null }[];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// Alive and not a zombie (an orphaned worker may wait for a reaper that this container's init does not run).
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return !/^\d+ \(.*\) Z/.test(existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'utf8') : '');
};
async function until<T>(f: () => T | undefined | false, what: string, ms = 60_000): Promise<T> {
  for (const t0 = Date.now(); Date.now() - t0 < ms; await sleep(200)) {
    const v = f();
    if (v) return v;
  }
  throw new Error(`timed out waiting for ${what}`);
}

const started: number[] = [];
afterAll(() => started.forEach((pid) => alive(pid) && process.kill(pid, 'SIGKILL')));

describe('owner records', () => {
  const record = (over: Partial<OwnerRecord>): OwnerRecord => ({
    host: hostname(),
    pid: process.pid,
    startTime: processStartTime(process.pid),
    executor: 'local',
    claimedAt: new Date().toISOString(),
    heartbeatAt: new Date().toISOString(),
    ...over,
  });

  it('tells a live owner from a dead pid, a reused pid, and a stale heartbeat on another host', () => {
    expect(ownerAlive(record({}))).toBe(true);
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    expect(ownerAlive(record({ pid: dead, startTime: null }))).toBe(false);
    if (processStartTime(process.pid) !== null) expect(ownerAlive(record({ startTime: '1' }))).toBe(false); // same pid, other process
    expect(
      ownerAlive(record({ host: 'elsewhere', pid: 1, heartbeatAt: new Date(Date.now() - 5000).toISOString() })),
    ).toBe(true);
    expect(
      ownerAlive(
        record({ host: 'elsewhere', pid: 1, heartbeatAt: new Date(Date.now() - STALE_MS - 1000).toISOString() }),
      ),
    ).toBe(false);
  });

  it("claims a free run, refuses one a live process owns, takes over a dead owner's record, releases only its own", () => {
    const dir = join(home, 'claims');
    mkdirSync(dir, { recursive: true });
    const mine = claim(dir);
    expect(readOwner(dir)).toEqual(mine);
    release(dir);
    expect(existsSync(join(dir, 'owner.json'))).toBe(false);

    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    started.push(other.pid!);
    writeFileSync(
      join(dir, 'owner.json'),
      JSON.stringify(record({ pid: other.pid!, startTime: processStartTime(other.pid!) })),
    );
    expect(() => claim(dir)).toThrow(new RegExp(`owned by pid ${other.pid} on ${hostname()}`));
    release(dir); // not ours: kept
    expect(readOwner(dir)?.pid).toBe(other.pid);
    other.kill('SIGKILL');
    return until(() => !alive(other.pid!) || undefined, 'the stand-in owner to die', 5000).then(() => {
      expect(claim(dir).pid).toBe(process.pid);
    });
  });
});

describe('a run owned by another prh process', () => {
  it('stays running when a second prh lists the runs, refuses a resume, and is interrupted once its owner dies', async () => {
    // Process A: a long saved grid (100000 worlds runs for minutes); B: `prh runs list` / `prh runs resume`.
    const a = spawn(
      process.execPath,
      [prh, 'theory', 'prop3', '--save', '--worlds', '100000', '--runs', runs, '--json'],
      { env, stdio: 'ignore' },
    );
    started.push(a.pid!);
    const run = await until(() => existsSync(runs) && list().find((r) => r.status === 'running'), 'the run to start');
    started.push(run.pid!);
    const owner = readOwner(join(runs, run.id));
    expect(owner).toMatchObject({ host: hostname(), pid: a.pid, executor: 'local' });

    await sleep(500);
    expect(list().find((r) => r.id === run.id)?.status).toBe('running'); // before: `interrupted` by B's recover()
    const resumed = cli('runs', 'resume', run.id);
    expect(resumed.status).toBe(2);
    expect(resumed.stderr).toMatch(new RegExp(`^error: run ${run.id} is running under pid ${a.pid} on `));
    expect(resumed.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(list().find((r) => r.id === run.id)?.status).toBe('running');
    const logs = readFileSync(join(runs, run.id, 'logs.txt'), 'utf8');
    expect(logs.match(/started \(pid/g)).toHaveLength(1); // one worker, not two

    a.kill('SIGKILL'); // the owner dies without releasing; its worker exits when orphaned
    await until(() => !alive(a.pid!) && !alive(run.pid!), 'the owner and its worker to exit', 10_000);
    expect(list().find((r) => r.id === run.id)?.status).toBe('interrupted');
  }, 120_000);
});

describe('the scheduler as owner', () => {
  it('claims owner.json when it queues a run, refreshes its heartbeat while the job runs, and removes it at the end', async () => {
    const store = new RunStore(join(home, 'sched-runs'));
    const worker = {
      command: process.execPath,
      args: [join(import.meta.dirname, '..', 'runs', 'fixtures', 'fake-worker.mjs')],
      env: { FAKE_MODE: 'slow' },
    }; // ~5 s
    const scheduler = new Scheduler(store, { concurrency: 1, worker, heartbeatMs: 100 });
    const { id } = store.create(RunConfig.parse({ kind: 'theory.prop3', version: 1, params: { worlds: 1 } }));
    scheduler.submit(id);
    const dir = store.dir(id);
    const first = readOwner(dir)!;
    expect(first).toMatchObject({ host: hostname(), pid: process.pid, executor: 'local' });
    await until(() => (readOwner(dir)?.heartbeatAt ?? '') > first.heartbeatAt, 'a heartbeat', 5000);
    expect(readOwner(dir)!.claimedAt).toBe(first.claimedAt);
    await scheduler.idle();
    expect(store.get(id).status).toBe('done');
    expect(existsSync(join(dir, 'owner.json'))).toBe(false);
  }, 30_000);
});

describe('a run whose owner died after this process started', () => {
  it('resumes: the run is recovered as interrupted at the resume, not only at start-up', async () => {
    const store = new RunStore(join(home, 'late-runs'));
    const worker = {
      command: process.execPath,
      args: [join(import.meta.dirname, '..', 'runs', 'fixtures', 'fake-worker.mjs')],
      env: { FAKE_MODE: 'ok' },
    };
    const scheduler = new Scheduler(store, { concurrency: 1, worker });
    const { id } = store.create(RunConfig.parse({ kind: 'theory.prop3', version: 1, params: { worlds: 1 } }));
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    store.update(id, { status: 'running', pid: dead });
    writeFileSync(
      join(store.dir(id), 'owner.json'),
      JSON.stringify({
        host: hostname(),
        pid: dead,
        startTime: null,
        executor: 'local',
        claimedAt: new Date().toISOString(),
        heartbeatAt: new Date().toISOString(),
      }),
    );
    scheduler.submit(id, true); // before: "run ... is running; only failed/cancelled/interrupted/diverged runs can be resumed"
    await scheduler.idle();
    expect(store.get(id).status).toBe('done');
  });
});

describe('prh train on a folder another prh train is using', () => {
  it('is refused with exit 2, naming the owner', async () => {
    const data = writeTinyWorld(join(home, 'tiny'), { train: 64, val: 16, test: 16 });
    const out = join(home, 'train-out');
    const args = [
      'train',
      '--data',
      data,
      '--arm',
      'good',
      '--out',
      out,
      '--epochs',
      '200',
      '--batch',
      '16',
      '--slices',
      '32',
      '--vocab-size',
      '100',
      '--backend',
      'wasm',
    ];
    const a = spawn(process.execPath, [prh, ...args], { env, stdio: 'ignore' });
    started.push(a.pid!);
    await until(() => readOwner(out)?.pid === a.pid, 'the first prh train to claim the folder');
    const b = spawnSync(process.execPath, [prh, ...args, '--resume'], { env, encoding: 'utf8' });
    expect(b.status).toBe(2); // before: a second training on the same checkpoints
    expect(b.stderr).toMatch(new RegExp(`^error: run ${out} is owned by pid ${a.pid} on `));
    a.kill('SIGKILL');
  }, 60_000);
});
