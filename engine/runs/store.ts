// The run store: one folder per run, `runs/<id>/{config.json,status.json,metrics.jsonl,logs.txt,checkpoints/,artifacts/,report/}`,
// plus owner.json while a process has it queued or running (owner.ts).
import {
  closeSync,
  existsSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
  type Dirent,
} from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { appendLineSync, writeFileAtomic, writeJsonAtomic } from '../atomic';
import { InputError } from '../errors';
import { readJson } from '../json-file';
import { otherOwner, type OwnerProbe } from './owner';
import { MetricRecord, RunConfig, RunState } from '../../shared/runs';

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export class RunStore {
  // ownerAlive: how a run owned by a batch job is checked (the executor's ownerAlive), else by its heartbeat.
  constructor(
    readonly root: string,
    readonly ownerAlive?: OwnerProbe,
  ) {
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
      id,
      kind: config.kind,
      name: config.name ?? config.kind,
      status: 'queued',
      createdAt: now.toISOString(),
      startedAt: null,
      endedAt: null,
      progress: null,
      error: null,
      pid: null,
      attempts: 0,
      result: null,
    };
    writeJsonAtomic(join(dir, 'status.json'), state);
    return state;
  }

  // A runs folder removed while the app is open (by hand, by a cleanup) holds no runs: an empty list, not a crash.
  ids(): string[] {
    let entries: Dirent[];
    try {
      entries = readdirSync(this.root, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    return entries
      .filter((e) => e.isDirectory() && ID.test(e.name) && existsSync(join(this.root, e.name, 'status.json')))
      .map((e) => e.name)
      .sort()
      .reverse(); // newest first: ids start with a timestamp
  }

  // Every run; one whose status.json cannot be read (torn by a lost write, edited by hand) is listed as
  // `unreadable` with the file and the reason, so it never hides the others.
  list(): RunState[] {
    return this.ids().map((id) => this.peek(id));
  }

  // The run's status, or for an unreadable status.json or config.json the `unreadable` stand-in (an unknown run
  // still throws): a run whose config is torn cannot be shown, compared or resumed, whatever its status says.
  peek(id: string): RunState {
    let state: RunState;
    try {
      state = this.get(id);
    } catch (err) {
      if (!(err instanceof InputError) || !existsSync(join(this.dir(id), 'status.json'))) throw err;
      return this.unreadable(id, err.message);
    }
    try {
      this.config(id);
      return state;
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      return { ...state, status: 'unreadable', error: err.message };
    }
  }

  // The run's status; an InputError naming status.json when it is missing a run or is not a readable status.
  get(id: string): RunState {
    const file = join(this.dir(id), 'status.json');
    if (!existsSync(file)) throw new InputError(`no run ${id} in ${this.root}`);
    return readJson(file, RunState, 'a run status');
  }

  config(id: string): RunConfig {
    return readJson(join(this.dir(id), 'config.json'), RunConfig, 'a run config');
  }

  // The config, or null where config.json is missing or unreadable.
  configOrNull(id: string): RunConfig | null {
    try {
      return this.config(id);
    } catch {
      return null;
    }
  }

  // A stand-in status for a run whose status.json is unreadable: kind and name from config.json when that reads,
  // created = the status file's mtime; `error` holds the file and the reason. Never written back.
  private unreadable(id: string, reason: string): RunState {
    const config = this.configOrNull(id); // null: the kind stays unknown
    const created = new Date(statSync(join(this.dir(id), 'status.json')).mtimeMs).toISOString();
    return {
      id,
      kind: config?.kind ?? 'unknown',
      name: config?.name ?? config?.kind ?? id,
      status: 'unreadable',
      createdAt: created,
      startedAt: null,
      endedAt: null,
      progress: null,
      error: reason,
      pid: null,
      attempts: 0,
      result: null,
    };
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
    return this.update(s.id, {
      status: 'interrupted',
      pid: null,
      endedAt: new Date().toISOString(),
      error:
        s.status === 'running'
          ? 'the process that ran this run stopped; resume continues from its last checkpoint'
          : 'the process that queued this run stopped before it started',
    });
  }
}

// metrics.jsonl may end in a half-written line if a worker was killed mid-write; a line in the middle can only
// be bad if the file was damaged or edited. A resumed job recomputes from its checkpoint and re-emits some
// points: the later record of a (scope, x, tags) wins. `bad` lists the unreadable lines (1-based) and why;
// `lines`: the non-empty lines read.
export type MetricsScan = { records: MetricRecord[]; bad: { line: number; reason: string }[]; lines: number };

export function scanMetricsFile(file: string): MetricsScan {
  if (!existsSync(file)) return { records: [], bad: [], lines: 0 };
  const out = new Map<string, MetricRecord>();
  const bad: MetricsScan['bad'] = [];
  let lines = 0;
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (!line.trim()) return;
      lines++;
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch (e) {
        return bad.push({
          line: i + 1,
          reason: `invalid JSON (${(e as Error).message.replace(/ in JSON at position \d+.*/, '')})`,
        });
      }
      const r = MetricRecord.safeParse(raw);
      if (!r.success)
        return bad.push({
          line: i + 1,
          reason: r.error.issues.map((x) => `${x.path.join('.') || 'record'}: ${x.message}`).join('; '),
        });
      const key = metricKey(r.data);
      out.delete(key); // keep file order of the surviving records
      out.set(key, r.data);
    });
  return { records: [...out.values()], bad, lines };
}

export const readMetricsFile = (file: string): MetricRecord[] => scanMetricsFile(file).records;

// What makes two records the same point: a resumed job re-emits (scope, x, tags) it had already written.
export const metricKey = (r: MetricRecord): string => `${r.scope}|${r.x}|${r.tags ? JSON.stringify(r.tags) : ''}`;

// Rewrites metrics.jsonl with each point once (the later record wins; unreadable lines, already reported, go),
// atomically, so a resumed run's file holds no replayed records. Returns the lines dropped.
export function compactMetricsFile(file: string): number {
  const { records, lines } = scanMetricsFile(file);
  if (records.length === lines) return 0;
  writeFileAtomic(file, records.map((r) => JSON.stringify(r) + '\n').join(''));
  return lines - records.length;
}

// How a scan's bad lines read in a log: `3 unreadable lines skipped (lines 2, 9, 14)`; '' when none.
export function badLinesText(bad: MetricsScan['bad']): string {
  if (!bad.length) return '';
  const shown =
    bad
      .slice(0, 10)
      .map((b) => b.line)
      .join(', ') + (bad.length > 10 ? ', …' : '');
  return `${bad.length} unreadable line${bad.length === 1 ? '' : 's'} skipped (line${bad.length === 1 ? '' : 's'} ${shown})`;
}

// Before a worker appends again: a last line without its newline (the worker was killed mid-write) is cut off,
// or the next record would be glued onto it and lost with it. Returns the bytes cut.
export function cutTornTail(file: string): number {
  if (!existsSync(file)) return 0;
  const size = statSync(file).size;
  if (size === 0) return 0;
  const fd = openSync(file, 'r+');
  try {
    const chunk = Buffer.alloc(64 * 1024);
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - chunk.length);
      const n = readSync(fd, chunk, 0, end - start, start);
      const at = chunk.subarray(0, n).lastIndexOf(0x0a);
      if (end === size && at === n - 1) return 0; // ends in a newline: nothing torn
      if (at >= 0) {
        ftruncateSync(fd, start + at + 1);
        fsyncSync(fd);
        return size - (start + at + 1);
      }
      end = start;
    }
    ftruncateSync(fd, 0); // one torn line and nothing before it
    fsyncSync(fd);
    return size;
  } finally {
    closeSync(fd);
  }
}
