import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunConfig } from '../../shared/runs';
import { writeFileAtomic } from '../../engine/atomic';
import { RunStore } from '../../engine/runs';

const config: RunConfig = RunConfig.parse({
  kind: 'theory.prop3',
  version: 1,
  params: { worlds: 2, states: 6, k: 2, m: 3, grid: 5, seed: 1, worldKind: 'uniform' },
});
const tmp = () => mkdtempSync(join(tmpdir(), 'prh-store-'));

describe('run store', () => {
  it('creates a run folder with config.json and status.json, and lists newest first', () => {
    const store = new RunStore(tmp());
    const a = store.create(config, new Date('2026-01-01T00:00:00Z'));
    const b = store.create(config, new Date('2026-01-02T00:00:00Z'));
    expect(store.list().map((s) => s.id)).toEqual([b.id, a.id]);
    expect(store.config(a.id)).toEqual(config);
    expect(store.get(a.id).status).toBe('queued');
    expect(existsSync(join(store.dir(a.id), 'artifacts'))).toBe(true);
  });

  it('writes atomically: no temp file left, and a failed write leaves the old content', () => {
    const dir = tmp();
    const file = join(dir, 'x.json');
    writeFileAtomic(file, 'old');
    writeFileAtomic(file, 'new');
    expect(readFileSync(file, 'utf8')).toBe('new');
    expect(readdirSync(dir)).toEqual(['x.json']);
    expect(() => writeFileAtomic(join(file, 'cannot', 'be'), 'x')).toThrow(); // parent is a file
    expect(readFileSync(file, 'utf8')).toBe('new');
  });

  it('skips a torn last line of metrics.jsonl (a worker killed mid-write)', () => {
    const store = new RunStore(tmp());
    const { id } = store.create(config);
    const f = join(store.dir(id), 'metrics.jsonl');
    writeFileSync(f, JSON.stringify({ t: 1, scope: 's', x: 0, values: { a: 1 } }) + '\n');
    appendFileSync(f, '{"t":2,"scope":"s","x":1,"val');
    expect(store.metrics(id)).toHaveLength(1);
  });

  it('after a restart shows running and queued runs as interrupted, and leaves finished ones alone', () => {
    const root = tmp();
    const before = new RunStore(root);
    const running = before.create(config).id;
    const queued = before.create(config).id;
    const done = before.create(config).id;
    before.update(running, { status: 'running', pid: 999_999 });
    before.update(done, { status: 'done', result: { ok: 1 } });
    const after = new RunStore(root); // the app started again
    const changed = after
      .recover()
      .map((s) => s.id)
      .sort();
    expect(changed).toEqual([running, queued].sort());
    expect(after.get(running).status).toBe('interrupted');
    expect(after.get(running).pid).toBeNull();
    expect(after.get(queued).status).toBe('interrupted');
    expect(after.get(done).status).toBe('done');
  });

  it('rejects run ids that could escape the runs folder', () => {
    const store = new RunStore(tmp());
    expect(() => store.dir('../etc')).toThrow(/not a run id/);
    expect(() => store.get('nope')).toThrow(/no run nope/);
  });
});
