// A batch job as Slurm reports it (`scontrol show job -o`, or sacct once the controller has forgotten it), and what
// its state means for the run it computes.

export type SlurmJob = {
  id: string;
  name: string;
  state: string; // JobState's base word: PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, PREEMPTED, NODE_FAIL, ...
  reason: string | null; // why it waits or ended (Reason=), null for None
  node: string | null; // the batch host, else the node list; null while pending
  partition: string | null;
  restarts: number; // times Slurm requeued it (scontrol's Restarts; sacct: its records beyond the first)
  exitCode: number | null; // ExitCode=code:signal of the batch script
  signal: number | null;
  submitTime: string | null;
  startTime: string | null;
  endTime: string | null;
  source: 'scontrol' | 'sacct';
};

// What the run makes of it: `requeued` waits to run again after the cluster stopped it (requeue, preemption);
// `interrupted` was ended by the cluster (time limit, preemption, node failure) and is not coming back by itself.
export type JobPhase = 'pending' | 'running' | 'requeued' | 'completed' | 'failed' | 'cancelled' | 'interrupted';

const WAITING = new Set([
  'PENDING',
  'CONFIGURING',
  'SUSPENDED',
  'STOPPED',
  'RESV_DEL_HOLD',
  'REQUEUED',
  'REQUEUE_HOLD',
  'REQUEUE_FED',
]);
const RUNNING = new Set(['RUNNING', 'COMPLETING', 'SIGNALING', 'STAGE_OUT', 'RESIZING']);
const ENDED_BY_CLUSTER = new Set(['PREEMPTED', 'TIMEOUT', 'NODE_FAIL', 'BOOT_FAIL', 'DEADLINE']);

export function jobPhase(j: SlurmJob): JobPhase {
  if (j.state.startsWith('REQUEUE') || (WAITING.has(j.state) && j.restarts > 0)) return 'requeued';
  if (WAITING.has(j.state)) return 'pending';
  if (RUNNING.has(j.state)) return 'running';
  if (j.state === 'COMPLETED') return 'completed';
  if (j.state === 'CANCELLED' || j.state === 'REVOKED') return 'cancelled';
  if (ENDED_BY_CLUSTER.has(j.state)) return 'interrupted';
  return 'failed'; // FAILED, OUT_OF_MEMORY, SPECIAL_EXIT, and states this table does not know
}

export const jobEnded = (j: SlurmJob): boolean => !['pending', 'running', 'requeued'].includes(jobPhase(j));

// `scontrol -o` prints one line of Key=Value pairs; a value may hold spaces (a path), so a pair ends where the next
// ` Key=` starts.
export function keyValues(line: string): Map<string, string> {
  const out = new Map<string, string>();
  const starts = [...line.matchAll(/(?:^|\s)([A-Za-z][A-Za-z0-9/:_.]*)=/g)];
  for (const [i, m] of starts.entries()) {
    const from = m.index + m[0].length;
    const to = i + 1 < starts.length ? starts[i + 1].index : line.length;
    if (!out.has(m[1])) out.set(m[1], line.slice(from, to).trim()); // the first of repeated keys (NodeList)
  }
  return out;
}

const value = (v: string | undefined): string | null =>
  v === undefined || v === '' || /^(\(null\)|None|Unknown|N\/A|NONE)$/.test(v) ? null : v;

function exitOf(v: string | undefined): { exitCode: number | null; signal: number | null } {
  const m = /^(\d+):(\d+)$/.exec(v ?? '');
  return m ? { exitCode: Number(m[1]), signal: Number(m[2]) } : { exitCode: null, signal: null };
}

export function jobFromScontrol(line: string): SlurmJob {
  const kv = keyValues(line.trim());
  const id = kv.get('JobId');
  if (!id) throw new Error(`not a line of scontrol show job -o: ${line.slice(0, 200)}`);
  return {
    id,
    name: kv.get('JobName') ?? '',
    state: (kv.get('JobState') ?? 'UNKNOWN').split(/[\s+]/)[0],
    reason: value(kv.get('Reason')),
    node: value(kv.get('BatchHost')) ?? value(kv.get('NodeList')),
    partition: value(kv.get('Partition')),
    restarts: Number(kv.get('Restarts') ?? 0),
    ...exitOf(kv.get('ExitCode')),
    submitTime: value(kv.get('SubmitTime')),
    startTime: value(kv.get('StartTime')),
    endTime: value(kv.get('EndTime')),
    source: 'scontrol',
  };
}

// `sacct -n -P -X -D -j ID --format=<SACCT_FIELDS>`: one record per run of the job (-D keeps requeued ones), oldest first.
export const SACCT_FIELDS = 'JobIDRaw,JobName,State,Reason,NodeList,Partition,ExitCode,Submit,Start,End';

export function jobFromSacct(text: string): SlurmJob | null {
  const rows = text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => l.split('|'));
  if (!rows.length) return null;
  const [id, name, state, reason, nodes, partition, exit, submit, start, end] = rows[rows.length - 1];
  return {
    id,
    name,
    state: state.split(' ')[0],
    reason: value(reason),
    node: value(nodes),
    partition: value(partition),
    restarts: rows.length - 1,
    ...exitOf(exit),
    submitTime: value(submit),
    startTime: value(start),
    endTime: value(end),
    source: 'sacct',
  };
}
