// Where a run's worker computes. The scheduler queues runs, owns them (owner.json) and turns how an attempt ended
// into the run's status; an executor starts one attempt of the worker for a run folder, hands the scheduler the
// worker's lines as they come, says where the attempt runs, and reports how it ended. LocalExecutor runs a child
// process here; engine/slurm's SlurmExecutor runs a batch job (injected by engine/worker or the service, so this
// folder imports no domain).
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { SlurmPlacement } from '../../shared/runs';
import { killTree, spawnEntry, type EntryCommand } from '../child';
import type { OwnerRecord } from './owner';

// Where the attempt runs now: a local pid, or a batch job (id, node once placed, Slurm's state). `waiting`: the
// job waits in the cluster's queue (the run reads as queued until it runs).
export type Placement = { pid: number | null; slurm?: SlurmPlacement; waiting?: boolean };

// How an attempt ended. `exit`: the worker stopped; the scheduler decides from its last message, the exit code and
// whether a cancel was asked for. `status`: the executor knows what happened without the worker's word (sbatch
// rejected the job, the cluster ended it, a job failed before the worker could say why), in Slurm's words.
export type Ending =
  | { kind: 'exit'; code: number | null; signal: string | null }
  | { kind: 'status'; status: 'failed' | 'cancelled' | 'interrupted'; error: string | null };

export type ExecutionSink = {
  line(text: string): void; // a line of the worker's stdout: a WorkerMessage as JSON, or a stray print
  stderr(text: string): void; // a line of its errors (a batch job's output file holds both)
  log(text: string): void; // what the executor did (submitted, resubmitted), for the run's logs.txt
  placed(p: Placement): void;
  ended(e: Ending): void; // once, after every line
};

export type Execution = { cancel(): void }; // graceful: the worker checkpoints at its next safe point; ended() follows

export interface Executor {
  readonly kind: OwnerRecord['executor'];
  // Runs at once (local: cores; Slurm: the cluster queues, so every run is submitted).
  readonly concurrency?: number;
  start(run: { id: string; dir: string }, resume: boolean, sink: ExecutionSink): Execution;
  // Follow a job of this kind that a process which has since died submitted (owner.json's jobId), as start() would
  // after its submission: the run goes on without a second job.
  // resubmits: how often the run's job was resubmitted before (status.json), so the limit holds across processes.
  follow?(run: { id: string; dir: string }, job: { jobId: string; resubmits: number }, sink: ExecutionSink): Execution;
  // Checks before a job with child runs does its own long work (Slurm: the controller answers and the partition
  // exists), so a wrong setting fails in seconds, in the cluster's words.
  preflight?(): Promise<void>;
  // Whether an owner record this kind of executor wrote is still live (Slurm: its job is pending or running). Runs
  // owned by another process are left alone while it is.
  ownerAlive?(r: OwnerRecord): boolean;
}

// A child process on this machine: `<worker> <runDir> [--resume]`, SIGTERM on cancel, SIGKILL after killAfterMs (to
// the worker and the workers it started: an experiment's arms).
export class LocalExecutor implements Executor {
  readonly kind = 'local' as const;

  constructor(
    private readonly worker: EntryCommand,
    private readonly killAfterMs = 5000,
  ) {}

  start(run: { id: string; dir: string }, resume: boolean, sink: ExecutionSink): Execution {
    const child: ChildProcess = spawnEntry(
      this.worker,
      [run.dir, ...(resume ? ['--resume'] : [])],
      ['ignore', 'pipe', 'pipe'],
    );
    let killTimer: NodeJS.Timeout | undefined;
    sink.placed({ pid: child.pid ?? null });
    sink.log(`${resume ? 'resumed' : 'started'} (pid ${child.pid})`);
    createInterface({ input: child.stdout! }).on('line', (l) => sink.line(l));
    createInterface({ input: child.stderr! }).on('line', (l) => sink.stderr(l));
    child.on('error', (err) => sink.stderr(`could not start the worker: ${err.message}`));
    child.on('close', (code, signal) => {
      clearTimeout(killTimer);
      sink.ended({ kind: 'exit', code, signal });
    });
    return {
      cancel: () => {
        child.kill('SIGTERM');
        killTimer ??= setTimeout(() => child.pid !== undefined && killTree(child.pid), this.killAfterMs);
      },
    };
  }
}
