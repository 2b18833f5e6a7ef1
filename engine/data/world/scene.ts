// Scenes: 1-3 objects in distinct cells of a 3x3 grid on a background, drawn uniformly and never repeated.
import { BACKGROUNDS, COLOURS, SHAPES, SIZES, type Background, type Colour, type Shape, type Size } from './lexicon';
import { WorldRng } from './rng';

export type SceneObject = { shape: Shape; colour: Colour; size: Size; cell: number };
// Objects are kept sorted by cell: the canonical order used when annotator diversity is off.
export type Scene = { background: Background; objects: SceneObject[] };

export const sceneKey = (s: Scene): string =>
  [s.background, ...s.objects.map((o) => `${o.cell}:${o.shape}:${o.colour}:${o.size}`)].join('|');

function drawScene(rng: WorldRng): Scene {
  const count = rng.int(1, 3);
  const cells = rng
    .shuffled([0, 1, 2, 3, 4, 5, 6, 7, 8])
    .slice(0, count)
    .sort((a, b) => a - b);
  return {
    background: rng.pick(BACKGROUNDS),
    objects: cells.map((cell) => ({ shape: rng.pick(SHAPES), colour: rng.pick(COLOURS), size: rng.pick(SIZES), cell })),
  };
}

/** The first `n` distinct scenes of the world with this seed; scene i does not depend on n. */
export function drawScenes(seed: number, n: number): Scene[] {
  const rng = new WorldRng(seed, 1);
  const seen = new Set<string>();
  const out: Scene[] = [];
  // ~4e9 distinct scenes exist but only 10,368 with one object, so worlds of many thousand scenes redraw some
  // one-object repeats (a slight shift toward 2-3 objects); the cap guards a broken sampler.
  for (let tries = 0; out.length < n; tries++) {
    if (tries > 20 * n + 1000) throw new Error(`could not draw ${n} distinct scenes`);
    const s = drawScene(rng);
    const k = sceneKey(s);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(s);
  }
  return out;
}
