// Tags, a note and an archived flag per run, in `<run>/annotation.json` beside the job's own files (which stay as
// the job wrote them); a run without the file has none.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RunAnnotation } from '../../shared/api';
import { writeJsonAtomic } from '../atomic';

const FILE = 'annotation.json';

// A missing, torn or hand-broken file reads as no annotation, so one run never breaks the run table.
export function readAnnotation(runDir: string): RunAnnotation {
  const file = join(runDir, FILE);
  let raw: unknown;
  try {
    raw = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
  } catch {
    raw = null;
  }
  const parsed = RunAnnotation.safeParse(raw);
  return parsed.success ? parsed.data : RunAnnotation.parse({});
}

export function writeAnnotation(runDir: string, patch: Partial<RunAnnotation>): RunAnnotation {
  const next = RunAnnotation.parse({ ...readAnnotation(runDir), ...patch });
  next.tags = [...new Set(next.tags)];
  writeJsonAtomic(join(runDir, FILE), next);
  return next;
}
