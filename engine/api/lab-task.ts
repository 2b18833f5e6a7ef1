// The lab's child process: one task as JSON on stdin, one JSON reply line on stdout (engine/child).
import { answerParent } from '../child';
import { writeBundle } from '../report';
import type { LabTask } from './lab';
import { matchImages } from './match';

await answerParent(async (task: LabTask) => {
  if (task.task === 'match') return matchImages(task.runDir, task.images, task.pool, task.topK);
  writeBundle(task.runDir, task.out);
  return { out: task.out };
});
