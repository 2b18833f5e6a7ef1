// A torn status.json, config.json or checkpoint state.json (a disk that lost the tail of a write, a hand edit) must
// not lock the whole store: the broken run is listed as `unreadable` with its file and the reason, every other run
// works as before, and a resumed job falls back to its previous checkpoint.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Service } from '../../engine/api';
import { RunStore } from '../../engine/runs';
import { RunConfig } from '../../shared/runs';

const prh = join(import.meta.dirname, '..', '..', 'bin', 'prh.js');
const config = (worlds = 2) =>
  RunConfig.parse({
    kind: 'theory.prop3',
    version: 1,
    params: { worlds, states: 6, k: 2, m: 3, grid: 5, seed: 1, worldKind: 'uniform' },
  });

// The CLI's exit code, stdout and stderr.
function cli(home: string, ...args: string[]): { code: number; out: string; err: string } {
  try {
    const out = execFileSync(process.execPath, [prh, ...args], {
      env: { ...process.env, PRH_HOME: home },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { code: 0, out, err: '' };
  } catch (e) {
    const x = e as { status: number; stdout: string; stderr: string };
    return { code: x.status, out: x.stdout, err: x.stderr };
  }
}

const settings = () => {
  let s = { theme: 'system' as const };
  return { get: () => s, set: (p: object) => (s = { ...s, ...p } as typeof s) };
};

// Two runs, one of them with `file` cut off mid-string, as a lost write leaves it.
function storeWithTorn(file: 'status.json' | 'config.json') {
  const home = mkdtempSync(join(tmpdir(), 'prh-torn-'));
  const runs = join(home, 'runs');
  const store = new RunStore(runs);
  const broken = store.create(config(), new Date('2026-01-01T00:00:00Z')).id;
  const fine = store.create(config(), new Date('2026-01-02T00:00:00Z')).id;
  store.update(broken, { status: 'done', result: {} });
  store.update(fine, { status: 'done', result: { ok: 1 } });
  const path = join(store.dir(broken), file);
  writeFileSync(path, readFileSync(path, 'utf8').slice(0, 40));
  return { home, runs, store, broken, fine, path };
}

describe('a torn status.json', () => {
  it('lists the run as unreadable, naming the file and the reason; other runs and commands are unaffected', () => {
    const t = storeWithTorn('status.json');
    const list = cli(t.home, 'runs', 'list', '--runs', t.runs, '--json');
    expect(list.err).toBe('');
    expect(list.code).toBe(0);
    const rows = JSON.parse(list.out) as { id: string; status: string; error: string | null }[];
    expect(rows.map((r) => [r.id, r.status])).toEqual([
      [t.fine, 'done'],
      [t.broken, 'unreadable'],
    ]);
    expect(rows[1].error).toContain(t.path);
    expect(rows[1].error).toMatch(/: invalid JSON at line \d+, column \d+: Unterminated string/);

    const table = cli(t.home, 'runs', 'list', '--runs', t.runs);
    expect(table.code).toBe(0);
    expect(table.out).toMatch(/unreadable/);

    const shown = cli(t.home, 'runs', 'show', t.fine, '--runs', t.runs, '--json');
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.out).state.result).toEqual({ ok: 1 });
  });

  it('`runs show` of the broken run exits 2 naming the file, without a stack', () => {
    const t = storeWithTorn('status.json');
    const r = cli(t.home, 'runs', 'show', t.broken, '--runs', t.runs);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${t.path}: invalid JSON`);
    expect(r.err).not.toMatch(/\n\s+at /);
  });

  it('the API (as `prh serve` and the GUI use it) starts, lists the run as unreadable, and answers for the others', async () => {
    const t = storeWithTorn('status.json');
    const service = new Service({ runsDir: t.runs, userData: t.home, transport: 'ws', settings: settings() });
    try {
      const list = (await service.dispatch('listRuns', {})) as { id: string; status: string; error: string }[];
      expect(list.find((r) => r.id === t.broken)).toMatchObject({ status: 'unreadable', kind: 'theory.prop3' });
      expect(list.find((r) => r.id === t.broken)!.error).toContain(t.path);
      expect(((await service.dispatch('getRun', { id: t.fine })) as { state: { status: string } }).state.status).toBe(
        'done',
      );
      await expect(service.dispatch('getRun', { id: t.broken })).rejects.toThrow(t.path);
      await expect(service.dispatch('resumeRun', { id: t.broken })).rejects.toThrow(t.path);
      await service.dispatch('deleteRun', { id: t.broken }); // a broken run can still be cleared away
      expect(((await service.dispatch('listRuns', {})) as { id: string }[]).map((r) => r.id)).toEqual([t.fine]);
    } finally {
      await service.close();
    }
  });
});

describe('a runs folder removed while the app is open', () => {
  it('lists no runs, and the check for runs other processes left running goes on without a crash', async () => {
    const t = storeWithTorn('status.json');
    const service = new Service({
      runsDir: t.runs,
      userData: t.home,
      transport: 'ws',
      settings: settings(),
      recoverEveryMs: 10,
    });
    try {
      rmSync(t.runs, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 100)); // the check runs several times on the missing folder
      expect(await service.dispatch('listRuns', {})).toEqual([]);
    } finally {
      await service.close();
    }
  });
});

describe('a torn config.json', () => {
  it('keeps the list working and names the file when the run is shown', async () => {
    const t = storeWithTorn('config.json');
    const list = cli(t.home, 'runs', 'list', '--runs', t.runs, '--json');
    expect(list.code).toBe(0);
    const rows = JSON.parse(list.out) as { id: string; status: string; error: string | null }[];
    // unreadable, not the `done` its status.json says: it cannot be shown, compared or resumed
    expect(rows.map((r) => [r.id, r.status])).toEqual([
      [t.fine, 'done'],
      [t.broken, 'unreadable'],
    ]);
    expect(rows[1].error).toContain(`${t.path}: invalid JSON`);
    const r = cli(t.home, 'runs', 'show', t.broken, '--runs', t.runs);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${t.path}: invalid JSON`);
    expect(r.err).not.toMatch(/\n\s+at /);
    const service = new Service({ runsDir: t.runs, userData: t.home, transport: 'ws', settings: settings() });
    try {
      const index = (await service.dispatch('runIndex', {})) as { id: string; config: unknown }[];
      expect(index.find((e) => e.id === t.broken)!.config).toBeNull();
      expect(index.find((e) => e.id === t.fine)!.config).toMatchObject({ kind: 'theory.prop3' });
    } finally {
      await service.close();
    }
  });
});

describe('a torn annotation.json', () => {
  it('reads as no annotation: the run table still lists every run', async () => {
    const t = storeWithTorn('status.json');
    writeFileSync(join(t.store.dir(t.fine), 'annotation.json'), '{"tags": ["a');
    const service = new Service({ runsDir: t.runs, userData: t.home, transport: 'ws', settings: settings() });
    try {
      const index = (await service.dispatch('runIndex', {})) as { id: string; annotation: { tags: string[] } }[];
      expect(index.map((e) => e.id).sort()).toEqual([t.broken, t.fine].sort());
      expect(index.find((e) => e.id === t.fine)!.annotation.tags).toEqual([]);
    } finally {
      await service.close();
    }
  });
});

describe('a torn checkpoint state.json', () => {
  // A 3-world prop3 run done once, then marked interrupted with its newest checkpoint torn.
  async function runThenTear(alsoPrevious: boolean) {
    const home = mkdtempSync(join(tmpdir(), 'prh-torn-ckpt-'));
    const service = new Service({
      runsDir: join(home, 'runs'),
      userData: home,
      transport: 'ws',
      settings: settings(),
      concurrency: 1,
    });
    const { id } = (await service.dispatch('startRun', { config: config(3) })) as { id: string };
    await service.scheduler.idle();
    const done = service.store.get(id);
    expect(done.status).toBe('done');
    const dir = service.store.dir(id);
    const ckpt = join(dir, 'checkpoints', 'state.json');
    writeFileSync(ckpt, readFileSync(ckpt, 'utf8').slice(0, 30));
    const previous = join(dir, 'checkpoints', 'state.prev.json');
    if (alsoPrevious && existsSync(previous)) writeFileSync(previous, '{"nextWor');
    service.store.update(id, { status: 'interrupted' });
    return { service, id, dir, ckpt, previous, rows: (done.result as { rows?: number }).rows };
  }

  it('resumes from the previous good checkpoint, and says which file was torn', async () => {
    const t = await runThenTear(false);
    try {
      await t.service.dispatch('resumeRun', { id: t.id });
      await t.service.scheduler.idle();
      const after = t.service.store.get(t.id);
      expect(after.error).toBeNull();
      expect(after.status).toBe('done');
      expect(after.result).toMatchObject({ rows: t.rows });
      const log = readFileSync(join(t.dir, 'logs.txt'), 'utf8');
      expect(log).toContain(`${t.ckpt}: invalid JSON`);
      expect(log).toMatch(/state\.prev\.json/);
    } finally {
      await t.service.close();
    }
  });

  it('when the previous one is torn too, fails naming both files, without a stack', async () => {
    const t = await runThenTear(true);
    try {
      await t.service.dispatch('resumeRun', { id: t.id });
      await t.service.scheduler.idle();
      const after = t.service.store.get(t.id);
      expect(after.status).toBe('failed');
      expect(after.error).toContain(t.ckpt);
      expect(after.error).toContain(t.previous);
      expect(after.error).not.toMatch(/\n\s+at /);
    } finally {
      await t.service.close();
    }
  });
});
