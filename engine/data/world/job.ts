// `world.generate` as a stored run, so the GUI can generate the default world with live progress.
// Generation is deterministic by seed, so a resumed run simply writes the same files again.
import type { WorldGenerateConfig } from '../../../shared/runs';
import type { Job } from '../../runs/job';
import { generateWorld } from './generate';

export const worldJob: Job<WorldGenerateConfig> = async (ctx) => {
  const { out, seed, preset, diversity, nuisance, splits, imageSize } = ctx.config;
  const res = generateWorld(out, { seed, preset, diversity, nuisance, splits, imageSize }, {
    force: ctx.resume,
    onProgress: (done, total) => ctx.progress(done, total, 'scenes'),
  });
  const counts = { train: res.params.splits.train, val: res.params.splits.val, test: res.params.splits.test };
  ctx.log(`wrote ${res.dataset.images.length} scenes to ${out} in ${res.seconds.toFixed(1)} s`);
  return { status: 'done', result: { path: out, name: res.dataset.name, counts, seconds: res.seconds, params: res.dataset.params } };
};
