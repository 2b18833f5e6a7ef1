// `prh serve`, `prh runs ...`: the run store from the command line, and the GUI over HTTP.
import { Command, Option } from 'commander';
import { SingleBar, Presets } from 'cli-progress';
import { join, resolve } from 'node:path';
import type { RunConfigInput, RunState } from '../../shared/runs';
import { fileSettings, runsDirOf, Service, userDataDir } from '../api';
import { badLinesText, scanMetricsFile } from '../runs';
import { EXIT, printTable } from './output';
import { serve } from './serve';
import { ensureRenderer, serveToken } from './serve-session';

const rendererDir = () => resolve(import.meta.dirname, '..', '..', 'out', 'renderer');

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
  const off = service.subscribe((e) => {
    if (e.runId !== started.id || e.type !== 'progress' || !bar) return;
    if (!bar.isActive) bar.start(e.progress.total, 0, { msg: '' });
    bar.setTotal(e.progress.total);
    bar.update(e.progress.done, { msg: e.progress.message ?? '' });
  });
  const onInt = () => service.cancelRun({ id: started.id }).catch(() => undefined);
  process.once('SIGINT', onInt);
  await service.scheduler.idle();
  process.off('SIGINT', onInt);
  off();
  bar?.stop();
  const state = service.store.get(started.id);
  if (!json) console.error(`run ${state.id}: ${state.status} (${service.store.dir(state.id)})`);
  return { state, code: exitFor(state) };
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
      ensureRenderer(rendererDir());
      const service = openService(o.runs, o.threads, true);
      // One token per runs folder, kept across restarts: with the same --port, open tabs reconnect by themselves.
      const s = await serve({
        service,
        rendererDir: rendererDir(),
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

  const runs = program.command('runs').description('list, inspect, cancel and resume stored runs');
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
      if (detail.state.result) console.log(`result: ${JSON.stringify(detail.state.result, null, 2)}`);
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
      await service.scheduler.idle();
      const state = service.store.get(id);
      if (o.json) console.log(JSON.stringify(state));
      else printTable([summary(state)]);
      setExit(exitFor(state));
    });
}
