// World generation speed: scenes per second with images (PNG written), its parts, and the default world end to end.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  captionScene,
  drawScenes,
  generateWorld,
  inspectDataset,
  NUISANCE,
  openDataset,
  renderScene,
} from '../../engine/data';
import type { BenchSuite } from './run';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const time = (f: () => void) => {
  const t = performance.now();
  f();
  return (performance.now() - t) / 1000;
};

export default {
  name: 'data',
  run: async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'prh-bench-data-'));
    try {
      const N = 1000,
        REPEATS = 5;
      const scenes = drawScenes(0, N);
      const withImages = Array.from(
        { length: REPEATS },
        (_, r) => N / time(() => generateWorld(join(tmp, `w${r}`), { seed: r, splits: { train: N, val: 0, test: 0 } })),
      );
      const captionsOnly = Array.from(
        { length: REPEATS },
        () =>
          N /
          time(() => scenes.forEach((s, i) => captionScene(s, 0, i, { diversity: true, nuisance: NUISANCE.strong }))),
      );
      const renderOnly = Array.from(
        { length: REPEATS },
        () => N / time(() => scenes.forEach((s, i) => renderScene(s, 64, 0, i))),
      );
      const render128 = Array.from(
        { length: REPEATS },
        () => N / time(() => scenes.forEach((s, i) => renderScene(s, 128, 0, i))),
      );
      const full = generateWorld(join(tmp, 'default'), {});
      const inspectSeconds = time(() => inspectDataset(openDataset(join(tmp, 'default'))));
      return {
        unit: 'scenes per second (median of 5 runs of 1,000 scenes), seconds',
        scenesPerSecondWithImages: median(withImages),
        captionScenesPerSecond: median(captionsOnly),
        renderScenesPerSecond64: median(renderOnly),
        renderScenesPerSecond128: median(render128),
        defaultWorld: { scenes: full.dataset.images.length, seconds: full.seconds, targetSeconds: 60 },
        inspectDefaultWorldSeconds: inspectSeconds,
        python: 'skipped: the procedural world has no Python counterpart, so there is nothing to compare side by side',
      };
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  },
} satisfies BenchSuite;
