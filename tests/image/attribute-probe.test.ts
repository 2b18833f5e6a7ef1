import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateWorld } from '../../engine/data/world';
import { TrainRng } from '../../engine/models/rng';
import { type ProbeResult, attributeLabel, listImages, pixelFeatures, probeAttributes } from '../../engine/image';

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
      probeAttributes(
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

  it('features without information score near chance (no label leaks into the probe)', () => {
    const rng = TrainRng.seeded(0, 'noise');
    const noise = {
      rows: refs.length,
      dim: 64,
      data: Float32Array.from({ length: refs.length * 64 }, () => rng.normal()),
    };
    for (const r of probeAttributes(
      noise,
      refs.map((x) => x.id),
      world.dataset.images,
    ))
      expect(r.accuracy, r.task).toBeLessThan(r.chance + 0.15);
  });
});
