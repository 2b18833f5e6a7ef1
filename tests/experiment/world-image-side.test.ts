// The shipped world encoder is fed what it trained on: the whole render at its side (64 px), not the dinov2 preset's
// resize to 73 px and centre crop, which zooms in and cuts the border cells; a size or resize the user gives wins.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ImageEncoderChoice } from '../../shared/experiment';
import { generateWorld, readDataset } from '../../engine/data';
import { experimentLayout } from '../../engine/experiment/layout';
import { embedImageSide, type Photos } from '../../engine/experiment/images';
import { readWorldEncoderManifest } from '../../engine/image';

const home = mkdtempSync(join(tmpdir(), 'prh-world-side-'));
const world = join(home, 'world');
let photos: Photos;

beforeAll(() => {
  generateWorld(world, { seed: 3, splits: { train: 4, val: 6, test: 6 }, imageSize: 64 });
  const ds = readDataset(world);
  photos = {
    fit: ds.images.filter((im) => im.split === 'val'),
    test: ds.images.filter((im) => im.split === 'test'),
    imagesDir: join(world, 'images'),
  };
});

const side = async (name: string, choice: Record<string, unknown>) => {
  const run = join(home, name);
  mkdirSync(join(run, 'image'), { recursive: true });
  return embedImageSide(
    photos,
    ImageEncoderChoice.parse({ model: 'world', device: 'cpu', ...choice }),
    experimentLayout(run).image,
    null,
  );
};

describe("the world encoder as an experiment's image side", () => {
  it('sees the whole 64-px render', async () => {
    const s = await side('default', {});
    expect(s.encoder.spec).toMatchObject({ preset: 'dinov2', size: 64, resize: 64 });
    expect(s.encoder.dim).toBe(
      readWorldEncoderManifest(join(import.meta.dirname, '..', '..', 'resources', 'world-encoder.json')).recipe.pooler!
        .dims,
    ); // the whitened pooler's width
  });
  it('keeps a size or resize given by the user', async () => {
    const s = await side('given', { resize: 73 }); // the dinov2 preset's own zoom, asked for
    expect(s.encoder.spec).toMatchObject({ size: 64, resize: 73 });
  });
});
