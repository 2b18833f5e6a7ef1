// Who runs a run: `<run>/owner.json`, claimed by the process whose scheduler queues the run, refreshed by a
// heartbeat, removed when the run ends. It also names the run's local worker process while one computes it: a
// worker whose parent died (kill -9) may still write the run for a moment, so the run stays owned until it is gone. Another process (a second `prh` command, `prh serve`, the app) reads it
// before touching the run: recover() leaves a run with a live owner alone, and resume refuses it. A run computed as
// a Slurm job has executor 'slurm' and its job id: it is live while the job is (the executor's ownerAlive).
import { existsSync, linkSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic, writeJsonAtomic } from '../atomic';
import { InputError } from '../errors';

export const HEARTBEAT_MS = 10_000;
// A record from another host is live while its heartbeat is younger than this (several missed beats: a busy
// event loop or a slow shared file system should not hand a live run to a second worker).
export const STALE_MS = 6 * HEARTBEAT_MS;

export const OwnerRecord = z.object({
  host: z.string(),
  pid: z.number().int().positive(),
  startTime: z.string().nullable(), // /proc/<pid>/stat field 22 (clock ticks after boot): tells a reused pid apart; null off Linux
  executor: z.enum(['local', 'slurm']),
  jobId: z.string().optional(), // slurm
  worker: z.object({ pid: z.number().int().positive(), startTime: z.string().nullable() }).nullable().optional(), // local
  claimedAt: z.string(), // ISO
  heartbeatAt: z.string(), // ISO
});
export type OwnerRecord = z.infer<typeof OwnerRecord>;

const fileOf = (runDir: string) => join(runDir, 'owner.json');

// Fields 3.. of /proc/<pid>/stat ("pid (comm) state ppid ..."; comm may hold spaces and parentheses, so split
// after the last ')'), or null where there is no /proc or no such process.
function procStat(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

// The start time of a process in clock ticks after boot (field 22), or null where /proc does not tell.
export const processStartTime = (pid: number): string | null => procStat(pid)?.[19] ?? null;

// A zombie (exited, not yet reaped by its parent or by init) is dead.
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false; // EPERM: alive, another user's
  }
  return procStat(pid)?.[0] !== 'Z';
}

// How a record of another executor kind is checked (engine/slurm: the job is pending or running).
export type OwnerProbe = (r: OwnerRecord) => boolean;

// A batch job: what `probe` says; a process that cannot ask the cluster trusts the submitter's heartbeat.
// Same host: the owner's pid, or its worker's, is alive and (where /proc tells) started when the record says.
// Other host: a fresh heartbeat.
export function ownerAlive(r: OwnerRecord, now = Date.now(), probe?: OwnerProbe): boolean {
  if (r.executor !== 'local') return probe ? probe(r) : now - Date.parse(r.heartbeatAt) < STALE_MS;
  if (r.host !== hostname()) return now - Date.parse(r.heartbeatAt) < STALE_MS;
  return processAlive(r.pid, r.startTime) || (!!r.worker && processAlive(r.worker.pid, r.worker.startTime));
}

// The process `pid` lives and is the one that started at `startTime` (null: not known).
function processAlive(pid: number, startTime: string | null): boolean {
  if (!pidAlive(pid)) return false;
  return startTime === null || processStartTime(pid) === null || processStartTime(pid) === startTime;
}

// The worker of a record whose owner is gone (an orphan still writing the run), or null.
const orphanWorker = (r: OwnerRecord): OwnerRecord['worker'] =>
  r.executor === 'local' && r.host === hostname() && r.worker && !processAlive(r.pid, r.startTime) ? r.worker : null;

// Whether the process that wrote the record lives (for a batch job: the submitter, not the job).
export const submitterAlive = (r: OwnerRecord, now = Date.now()): boolean =>
  ownerAlive({ ...r, executor: 'local' }, now);

// The run's owner record, or null when there is none (or it cannot be read: writes are atomic, so an unreadable
// file was not written by a live owner).
export function readOwner(runDir: string): OwnerRecord | null {
  try {
    return OwnerRecord.parse(JSON.parse(readFileSync(fileOf(runDir), 'utf8')));
  } catch {
    return null;
  }
}

const isSelf = (r: OwnerRecord) => r.host === hostname() && r.pid === process.pid;

export function describeOwner(r: OwnerRecord, now = Date.now()): string {
  const orphan = orphanWorker(r);
  if (orphan)
    return `its worker pid ${orphan.pid} on ${r.host}, whose parent pid ${r.pid} is gone (the worker stops by itself at its next safe point, or end it with kill ${orphan.pid})`;
  return `${r.executor === 'slurm' ? `Slurm job ${r.jobId ?? '?'}` : `pid ${r.pid}`} on ${r.host} (heartbeat ${Math.round((now - Date.parse(r.heartbeatAt)) / 1000)} s ago)`;
}

// The live owner of a run other than this process, or null. An experiment's arms (`arms/<run>/`) count too: a run
// is not free while any process that can write into its folder lives.
export function otherOwner(runDir: string, probe?: OwnerProbe): OwnerRecord | null {
  const r = readOwner(runDir);
  if (r && !isSelf(r) && ownerAlive(r, Date.now(), probe)) return r;
  const arms = join(runDir, 'arms');
  if (!existsSync(arms)) return null;
  for (const e of readdirSync(arms, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    const child = readOwner(join(arms, e.name));
    if (child && !isSelf(child) && ownerAlive(child, Date.now(), probe)) return child;
  }
  return null;
}

function recordForSelf(now = new Date()): OwnerRecord {
  return {
    host: hostname(),
    pid: process.pid,
    startTime: processStartTime(process.pid),
    executor: 'local',
    claimedAt: now.toISOString(),
    heartbeatAt: now.toISOString(),
  };
}

// Make this process the run's owner. The record is written whole to a temp file and hard-linked into place, which
// fails if a record exists: of two processes claiming at once, one wins. A record of a dead owner is replaced.
export function claim(runDir: string, probe?: OwnerProbe): OwnerRecord {
  const record = recordForSelf();
  for (let attempt = 0; attempt < 2; attempt++) {
    const tmp = `${fileOf(runDir)}.${process.pid}.claim`;
    writeFileAtomic(tmp, JSON.stringify(record, null, 2) + '\n');
    try {
      linkSync(tmp, fileOf(runDir));
      return record;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const held = readOwner(runDir);
      if (held && isSelf(held)) {
        writeJsonAtomic(fileOf(runDir), record);
        return record;
      }
      if (held && ownerAlive(held, Date.now(), probe))
        throw new InputError(`run ${runDir} is owned by ${describeOwner(held)}: stop it there, or wait until it ends`);
      rmSync(fileOf(runDir), { force: true }); // a dead owner's record
    } finally {
      rmSync(tmp, { force: true });
    }
  }
  throw new InputError(`run ${runDir}: another process claimed it at the same moment`);
}

// Take over a run whose batch job lives on after the process that submitted it died: `held` (as read) is replaced
// by this process's record carrying the same job. Refused if the record changed meanwhile or its submitter lives.
export function adopt(runDir: string, held: OwnerRecord): OwnerRecord {
  const now = readOwner(runDir);
  if (!now || now.claimedAt !== held.claimedAt || now.jobId !== held.jobId || submitterAlive(now)) {
    throw new InputError(`run ${runDir}: its owner changed while this process took it over`);
  }
  const record: OwnerRecord = { ...recordForSelf(), executor: held.executor, jobId: held.jobId };
  writeJsonAtomic(fileOf(runDir), record);
  return record;
}

// The record with the local worker now computing the run (pid and start time), or none.
export const withWorker = (record: OwnerRecord, pid: number | null): OwnerRecord => ({
  ...record,
  worker: pid === null ? null : { pid, startTime: processStartTime(pid) },
});

export function heartbeat(runDir: string, record: OwnerRecord): OwnerRecord {
  const next = { ...record, heartbeatAt: new Date().toISOString() };
  writeJsonAtomic(fileOf(runDir), next);
  return next;
}

// Give the run up (it ended, or this process stops): only our own record is removed.
export function release(runDir: string): void {
  const r = readOwner(runDir);
  if (r && isSelf(r)) rmSync(fileOf(runDir), { force: true });
}

// Ask the local worker of a run another process owns to stop, as its owner's cancel would (SIGTERM: it checkpoints
// at its next safe point, and its owner records how it ended). Throws an InputError saying why it cannot.
export function signalWorker(runDir: string, r: OwnerRecord): number {
  if (r.executor !== 'local')
    throw new InputError(`it runs as Slurm job ${r.jobId ?? '?'} (${describeOwner(r)}): scancel ${r.jobId ?? 'it'}`);
  if (r.host !== hostname()) throw new InputError(`it runs on ${r.host} (${describeOwner(r)}): cancel it there`);
  if (!r.worker || !processAlive(r.worker.pid, r.worker.startTime))
    throw new InputError(`it is queued under ${describeOwner(r)}, with no worker yet: cancel it there`);
  process.kill(r.worker.pid, 'SIGTERM');
  return r.worker.pid;
}
