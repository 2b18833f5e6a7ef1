// The cluster as the app sees it: submit a batch script, read a job's state, cancel it, and say why a job failed.
// Job states come from `scontrol show job` while the controller remembers the job (MinJobAge after it ends), then
// from sacct where accounting is on; without accounting a forgotten job is null and the run's own files decide.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../atomic';
import { SlurmError, slurmCommand, which, type SlurmEnv } from './command';
import { SACCT_FIELDS, jobEnded, jobFromSacct, jobFromScontrol, jobPhase, type SlurmJob } from './job';
import { batchScript, type BatchJob } from './script';

export type Partition = {
  name: string;
  isDefault: boolean;
  state: string;
  nodes: string;
  maxTime: string;
  totalCpus: number;
  totalNodes: number;
};
export type Submitted = { jobId: string; script: string; output: string }; // output: the job's output file, %j filled in

export class Slurm {
  private settings: Promise<Map<string, string>> | null = null;

  constructor(private readonly o: SlurmEnv = {}) {}

  private run(cmd: string, args: string[], what?: string) {
    return slurmCommand(cmd, args, this.o, what);
  }

  // Where a Slurm command is (every one of them, even --version, needs the cluster's configuration to answer).
  locate(cmd: string): string | null {
    return which(cmd, this.o.env);
  }

  // `Slurmctld(primary) at head is UP`; a controller that is down is an error.
  async ping(): Promise<string> {
    const out = (await this.run('scontrol', ['ping'])).stdout.trim();
    if (!/\bUP\b/.test(out)) throw new SlurmError(`the Slurm controller does not answer: ${out}`);
    return out;
  }

  // `scontrol show config` as a map (ClusterName, SLURM_VERSION, AccountingStorageType, MinJobAge, ...), read once
  // it has been read without error.
  config(): Promise<Map<string, string>> {
    this.settings ??= this.run('scontrol', ['show', 'config']).then(({ stdout }) => {
      const m = new Map<string, string>();
      for (const line of stdout.split('\n')) {
        const kv = /^(\S+)\s+=\s(.*)$/.exec(line);
        if (kv) m.set(kv[1], kv[2].trim());
      }
      return m;
    });
    this.settings.catch(() => (this.settings = null));
    return this.settings;
  }

  async accounting(): Promise<boolean> {
    const type = (await this.config()).get('AccountingStorageType') ?? 'accounting_storage/none';
    return type !== 'accounting_storage/none';
  }

  async partitions(): Promise<Partition[]> {
    const { stdout } = await this.run('scontrol', ['show', 'partition', '-o']);
    return stdout
      .split('\n')
      .filter((l) => l.startsWith('PartitionName='))
      .map((l) => {
        const f = Object.fromEntries(
          l
            .trim()
            .split(/\s+/)
            .map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]),
        );
        return {
          name: f.PartitionName,
          isDefault: f.Default === 'YES',
          state: f.State,
          nodes: f.Nodes,
          maxTime: f.MaxTime,
          totalCpus: Number(f.TotalCPUs),
          totalNodes: Number(f.TotalNodes),
        };
      });
  }

  // The named partition, or the cluster's default; an unknown name lists the ones there are.
  async partition(name?: string): Promise<Partition> {
    const all = await this.partitions();
    const p = name ? all.find((x) => x.name === name) : all.find((x) => x.isDefault);
    if (p) return p;
    const names = all.map((x) => x.name + (x.isDefault ? ' (default)' : '')).join(', ') || 'none';
    throw new SlurmError(
      name
        ? `unknown Slurm partition '${name}': the cluster has ${names}`
        : `the cluster has no default partition: set slurm.partition (partitions: ${names})`,
    );
  }

  // Writes the script into `dir` (slurm.sh) and submits it. A rejection carries sbatch's message; one about the
  // partition also lists the partitions there are.
  async submit(dir: string, job: BatchJob): Promise<Submitted> {
    const script = join(dir, 'slurm.sh');
    writeFileAtomic(script, batchScript(job));
    let stdout: string;
    try {
      ({ stdout } = await this.run('sbatch', ['--parsable', script], 'sbatch rejected the job'));
    } catch (err) {
      throw await this.withPartitions(err);
    }
    const jobId = stdout.trim().split(';')[0]; // `id` or `id;cluster`
    if (!/^\d+$/.test(jobId)) throw new SlurmError(`sbatch answered without a job id: ${stdout.trim()}`);
    return { jobId, script, output: job.output.replace(/%j/g, jobId) };
  }

  // `sbatch --test-only`: would the cluster take this job, and when would it start? Nothing is submitted.
  async testOnly(dir: string, job: BatchJob): Promise<string> {
    const script = join(dir, 'slurm-test.sh');
    writeFileAtomic(script, batchScript(job));
    try {
      const { stderr } = await this.run('sbatch', ['--test-only', script], 'sbatch rejected the job');
      return stderr.trim().replace(/^sbatch: /, '');
    } catch (err) {
      throw await this.withPartitions(err);
    }
  }

  private async withPartitions(err: unknown): Promise<unknown> {
    if (!(err instanceof SlurmError) || !/partition/i.test(err.said)) return err;
    const names = await this.partitions().then(
      (ps) => ps.map((p) => p.name).join(', '),
      () => null,
    );
    return names ? new SlurmError(`${err.message} (partitions on this cluster: ${names})`, err.said) : err;
  }

  // null: the controller has forgotten the job and there is no accounting to ask.
  async job(id: string): Promise<SlurmJob | null> {
    try {
      const { stdout } = await this.run('scontrol', ['show', 'job', '-o', id]);
      const line = stdout.split('\n').find((l) => l.startsWith('JobId='));
      if (line) return jobFromScontrol(line);
    } catch (err) {
      if (!(err instanceof SlurmError) || !/Invalid job id/i.test(err.said)) throw err;
    }
    if (!(await this.accounting())) return null;
    const { stdout } = await this.run('sacct', ['-n', '-P', '-X', '-D', '-j', id, `--format=${SACCT_FIELDS}`]);
    return jobFromSacct(stdout);
  }

  // Slurm sends SIGTERM (the worker checkpoints), then SIGKILL after the cluster's KillWait.
  async cancel(id: string): Promise<void> {
    await this.run('scancel', [id], `scancel of job ${id} failed`);
  }

  // Polls until `until(job)` (default: the job ended) or the time is up; returns the last state seen.
  async waitFor(
    id: string,
    o: { until?: (j: SlurmJob) => boolean; timeoutMs: number; pollMs?: number },
  ): Promise<SlurmJob | null> {
    const until = o.until ?? jobEnded;
    const end = Date.now() + o.timeoutMs;
    for (;;) {
      const j = await this.job(id);
      if (!j || until(j) || Date.now() >= end) return j;
      await new Promise((r) => setTimeout(r, o.pollMs ?? 2000));
    }
  }
}

// The last `bytes` of a file as lines, or null when it is not there.
export function outputTail(file: string, lines = 20, bytes = 16_384): string[] | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const size = statSync(file).size;
    const buf = Buffer.alloc(Math.min(size, bytes));
    readSync(fd, buf, 0, buf.length, size - buf.length);
    const all = buf.toString('utf8').split('\n');
    if (size > bytes) all.shift(); // a cut first line
    if (all.at(-1) === '') all.pop(); // the final newline
    return all.slice(-lines);
  } finally {
    closeSync(fd);
  }
}

// Why a job did not complete, in words, with the tail of its output file (where stderr goes too).
export function jobFailure(j: SlurmJob, output: string): string {
  const where = j.node ? ` on ${j.node}` : '';
  const exit = j.exitCode !== null ? `, exit code ${j.exitCode}${j.signal ? ` (signal ${j.signal})` : ''}` : '';
  const why = j.reason && j.reason !== 'NonZeroExitCode' ? `, reason ${j.reason}` : '';
  const head = `Slurm job ${j.id} ${j.state}${where}${exit}${why}`;
  if (jobPhase(j) === 'interrupted') return `${head}: the cluster ended it; it can continue from its last checkpoint`;
  const tail = outputTail(output);
  if (tail === null)
    return `${head}; no output file ${output} here: is the runs folder on a filesystem the nodes share, at the same path?`;
  return tail.length ? `${head}; the end of ${output}:\n${tail.join('\n')}` : `${head}; ${output} is empty`;
}
