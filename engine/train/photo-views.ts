// The GUI's view inspector: the 8 views of one photo under both arms, from the same seeded stream, decoded to tokens.
import type { ViewConfig } from '../../shared/train';
import { TrainRng } from '../models';
import { captionIds, decodeIds, makeViews, type Tokenizer, type View } from '../text';

// A view with its ids decoded to tokens; the GUI receives shared/api.ts InspectedView, built from it in engine/api.
export type DecodedView = View & { tokens: string[]; kind: 'global' | 'local' };

// Both arms use a stream keyed by the same (seed, photo), so any difference comes from the caption choice alone.
// views: the recipe; seed and photo key the stream; maxLen: tokens per caption with [CLS]/[SEP].
export type PhotoViewsOptions = { views: ViewConfig; seed: number; photo: string; maxLen?: number };
export function photoViews(
  tk: Tokenizer,
  captions: readonly string[],
  { views: cfg, seed, photo: photoKey, maxLen = 64 }: PhotoViewsOptions,
): Record<'good' | 'bad', DecodedView[]> {
  const ids = captions.map((t) => captionIds(tk, t, maxLen));
  const arm = (a: 'good' | 'bad') =>
    makeViews(TrainRng.seeded(seed, 'inspect', photoKey), ids, a, cfg, tk).map((v, i) => ({
      ...v,
      tokens: decodeIds(tk, v.ids),
      kind: i < cfg.globals ? ('global' as const) : ('local' as const),
    }));
  return { good: arm('good'), bad: arm('bad') };
}
