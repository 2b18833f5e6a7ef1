// The training images of a world encoder: the world's scenes rendered and decoded to [0, 1] CHW.
import { skia } from '../../skia';
import { drawScenes, resolveWorld, worldScene } from '../../data';
import { firstRenders, renderPool, type ImageSet, type RenderPool } from '../../train';
import type { WorldEncoderRecipe } from './recipe';

// Scenes 0..n-1 of the world `seed`, rendered (with the generator's image nuisance) and decoded to [0, 1] CHW.
export async function worldImages(seed: number, n: number, side: number): Promise<ImageSet> {
  const params = resolveWorld({ seed, splits: { train: n, val: 0, test: 0 }, imageSize: side });
  const scenes = drawScenes(seed, n);
  const data = new Float32Array(n * 3 * side * side);
  const ctx = skia().createCanvas(side, side).getContext('2d');
  const plane = side * side;
  for (let i = 0; i < n; i++) {
    ctx.drawImage(await skia().loadImage(worldScene(params, scenes, i).png), 0, 0);
    const px = ctx.getImageData(0, 0, side, side).data;
    for (let q = 0; q < plane; q++)
      for (let c = 0; c < 3; c++) data[i * 3 * plane + c * plane + q] = px[4 * q + c] / 255;
  }
  return { n, side, data };
}

// The training scenes' render 0, in [0, 1]: the crop views' images, and the pooler's and the stem statistics' in every
// recipe; from the render pool where the recipe has one (renders, the same pixels), else decoded from the PNGs.
export async function sceneImages(w: WorldEncoderRecipe['world'], pool: RenderPool | null): Promise<ImageSet> {
  return pool ? firstRenders(pool) : worldImages(w.seed, w.scenes, w.imageSize);
}

// The same render 0 without a build's pool at hand: a read-out fitted after training (repool, an ensemble's).
export const firstSceneImages = (w: WorldEncoderRecipe['world']): Promise<ImageSet> =>
  sceneImages(
    w,
    w.renders
      ? renderPool(
          w.seed,
          w.imageSize,
          drawScenes(w.seed, w.scenes).map((state, index) => ({ index, state })),
          1,
        )
      : null,
  );
