import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateWorld } from '../../engine/data/world';
import { TrainRng } from '../../engine/models/rng';
import { type ProbeResult, attributeLabel, listImages, pixelFeatures, probeAttributes } from '../../engine/image';
import { ridgeSolutions } from '../../engine/image/attribute-probe';

const world = generateWorld(join(mkdtempSync(join(tmpdir(), 'prh-probe-')), 'w'), {
  splits: { train: 400, val: 100, test: 150 },
  imageSize: 32,
  seed: 3,
});
const refs = listImages(world.dir);
const byTask = (rs: ProbeResult[]) => Object.fromEntries(rs.map((r) => [r.task, r]));

describe('linear probes of world attributes', () => {
  it('labels: object attributes from single-object scenes, background from all', () => {
    const one = world.dataset.images.find((im) => im.state!.objects.length === 1)!;
    const many = world.dataset.images.find((im) => im.state!.objects.length > 1)!;
    expect(attributeLabel(one, 'shape')).toBe(one.state!.objects[0].shape);
    expect(attributeLabel(one, 'position')).toBe(String(one.state!.objects[0].cell));
    expect(attributeLabel(many, 'colour')).toBeNull();
    expect(attributeLabel(many, 'background')).toBe(many.state!.background);
  });

  it('raw pixels carry colour and background far above chance', async () => {
    const r = byTask(
      await probeAttributes(
        await pixelFeatures(
          refs.map((x) => x.file),
          8,
        ),
        refs.map((x) => x.id),
        world.dataset.images,
      ),
    );
    expect(r.background.classes).toBe(6);
    expect(r.background.train).toBe(400);
    expect(r.colour.accuracy).toBeGreaterThan(r.colour.chance + 0.2); // ~0.37 vs ~0.09 on ~130 single-object train scenes
    expect(r.background.accuracy).toBeGreaterThan(r.background.chance + 0.3);
  });

  it('features without information score near chance (no label leaks into the probe)', async () => {
    const rng = TrainRng.seeded(0, 'noise');
    const noise = {
      rows: refs.length,
      dim: 64,
      data: Float32Array.from({ length: refs.length * 64 }, () => rng.normal()),
    };
    for (const r of await probeAttributes(
      noise,
      refs.map((x) => x.id),
      world.dataset.images,
    ))
      expect(r.accuracy, r.task).toBeLessThan(r.chance + 0.15);
  });

  // (ZᵀZ + λn I) W = ZᵀY checked in plain loops, with fewer rows than columns and a constant (zero) column as the
  // standardised pixels have: the identity the one decomposition for every λ must meet.
  it('ridge solutions meet their normal equations for every lambda', async () => {
    const rng = TrainRng.seeded(1, 'ridge');
    for (const [n, d, K] of [
      [40, 12, 3],
      [20, 50, 5],
    ]) {
      const Z = Float64Array.from({ length: n * d }, (_, i) => (i % d === 3 ? 0 : rng.normal()));
      const Y = Float64Array.from({ length: n * K }, () => rng.normal());
      const lambdas = [1e-4, 1e-2, 1, 10];
      const Ws = await ridgeSolutions({ rows: n, cols: d, data: Z }, { rows: n, cols: K, data: Y }, lambdas);
      lambdas.forEach((lambda, l) => {
        const W = Ws[l];
        let worst = 0;
        for (let a = 0; a < d; a++)
          for (let c = 0; c < K; c++) {
            let lhs = lambda * n * W[a * K + c],
              rhs = 0;
            for (let i = 0; i < n; i++) {
              let zw = 0;
              for (let b = 0; b < d; b++) zw += Z[i * d + b] * W[b * K + c];
              lhs += Z[i * d + a] * zw;
              rhs += Z[i * d + a] * Y[i * K + c];
            }
            worst = Math.max(worst, Math.abs(lhs - rhs) / (1 + Math.abs(rhs)));
          }
        expect(worst, `n ${n}, d ${d}, lambda ${lambda}`).toBeLessThan(1e-9);
        for (let c = 0; c < K; c++) expect(Math.abs(W[3 * K + c])).toBeLessThan(1e-10); // the zero column: no weight
      });
    }
  });
});
