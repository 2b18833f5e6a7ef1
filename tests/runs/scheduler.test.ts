import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunConfig, type RunEvent } from '../../shared/runs';
import type { EntryCommand } from '../../engine/child';
import { RunStore, Scheduler } from '../../engine/runs';

const config: RunConfig = RunConfig.parse({
  kind: 'theory.prop3',
  version: 1,
  params: { worlds: 1, states: 5, k: 2, m: 2, grid: 3, seed: 0, worldKind: 'uniform' },
});
const fake = (mode: string): EntryCommand => ({
  command: process.execPath,
  args: [join(import.meta.dirname, 'fixtures', 'fake-worker.mjs')],
  env: { FAKE_MODE: mode },
});
const setup = (mode: string, concurrency = 2, killAfterMs = 5000) => {
  const store = new RunStore(mkdtempSync(join(tmpdir(), 'prh-sched-')));
  const scheduler = new Scheduler(store, { concurrency, worker: fake(mode), killAfterMs });
  const events: RunEvent[] = [];
  scheduler.on('event', (e) => events.push(e));
  return { store, scheduler, events };
};
const waitFor = async (cond: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('scheduler', () => {
  it('runs a job to done, relaying progress and metrics, keeping stray prints in the log', async () => {
    const { store, scheduler, events } = setup('ok');
    const { id } = store.create(config);
    scheduler.submit(id);
    await scheduler.idle();
    const s = store.get(id);
    expect(s.status).toBe('done');
    expect(s.result).toEqual({ steps: 5 });
    expect(s.attempts).toBe(1);
    expect(events.filter((e) => e.type === 'progress')).toHaveLength(5);
    expect(events.filter((e) => e.type === 'metric')).toHaveLength(5);
    expect(readFileSync(join(store.dir(id), 'logs.txt'), 'utf8')).toContain('a stray library print');
  });

  it('never runs more jobs at once than its concurrency', async () => {
    const { store, scheduler, events } = setup('ok', 2);
    const ids = Array.from({ length: 5 }, () => store.create(config).id);
    let running = 0;
    let peak = 0;
    scheduler.on('event', (e) => {
      if (e.type !== 'status') return;
      running = scheduler.running().length;
      peak = Math.max(peak, running);
    });
    ids.forEach((id) => scheduler.submit(id));
    await scheduler.idle();
    expect(peak).toBe(2);
    expect(ids.map((id) => store.get(id).status)).toEqual(Array(5).fill('done'));
    expect(events.some((e) => e.type === 'status' && e.state.status === 'queued')).toBe(true);
  });

  it('cancels gracefully, and kills a job that ignores the request', async () => {
    const graceful = setup('slow');
    const a = graceful.store.create(config).id;
    graceful.scheduler.submit(a);
    await waitFor(() => graceful.events.some((e) => e.type === 'progress'));
    graceful.scheduler.cancel(a);
    await graceful.scheduler.idle();
    expect(graceful.store.get(a).status).toBe('cancelled');

    const stubborn = setup('hang', 1, 300);
    const b = stubborn.store.create(config).id;
    stubborn.scheduler.submit(b);
    await waitFor(() => stubborn.events.some((e) => e.type === 'progress'));
    const t0 = Date.now();
    stubborn.scheduler.cancel(b);
    await stubborn.scheduler.idle();
    expect(stubborn.store.get(b).status).toBe('cancelled');
    expect(Date.now() - t0).toBeLessThan(4000); // killed after the 300 ms grace, not after its 200 steps
  });

  it('marks a crashed job failed with the stderr tail, and lets it be resumed', async () => {
    const { store, scheduler } = setup('crash');
    const { id } = store.create(config);
    scheduler.submit(id);
    await scheduler.idle();
    const s = store.get(id);
    expect(s.status).toBe('failed');
    expect(s.error).toMatch(/exited with code 1/);
    expect(s.error).toContain('boom in');
    expect(() => scheduler.submit(id)).not.toThrow(); // resubmitting a failed run is allowed
    await scheduler.idle();
    expect(store.get(id).attempts).toBe(2);
  });

  it('refuses to resume a run that is done, and a cancel of a run that is not running', async () => {
    const { store, scheduler } = setup('ok');
    const { id } = store.create(config);
    scheduler.submit(id);
    await scheduler.idle();
    expect(() => scheduler.submit(id, true)).toThrow(/only .* can be resumed/);
    expect(() => scheduler.cancel(id)).toThrow(/not running/);
  });
});
