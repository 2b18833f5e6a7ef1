// Views for the image JEPA that are other renderings of the same world state (the paper's "good" image views: frames
// of one clip, not crops of one frame): the V views of an image are V different renders from its pool of K, each
// with light Gaussian pixel noise, then ImageNet mean/std as the crop views (image-views.ts) are normalised.
import type { TrainRng } from '../models';
import { IMAGENET_MEAN, IMAGENET_STD } from './image-views';

// K renders of each of n square RGB images as bytes: render k of image i at (i·K + k)·3S², CHW (S = side).
export type RenderPool = { n: number; renders: number; side: number; data: Uint8Array };

// V views of each of the B images `ids`: [V·B, 3, S, S] in view-major order (row v·B + b), normalised. Each image
// draws V distinct renders (a shuffled pool, cycled when K < V) and each view its noise std from U(0, noise)
// (noise in [0, 1] pixel units).
export function renderViewBatch(pool: RenderPool, ids: ArrayLike<number>, V: number, noise: number, rng: TrainRng): Float32Array {
  const B = ids.length, plane = pool.side * pool.side, per = 3 * plane, K = pool.renders;
  const out = new Float32Array(V * B * per);
  for (let b = 0; b < B; b++) {
    const order = rng.permutation(K);
    for (let v = 0; v < V; v++) {
      const src = (ids[b] * K + order[v % K]) * per;
      const dst = (v * B + b) * per;
      const std = noise * rng.uniform();
      for (let c = 0; c < 3; c++)
        for (let q = 0; q < plane; q++) {
          const x = Math.min(1, Math.max(0, pool.data[src + c * plane + q] / 255 + std * rng.normal()));
          out[dst + c * plane + q] = (x - IMAGENET_MEAN[c]) / IMAGENET_STD[c];
        }
    }
  }
  return out;
}
