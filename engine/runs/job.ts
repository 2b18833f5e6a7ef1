// What a job sees inside its worker process, and the JSON lines the worker sends its parent.
import { z } from 'zod';
import { MetricRecord, Progress, type RunConfig } from '../../shared/runs';
import type { EntryCommand } from '../child';
import type { Executor } from './executor';
import type { TimeLog } from './time-log';

export type JobContext<C extends RunConfig = RunConfig> = {
  config: C;
  runDir: string;
  resume: boolean; // true when restarted after a cancel, crash or kill: continue from the last checkpoint
  signal: AbortSignal; // aborted on cancel: stop at the next safe point and checkpoint
  progress(done: number, total: number, message?: string): void;
  metric(scope: string, x: number, values: Record<string, number | null>, tags?: Record<string, string | number>): void;
  log(text: string, level?: 'info' | 'warn' | 'error'): void;
  // Its time.jsonl: the phase it works on from now on (a job names its first one first), the spans so far.
  time: Pick<TimeLog, 'enter' | 'spans'>;
  path(...parts: string[]): string; // a path inside the run folder (checkpoints/, artifacts/, report/)
  worker: EntryCommand; // how this worker was started: a job with child runs (the experiment) starts theirs the same way
  executor: Executor; // where child runs compute: this machine (the worker above) or Slurm jobs (<runDir>/executor.json)
  checkpoint: {
    load<T>(): T | undefined; // the last state saved by save(), or undefined on a fresh start
    save<T>(state: T): void; // atomic
  };
};

// A job either finishes with a JSON summary, or reports divergence (NaN/Inf) after keeping its last good checkpoint
// (with a summary of what it kept, when it has one).
export type JobOutcome =
  | { status: 'done'; result: Record<string, unknown> }
  | { status: 'diverged'; message: string; result?: Record<string, unknown> };
export type Job<C extends RunConfig = RunConfig> = (ctx: JobContext<C>) => Promise<JobOutcome>;

// Thrown (or returned through signal.reason) when a job stops because it was cancelled.
export class Cancelled extends Error {
  override name = 'Cancelled';
}

// Worker -> parent, one JSON object per stdout line.
export const WorkerMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('progress'), progress: Progress }),
  z.object({ type: z.literal('metric'), record: MetricRecord }),
  z.object({ type: z.literal('log'), level: z.enum(['info', 'warn', 'error']), text: z.string() }),
  z.object({ type: z.literal('done'), result: z.record(z.string(), z.unknown()) }),
  z.object({ type: z.literal('diverged'), message: z.string(), result: z.record(z.string(), z.unknown()).optional() }),
  z.object({ type: z.literal('cancelled') }),
  // The job threw: its message (the cause, for the run's error); the stack goes to stderr (logs.txt).
  z.object({ type: z.literal('failed'), message: z.string() }),
]);
export type WorkerMessage = z.infer<typeof WorkerMessage>;
