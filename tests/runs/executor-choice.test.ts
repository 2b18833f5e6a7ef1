// resolveExecutor: what an experiment's executor.json holds, from the settings and the experiment's own pick.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExperimentConfig } from '../../shared/experiment';
import { RunExecutor, resolveExecutor } from '../../shared/settings';

describe('resolveExecutor', () => {
  const cluster = {
    partition: 'gpu',
    time: '4:00:00',
    gpus: 1,
    extra: ['--qos=normal'],
    setup: ['module load nodejs/20'],
    pollSeconds: 5,
  };

  it('is local unless the experiment or the settings say slurm', () => {
    expect(resolveExecutor({})).toEqual({ kind: 'local' });
    expect(resolveExecutor({ executor: 'local', slurm: cluster })).toEqual({ kind: 'local' });
    expect(resolveExecutor({ executor: 'slurm', slurm: cluster }, { kind: 'local', partition: 'ignored' })).toEqual({
      kind: 'local',
    });
  });

  it("takes the settings' cluster block with its extra lines, and the experiment's named fields over it", () => {
    expect(resolveExecutor({ executor: 'slurm', slurm: cluster })).toEqual({ kind: 'slurm', slurm: cluster });
    const r = resolveExecutor(
      { slurm: cluster },
      { kind: 'slurm', partition: 'short', time: '30', qos: 'high', constraint: 'a100&ib', exclusive: true },
    );
    expect(r).toEqual({
      kind: 'slurm',
      slurm: { ...cluster, partition: 'short', time: '30', qos: 'high', constraint: 'a100&ib', exclusive: true },
    });
    expect(RunExecutor.parse(r)).toEqual(r);
    expect(resolveExecutor({ executor: 'slurm' })).toEqual({ kind: 'slurm', slurm: {} });
  });

  it('takes no free-form lines from an experiment: extra and setup come from the settings file only', () => {
    const base = { kind: 'experiment', version: 1, data: '/d' };
    for (const field of ['extra', 'setup', 'node', 'project']) {
      const r = ExperimentConfig.safeParse({ ...base, executor: { kind: 'slurm', [field]: ['--qos=high'] } });
      expect(r.success, field).toBe(false);
      expect(r.error!.issues[0].message).toMatch(new RegExp(`not an experiment's executor field: ${field}`));
    }
  });

  it('is checked with the experiment config: a bad override names its field', () => {
    const base = { kind: 'experiment', version: 1, data: '/d' };
    expect(
      ExperimentConfig.safeParse({ ...base, executor: { kind: 'slurm', time: '4h' } }).error?.issues[0].path,
    ).toEqual(['executor', 'time']);
    expect(ExperimentConfig.safeParse({ ...base, executor: { kind: 'cloud' } }).error?.issues[0].path).toEqual([
      'executor',
      'kind',
    ]);
  });
});

describe('prh experiment --executor', () => {
  it('exits 2 naming the field when the executor or a Slurm override is not valid', () => {
    const home = mkdtempSync(join(tmpdir(), 'prh-exec-cli-'));
    try {
      const prh = (...args: string[]) =>
        spawnSync(
          process.execPath,
          [
            join(import.meta.dirname, '..', '..', 'bin', 'prh.js'),
            'experiment',
            '--data',
            join(home, 'd'),
            '--runs',
            join(home, 'runs'),
            ...args,
          ],
          { env: { ...process.env, PRH_HOME: home }, encoding: 'utf8' },
        );
      const cloud = prh('--executor', 'cloud');
      expect(cloud.status).toBe(2);
      expect(cloud.stderr).toMatch(/--executor cloud: must be one of "local", "slurm"/);
      expect(cloud.stderr).not.toMatch(/\n\s+at /); // no stack
      const time = prh('--partition', 'gpu', '--time', '4h');
      expect(time.status).toBe(2);
      expect(time.stderr).toMatch(/--time 4h: a Slurm time limit/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
