// Views of one photo (docs/reference.md#views): 8 views, 2 global (50-100% of the tokens) first, then 6 local (15-50%).
// Per view: choose the caption, take a random contiguous span, mask 15% of it, add [CLS]/[SEP].
// Good views draw each view's caption from the photo's captions with replacement; bad views cut all views
// from one caption. After the caption choice both arms run the identical pipeline.
import { ViewConfig } from '../../shared/train';
export { ViewConfig };

export const DEFAULT_VIEWS: ViewConfig = ViewConfig.parse({});

export type ViewArm = 'good' | 'bad';

// The draws the pipeline needs; the training loop passes its seeded stream.
export type Draw = { uniform(): number; int(lo: number, hi: number): number };

export type View = {
  caption: number; // index into the photo's captions
  start: number; // span start in caption tokens
  length: number; // span length in caption tokens
  masked: number[]; // positions (within the span) replaced by [MASK]
  ids: number[]; // [CLS] span' [SEP]
};

export type SpecialIds = { cls: number; sep: number; mask: number };

// Span: frac ~ U(lo, hi), L = max(1, round(frac·len)), start ~ U{0..len−L}. Mask: Bernoulli(rate) per token,
// never every token (one uniformly chosen token is then kept).
export function cutView(
  rng: Draw,
  tokens: readonly number[],
  caption: number,
  span: readonly [number, number],
  maskRate: number,
  sp: SpecialIds,
): View {
  const n = tokens.length;
  const frac = span[0] + (span[1] - span[0]) * rng.uniform();
  const length = Math.min(n, Math.max(1, Math.round(frac * n)));
  const start = rng.int(0, n - length);
  const keep = tokens.slice(start, start + length);
  const masked: number[] = [];
  for (let i = 0; i < length; i++) if (rng.uniform() < maskRate) masked.push(i);
  if (masked.length === length) masked.splice(rng.int(0, length - 1), 1);
  for (const i of masked) keep[i] = sp.mask;
  return { caption, start, length, masked, ids: [sp.cls, ...keep, sp.sep] };
}

// captions: token ids of every caption of one photo (no [CLS]/[SEP]). Returns globals first, then locals.
export function makeViews(
  rng: Draw,
  captions: readonly (readonly number[])[],
  arm: ViewArm,
  cfg: ViewConfig,
  sp: SpecialIds,
): View[] {
  const V = cfg.globals + cfg.locals;
  const single = arm === 'bad' ? rng.int(0, captions.length - 1) : -1;
  const views: View[] = [];
  for (let v = 0; v < V; v++) {
    const c = arm === 'bad' ? single : rng.int(0, captions.length - 1);
    views.push(cutView(rng, captions[c], c, v < cfg.globals ? cfg.globalSpan : cfg.localSpan, cfg.maskRate, sp));
  }
  return views;
}
