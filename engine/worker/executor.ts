// Where a job's child runs compute: `<runDir>/executor.json` (written by the app when it starts or resumes the run:
// the settings' executor and the run's own pick, merged), else this machine.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { RunExecutor } from '../../shared/settings';
import { readJson } from '../json-file';
import { LocalExecutor, type Executor } from '../runs';
import { SlurmExecutor } from '../slurm';
import { workerCommand } from './command';

export const EXECUTOR_FILE = 'executor.json';

export function executorFor(runDir: string): Executor {
  const file = join(runDir, EXECUTOR_FILE);
  const choice = existsSync(file) ? readJson(file, RunExecutor, "the run's executor") : { kind: 'local' as const };
  return choice.kind === 'slurm'
    ? new SlurmExecutor({ settings: choice.slurm, worker: workerCommand() })
    : new LocalExecutor(workerCommand());
}
