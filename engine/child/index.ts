// How the engine starts its own Node entries (the job worker, the lab task) as child processes, and the one-shot
// call protocol of the lab task: one JSON input on stdin, one JSON reply line on stdout.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ZodError } from 'zod';
import { issuesText } from '../../shared/issues';
import { InputError } from '../errors';

export type EntryCommand = { command: string; args: string[]; env: NodeJS.ProcessEnv };

// From sources (CLI, tests, `prh serve`) the entry's .ts file runs through bin/entry.js (bundled from its sources, as
// `prh` runs); in the bundled Electron app the main build emits `built` next to the main chunk, run by Electron's
// binary as plain Node. `from` is import.meta.url of a module in the entry's folder; `source` the entry's file name there.
export function entryCommand(from: string, source: string, built: string): EntryCommand {
  const here = fileURLToPath(from);
  if (here.endsWith('.ts'))
    return {
      command: process.execPath,
      args: [fileURLToPath(new URL('../../bin/entry.js', import.meta.url)), resolve(dirname(here), source)],
      env: {},
    };
  const file = [dirname(here), dirname(dirname(here))].map((d) => join(d, built)).find(existsSync);
  if (!file)
    throw new Error(`no ${built} next to ${here}: add ${source} to the main build's inputs (electron.vite.config.ts)`);
  return { command: process.execPath, args: [file], env: { ELECTRON_RUN_AS_NODE: '1' } };
}

export const spawnEntry = (
  cmd: EntryCommand,
  args: string[],
  stdio: StdioOptions,
  signal?: AbortSignal,
): ChildProcess => spawn(cmd.command, [...cmd.args, ...args], { stdio, env: { ...process.env, ...cmd.env }, signal });

// The processes below `pid` (its children, theirs, ...), from /proc's parent links; [] where there is no /proc.
function descendants(pid: number): number[] {
  if (!existsSync('/proc')) return [];
  const parentOf = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parentOf.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* gone meanwhile */
    }
  }
  const out: number[] = [];
  for (let frontier = [pid]; frontier.length;) {
    frontier = [...parentOf].filter(([, ppid]) => frontier.includes(ppid)).map(([child]) => child);
    out.push(...frontier);
  }
  return out;
}

// SIGKILL a process and everything it started (a worker's own workers): nothing it started outlives it to write on.
export function killTree(pid: number): void {
  for (const p of [pid, ...descendants(pid)]) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

type Reply = { ok: true; result: unknown } | { ok: false; error: string; input: boolean };

// Parent side: an InputError in the child comes back as an InputError here; a crash brings its stderr tail.
// onLine: each line the child writes to stderr, as it comes (its progress); signal: aborting it stops the child.
export function callChild(
  cmd: EntryCommand,
  input: unknown,
  what: string,
  opts: { onLine?: (line: string) => void; signal?: AbortSignal } = {},
): Promise<unknown> {
  return new Promise((resolvePromise, reject) => {
    const child = spawnEntry(cmd, [], ['pipe', 'pipe', 'pipe'], opts.signal);
    const out: Buffer[] = [];
    const err: string[] = [];
    child.stdout!.on('data', (b: Buffer) => out.push(b));
    child.stderr!.on('data', (b: Buffer) => err.push(String(b)));
    if (opts.onLine) createInterface({ input: child.stderr! }).on('line', opts.onLine);
    child.on('error', reject);
    child.on('close', (code) => {
      const text = Buffer.concat(out).toString('utf8').trim().split('\n').pop() ?? '';
      let reply: Reply | null;
      try {
        reply = JSON.parse(text) as Reply;
      } catch {
        reply = null;
      }
      if (reply?.ok) return resolvePromise(reply.result);
      if (reply && !reply.ok) return reject(reply.input ? new InputError(reply.error) : new Error(reply.error));
      reject(
        new Error(
          `${what} exited with ${code}: ${err.join('').trim().split('\n').slice(-8).join('\n') || 'no output'}`,
        ),
      );
    });
    child.stdin!.end(JSON.stringify(input));
  });
}

// Child side: read the input, answer once, exit (tfjs / ORT threads would keep the process alive).
export async function answerParent<T>(handle: (input: T) => Promise<unknown>): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  let reply: Reply;
  try {
    reply = { ok: true, result: await handle(JSON.parse(Buffer.concat(chunks).toString('utf8')) as T) };
  } catch (err) {
    const zod = err instanceof ZodError;
    reply = {
      ok: false,
      error: zod ? issuesText(err) : (err as Error).message,
      input: zod || err instanceof InputError,
    };
  }
  process.stdout.write(JSON.stringify(reply) + '\n', () => process.exit(0));
}
