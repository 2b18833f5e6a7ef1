// kill -9 at random points: the worker, the `prh runs resume` CLI that schedules it, or `prh serve`, over several
// rounds of one small train run (cpu preset, a tiny procedural world). After every kill the run resumes, and at
// the end it is done with every step's and every epoch's metric exactly once, no gap, no unreadable line.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { generateWorld } from '../../engine/data';
import { RandomStream } from '../../engine/random';
import { RunStore, scanMetricsFile } from '../../engine/runs';
import { RunConfig, type RunState } from '../../shared/runs';

const home = mkdtempSync(join(tmpdir(), 'prh-kill-'));
const runs = join(home, 'runs');
const data = join(home, 'data', 'world');
const prh = join(import.meta.dirname, '..', '..', 'bin', 'prh.js');
const EPOCHS = 3;
const STEPS = EPOCHS * (32 / 8); // 32 training photos, batch 8
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// Running, not a zombie: a worker orphaned by a kill -9 is reparented, and in a container nobody may reap it.
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};
const exited = (p: ChildProcess) =>
  new Promise<void>((r) => (p.exitCode !== null || p.signalCode !== null ? r() : p.once('exit', () => r())));

const status = (id: string): RunState => JSON.parse(readFileSync(join(runs, id, 'status.json'), 'utf8'));

const metricsBytes = (id: string) => {
  try {
    return statSync(join(runs, id, 'metrics.jsonl')).size;
  } catch {
    return 0;
  }
};

// The highest training step recorded in metrics.jsonl past byte `from` (this round's lines), or -1.
function stepSince(id: string, from: number): number {
  const text = readFileSync(join(runs, id, 'metrics.jsonl'))
    .subarray(from)
    .toString('utf8');
  let step = -1;
  for (const line of text.split('\n')) {
    try {
      const m = JSON.parse(line);
      if (m.scope === 'train') step = Math.max(step, m.x);
    } catch {
      /* a line being written */
    }
  }
  return step;
}

// Until the run's worker, started this round, has recorded training step `target` (counting from 0), or the run
// ended; the worker's pid or null.
async function workerAt(id: string, parent: ChildProcess, from: number, target: number): Promise<number | null> {
  for (let i = 0; i < 2400; i++) {
    const s = status(id);
    if (s.status === 'running' && s.pid && alive(s.pid) && metricsBytes(id) > from && stepSince(id, from) >= target)
      return s.pid;
    if (parent.exitCode !== null || s.status === 'done') return null;
    await sleep(50);
  }
  throw new Error(`the worker of ${id} did not start training`);
}

const cliResume = (id: string) =>
  spawn(process.execPath, [prh, 'runs', 'resume', id, '--runs', runs, '--json'], {
    env: { ...process.env, PRH_HOME: home },
    stdio: 'ignore',
  });

// `prh serve` (as the fixture starts it) with the run resumed through its WebSocket API.
async function serveResume(id: string): Promise<ChildProcess> {
  const server = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'serve-child.ts'), home],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const { port, token } = await new Promise<{ port: number; token: string }>((resolve) =>
    createInterface({ input: server.stdout! }).once('line', (l) => resolve(JSON.parse(l))),
  );
  const ws = new WebSocket(`ws://127.0.0.1:${port}/api`, { headers: { Cookie: `prh_token_${port}=${token}` } });
  await new Promise((r) => ws.once('open', r));
  const reply = await new Promise<{ error?: string }>((resolve) => {
    ws.once('message', (d) => resolve(JSON.parse(String(d))));
    ws.send(JSON.stringify({ id: 1, method: 'resumeRun', params: { id } }));
  });
  expect(reply.error).toBeUndefined();
  ws.terminate();
  return server;
}

describe('kill -9 at random points, then resume', () => {
  it('ends done, with every metric once and no gap, after kills of the worker, the CLI and prh serve', async () => {
    generateWorld(data, { seed: 0, splits: { train: 32, val: 8, test: 8 }, imageSize: 16 });
    const store = new RunStore(runs);
    const config = RunConfig.parse({
      kind: 'train',
      version: 1,
      data,
      arm: 'good',
      epochs: EPOCHS,
      batch: 8,
      slices: 16,
      backend: 'cpu',
      metricEvery: 1,
    });
    const { id } = store.create(config);
    store.update(id, { status: 'interrupted' }); // resumable from nothing: the first resume starts it

    const r = new RandomStream(xoroshiro128plus(1301));
    const victims = [...r.shuffled(['worker', 'cli', 'serve'] as const), r.pick(['worker', 'cli', 'serve'] as const)];
    // Kill points: one random training step per round, rising through the run (each round resumes from the last
    // epoch checkpoint), plus up to 1.5 s: mid-step, mid-metric line, or in the validation and checkpoint after an
    // epoch's last step.
    const targets = victims.map(() => r.int(0, STEPS - 1)).sort((a, b) => a - b);
    const log: string[] = [];
    for (const [round, victim] of victims.entries()) {
      const before = metricsBytes(id);
      const parent = victim === 'serve' ? await serveResume(id) : cliResume(id);
      const worker = await workerAt(id, parent, before, targets[round]);
      if (worker === null) break; // it finished first
      const delay = r.int(0, 1500);
      await sleep(delay);
      log.push(`${victim} ${delay} ms after step ${targets[round]} (${stepSince(id, before)} recorded)`);
      if (victim === 'worker') {
        process.kill(worker, 'SIGKILL');
        await exited(parent); // the CLI records the kill and exits
      } else {
        parent.kill('SIGKILL');
        await exited(parent);
      }
      // An orphaned worker stops once it notices; until then the run is not free (tests/faults/one-owner.test.ts), so
      // the next round waits for it, however long a busy machine takes.
      while (alive(worker)) await sleep(50);
      if (victim === 'serve') parent.kill('SIGKILL');
    }

    // As a kill in the middle of a checkpoint save leaves it (the test's kills may or may not have hit one).
    mkdirSync(join(runs, id, 'checkpoints', '.epoch-2.999999.tmp'), { recursive: true });
    writeFileSync(join(runs, id, 'checkpoints', '.epoch-2.999999.tmp', 'weights.safetensors'), 'partial');
    // The last round runs to the end.
    for (let i = 0; i < 2 && status(id).status !== 'done'; i++) await exited(cliResume(id));
    const end = status(id);
    expect(end.status, `${end.error}\nkills: ${log.join('; ')}`).toBe('done');

    const scan = scanMetricsFile(join(runs, id, 'metrics.jsonl'));
    expect(scan.bad).toEqual([]);
    // Each resume replayed steps from its checkpoint; the file itself holds every point once (compacted).
    const lines = readFileSync(join(runs, id, 'metrics.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.trim());
    expect(lines.length).toBe(scan.records.length);
    const xs = (scope: string) => scan.records.filter((m) => m.scope === scope).map((m) => m.x);
    expect(xs('train').sort((a, b) => a - b)).toEqual(Array.from({ length: STEPS }, (_, i) => i));
    expect(xs('epoch').sort((a, b) => a - b)).toEqual(Array.from({ length: EPOCHS }, (_, i) => i + 1));
    const ckpts = readdirSync(join(runs, id, 'checkpoints'));
    expect(ckpts.filter((f) => f.endsWith('.tmp'))).toEqual([]);
    for (let e = 1; e <= EPOCHS; e++)
      expect(existsSync(join(runs, id, 'checkpoints', `epoch-${e}`, 'weights.safetensors'))).toBe(true);
    console.log(`kills: ${log.join('; ')}; attempts ${end.attempts}`);
  }, 240_000);
});
