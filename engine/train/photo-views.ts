// The GUI's view inspector: the 8 views of one photo under both arms, from the same seeded stream, decoded to tokens.
import type { ViewConfig } from '../../shared/train';
import { TrainRng } from '../models';
import { decodeIds, encodeText, makeViews, type Tokenizer, type View } from '../text';

export type InspectedView = View & { tokens: string[]; kind: 'global' | 'local' };

// Both arms use a stream keyed by the same (seed, photo), so any difference comes from the caption choice alone.
export function photoViews(tk: Tokenizer, captions: readonly string[], cfg: ViewConfig, seed: number, photoKey: string, maxLen = 64): Record<'good' | 'bad', InspectedView[]> {
  const ids = captions.map((t) => {
    const x = encodeText(tk, t).slice(0, maxLen - 2);
    return x.length ? x : [tk.unk];
  });
  const arm = (a: 'good' | 'bad') =>
    makeViews(TrainRng.seeded(seed, 'inspect', photoKey), ids, a, cfg, tk).map((v, i) => ({ ...v, tokens: decodeIds(tk, v.ids), kind: i < cfg.globals ? ('global' as const) : ('local' as const) }));
  return { good: arm('good'), bad: arm('bad') };
}
