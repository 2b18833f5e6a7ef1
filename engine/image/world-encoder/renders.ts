// The training images of a world encoder: the world's scenes rendered to [0, 1] CHW.
import { drawScenes, renderScenePixels } from '../../data';
import { firstRenders, renderPool, type ImageSet, type RenderPool } from '../../train';
import type { WorldEncoderRecipe } from './recipe';

// Scenes 0..n-1 of the world `seed`, rendered (with the generator's image nuisance) to [0, 1] CHW: the pixels of the
// world's PNGs (render 0 is the dataset's image to the byte) without encoding and decoding them.
export function worldImages(seed: number, n: number, side: number): ImageSet {
  const scenes = drawScenes(seed, n);
  const plane = side * side;
  const data = new Float32Array(n * 3 * plane);
  for (let i = 0; i < n; i++) {
    const px = renderScenePixels(scenes[i], side, seed, i, 0); // [side, side, 4] RGBA
    for (let q = 0; q < plane; q++)
      for (let c = 0; c < 3; c++) data[i * 3 * plane + c * plane + q] = px[4 * q + c] / 255;
  }
  return { n, side, data };
}

// The training scenes' render 0, in [0, 1]: the crop views' images, and the pooler's and the stem statistics' in every
// recipe; from the render pool where the recipe has one (renders, the same pixels), else rendered here.
export function sceneImages(w: WorldEncoderRecipe['world'], pool: RenderPool | null): ImageSet {
  return pool ? firstRenders(pool) : worldImages(w.seed, w.scenes, w.imageSize);
}

// The same render 0 without a build's pool at hand: a read-out fitted after training (repool, an ensemble's).
export const firstSceneImages = (w: WorldEncoderRecipe['world']): ImageSet =>
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
