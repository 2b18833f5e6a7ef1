// A full disk under the runs folder: the run fails with "disk full at <path>" (no stack, no crash of the process
// that schedules it), leaves no temp checkpoint behind, and resumes once space is freed. The runs folder sits on
// a 2 MiB tmpfs: the first checkpoint of the cpu preset (weights + optimizer, ~1.8 MB) fits, the second does not.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Service } from '../../engine/api';
import { generateWorld } from '../../engine/data';

const base = mkdtempSync(join(tmpdir(), 'prh-disk-full-'));
const mnt = join(base, 'small');
mkdirSync(mnt);
const mount = (opts: string) => spawnSync('mount', ['-t', 'tmpfs', '-o', opts, 'tmpfs', mnt], { encoding: 'utf8' });
const probe = mount('size=2m');
const canMount = probe.status === 0;
if (canMount) spawnSync('umount', [mnt]);
const data = join(base, 'world');
const train = { kind: 'train', version: 1, data, arm: 'good', epochs: 2, batch: 8, slices: 16, backend: 'cpu' };

// Temp files and folders of atomic writes and checkpoints (`*.tmp`, `.epoch-N.<pid>.tmp`), anywhere under dir.
const temps = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => /\.tmp$/.test(f));

describe.skipIf(!canMount)(
  `a full disk (tmpfs${canMount ? '' : `: mount not allowed here: ${probe.stderr.trim()}`})`,
  () => {
    beforeAll(() => {
      generateWorld(data, { seed: 0, splits: { train: 32, val: 8, test: 8 }, imageSize: 16 });
    });
    afterAll(() => {
      spawnSync('umount', ['-l', mnt]);
    });

    it('fails the run with "disk full at <path>", cleans its temp files, and resumes after space is freed', async () => {
      expect(mount('size=2m').status).toBe(0);
      const runs = join(mnt, 'runs');
      let settings = { theme: 'system' as const };
      const service = new Service({
        runsDir: runs,
        userData: base,
        transport: 'ws',
        concurrency: 1,
        settings: { get: () => settings, set: (p) => (settings = { ...settings, ...p } as typeof settings) },
      });
      try {
        const { id } = (await service.dispatch('startRun', { config: train })) as { id: string };
        await service.scheduler.idle();
        const failed = service.store.get(id);
        expect(failed.status).toBe('failed');
        expect(failed.error).toMatch(new RegExp(`disk full at ${mnt.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/`));
        expect(failed.error).not.toMatch(/\n\s+at /); // no stack
        expect(temps(runs)).toEqual([]);

        expect(spawnSync('mount', ['-o', 'remount,size=16m', mnt]).status).toBe(0); // space freed
        await service.dispatch('resumeRun', { id });
        await service.scheduler.idle();
        const done = service.store.get(id);
        expect(done.error).toBeNull();
        expect(done.status).toBe('done');
        expect(readFileSync(join(service.store.dir(id), 'logs.txt'), 'utf8')).toMatch(/resumed from epoch 1/);
        expect(temps(runs)).toEqual([]);
      } finally {
        await service.close();
        spawnSync('umount', ['-l', mnt]);
      }
    });

    it('`prh train` on a full disk exits 1 with "disk full at <path>" (no stack, no temp folder), and --resume finishes', () => {
      expect(mount('size=2m').status).toBe(0);
      const out = join(mnt, 'run');
      const prh = join(import.meta.dirname, '..', '..', 'bin', 'prh.js');
      const args = [
        prh,
        'train',
        '--data',
        data,
        '--arm',
        'good',
        '--out',
        out,
        '--epochs',
        '2',
        '--batch',
        '8',
        '--slices',
        '16',
        '--backend',
        'cpu',
      ];
      try {
        const first = spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...process.env, PRH_HOME: base } });
        expect(first.status).toBe(1);
        expect(first.stderr).toMatch(new RegExp(`disk full at ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/`));
        expect(first.stderr).not.toMatch(/\n\s+at /);
        expect(temps(out)).toEqual([]);
        expect(spawnSync('mount', ['-o', 'remount,size=16m', mnt]).status).toBe(0);
        const resumed = execFileSync(process.execPath, [...args, '--resume'], {
          encoding: 'utf8',
          env: { ...process.env, PRH_HOME: base },
        });
        expect(resumed).toMatch(/resumed from epoch 1/);
        expect(resumed).toMatch(/^done: 1 epoch\(s\), selected epoch 2/m); // the epoch this process trained
      } finally {
        spawnSync('umount', ['-l', mnt]);
      }
    });
  },
);
