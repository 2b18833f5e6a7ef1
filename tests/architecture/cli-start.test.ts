// `prh` starts with the modules every command needs; a command's own engine (tfjs and the models, onnxruntime and
// the encoders, Skia's canvas) loads when that command runs, so `prh --help` or `prh runs list` does not pay ~0.9 s
// of CPU for them.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const REPORT = join(import.meta.dirname, 'fixtures', 'loaded-packages.mjs');
const home = mkdtempSync(join(tmpdir(), 'prh-start-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

// The packages a `prh` command loaded, as the reporter saw them at exit.
function packagesOf(args: string[]): string[] {
  const r = spawnSync(process.execPath, ['--import', REPORT, join(root, 'bin', 'prh.js'), ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, PRH_HOME: home },
  });
  expect(r.status, r.stderr).toBe(0);
  const line = r.stderr.split('\n').find((l) => l.startsWith('packages '));
  return JSON.parse(line!.slice('packages '.length)) as string[];
}

const ENGINES = ['@tensorflow/tfjs', '@tensorflow/tfjs-core', 'onnxruntime-node', '@napi-rs/canvas'];

// The commands that start with a service (runs list), with help only, and the top-level help.
const COMMANDS = [['--help'], ['train', '--help'], ['runs', 'list', '--runs', join(home, 'runs')]];

describe('prh start', () => {
  it.each(COMMANDS.map((args) => [args.slice(0, 2).join(' '), args]))(
    '`prh %s` loads neither tfjs, onnxruntime nor the canvas',
    (_name, args) => {
      const loaded = packagesOf(args as string[]);
      expect(loaded).toContain('commander'); // the reporter sees the CLI's packages
      expect(loaded.filter((p) => ENGINES.includes(p))).toEqual([]);
    },
  );
});
