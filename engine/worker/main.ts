// A job's process: `node --import tsx engine/worker/main.ts <runDir> [--resume]`.
// It streams WorkerMessage JSON lines on stdout, appends metrics.jsonl itself (flushed per record),
// stops at the next safe point on SIGTERM, and exits if its parent dies.
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { appendLineSync, writeJsonAtomic } from '../atomic';
import { RunConfig, type MetricRecord } from '../../shared/runs';
import { Cancelled, type JobContext, type WorkerMessage } from '../runs';
import { workerCommand } from './command';
import { executorFor } from './executor';
import { InputError } from '../errors';
import { jobFor } from './jobs';

const send = (m: WorkerMessage): void => void process.stdout.write(JSON.stringify(m) + '\n');

async function main(runDir: string, resume: boolean): Promise<void> {
  const config = RunConfig.parse(JSON.parse(readFileSync(join(runDir, 'config.json'), 'utf8')));
  const abort = new AbortController();
  process.on('SIGTERM', () => abort.abort(new Cancelled('cancelled')));
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && process.exit(3), 1000).unref(); // orphaned: the app died

  const ckpt = join(runDir, 'checkpoints', 'state.json');
  const ctx: JobContext = {
    config, runDir, resume, signal: abort.signal,
    progress: (done, total, message) => send({ type: 'progress', progress: { done, total, message } }),
    metric: (scope, x, values, tags) => {
      const record: MetricRecord = { t: Date.now(), scope, x, values, ...(tags ? { tags } : {}) };
      appendLineSync(join(runDir, 'metrics.jsonl'), JSON.stringify(record));
      send({ type: 'metric', record });
    },
    log: (text, level = 'info') => send({ type: 'log', level, text }),
    path: (...parts) => join(runDir, ...parts),
    worker: workerCommand(),
    executor: executorFor(runDir),
    checkpoint: {
      load: <T>() => (resume && existsSync(ckpt) ? (JSON.parse(readFileSync(ckpt, 'utf8')) as T) : undefined),
      save: (state) => writeJsonAtomic(ckpt, state),
    },
  };
  try {
    const outcome = await (await jobFor(config))(ctx);
    send(outcome.status === 'done' ? { type: 'done', result: outcome.result } : { type: 'diverged', message: outcome.message, result: outcome.result });
  } catch (err) {
    if (err instanceof Cancelled) return send({ type: 'cancelled' });
    throw err;
  }
}

const [runDir, flag] = process.argv.slice(2);
if (!runDir) {
  process.stderr.write('usage: worker <runDir> [--resume]\n');
  process.exit(2);
}
main(runDir, flag === '--resume').then(
  () => process.exit(0),
  (err: unknown) => {
    // The cause on stdout for the run's error (a TypeError and the like keep their type: a bug), the stack on stderr.
    const typed = err instanceof Error && !(err instanceof InputError) && err.name !== 'Error';
    send({ type: 'failed', message: err instanceof Error ? (typed ? `${err.name}: ${err.message}` : err.message) : String(err) });
    process.stderr.write((err instanceof Error ? err.stack ?? err.message : String(err)) + '\n', () => process.exit(1));
  },
);
