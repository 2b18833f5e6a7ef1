// Node parses the source maps of what it loads while its source-map support is on (bin/entry.js turns it on): the
// engine's bundled sources must keep theirs (stack traces at .ts lines), the packages' must not be read (tfjs ships 18 MB of them,
// ~0.3 s of every process's start). Checked on the real `prh` command, and on each process entry's first import.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const REPORT = join(import.meta.dirname, 'fixtures', 'source-map-report.mjs');
// The engine's process entries: the CLI's, and the main build's Node entries (electron.vite.config.ts).
const ENTRIES = [
  'engine/cli/main.ts',
  'engine/worker/main.ts',
  'engine/api/lab-task.ts',
  'engine/image/world-encoder/member.ts',
];

describe('source maps', () => {
  it('`prh` loads tfjs, once started, without reading its source maps, and keeps its own', () => {
    const r = spawnSync(process.execPath, ['--import', REPORT, join(root, 'bin', 'prh.js'), '--help'], {
      cwd: root,
      encoding: 'utf8',
      env: {
        ...process.env,
        PRH_MAP_PROBE_ENTRY: join(root, 'engine', 'cli', 'main.ts'),
        PRH_MAP_PROBE_BUNDLE: join(root, '.cache', 'entries', 'engine-cli-main.json'),
      },
    });
    expect(r.status, r.stderr).toBe(0);
    const line = r.stderr.split('\n').find((l) => l.startsWith('source-maps '));
    expect(JSON.parse(line!.slice('source-maps '.length))).toEqual({
      tfjsMap: false,
      entryMap: true,
    });
  });

  it('is set up by the first import of every process entry', () => {
    for (const entry of ENTRIES) {
      const first = readFileSync(join(root, entry), 'utf8').match(/^import\s+(?:[^'"]*from\s+)?['"]([^'"]+)['"]/m)?.[1];
      expect(first, entry).toMatch(/^(\.\.?\/)+source-maps$/);
    }
  });
});
