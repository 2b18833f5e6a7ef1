// The run store from the command line: a grid experiment saved as a run, then listed and shown.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const prh = join(import.meta.dirname, '..', '..', 'bin', 'prh.js');
const home = mkdtempSync(join(tmpdir(), 'prh-cli-'));
const run = (...args: string[]) =>
  execFileSync(process.execPath, [prh, ...args], { env: { ...process.env, PRH_HOME: home }, encoding: 'utf8' });

describe('prh runs', () => {
  it('stores `theory prop3 --save` as a run, with the same rows as the inline computation', () => {
    const saved = JSON.parse(run('theory', 'prop3', '--save', '--worlds', '2', '--json'));
    const inline = JSON.parse(run('theory', 'prop3', '--worlds', '2', '--json'));
    expect(saved.rows).toHaveLength(82);
    expect(saved.rows).toEqual(inline.rows);
    expect(saved.summary).toEqual(inline.summary);
    const list = JSON.parse(run('runs', 'list', '--json'));
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ kind: 'theory.prop3', status: 'done', progress: { done: 2, total: 2 } });
    const shown = JSON.parse(run('runs', 'show', list[0].id, '--json'));
    expect(shown.metrics.filter((m: { scope: string }) => m.scope === 'prop3')).toHaveLength(82);
    // where its time went, from the run's time.jsonl: the process starting, then the job's own phase
    const text = run('runs', 'show', list[0].id);
    expect(text).toContain('**Time per phase**');
    expect(text).toMatch(/\| starting +\|/);
    expect(text).toMatch(/\| worlds +\|/);
    expect(text).toMatch(/\| total +\| +\d+\.\d \| +100\.0% \|/);
  });

  it('exits 2 with the message alone on bad input', () => {
    let err: { status?: number; stderr?: string } = {};
    try {
      run('runs', 'show', '../nope');
    } catch (e) {
      err = e as typeof err;
    }
    expect(err.status).toBe(2);
    expect(err.stderr).toMatch(/^error: not a run id/);
  });
});
