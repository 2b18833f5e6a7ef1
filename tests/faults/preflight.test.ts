// Everything an experiment needs is checked before the run exists: exit 2, nothing stored, the message naming the
// file or the flag as typed. Before, a corrupt photo, a model that is not an image encoder, a NaN model or a wrong
// --image-output each stored a failed run and exited 1; --bootstrap 50 said `startRun: config.eval.bootstrap`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateWorld } from '../../engine/data';
import { buildVitOnnx, ElemType, GraphBuilder, randomVitWeights, valueInfo } from '../../engine/models/onnx';

const prh = join(import.meta.dirname, '..', '..', 'bin', 'prh.js');
const home = mkdtempSync(join(tmpdir(), 'prh-preflight-'));
const runs = join(home, 'runs');
const world = join(home, 'world');
const cfg = { imageSize: 28, patchSize: 14, hidden: 16, depth: 1, heads: 2, mlp: 32 };
const models = {
  nan: join(home, 'vit-nan.onnx'),
  vit: join(home, 'vit.onnx'),
  table: join(home, 'table.onnx'),
};
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [prh, 'experiment', '--data', world, '--runs', runs, '--epochs', '1', ...args], {
    env: { ...process.env, PRH_HOME: home },
    encoding: 'utf8',
  });
const stored = () => (existsSync(runs) ? readdirSync(runs).filter((n) => !n.startsWith('.')) : []);

beforeAll(() => {
  generateWorld(world, { seed: 6, splits: { train: 16, val: 12, test: 12 }, imageSize: 32 });
  const weights = randomVitWeights(cfg, 0);
  writeFileSync(models.vit, buildVitOnnx(cfg, weights));
  const w = 'embeddings.patch_embeddings.projection.weight';
  writeFileSync(models.nan, buildVitOnnx(cfg, { ...weights, [w]: weights[w].map((v, i) => (i === 0 ? NaN : v)) }));
  // A model of tabular rows, not images: input [N, 16].
  const g = new GraphBuilder();
  g.op('Relu', ['x'], {}, 'y');
  writeFileSync(
    models.table,
    g.encode([valueInfo('x', ElemType.FLOAT, ['n', 16])], [valueInfo('y', ElemType.FLOAT, ['n', 16])], 'table'),
  );
});

describe('prh experiment refuses before anything runs', () => {
  it('a NaN model, naming the model and the photos', () => {
    const r = cli('--image-model', models.nan);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/vit-nan\.onnx: the model's output is NaN or infinite for 4 of 4 images in this batch/);
    expect(stored()).toEqual([]);
  });

  it('a model that is not an image encoder', () => {
    const r = cli('--image-model', models.table);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^error: .*table\.onnx: /m);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(stored()).toEqual([]);
  });

  it('an --image-output the model does not have', () => {
    const r = cli('--image-model', models.vit, '--image-output', 'no_such_tensor');
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/no_such_tensor/);
    expect(stored()).toEqual([]);
  });

  it('a fit or test photo that does not decode, naming it', () => {
    const ds = JSON.parse(readFileSync(join(world, 'dataset.json'), 'utf8'));
    const photo = ds.images.find((i: { split: string }) => i.split === 'test');
    const file = join(world, 'images', photo.file);
    const good = readFileSync(file);
    const bad = Buffer.from(good);
    for (let i = 60; i < bad.length - 20; i++) bad[i] = (bad[i] * 7 + 3) % 256; // header and tail intact
    writeFileSync(file, bad);
    try {
      const r = cli('--image-model', models.vit);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toContain(`1 of the 24 fit and test photos cannot be decoded: ${file}: not a readable image`);
      expect(stored()).toEqual([]);
    } finally {
      writeFileSync(file, good);
    }
  });

  it('flags out of range, named as typed', () => {
    const r = cli('--bootstrap', '50', '--seeds', '0,1,1');
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe('error: --bootstrap 50: must be at least 100; --seeds 0,1,1: each seed once');
    const many = cli('--seeds', Array.from({ length: 5000 }, (_, i) => i).join(','));
    expect(many.status).toBe(2);
    expect(many.stderr).toMatch(
      /--seeds 0,1,2,.*… \(5000 values\): 15000 arm runs \(3 arms x 5000 seeds\) is more than the 64 one experiment trains/,
    );
    expect(stored()).toEqual([]);
  });
});
