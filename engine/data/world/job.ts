// `world.generate` as a stored run, so the GUI can generate the default world with live progress.
// Generation is deterministic by seed, so a resumed run simply writes the same files again; dataset.json is written
// last, so an interrupted run left none and needs no force. A dataset already there is overwritten only when the
// run's config says `force` (a refused run stays refused on resume).
import type { WorldGenerateConfig } from '../../../shared/runs';
import type { Job } from '../../runs/job';
import { generateWorld } from './generate';

export const worldJob: Job<WorldGenerateConfig> = async (ctx) => {
  ctx.time.enter('generating');
  const { out, seed, preset, diversity, nuisance, splits, imageSize, force } = ctx.config;
  const res = generateWorld(
    out,
    { seed, preset, diversity, nuisance, splits, imageSize },
    {
      force: force === true,
      onProgress: (done, total) => ctx.progress(done, total, 'scenes'),
    },
  );
  const counts = { train: res.params.splits.train, val: res.params.splits.val, test: res.params.splits.test };
  ctx.log(`wrote ${res.dataset.images.length} scenes to ${out} in ${res.seconds.toFixed(1)} s`);
  return {
    status: 'done',
    result: { path: out, name: res.dataset.name, counts, seconds: res.seconds, params: res.dataset.params },
  };
};
