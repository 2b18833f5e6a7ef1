// The run store: one folder per run, `runs/<id>/{config.json,status.json,metrics.jsonl,logs.txt,checkpoints/,artifacts/,report/}`,
// plus owner.json while a process has it queued or running (owner.ts).
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { appendLineSync, writeJsonAtomic } from '../atomic';
import { InputError } from '../errors';
import { otherOwner, type OwnerProbe } from './owner';
import { MetricRecord, RunConfig, RunState } from '../../shared/runs';

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export class RunStore {
  // ownerAlive: how a run owned by a batch job is checked (the executor's ownerAlive), else by its heartbeat.
  constructor(readonly root: string, readonly ownerAlive?: OwnerProbe) {
    mkdirSync(root, { recursive: true });
  }

  dir(id: string): string {
    if (!ID.test(id)) throw new InputError(`not a run id: ${JSON.stringify(id)}`);
    return join(this.root, id);
  }

  create(config: RunConfig, now = new Date()): RunState {
    const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15); // 20261130-064501
    const id = `${stamp}-${config.kind.replace(/\W/g, '-')}-${randomBytes(3).toString('hex')}`;
    const dir = this.dir(id);
    mkdirSync(join(dir, 'artifacts'), { recursive: true });
    writeJsonAtomic(join(dir, 'config.json'), config);
    const state: RunState = {
      id, kind: config.kind, name: config.name ?? config.kind, status: 'queued',
      createdAt: now.toISOString(), startedAt: null, endedAt: null, progress: null,
      error: null, pid: null, attempts: 0, result: null,
    };
    writeJsonAtomic(join(dir, 'status.json'), state);
    return state;
  }

  ids(): string[] {
    return readdirSync(this.root, { withFileTypes: true })
      .filter((e) => e.isDirectory() && ID.test(e.name) && existsSync(join(this.root, e.name, 'status.json')))
      .map((e) => e.name)
      .sort()
      .reverse(); // newest first: ids start with a timestamp
  }

  list(): RunState[] {
    return this.ids().map((id) => this.get(id));
  }

  get(id: string): RunState {
    const file = join(this.dir(id), 'status.json');
    if (!existsSync(file)) throw new InputError(`no run ${id} in ${this.root}`);
    return RunState.parse(JSON.parse(readFileSync(file, 'utf8')));
  }

  config(id: string): RunConfig {
    return RunConfig.parse(JSON.parse(readFileSync(join(this.dir(id), 'config.json'), 'utf8')));
  }

  update(id: string, patch: Partial<RunState>): RunState {
    const next = RunState.parse({ ...this.get(id), ...patch, id });
    writeJsonAtomic(join(this.dir(id), 'status.json'), next);
    return next;
  }

  metrics(id: string): MetricRecord[] {
    return readMetricsFile(join(this.dir(id), 'metrics.jsonl'));
  }

  log(id: string, line: string): void {
    appendLineSync(join(this.dir(id), 'logs.txt'), line);
  }

  // At start-up: runs an earlier process left queued or running with no live owner (owner.json; workers exit when
  // orphaned) become `interrupted` and can be resumed from their last checkpoint. A run another live process
  // owns (`prh serve`, an experiment in another terminal) is left alone.
  recover(): RunState[] {
    return this.list().flatMap((s) => (this.recoverRun(s) === s ? [] : [this.get(s.id)]));
  }

  // One run: `interrupted` if it is queued or running with no live owner, else unchanged (the same object).
  // probe: how a batch job's owner is checked (default: the store's).
  recoverRun(s: RunState, probe = this.ownerAlive): RunState {
    if ((s.status !== 'running' && s.status !== 'queued') || otherOwner(this.dir(s.id), probe)) return s;
    return this.update(s.id, { status: 'interrupted', pid: null, endedAt: new Date().toISOString(),
      error: s.status === 'running' ? 'the process that ran this run stopped; resume continues from its last checkpoint' : 'the process that queued this run stopped before it started' });
  }
}

// metrics.jsonl may end in a half-written line if a worker was killed mid-write: skip it. A resumed job
// recomputes from its checkpoint and re-emits some points: the later record of a (scope, x, tags) wins.
export function readMetricsFile(file: string): MetricRecord[] {
  if (!existsSync(file)) return [];
  const out = new Map<string, MetricRecord>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const r = MetricRecord.parse(JSON.parse(line));
      const key = `${r.scope}|${r.x}|${r.tags ? JSON.stringify(r.tags) : ''}`;
      out.delete(key); // keep file order of the surviving records
      out.set(key, r);
    } catch {
      /* a torn last line */
    }
  }
  return [...out.values()];
}
