// A job's process: `node bin/entry.js engine/worker/main.ts <runDir> [--resume]`.
// It streams WorkerMessage JSON lines on stdout, appends metrics.jsonl itself (flushed per record),
// stops at the next safe point on SIGTERM, and exits if its parent dies.
import '../source-maps'; // first: before any package loads
import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { appendLineSync, writeJsonAtomic } from '../atomic';
import { DiskFullError, InputError } from '../errors';
import { readJson } from '../json-file';
import { RunConfig, type MetricRecord } from '../../shared/runs';
import {
  badLinesText,
  Cancelled,
  compactMetricsFile,
  cutTornTail,
  metricKey,
  scanMetricsFile,
  TIME_FILE,
  TimeLog,
  type JobContext,
  type WorkerMessage,
} from '../runs';
import { workerCommand } from './command';
import { executorFor } from './executor';
import { jobFor } from './jobs';

const send = (m: WorkerMessage): void => void process.stdout.write(JSON.stringify(m) + '\n');

async function main(runDir: string, resume: boolean): Promise<void> {
  const config = readJson(join(runDir, 'config.json'), RunConfig, 'a run config');
  const abort = new AbortController();
  // SIGTERM from its owner's cancel; SIGINT from Ctrl+C in the terminal, which reaches the whole process group: the
  // same graceful stop, so the owner (which cancels too) records how it ended.
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => abort.abort(new Cancelled('cancelled')));
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && process.exit(3), 1000).unref(); // orphaned: the app died

  const metricsFile = join(runDir, 'metrics.jsonl');
  const warn = (text: string) => send({ type: 'log', level: 'warn', text });
  const cut = cutTornTail(metricsFile);
  if (cut) warn(`${metricsFile}: cut a torn last line (${cut} bytes) left by a killed worker`);
  const scan = scanMetricsFile(metricsFile);
  const bad = badLinesText(scan.bad);
  if (bad) warn(`${metricsFile}: ${bad}`);
  // A resumed job replays from its checkpoint and re-emits points it had written: the file is compacted at the
  // next checkpoint and at the end, so it holds each point once (readers already keep the later record).
  const written = new Set(scan.records.map(metricKey));
  let replayed = false;
  const compact = () => {
    if (replayed) compactMetricsFile(metricsFile);
    replayed = false;
  };
  const time = new TimeLog(join(runDir, TIME_FILE), 'starting');
  const ckpt = join(runDir, 'checkpoints', 'state.json');
  const previous = join(runDir, 'checkpoints', 'state.prev.json');
  const ctx: JobContext = {
    config,
    runDir,
    resume,
    signal: abort.signal,
    progress: (done, total, message) => send({ type: 'progress', progress: { done, total, message } }),
    metric: (scope, x, values, tags) => {
      const record: MetricRecord = { t: Date.now(), scope, x, values, ...(tags ? { tags } : {}) };
      const key = metricKey(record);
      if (written.has(key)) replayed = true;
      written.add(key);
      appendLineSync(metricsFile, JSON.stringify(record));
      send({ type: 'metric', record });
    },
    log: (text, level = 'info') => send({ type: 'log', level, text }),
    time,
    path: (...parts) => join(runDir, ...parts),
    worker: workerCommand(),
    executor: executorFor(runDir),
    checkpoint: {
      load: <T>() => (resume ? loadCheckpoint<T>(ckpt, previous, warn) : undefined),
      // The one before stays as state.prev.json: a resume falls back to it if the newest is ever unreadable.
      save: (state) => {
        if (existsSync(ckpt)) renameSync(ckpt, previous);
        writeJsonAtomic(ckpt, state);
        compact();
      },
    },
  };
  try {
    const outcome = await (await jobFor(config))(ctx); // 'starting' until the job names its first phase
    compact();
    send(
      outcome.status === 'done'
        ? { type: 'done', result: outcome.result }
        : { type: 'diverged', message: outcome.message, result: outcome.result },
    );
  } catch (err) {
    if (err instanceof Cancelled) return send({ type: 'cancelled' });
    throw err;
  } finally {
    time.close();
  }
}

// The newest readable checkpoint: state.json, else (torn by a lost write, or a kill between the two renames of
// save) state.prev.json with a warning naming the torn file; neither readable is an error naming both.
function loadCheckpoint<T>(ckpt: string, previous: string, warn: (text: string) => void): T | undefined {
  const read = (file: string) => readJson(file, z.unknown(), 'a checkpoint') as T;
  let torn: string | null = null;
  if (existsSync(ckpt)) {
    try {
      return read(ckpt);
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      torn = err.message;
    }
  }
  if (!existsSync(previous)) {
    if (torn) throw new InputError(`${torn}; no earlier checkpoint (${previous}) to fall back to`);
    return undefined;
  }
  try {
    const state = read(previous);
    warn(`${torn ?? `${ckpt}: missing`}; resuming from the previous checkpoint ${previous}`);
    return state;
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    throw new InputError(`no readable checkpoint: ${torn ?? `${ckpt}: missing`}; ${err.message}`);
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
    // The cause on stdout for the run's error: a user-fixable problem (a torn file, a bad dataset, a full disk) is its
    // message alone; anything else keeps its type (a TypeError and the like: a bug) and its stack on stderr.
    const user = err instanceof InputError || err instanceof DiskFullError;
    const typed = err instanceof Error && !user && err.name !== 'Error';
    send({
      type: 'failed',
      message: err instanceof Error ? (typed ? `${err.name}: ${err.message}` : err.message) : String(err),
    });
    process.stderr.write(
      (user ? (err as Error).message : err instanceof Error ? (err.stack ?? err.message) : String(err)) + '\n',
      () => process.exit(1),
    );
  },
);
