// The training images of a world encoder: the world's scenes rendered to [0, 1] CHW.
import { drawScenes } from '../../data';
import { firstRenders, renderPool, type ImageSet, type RenderPool } from '../../train';
import type { WorldEncoderRecipe } from './recipe';

// Scenes 0..n-1 of the world `seed`, rendered (with the generator's image nuisance) to [0, 1] CHW: render 0 of each,
// the dataset's image to the byte, without a PNG's encoding and decoding.
export const worldImages = (seed: number, n: number, side: number): ImageSet =>
  firstRenders(
    renderPool(
      seed,
      side,
      drawScenes(seed, n).map((state, index) => ({ index, state })),
      1,
    ),
  );

// The training scenes' render 0, in [0, 1]: the crop views' images, and the pooler's and the stem statistics' in every
// recipe; from the render pool where the recipe has one (renders, the same pixels), else rendered here.
export function sceneImages(w: WorldEncoderRecipe['world'], pool: RenderPool | null): ImageSet {
  return pool ? firstRenders(pool) : worldImages(w.seed, w.scenes, w.imageSize);
}

// The same render 0 without a build's pool at hand: a read-out fitted after training (repool, an ensemble's).
export const firstSceneImages = (w: WorldEncoderRecipe['world']): ImageSet =>
  worldImages(w.seed, w.scenes, w.imageSize);
