// The job scheduler: runs queued jobs through an executor (local child processes by default, or batch jobs), at most
// `concurrency` at once, relays their JSON-line events, and turns how each attempt ended into the run's final status.
import { EventEmitter } from 'node:events';
import { cpus } from 'node:os';
import { RESUMABLE, type RunEvent, type RunState } from '../../shared/runs';
import type { EntryCommand } from '../child';
import { DiskFullError, InputError } from '../errors';
import {
  LocalExecutor,
  type Ending,
  type Execution,
  type ExecutionSink,
  type Executor,
  type Placement,
} from './executor';
import { WorkerMessage } from './job';
import {
  adopt,
  claim,
  describeOwner,
  heartbeat,
  HEARTBEAT_MS,
  otherOwner,
  release,
  submitterAlive,
  withWorker,
  type OwnerProbe,
  type OwnerRecord,
} from './owner';
import type { RunStore } from './store';

type Active = {
  execution: Execution | null;
  cancelRequested: boolean;
  outcome: WorkerMessage | null;
  stderr: string[];
  ended: Promise<void>;
};

// executor: where jobs compute (default: LocalExecutor of `worker`, engine/worker's workerCommand() or a stand-in in
// tests, which gets `<runDir> [--resume]`); concurrency: default the executor's, else the number of cores;
// heartbeatMs: how often owner.json of the runs this process owns is refreshed (default HEARTBEAT_MS).
export type SchedulerOptions = {
  worker?: EntryCommand;
  executor?: Executor;
  concurrency?: number;
  killAfterMs?: number;
  progressWriteMs?: number;
  heartbeatMs?: number;
};

export class Scheduler extends EventEmitter<{ event: [RunEvent] }> {
  readonly concurrency: number;
  readonly executor: Executor;
  private readonly progressWriteMs: number;
  private readonly heartbeatMs: number;
  private readonly queue: { id: string; resume: boolean; jobId?: string }[] = [];
  private readonly active = new Map<string, Active>();
  private readonly lastProgressWrite = new Map<string, number>();
  private readonly owned = new Map<string, OwnerRecord>(); // runs this process owns (queued or running): owner.json
  private beat?: NodeJS.Timeout;

  constructor(
    private readonly store: RunStore,
    opts: SchedulerOptions,
  ) {
    super();
    if (!opts.executor && !opts.worker) throw new Error('Scheduler: give an executor or a worker command');
    this.executor = opts.executor ?? new LocalExecutor(opts.worker!, opts.killAfterMs);
    this.concurrency = Math.max(1, opts.concurrency ?? this.executor.concurrency ?? cpus().length);
    this.progressWriteMs = opts.progressWriteMs ?? 250;
    this.heartbeatMs = opts.heartbeatMs ?? HEARTBEAT_MS;
  }

  submit(id: string, resume = false): RunState {
    let state = this.store.get(id);
    if (this.active.has(id) || this.queue.some((q) => q.id === id))
      throw new InputError(`run ${id} is already ${state.status}`);
    const other = otherOwner(this.store.dir(id), this.probe);
    // A batch job whose submitter died computes on: this process follows it instead of submitting another.
    if (other?.jobId && other.executor === this.executor.kind && this.executor.follow && !submitterAlive(other)) {
      this.owned.set(id, adopt(this.store.dir(id), other));
      this.startBeat();
      this.log(id, `[${new Date().toISOString()}] following ${describeOwner(other)}, whose submitter is gone`);
      this.queue.unshift({ id, resume: false, jobId: other.jobId }); // it already runs: first in line
      this.pump();
      return this.store.get(id);
    }
    if (other)
      throw new InputError(
        `run ${id} is ${state.status} under ${describeOwner(other)}: stop it there, or wait until it ends`,
      );
    if (resume) state = this.store.recoverRun(state, this.probe); // left running by a process that died after this one started
    if (resume && !RESUMABLE.includes(state.status))
      throw new InputError(`run ${id} is ${state.status}; only ${RESUMABLE.join('/')} runs can be resumed`);
    this.own(id);
    // In the queue before its status is announced: a listener of that event (idle(), or one that submits the next run
    // as one ends) sees it waiting.
    this.queue.push({ id, resume });
    const next = this.setState(id, { status: 'queued', error: null, endedAt: null });
    this.pump();
    return next;
  }

  cancel(id: string): RunState {
    const queued = this.queue.findIndex((q) => q.id === id);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      const state = this.setState(id, { status: 'cancelled', endedAt: new Date().toISOString() });
      this.disown(id);
      return state;
    }
    const run = this.active.get(id);
    if (!run) throw new InputError(`run ${id} is not running (${this.store.get(id).status})`);
    run.cancelRequested = true;
    run.execution?.cancel(); // graceful: the job checkpoints at its next safe point
    return this.store.get(id);
  }

  // Whether this scheduler has the run queued or running.
  has(id: string): boolean {
    return this.active.has(id) || this.queue.some((q) => q.id === id);
  }

  running(): string[] {
    return [...this.active.keys()];
  }

  // Resolves when nothing is queued or running (for the CLI and tests).
  idle(): Promise<void> {
    if (!this.active.size && !this.queue.length) return Promise.resolve();
    return new Promise((resolve) => {
      const check = (e: RunEvent) => {
        if (e.type === 'status' && !this.active.size && !this.queue.length) {
          this.off('event', check);
          resolve();
        }
      };
      this.on('event', check);
    });
  }

  // Stop every job (app quit): cancel gracefully, kill after the grace period.
  async shutdown(): Promise<void> {
    for (const { id } of this.queue.splice(0)) this.disown(id); // left queued: the next start-up marks them interrupted
    const waits = [...this.active.entries()].map(([id, run]) => {
      this.cancel(id);
      return run.ended;
    });
    await Promise.all(waits);
  }

  private pump(): void {
    while (this.active.size < this.concurrency && this.queue.length) {
      const { id, resume, jobId } = this.queue.shift()!;
      this.start(id, resume, jobId);
    }
  }

  private start(id: string, resume: boolean, jobId?: string): void {
    let ended!: () => void;
    const run: Active = {
      execution: null,
      cancelRequested: false,
      outcome: null,
      stderr: [],
      ended: new Promise<void>((r) => (ended = r)),
    };
    this.active.set(id, run);
    const prev = this.store.get(id);
    if (jobId)
      this.setState(id, { status: 'running', error: null, endedAt: null }); // the same attempt, followed from here
    else
      this.setState(id, {
        status: 'running',
        pid: null,
        slurm: null,
        startedAt: new Date().toISOString(),
        attempts: prev.attempts + 1,
      });
    const sink: ExecutionSink = {
      line: (line) => this.onLine(id, run, line),
      stderr: (line) => {
        run.stderr.push(line);
        if (run.stderr.length > 40) run.stderr.shift();
        this.log(id, `[stderr] ${line}`);
      },
      log: (text) => this.log(id, `[${new Date().toISOString()}] ${text}`),
      placed: (p) => this.onPlaced(id, p),
      ended: (e) => {
        this.onEnded(id, run, e);
        ended();
      },
    };
    const target = { id, dir: this.store.dir(id) };
    run.execution = jobId
      ? this.executor.follow!(target, { jobId, resubmits: prev.slurm?.resubmits ?? 0 }, sink)
      : this.executor.start(target, resume, sink);
  }

  // A batch job's id goes into owner.json too: another process then asks the cluster whether the run is live.
  // A local worker's pid too: it may outlive this process (kill -9), and the run is not free while it writes.
  private onPlaced(id: string, p: Placement): void {
    const record = this.owned.get(id);
    if (record && p.slurm && record.jobId !== p.slurm.jobId)
      this.owned.set(id, heartbeat(this.store.dir(id), { ...record, executor: 'slurm', jobId: p.slurm.jobId }));
    else if (record && !p.slurm && p.pid !== null && record.worker?.pid !== p.pid)
      this.owned.set(id, heartbeat(this.store.dir(id), withWorker(record, p.pid)));
    const state = this.store.get(id);
    if (state.status !== 'running' && state.status !== 'queued') return; // ended meanwhile
    this.setState(id, { pid: p.pid, ...(p.slurm ? { slurm: p.slurm } : {}), status: p.waiting ? 'queued' : 'running' });
  }

  private onLine(id: string, run: Active, line: string): void {
    let msg: WorkerMessage;
    try {
      msg = WorkerMessage.parse(JSON.parse(line));
    } catch {
      this.log(id, `[stdout] ${line}`); // stray prints from libraries are kept, not fatal
      return;
    }
    switch (msg.type) {
      case 'progress': {
        const now = Date.now();
        if (
          now - (this.lastProgressWrite.get(id) ?? 0) >= this.progressWriteMs ||
          msg.progress.done >= msg.progress.total
        ) {
          this.lastProgressWrite.set(id, now);
          this.spare(() => this.store.update(id, { progress: msg.progress })); // the next one will do
        }
        this.emit('event', { type: 'progress', runId: id, progress: msg.progress });
        break;
      }
      case 'metric':
        this.emit('event', { type: 'metric', runId: id, record: msg.record });
        break;
      case 'log':
        this.log(id, `[${msg.level}] ${msg.text}`);
        this.emit('event', { type: 'log', runId: id, level: msg.level, text: msg.text });
        break;
      default:
        run.outcome = msg;
    }
  }

  private onEnded(id: string, run: Active, e: Ending): void {
    this.active.delete(id);
    this.lastProgressWrite.delete(id);
    const endedAt = new Date().toISOString();
    const o = run.outcome;
    const base = { pid: null, endedAt };
    if (e.kind === 'status')
      this.setState(id, {
        ...base,
        status: run.cancelRequested && e.status !== 'failed' ? 'cancelled' : e.status,
        error: e.error,
      });
    else if (o?.type === 'done' && e.code === 0)
      this.setState(id, { ...base, status: 'done', result: o.result, error: null });
    else if (o?.type === 'diverged')
      this.setState(id, { ...base, status: 'diverged', error: o.message, result: o.result ?? null });
    else if (run.cancelRequested || o?.type === 'cancelled')
      this.setState(id, { ...base, status: 'cancelled', error: null });
    else if (o?.type === 'failed')
      this.setState(id, {
        ...base,
        status: 'failed',
        error: `${o.message}\n(the worker's stack is in ${this.store.dir(id)}/logs.txt)`,
      });
    else {
      const how = e.signal ? `killed by ${e.signal}` : `exited with code ${e.code}`;
      const tail = run.stderr.slice(-20).join('\n');
      this.setState(id, { ...base, status: 'failed', error: `worker ${how}${tail ? `:\n${tail}` : ''}` });
    }
    this.log(id, `[${endedAt}] ended: ${this.store.get(id).status}`);
    this.disown(id);
    this.pump();
  }

  // Claim owner.json for a run this process queues, and keep one heartbeat timer while it owns any run.
  private own(id: string): void {
    this.owned.set(id, claim(this.store.dir(id), this.probe));
    this.startBeat();
  }

  private startBeat(): void {
    this.beat ??= setInterval(() => {
      for (const [run, record] of this.owned) this.owned.set(run, heartbeat(this.store.dir(run), record));
    }, this.heartbeatMs).unref();
  }

  private disown(id: string): void {
    if (!this.owned.delete(id)) return;
    release(this.store.dir(id));
    if (!this.owned.size) {
      clearInterval(this.beat);
      this.beat = undefined;
    }
  }

  // Whether another process's batch job still computes a run: the store's check, else this executor's.
  private get probe(): OwnerProbe | undefined {
    return this.store.ownerAlive ?? this.executor.ownerAlive?.bind(this.executor);
  }

  // On a full disk the new status cannot be saved: it is still announced (so idle() and the GUI see the run end),
  // and status.json keeps its last saved state, which the next start turns into `interrupted` (resumable).
  private setState(id: string, patch: Partial<RunState>): RunState {
    let state: RunState;
    try {
      state = this.store.update(id, patch);
    } catch (err) {
      if (!(err instanceof DiskFullError)) throw err;
      state = { ...this.store.get(id), ...patch, id };
      state.error = [state.error, `${err.message} (this status could not be saved)`].filter(Boolean).join('\n');
    }
    this.emit('event', { type: 'status', runId: id, state });
    return state;
  }

  // A log line or progress write lost to a full disk is not worth stopping the scheduler (and every other run) for.
  private spare(write: () => void): void {
    try {
      write();
    } catch (err) {
      if (!(err instanceof DiskFullError)) throw err;
    }
  }
  private log(id: string, line: string): void {
    this.spare(() => this.store.log(id, line));
  }
}
