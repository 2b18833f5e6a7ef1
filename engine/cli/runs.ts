// `prh serve`, `prh runs ...`: the run store from the command line, and the GUI over HTTP.
import { Command, Option } from 'commander';
import { SingleBar, Presets } from 'cli-progress';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { InputError } from '../errors';
import type { RunConfigInput, RunState } from '../../shared/runs';
import { fileSettings, runsDirOf, Service, userDataDir } from '../api';
import { tableToMarkdown } from '../report';
import { badLinesText, readTimeLog, scanMetricsFile, TIME_FILE } from '../runs';
import { armTimeTable, phaseTable, timeTable } from '../../shared/time-figures';
import { phaseTotals, type TimeTable } from '../../shared/timing';
import { EXIT, printTable } from './output';
import { serve } from './serve';
import { ensureRenderer, serveToken } from './serve-session';

// confine: for `prh serve`, whose browser tabs may only touch the roots in engine/api/access.ts; the CLI's own
// commands take any path their user names.
export function openService(runsDir?: string, threads?: number, confine = false): Service {
  const userData = userDataDir();
  return new Service({
    runsDir: runsFolder(runsDir, userData),
    userData,
    settings: fileSettings(userData),
    concurrency: threads,
    transport: 'ws',
    confine,
  });
}

// --runs, else the app settings' runs folder, else <user data>/runs.
export const runsFolder = (runsDir?: string, userData = userDataDir()): string =>
  resolve(runsDir ?? runsDirOf(fileSettings(userData).get(), userData));

const runsOption = () => new Option('--runs <dir>', 'runs folder (default: the app settings, else <user data>/runs)');
const summary = (s: RunState) => ({
  id: s.id,
  kind: s.kind,
  status: s.status,
  progress: s.progress ? `${s.progress.done}/${s.progress.total}` : '',
  created: s.createdAt.slice(0, 19),
  error: s.error?.split('\n')[0] ?? '',
});

// Start a run through the scheduler (a worker process) and wait, with a progress bar on a TTY. The config is
// validated (defaults filled) by the service's dispatch, as a call from the GUI would be.
export async function runAndWait(
  service: Service,
  config: RunConfigInput,
  json: boolean,
): Promise<{ state: RunState; code: number }> {
  const started = (await service.dispatch('startRun', { config })) as RunState;
  const bar =
    !json && process.stdout.isTTY
      ? new SingleBar(
          { format: `${config.kind} [{bar}] {value}/{total} {msg}`, hideCursor: true },
          Presets.shades_classic,
        )
      : null;
  const unsubscribe = service.subscribe((e) => {
    if (e.runId !== started.id || e.type !== 'progress' || !bar) return;
    if (!bar.isActive) bar.start(e.progress.total, 0, { msg: '' });
    bar.setTotal(e.progress.total);
    bar.update(e.progress.done, { msg: e.progress.message ?? '' });
  });
  const off = cancelOnSignals(service, started.id);
  await service.scheduler.idle();
  off();
  unsubscribe();
  bar?.stop();
  const state = service.store.get(started.id);
  if (!json) console.error(`run ${state.id}: ${state.status} (${service.store.dir(state.id)})`);
  return { state, code: exitFor(state) };
}

// Ctrl+C, a kill (SIGTERM) or a closed terminal (SIGHUP) cancels the run gracefully: its worker checkpoints and
// stops (or is killed after the grace period) before this process exits, so no worker outlives its owner.
function cancelOnSignals(service: Service, id: string): () => void {
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  const cancel = () => void service.cancelRun({ id }).catch(() => undefined);
  for (const sig of signals) process.on(sig, cancel);
  return () => signals.forEach((sig) => process.off(sig, cancel));
}

const exitFor = (s: RunState): number =>
  s.status === 'done'
    ? EXIT.ok
    : s.status === 'diverged'
      ? EXIT.diverged
      : s.status === 'cancelled'
        ? EXIT.cancelled
        : EXIT.failed;

export function registerRuns(program: Command, setExit: (code: number) => void): void {
  program
    .command('serve')
    .description(
      'serve the workbench UI and API on 127.0.0.1 (for a headless box, or a browser instead of the desktop app)',
    )
    .addOption(runsOption())
    .option('--port <n>', 'port (0 = any free port)', (v) => Number.parseInt(v, 10), 0)
    .option('--threads <n>', 'jobs at once (default: settings, else number of cores)', (v) => Number.parseInt(v, 10))
    .option('--json', 'print {url, port} as JSON')
    .option('--new-token', "replace the runs folder's token (signs every open tab out)")
    .action(async (o: { runs?: string; port: number; threads?: number; json?: boolean; newToken?: boolean }) => {
      const rendererDir = ensureRenderer();
      const service = openService(o.runs, o.threads, true);
      // One token per runs folder, kept across restarts: with the same --port, open tabs reconnect by themselves.
      const s = await serve({
        service,
        rendererDir,
        port: o.port,
        token: serveToken(service.store.root, o.newToken),
      });
      if (o.json) console.log(JSON.stringify({ url: s.url, port: s.port, runsDir: service.store.root }));
      else
        console.log(
          `prh serve: open ${s.url}\n  runs: ${service.store.root}\n  (Ctrl+C stops; running jobs are cancelled and can be resumed)`,
        );
      const stop = async () => {
        await service.close();
        await s.close();
        process.exit(0);
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      await new Promise(() => undefined); // serve until stopped
    });

  const runs = program.command('runs').description('list, inspect, cancel, resume and delete stored runs');
  runs
    .command('list')
    .addOption(runsOption())
    .option('--json')
    .action(async (o: { runs?: string; json?: boolean }) => {
      const list = await openService(o.runs).listRuns();
      if (o.json) console.log(JSON.stringify(list));
      else printTable(list.map(summary));
    });
  runs
    .command('show <id>')
    .addOption(runsOption())
    .option('--json')
    .action(async (id: string, o: { runs?: string; json?: boolean }) => {
      const service = openService(o.runs);
      const detail = await service.getRun({ id });
      if (o.json) return console.log(JSON.stringify(detail));
      printTable([summary(detail.state)]);
      const metricsFile = join(service.store.dir(id), 'metrics.jsonl');
      const bad = badLinesText(scanMetricsFile(metricsFile).bad);
      console.log(
        `\nconfig: ${JSON.stringify(detail.config)}\nmetrics: ${detail.metrics.length} records${bad ? ` (${bad.replace(' skipped', ` in ${metricsFile} skipped`)})` : ''}`,
      );
      // Where the time went: an experiment's table (its arms, cores busy) from its result, any other run's phases from
      // its time.jsonl; the table's cores-busy curve stays in --json.
      const { time, ...result } = (detail.state.result ?? {}) as { time?: TimeTable };
      if (detail.state.result) console.log(`result: ${JSON.stringify(result, null, 2)}`);
      if (time) console.log(`\n${tableToMarkdown(timeTable(time))}\n${tableToMarkdown(armTimeTable(time))}`);
      else {
        const spans = readTimeLog(join(service.store.dir(id), TIME_FILE));
        if (spans.length) console.log(`\n${tableToMarkdown(phaseTable(phaseTotals(spans)))}`);
      }
      if (detail.state.error) console.log(`error: ${detail.state.error}`);
    });
  runs
    .command('resume <id>')
    .description('continue a cancelled, failed or interrupted run from its last checkpoint')
    .addOption(runsOption())
    .option('--json')
    .action(async (id: string, o: { runs?: string; json?: boolean }) => {
      const service = openService(o.runs);
      await service.resumeRun({ id });
      const off = cancelOnSignals(service, id);
      await service.scheduler.idle();
      off();
      const state = service.store.get(id);
      if (o.json) console.log(JSON.stringify(state));
      else printTable([summary(state)]);
      setExit(exitFor(state));
    });
  runs
    .command('cancel <id>')
    .description(
      'stop a running run at its next safe point (its checkpoint stays: resume continues it), whichever process on this machine runs it',
    )
    .addOption(runsOption())
    .option('--json')
    .action(async (id: string, o: { runs?: string; json?: boolean }) => {
      const service = openService(o.runs);
      await service.cancelRun({ id });
      const state = await ended(service, id);
      if (o.json) console.log(JSON.stringify(state));
      else {
        printTable([summary(state)]);
        if (state.status === 'running' || state.status === 'queued')
          console.error(`run ${id}: asked to stop; it is still ${state.status} (its worker checkpoints first)`);
      }
    });
  runs
    .command('delete <id>')
    .description('delete a run and its folder (a live run must be cancelled first; asks unless --force)')
    .addOption(runsOption())
    .option('--force', 'delete without asking')
    .option('--json')
    .action(async (id: string, o: { runs?: string; force?: boolean; json?: boolean }) => {
      const service = openService(o.runs);
      const state = service.store.peek(id);
      service.checkDeletable(id);
      if (!o.force) {
        if (!process.stdin.isTTY)
          throw new InputError(`deleting run ${id} (${state.kind}, ${state.status}) cannot be undone: add --force`);
        const rl = createInterface({ input: process.stdin, output: process.stderr });
        const answer = await rl.question(`delete run ${id} (${state.kind}, ${state.status}) and its folder? [y/N] `);
        rl.close();
        if (!/^y(es)?$/i.test(answer.trim())) return console.error('not deleted');
      }
      await service.deleteRun({ id });
      if (o.json) console.log(JSON.stringify({ deleted: id }));
      else console.error(`deleted run ${id} (${service.store.dir(id)})`);
    });
}

// The run's state once the process that runs it has recorded how it ended (or after a minute, as it is then).
async function ended(service: Service, id: string): Promise<RunState> {
  for (const t0 = Date.now(); Date.now() - t0 < 60_000; await new Promise((r) => setTimeout(r, 250))) {
    const s = service.store.get(id);
    if (s.status !== 'running' && s.status !== 'queued') return s;
  }
  return service.store.get(id);
}
