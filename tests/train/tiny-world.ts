// A tiny in-memory caption world for tests: scenes of coloured shapes, 5 annotator captions each, with a per-caption
// nuisance word, written in the dataset.json layout of shared/dataset.ts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Dataset } from '../../shared/dataset';
import { TrainRng } from '../../engine/models';

const SHAPES = ['circle', 'square', 'triangle', 'star', 'cross', 'ring'];
const COLOURS = ['red', 'green', 'blue', 'yellow', 'purple', 'orange'];
const PLACES = ['left', 'right', 'top', 'bottom', 'middle'];
const NUISANCE = ['zork', 'blip', 'quux', 'flim', 'snor', 'vex', 'plam', 'trud'];

export function tinyWorld(counts: { train: number; val: number; test: number }, seed = 0): Dataset {
  const rng = TrainRng.seeded(seed, 'tiny-world');
  const pick = <T>(xs: readonly T[]) => xs[rng.int(0, xs.length - 1)];
  const images: Dataset['images'] = [];
  for (const split of ['train', 'val', 'test'] as const)
    for (let i = 0; i < counts[split]; i++) {
      const objs = Array.from({ length: rng.int(1, 3) }, () => ({
        shape: pick(SHAPES),
        colour: pick(COLOURS),
        place: pick(PLACES),
      }));
      const captions = Array.from({ length: 5 }, (_, a) => {
        const style = rng.int(0, NUISANCE.length - 1);
        const parts = objs.map((o) =>
          a % 2 ? `a ${o.colour} ${o.shape} at the ${o.place}` : `${o.place} : ${o.colour} ${o.shape}`,
        );
        return {
          text: `${NUISANCE[style]} ${parts.join(a % 3 ? ' and ' : ' , ')} ${NUISANCE[style]}`,
          annotator: a,
          style,
        };
      });
      images.push({ id: `${split}-${i}`, split, file: null, captions, evalCaption: rng.int(0, 4) });
    }
  return { version: 1, name: 'tiny-world', source: 'world', params: { seed }, images };
}

export function writeTinyWorld(dir: string, counts: { train: number; val: number; test: number }, seed = 0): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'dataset.json'), JSON.stringify(tinyWorld(counts, seed)));
  return dir;
}
