// The procedural world behind a dataset, as the 2x2 needs it to render its training scenes again: the world's seed
// and image size (the dataset's provenance) and each training scene's index and state; anything else is refused.
import { z } from 'zod';
import type { Dataset } from '../../shared/dataset';
import { BACKGROUNDS, COLOURS, SHAPES, SIZES, type Scene } from '../data';
import { InputError } from '../errors';

export const PATCH = 8; // px, the image arms' ViT patch side (as the shipped world encoder's)

// What a dataset must hold for its training scenes to be rendered again: the world's seed and image size (its
// provenance), and each training scene's index (its id, w<index>) and state.
const WorldProvenance = z.object({ seed: z.number().int().nonnegative(), imageSize: z.number().int().positive() });
const SceneState = z.object({
  background: z.enum(BACKGROUNDS),
  objects: z
    .array(
      z.object({
        shape: z.enum(SHAPES),
        colour: z.enum(COLOURS),
        size: z.enum(SIZES),
        cell: z.number().int().min(0).max(8),
      }),
    )
    .min(1),
});
export type RenderableWorld = { seed: number; imageSize: number; train: { index: number; state: Scene }[] };

/** The procedural world behind a dataset, for the 2x2; an InputError naming why when the dataset is not one. */
export function renderableWorld({ images, source, params }: Dataset, file: string, format: string): RenderableWorld {
  const why = (reason: string) =>
    new InputError(
      `${file}: the 2x2 experiment (image views) renders further views of each training scene from its state, so it needs a procedural world (prh world generate); ${reason}`,
    );
  if (source !== 'world') throw why(`this is ${format} data, whose photos have no scene state to render again`);
  const p = WorldProvenance.safeParse(params);
  if (!p.success) throw why('its dataset.json params lack the world seed and imageSize');
  if (p.data.imageSize % PATCH)
    throw why(`its image size ${p.data.imageSize} px is not a multiple of the ViT's ${PATCH}-px patches`);
  const train = images
    .filter((im) => im.split === 'train')
    .map((im) => {
      const state = SceneState.safeParse(im.state);
      const index = /^w\d+$/.test(im.id) ? Number(im.id.slice(1)) : NaN;
      if (!state.success || !Number.isInteger(index))
        throw why(`training image ${im.id} has no scene state or no scene index in its id`);
      return { index, state: state.data };
    });
  return { seed: p.data.seed, imageSize: p.data.imageSize, train };
}
