// The 2x2's scores: every (image arm x text arm) cell of one seed on the same test pairs with the same Procrustes
// evaluation, in one paired bootstrap (the same resampled test queries for all cells), so each difference between
// two cells has its own CI: text views within an image arm, image views within a text arm, and both at once.
import type { GridCell, GridDifference, ImageViewArm } from '../../shared/experiment';
import { compareArms } from '../align';
import { pairSplits, type Paired, type Side } from './pairs';

type Split = { val: Side; test: Side };
type CellKey = { image: ImageViewArm; text: string };
const METRICS = [
  ['imageToText.r1', 'r1'],
  ['imageToText.r5', 'r5'],
  ['mknn', 'mknn'],
] as const;

const varies = (a: CellKey, b: CellKey): GridDifference['varies'] =>
  a.image === b.image
    ? 'text'
    : a.text === b.text
      ? 'image'
      : a.image === a.text && b.image === b.text
        ? 'both'
        : 'crossed';

/** One seed's cells and differences; image and text arms in the config's order (so a is the good side of each pair). */
export async function scoreGrid(
  images: Map<ImageViewArm, Split>,
  texts: Map<string, Split>,
  seed: number,
  o: { k: number; bootstrap: number; seed: number },
): Promise<{ cells: GridCell[]; differences: GridDifference[] }> {
  const keys: CellKey[] = [...images.keys()].flatMap((image) => [...texts.keys()].map((text) => ({ image, text })));
  const name = (c: CellKey) => `image ${c.image} / text ${c.text}`;
  const paired = new Map<string, Paired>(
    keys.map((c) => [name(c), pairSplits(images.get(c.image)!, texts.get(c.text)!)]),
  );
  const first = paired.values().next().value!;
  for (const [n, p] of paired)
    if (p.ids.length !== first.ids.length || p.ids.some((id, i) => id !== first.ids[i]))
      throw new Error(`2x2: ${n} pairs other photos than the first cell`);
  const cmp = await compareArms({
    arms: keys.map((c) => ({ name: name(c), image: paired.get(name(c))!.image, text: paired.get(name(c))!.text })),
    fit: first.fit,
    test: first.test,
    k: o.k,
    resamples: o.bootstrap,
    seed: o.seed,
  });
  const at = (metric: (typeof METRICS)[number][0], c: CellKey) => {
    const i = cmp.bootstrap[metric]?.scores[name(c)];
    return i ? { estimate: i.estimate, lo: i.lo, hi: i.hi } : null;
  };
  const cells = keys.map((c) => ({
    ...c,
    seed,
    r1: at('imageToText.r1', c)!,
    r5: at('imageToText.r5', c)!,
    mknn: at('mknn', c),
  }));
  const byName = new Map(keys.map((c) => [name(c), c]));
  const differences = METRICS.flatMap(([metric, short]) =>
    (cmp.bootstrap[metric]?.differences ?? []).map((d): GridDifference => {
      const a = byName.get(d.a)!,
        b = byName.get(d.b)!;
      return { seed, metric: short, varies: varies(a, b), a, b, estimate: d.estimate, lo: d.lo, hi: d.hi };
    }),
  );
  return { cells, differences };
}
