import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../engine/errors';
import { bundleRun, writeBundle } from '../../engine/report';

// A run folder as engine/runs lays it out, with one checkpoint over the limit and an unfinished atomic write.
function makeRun(): { root: string; run: string; files: Record<string, Uint8Array> } {
  const root = mkdtempSync(join(tmpdir(), 'prh-bundle-'));
  const run = join(root, 'run-0001');
  const files: Record<string, Uint8Array> = {
    'config.json': Buffer.from('{"seed":1}\n'),
    'metrics.jsonl': Buffer.from('{"x":0,"y":1}\n{"x":1,"y":0.5}\n'),
    'logs.txt': Buffer.from('started\n'),
    'report/loss.png': Uint8Array.from({ length: 300 }, (_, i) => (i * 37) % 256),
    'report/index.md': Buffer.from('# Run\n'),
    'checkpoints/head.bin': new Uint8Array(100).fill(7),
  };
  for (const [rel, data] of Object.entries(files)) {
    mkdirSync(join(run, rel, '..'), { recursive: true });
    writeFileSync(join(run, rel), data);
  }
  writeFileSync(join(run, 'checkpoints', 'encoder.bin'), new Uint8Array(5000));
  writeFileSync(join(run, 'status.json.123.0.tmp'), 'half');
  return { root, run, files };
}

describe('bundleRun', () => {
  it('zips the run under its own folder, leaving out big checkpoints and partial writes, and says so', () => {
    const { run, files } = makeRun();
    const zip = unzipSync(bundleRun(run, { maxCheckpointBytes: 1000 }));
    const { ['run-0001/bundle.json']: manifest, ...rest } = zip;
    expect(Object.keys(rest).sort()).toEqual(
      Object.keys(files)
        .map((f) => `run-0001/${f}`)
        .sort(),
    );
    for (const [rel, data] of Object.entries(files))
      expect(Buffer.from(rest[`run-0001/${rel}`]).equals(Buffer.from(data))).toBe(true);
    expect(JSON.parse(new TextDecoder().decode(manifest))).toEqual({
      maxCheckpointBytes: 1000,
      skipped: [{ path: 'checkpoints/encoder.bin', bytes: 5000 }],
    });
  });

  it('keeps checkpoints under the limit', () => {
    const { run } = makeRun();
    expect(Object.keys(unzipSync(bundleRun(run, { maxCheckpointBytes: 10_000 })))).toContain(
      'run-0001/checkpoints/encoder.bin',
    );
  });

  it('writes the zip outside the run, and refuses a path inside it or a missing run', () => {
    const { root, run } = makeRun();
    const out = join(root, 'exports', 'run-0001.zip');
    writeBundle(run, out);
    expect(Object.keys(unzipSync(new Uint8Array(readFileSync(out))))).toContain('run-0001/metrics.jsonl');
    expect(() => writeBundle(run, join(run, 'report', 'bundle.zip'))).toThrow(InputError);
    expect(() => bundleRun(join(root, 'nope'))).toThrow(/not a run folder/);
  });
});
