// Running Slurm's commands (sbatch, squeue, scontrol, scancel, sacct): a failure becomes a SlurmError that says
// what Slurm said, without its `sbatch: error: ` prefixes.
import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { InputError } from '../errors';

// A cluster problem the user fixes (settings, partition, a missing command, a job that failed): the CLI prints it alone.
export class SlurmError extends InputError {
  override name = 'SlurmError';
  constructor(
    message: string,
    readonly said = '',
  ) {
    super(message);
  }
}

// env: the environment of the commands (SLURM_CONF names a cluster's config); timeoutMs: a controller that does not
// answer makes the commands retry for minutes, so every call has a limit.
export type SlurmEnv = { env?: NodeJS.ProcessEnv; timeoutMs?: number };

export const slurmSaid = (stderr: string): string =>
  stderr
    .split('\n')
    .map((l) => l.replace(/^[\w-]+: (error|fatal): /, '').trim())
    .filter(Boolean)
    .join('; ');

// Slurm's commands fail before anything else (even --version) where no slurm.conf can be found.
const hint = (said: string): string =>
  /Could not establish a configuration source/.test(said)
    ? ' (no Slurm configuration here: run on a login node of the cluster, or set SLURM_CONF to its slurm.conf)'
    : '';

export const notFound = (cmd: string): string =>
  `${cmd} not found on PATH: run this on a machine that submits to the cluster (a login node), or load its Slurm module`;

// Where a command is on the PATH of `env`, or null.
export function which(cmd: string, env: NodeJS.ProcessEnv = process.env): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const file = join(dir, cmd);
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {
      /* not here */
    }
  }
  return null;
}

// Resolves with stdout and stderr; `what` starts the message of a failure (default: `<cmd> <first arg> failed`).
export function slurmCommand(
  cmd: string,
  args: string[],
  o: SlurmEnv = {},
  what?: string,
): Promise<{ stdout: string; stderr: string }> {
  const timeout = o.timeoutMs ?? 90_000;
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      args,
      { env: o.env ?? process.env, timeout, encoding: 'utf8', maxBuffer: 16 << 20 },
      (err, stdout, stderr) => {
        if (!err) return resolve({ stdout, stderr });
        const e = err as NodeJS.ErrnoException & { killed?: boolean };
        if (e.code === 'ENOENT') return reject(new SlurmError(notFound(cmd)));
        if (e.killed)
          return reject(
            new SlurmError(
              `${cmd} ${args.join(' ')} did not answer within ${timeout / 1000} s: is slurmctld reachable? (scontrol ping)`,
            ),
          );
        const said = slurmSaid(stderr) || stdout.trim() || `exit code ${String(e.code)}`;
        reject(new SlurmError(`${what ?? `${cmd} ${args[0] ?? ''} failed`}: ${said}${hint(said)}`, said));
      },
    );
  });
}
