// metrics.jsonl after a kill: a torn last line must be cut back before the resumed worker appends (else the next
// record is glued onto the fragment and lost for good), and unreadable lines in the middle are counted and reported.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Service } from '../../engine/api';
import { cutTornTail, scanMetricsFile } from '../../engine/runs';
import { RunConfig } from '../../shared/runs';

const config = RunConfig.parse({
  kind: 'theory.prop3',
  version: 1,
  params: { worlds: 2, states: 6, k: 2, m: 3, grid: 5, seed: 1, worldKind: 'uniform' },
});
const settings = () => {
  let s = { theme: 'system' as const };
  return { get: () => s, set: (p: object) => (s = { ...s, ...p } as typeof s) };
};
const xs = (file: string) =>
  scanMetricsFile(file)
    .records.map((r) => r.x)
    .sort((a, b) => a - b);

// A run finished through a real service (worker processes), then put back as a kill before its last checkpoint
// leaves it (`damage` edits its files), resumed to the end; `check` sees the run before and after.
async function resumedAfter(
  damage: (dir: string, file: string) => void,
  check: (r: { dir: string; file: string; before: number[]; status: string }) => void,
): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'prh-metrics-'));
  const service = new Service({
    runsDir: join(home, 'runs'),
    userData: home,
    transport: 'ws',
    settings: settings(),
    concurrency: 1,
  });
  try {
    const { id } = (await service.dispatch('startRun', { config })) as { id: string };
    await service.scheduler.idle();
    const dir = service.store.dir(id);
    const file = join(dir, 'metrics.jsonl');
    const before = xs(file);
    damage(dir, file);
    service.store.update(id, { status: 'interrupted' });
    await service.dispatch('resumeRun', { id });
    await service.scheduler.idle();
    check({ dir, file, before, status: service.store.get(id).status });
  } finally {
    await service.close();
  }
}
const lineCount = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).length;

describe('a torn last line of metrics.jsonl', () => {
  it('is cut back on resume: the record written next is kept, no x is lost', async () => {
    await resumedAfter(
      (dir, file) => {
        // A kill during world 2's first record: world 1's lines, half a line, the checkpoint after world 1.
        const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
        const world1 = lines.filter((l) => JSON.parse(l).values.world === 0);
        writeFileSync(file, world1.join('\n') + '\n' + lines[world1.length].slice(0, 25));
        copyFileSync(join(dir, 'checkpoints', 'state.prev.json'), join(dir, 'checkpoints', 'state.json'));
        rmSync(join(dir, 'checkpoints', 'state.prev.json'));
      },
      ({ dir, file, before, status }) => {
        expect(status).toBe('done');
        expect(xs(file)).toEqual(before);
        expect(scanMetricsFile(file).bad).toEqual([]);
        expect(readFileSync(join(dir, 'logs.txt'), 'utf8')).toMatch(
          /metrics\.jsonl: cut a torn last line \(25 bytes\)/,
        );
      },
    );
  });
});

describe('a resume that replays points already written', () => {
  it('leaves each point in metrics.jsonl once (the replayed records replace the earlier lines)', async () => {
    let written = 0;
    await resumedAfter(
      // A kill just before the last checkpoint: every record written, the checkpoint after world 1.
      (dir, file) => {
        written = lineCount(file);
        copyFileSync(join(dir, 'checkpoints', 'state.prev.json'), join(dir, 'checkpoints', 'state.json'));
      },
      ({ file, before, status }) => {
        expect(status).toBe('done');
        expect(xs(file)).toEqual(before);
        expect(lineCount(file)).toBe(written); // world 2's records were written twice, and compacted to once
      },
    );
  });
});

describe('cutTornTail', () => {
  it('keeps whole lines, cuts a fragment longer than its 64 KiB read-back, and a file that is only a fragment', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prh-metrics-'));
    const file = join(dir, 'm.jsonl');
    writeFileSync(file, 'a\nb\n');
    expect(cutTornTail(file)).toBe(0);
    writeFileSync(file, 'a\nb\n' + 'x'.repeat(100_000));
    expect(cutTornTail(file)).toBe(100_000);
    expect(readFileSync(file, 'utf8')).toBe('a\nb\n');
    writeFileSync(file, '{"t":1,"sco');
    expect(cutTornTail(file)).toBe(11);
    expect(readFileSync(file, 'utf8')).toBe('');
    expect(cutTornTail(join(dir, 'none.jsonl'))).toBe(0);
  });
});

describe('an unreadable line in the middle of metrics.jsonl', () => {
  it('is counted with its line number, not dropped silently', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prh-metrics-'));
    const file = join(dir, 'metrics.jsonl');
    const rec = (x: number) => JSON.stringify({ t: 1, scope: 's', x, values: { a: x } });
    writeFileSync(
      file,
      [
        rec(0),
        '{"t":1,"scope":"s","x":1,"values":{"a":',
        rec(2),
        '{"t":1,"scope":"s","x":"three","values":{}}',
        rec(4),
      ].join('\n') + '\n',
    );
    const scan = scanMetricsFile(file);
    expect(scan.records.map((r) => r.x)).toEqual([0, 2, 4]);
    expect(scan.bad.map((b) => b.line)).toEqual([2, 4]);
    expect(scan.bad[0].reason).toMatch(/JSON/);
    expect(scan.bad[1].reason).toMatch(/x/);
  });

  it('is reported by `prh runs show`, and by the resumed worker in the run log', async () => {
    const home = mkdtempSync(join(tmpdir(), 'prh-metrics-'));
    const service = new Service({
      runsDir: join(home, 'runs'),
      userData: home,
      transport: 'ws',
      settings: settings(),
      concurrency: 1,
    });
    try {
      const { id } = (await service.dispatch('startRun', { config })) as { id: string };
      await service.scheduler.idle();
      const file = join(service.store.dir(id), 'metrics.jsonl');
      const lines = readFileSync(file, 'utf8').split('\n');
      lines[2] = 'garbage';
      writeFileSync(file, lines.join('\n'));
      const prh = join(import.meta.dirname, '..', '..', 'bin', 'prh.js');
      const out = execFileSync(process.execPath, [prh, 'runs', 'show', id, '--runs', join(home, 'runs')], {
        env: { ...process.env, PRH_HOME: home },
        encoding: 'utf8',
      });
      expect(out).toMatch(
        new RegExp(`1 unreadable line in ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} skipped \\(line 3\\)`),
      );

      service.store.update(id, { status: 'interrupted' });
      await service.dispatch('resumeRun', { id });
      await service.scheduler.idle();
      expect(readFileSync(join(service.store.dir(id), 'logs.txt'), 'utf8')).toMatch(
        /\[warn\] .*metrics\.jsonl: 1 unreadable line skipped \(line 3\)/,
      );
    } finally {
      await service.close();
    }
  });
});
