// The lab's child process: image matching, run bundling, an experiment's image-side preflight and pair sweeps, off
// the main process (Electron main, `prh serve`).
// One task as JSON on stdin, one JSON reply line on stdout (engine/child).
import '../source-maps'; // first: before any package loads
import { answerParent } from '../child';
import type { ExperimentConfig } from '../../shared/experiment';
import { matchDroppedImages, preflightExperimentImages, sweepExperiment } from '../experiment';
import { writeBundle } from '../report';

export type LabTask =
  | {
      task: 'match';
      runDir: string;
      images: { name: string; base64: string }[];
      pool: string;
      topK: number;
      perPhoto: boolean;
    }
  | { task: 'bundle'; runDir: string; out: string; maxCheckpointBytes?: number }
  | { task: 'preflight'; config: ExperimentConfig }
  | { task: 'sweep'; runDir: string; counts: number[]; repeats: number };

await answerParent(async (t: LabTask) => {
  if (t.task === 'match') return matchDroppedImages(t.runDir, t.images, t.pool, t.topK, t.perPhoto);
  if (t.task === 'preflight') return preflightExperimentImages(t.config).then(() => null);
  if (t.task === 'sweep') return sweepExperiment(t.runDir, t);
  writeBundle(t.runDir, t.out, { maxCheckpointBytes: t.maxCheckpointBytes });
  return { out: t.out };
});
