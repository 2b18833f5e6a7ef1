// Child runs as Slurm batch jobs. An attempt is `sbatch <run>/slurm.sh` (the worker for the run folder, see
// script.ts); then, every pollSeconds, the job's state from scontrol/sacct and the new lines of its output file
// (the worker's JSON lines and its errors, written on the node into the shared runs folder) go to the scheduler as
// a local worker's stdout would. A job the cluster ended (time limit, preemption, node failure) is resubmitted from
// its last checkpoint up to maxResubmits times; a job Slurm requeued itself reruns with --resume (the script).
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { SlurmSettings } from '../../shared/settings';
import type { EntryCommand } from '../child';
import { STALE_MS, WorkerMessage, type Execution, type ExecutionSink, type Executor, type OwnerRecord } from '../runs';
import { Slurm, jobFailure, type Submitted } from './client';
import type { SlurmEnv } from './command';
import { jobEnded, jobFromScontrol, jobPhase, type SlurmJob } from './job';
import { sbatchOptions, workerJob, type JobResources } from './script';

export type SlurmExecutorOptions = SlurmEnv & {
  settings: SlurmSettings; // the cluster block of the settings (node, project, setup, requeue, maxResubmits, pollSeconds)
  resources?: JobResources; // what each job asks for (default: the settings' own; an experiment's overrides merged in)
  worker: EntryCommand; // how this machine starts the worker (engine/worker's workerCommand()); nodeCommand() moves it
  pollMs?: number; // default: settings.pollSeconds (10 s)
};

// A job state that cannot be read this many times in a row (controller down) ends the attempt as interrupted.
const READ_FAILURES = 30;
// The line the batch script prints first on every (re)start of the job.
const START_LINE = /^\[prh\] job /;
const ENDINGS = new Set(['done', 'diverged', 'failed', 'cancelled']);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

export class SlurmExecutor implements Executor {
  readonly kind = 'slurm' as const;
  readonly concurrency = 10_000; // every child is submitted; the cluster's queue decides when each runs
  private readonly slurm: Slurm;

  constructor(private readonly o: SlurmExecutorOptions) {
    this.slurm = new Slurm(o);
  }

  start(run: { id: string; dir: string }, resume: boolean, sink: ExecutionSink): Execution {
    return this.run(run, resume, sink, null, 0);
  }

  // A job an earlier process submitted for this run (owner.json): tracked from its output file's first line.
  follow(run: { id: string; dir: string }, job: { jobId: string; resubmits: number }, sink: ExecutionSink): Execution {
    return this.run(run, true, sink, job.jobId, job.resubmits);
  }

  private run(
    run: { id: string; dir: string },
    resume: boolean,
    sink: ExecutionSink,
    jobId: string | null,
    resubmits: number,
  ): Execution {
    const attempt = { cancelled: false, jobId };
    void this.track(run, resume, sink, attempt, resubmits).catch((e: unknown) =>
      sink.ended({ kind: 'status', status: 'failed', error: message(e) }),
    );
    return {
      cancel: () => {
        attempt.cancelled = true;
        if (attempt.jobId) this.slurm.cancel(attempt.jobId).catch((e: unknown) => sink.log(message(e)));
      },
    };
  }

  async preflight(): Promise<void> {
    await this.slurm.partition((this.o.resources ?? this.o.settings).partition);
  }

  // A run another process submitted is live while its job is pending or running. scontrol is asked synchronously
  // (recover() and submit() check owners in one pass); a controller that does not answer leaves the heartbeat to tell.
  ownerAlive(r: OwnerRecord): boolean {
    if (!r.jobId) return Date.now() - Date.parse(r.heartbeatAt) < STALE_MS;
    const out = spawnSync('scontrol', ['show', 'job', '-o', r.jobId], {
      env: this.o.env ?? process.env,
      encoding: 'utf8',
      timeout: 30_000,
    });
    const line = out.stdout?.split('\n').find((l) => l.startsWith('JobId='));
    if (line) return !jobEnded(jobFromScontrol(line));
    if (/Invalid job id/i.test(out.stderr ?? '')) return false; // forgotten by the controller: long ended
    return Date.now() - Date.parse(r.heartbeatAt) < STALE_MS;
  }

  private async track(
    run: { id: string; dir: string },
    resume: boolean,
    sink: ExecutionSink,
    attempt: { cancelled: boolean; jobId: string | null },
    resubmitted: number,
  ): Promise<void> {
    const s = this.o.settings;
    const resources = this.o.resources ?? s;
    const maxResubmits = s.maxResubmits ?? 2;
    const pollMs = this.o.pollMs ?? (s.pollSeconds ?? 10) * 1000;
    let resubmits = resubmitted;
    let fromCheckpoint = resume;
    let adopted = attempt.jobId; // a job already submitted by an earlier process: followed, not submitted again
    for (;;) {
      let sub: Submitted;
      const job = workerJob(run, this.o.worker, s, fromCheckpoint, resources);
      if (adopted) {
        sub = { jobId: adopted, script: join(run.dir, 'slurm.sh'), output: job.output.replace(/%j/g, adopted) };
        adopted = null;
      } else {
        try {
          sub = await this.slurm.submit(run.dir, job);
        } catch (e) {
          return sink.ended({ kind: 'status', status: 'failed', error: message(e) });
        }
        sink.log(
          `submitted Slurm job ${sub.jobId}${fromCheckpoint ? ' (from the last checkpoint)' : ''}: ${sbatchOptions(resources).join(' ') || 'cluster defaults'}; output ${sub.output}`,
        );
      }
      attempt.jobId = sub.jobId;
      const placed = { jobId: sub.jobId, node: null as string | null, state: 'PENDING', resubmits };
      sink.placed({ pid: null, slurm: placed, waiting: true });
      if (attempt.cancelled) await this.slurm.cancel(sub.jobId).catch((e: unknown) => sink.log(message(e)));

      const output = new OutputFollower(sub.output);
      let last: string | null = null; // the worker's final message in this run of the job
      let failures = 0;
      let j: SlurmJob | null;
      for (;;) {
        await sleep(pollMs);
        try {
          j = await this.slurm.job(sub.jobId);
          failures = 0;
        } catch (e) {
          if (++failures < READ_FAILURES) continue;
          return sink.ended({
            kind: 'status',
            status: 'interrupted',
            error: `the state of Slurm job ${sub.jobId} could not be read ${READ_FAILURES} times in a row: ${message(e)}`,
          });
        }
        for (const line of output.lines()) {
          if (START_LINE.test(line)) {
            last = null; // a requeued job starts over from its checkpoint
            sink.log(line);
            continue;
          }
          const m = WorkerMessage.safeParse(safeJson(line));
          if (!m.success) {
            sink.stderr(line);
            continue;
          }
          if (ENDINGS.has(m.data.type)) last = m.data.type;
          sink.line(line);
        }
        if (!j) {
          // Forgotten by the controller, and no accounting: the worker's last word decides.
          if (last) return sink.ended({ kind: 'exit', code: last === 'failed' ? 1 : 0, signal: null });
          return sink.ended({
            kind: 'status',
            status: 'failed',
            error: `Slurm job ${sub.jobId} is gone from the controller without a word from the worker in ${sub.output}`,
          });
        }
        const phase = jobPhase(j);
        if (j.node !== placed.node || j.state !== placed.state) {
          Object.assign(placed, { node: j.node, state: j.state });
          sink.placed({ pid: null, slurm: { ...placed }, waiting: phase === 'pending' || phase === 'requeued' });
        }
        if (jobEnded(j)) break;
      }

      const phase = jobPhase(j);
      if (phase === 'completed') return sink.ended({ kind: 'exit', code: j.exitCode, signal: null });
      if (phase === 'cancelled') {
        if (attempt.cancelled || last === 'cancelled')
          return sink.ended({ kind: 'exit', code: j.exitCode, signal: null });
        return sink.ended({
          kind: 'status',
          status: 'cancelled',
          error: `Slurm job ${j.id} was cancelled outside the app (scancel) before the worker could stop`,
        });
      }
      if (phase === 'interrupted') {
        const why = jobFailure(j, sub.output);
        if (!attempt.cancelled && resubmits < maxResubmits) {
          resubmits++;
          fromCheckpoint = true;
          sink.log(`${why}; resubmitting (${resubmits} of at most ${maxResubmits})`);
          continue;
        }
        return sink.ended({
          kind: 'status',
          status: 'interrupted',
          error: `${why}${maxResubmits ? ` (resubmitted ${resubmits} time(s), slurm.maxResubmits is ${maxResubmits})` : ''}`,
        });
      }
      // failed: the worker's own message when it sent one (its cause), else Slurm's account and the output's tail
      if (last === 'failed' || last === 'diverged') return sink.ended({ kind: 'exit', code: j.exitCode, signal: null });
      return sink.ended({ kind: 'status', status: 'failed', error: jobFailure(j, sub.output) });
    }
  }
}

function safeJson(line: string): unknown {
  if (!line.startsWith('{')) return null;
  try {
    return JSON.parse(line);
  } catch {
    return null;
  }
}

// The lines appended to a file since the last call; a line still being written waits for its newline.
class OutputFollower {
  private offset = 0;
  private partial = '';
  private readonly utf8 = new StringDecoder('utf8'); // a character cut between two reads waits for its other bytes

  constructor(private readonly file: string) {}

  lines(): string[] {
    let size: number;
    try {
      size = statSync(this.file).size;
    } catch {
      return []; // not written yet (the job has not started, or the shared filesystem has not shown it yet)
    }
    if (size <= this.offset) return [];
    const fd = openSync(this.file, 'r');
    try {
      const buf = Buffer.alloc(size - this.offset);
      const n = readSync(fd, buf, 0, buf.length, this.offset);
      this.offset += n;
      const text = this.partial + this.utf8.write(buf.subarray(0, n));
      const parts = text.split('\n');
      this.partial = parts.pop() ?? '';
      return parts;
    } finally {
      closeSync(fd);
    }
  }
}
