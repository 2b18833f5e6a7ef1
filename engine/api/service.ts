// The one backend service: every transport (Electron IPC, `prh serve`) calls dispatch, which validates the call
// against shared/api.ts once; the methods get the parsed parameters. It owns the run store and the scheduler;
// jobs compute in workers.
import { ApiParams, type Api, type ApiArgs, type ApiMethod, type ApiResults, type MatchResult } from '../../shared/api';
import type { RunEvent, RunState } from '../../shared/runs';
import { armRank } from '../../shared/curves';
import type { EntryCommand } from '../child';
import { RunStore, Scheduler } from '../runs';
import { explore, prop2Demo, thm1Demo } from '../theory';
import { EXECUTOR_FILE, workerCommand } from '../worker';
import { writeJsonAtomic } from '../atomic';
import { RunExecutor, resolveExecutor } from '../../shared/settings';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { ZodError } from 'zod';
import { dirname, join } from 'node:path';
import { InputError } from '../errors';
import { issuesText } from '../../shared/issues';
import { readAnnotation, writeAnnotation } from './annotations';
import { Access, type Roots } from './access';
import { browseFolder, folderRoots } from './folders';
import {
  datasetGallery,
  exportBundle,
  exportFigure,
  exportMetrics,
  exportTable,
  inspectPhotoViews,
  listDatasets,
  runLabTask,
} from './lab';
import { datasetsDir, type SettingsStore } from './settings';

// runsDir: where runs are stored; userData: the app's user-data folder (the lab's datasets/); worker: how to start
// a job's process (default: engine/worker under tsx, or the Electron bundle's worker.js); confine: keep the paths
// calls name inside the roots a served UI may use (access.ts) — `prh serve` sets it, the desktop app and CLI do not.
export type ServiceOptions = {
  runsDir: string;
  userData: string;
  settings: SettingsStore;
  concurrency?: number;
  worker?: EntryCommand;
  transport: 'ipc' | 'ws';
  confine?: boolean;
};

export class Service implements Api {
  readonly store: RunStore;
  readonly scheduler: Scheduler;
  private readonly access: Access;
  private readonly listeners = new Set<(e: RunEvent) => void>();

  constructor(private readonly opts: ServiceOptions) {
    this.store = new RunStore(opts.runsDir);
    this.store.recover(); // runs a previous process left running are now `interrupted`
    this.scheduler = new Scheduler(this.store, {
      concurrency: opts.concurrency ?? opts.settings.get().threads,
      worker: opts.worker ?? workerCommand(),
    });
    this.scheduler.on('event', (e) => this.listeners.forEach((l) => l(e)));
    this.access = new Access(opts.confine ? () => this.roots() : null);
  }

  subscribe(listener: (e: RunEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // Validate and dispatch a call arriving from a transport (untrusted input).
  async dispatch(method: string, params: unknown): Promise<unknown> {
    if (!Object.hasOwn(ApiParams, method)) throw new Error(`unknown method ${JSON.stringify(method)}`);
    const m = method as ApiMethod;
    const check = ApiParams[m].safeParse(params ?? {});
    if (!check.success) throw new InputError(`${m}: ${issuesText(check.error)}`);
    const parsed = check.data;
    try {
      return await (this[m] as (p: unknown) => Promise<unknown>).call(this, parsed);
    } catch (err) {
      // A file on disk that fails its schema (status.json, config.json, a lab task's input): in words, not zod's JSON.
      if (err instanceof ZodError) throw new InputError(`${m}: ${issuesText(err)}`);
      throw err;
    }
  }

  async version(): Promise<ApiResults['version']> {
    return {
      app: 'prh-workbench 0.1.0',
      node: process.version,
      runsDir: this.store.root,
      concurrency: this.scheduler.concurrency,
      transport: this.opts.transport,
    };
  }
  async listRuns() {
    return this.store.list();
  }
  async getRun({ id }: ApiArgs<'getRun'>) {
    return { state: this.store.get(id), config: this.store.config(id), metrics: this.store.metrics(id) };
  }
  async startRun({ config }: ApiArgs<'startRun'>) {
    this.access.checkConfig(config);
    // Bad data is the caller's error now, not a failed run later. Lazily and not through engine/experiment's index:
    // that loads tfjs and onnxruntime, which the service's process does not need.
    const { preflightRun } = await import('../experiment/protocol');
    preflightRun(config);
    const state = this.store.create(config);
    this.writeExecutor(state.id);
    return this.scheduler.submit(state.id);
  }
  async cancelRun({ id }: ApiArgs<'cancelRun'>) {
    return this.scheduler.cancel(id);
  }
  async resumeRun({ id }: ApiArgs<'resumeRun'>) {
    this.writeExecutor(id);
    return this.scheduler.submit(id, true);
  }
  // An experiment's arms compute where its config says, else where the settings say (read now: a resume follows
  // changed settings); its worker reads the merged choice from executor.json.
  private writeExecutor(id: string): void {
    const config = this.store.config(id);
    if (config.kind !== 'experiment') return;
    writeJsonAtomic(
      join(this.store.dir(id), EXECUTOR_FILE),
      resolveExecutor(this.opts.settings.get(), config.executor),
    );
  }
  async deleteRun({ id }: ApiArgs<'deleteRun'>) {
    const { status } = this.store.peek(id); // an unreadable run can be deleted too
    if (status === 'running' || status === 'queued')
      throw new InputError(`run ${id} is ${status}: cancel it before deleting it`);
    rmSync(this.store.dir(id), { recursive: true, force: true });
    return { id };
  }
  async runIndex() {
    return this.store.ids().map((id) => {
      let config = null;
      try {
        config = this.store.config(id);
      } catch {
        /* an unreadable config.json shows as an empty row, not a failed table */
      }
      return { id, config, annotation: readAnnotation(this.store.dir(id)), executor: this.executorOf(id) };
    });
  }
  private executorOf(id: string): 'local' | 'slurm' | null {
    const file = join(this.store.dir(id), EXECUTOR_FILE);
    if (!existsSync(file)) return null;
    return RunExecutor.safeParse(JSON.parse(readFileSync(file, 'utf8'))).data?.kind ?? null;
  }
  // The arms live in the experiment's own store (arms/), read without touching it (no recover()); listed by seed, then
  // arm in the paper's order (their ids are made in the same second, so id order is random).
  async childRuns({ id }: ApiArgs<'childRuns'>) {
    this.store.get(id); // a clear error for an unknown run
    const dir = join(this.store.dir(id), 'arms');
    if (!existsSync(dir)) return [];
    const arms = new RunStore(dir);
    const rank = (s: RunState): [number, number] => {
      const c = arms.configOrNull(s.id);
      return c?.kind === 'train' ? [c.seed, armRank(c.arm)] : [Infinity, 0];
    };
    return arms
      .list()
      .map((s) => ({ s, r: rank(s) }))
      .sort((a, b) => a.r[0] - b.r[0] || a.r[1] - b.r[1] || a.s.name.localeCompare(b.s.name))
      .map(({ s }) => s);
  }
  async annotateRun({ id, annotation }: ApiArgs<'annotateRun'>) {
    this.store.get(id); // a clear error for an unknown run
    return writeAnnotation(this.store.dir(id), annotation);
  }
  // Small by the API's caps, so these answer inline; anything larger runs as a job.
  async theoryExplore(q: ApiArgs<'theoryExplore'>) {
    return explore(q);
  }
  async theoryThm1(q: ApiArgs<'theoryThm1'>) {
    return thm1Demo(q);
  }
  async theoryProp2(q: ApiArgs<'theoryProp2'>) {
    return prop2Demo(q);
  }
  // The experiment lab (engine/api/lab.ts); matching and bundling compute in a child process.
  async exportFigure(q: ApiArgs<'exportFigure'>) {
    return exportFigure(q, this.runRef(q.runId));
  }
  async imageModel({ path }: ApiArgs<'imageModel'>) {
    this.access.check(path, 'read', 'image model');
    const { describeImageModel } = await import('../image'); // lazily: it loads onnxruntime, which listing runs need not
    return describeImageModel(path);
  }
  async datasets() {
    return listDatasets(this.opts.userData);
  }
  async datasetGallery(q: ApiArgs<'datasetGallery'>) {
    this.access.check(q.path, 'read', 'dataset');
    return datasetGallery(q);
  }
  async browseFolder({ path }: ApiArgs<'browseFolder'>) {
    return browseFolder(path, folderRoots(this.browseRoots()));
  }
  async photoViews(q: ApiArgs<'photoViews'>) {
    this.access.check(q.path, 'read', 'dataset');
    return inspectPhotoViews(q, this.runDir(q.runId));
  }
  async matchImages(q: ApiArgs<'matchImages'>) {
    if (q.pool !== 'test') this.access.check(q.pool, 'read', 'caption pool');
    return (await runLabTask({
      task: 'match',
      runDir: this.store.dir(q.runId),
      images: q.images,
      pool: q.pool,
      topK: q.topK,
      perPhoto: q.perPhoto,
    })) as MatchResult;
  }
  async exportTable(q: ApiArgs<'exportTable'>) {
    return exportTable(q, this.runRef(q.runId));
  }
  async exportBundle({ id, checkpoints }: ApiArgs<'exportBundle'>) {
    this.store.get(id); // a clear error for an unknown run
    return exportBundle(this.store.dir(id), id, checkpoints);
  }
  async exportMetrics({ id }: ApiArgs<'exportMetrics'>) {
    this.store.get(id);
    return exportMetrics(this.store.metrics(id), { id, dir: this.store.dir(id) });
  }
  async getSettings() {
    return this.opts.settings.get();
  }
  async setSettings(patch: ApiArgs<'setSettings'>) {
    // The roots decide what a served tab may touch: it cannot widen them itself.
    const now = this.opts.settings.get();
    const widened = (['dataRoots', 'runsDir'] as const).filter(
      (k) => k in patch && JSON.stringify(patch[k]) !== JSON.stringify(now[k]),
    );
    if (this.access.confined && widened.length)
      throw new InputError(
        `${widened.join(' and ')} cannot be changed from a served page: they decide which folders it may read and write; change them in the desktop app or the settings file`,
      );
    // Nor what a batch job runs as shell (setup lines, the node's Node.js, the project folder): that would step past the roots.
    const shell = (['setup', 'node', 'project'] as const)
      .filter((k) => patch.slurm && JSON.stringify(patch.slurm[k]) !== JSON.stringify(now.slurm?.[k]))
      .map((k) => `slurm.${k}`);
    if (this.access.confined && shell.length)
      throw new InputError(
        `${shell.join(', ')} cannot be changed from a served page: a job runs them as shell commands; change them in the desktop app or the settings file`,
      );
    return this.opts.settings.set(patch);
  }

  async close(): Promise<void> {
    await this.scheduler.shutdown();
  }

  // The folder browser's roots: the lab's datasets folder, the folders around the datasets runs used, the settings'
  // dataRoots. A served UI reads under these and the runs folder, and writes under the first and the last.
  private browseRoots(): string[] {
    const used = this.store.ids().flatMap((id) => {
      try {
        const c = this.store.config(id);
        return 'data' in c ? [dirname(c.data)] : [];
      } catch {
        return []; // an unreadable config.json adds no root
      }
    });
    return [datasetsDir(this.opts.userData), ...used, ...(this.opts.settings.get().dataRoots ?? [])];
  }
  private roots(): Roots {
    return {
      read: [this.store.root, ...this.browseRoots()],
      write: [datasetsDir(this.opts.userData), ...(this.opts.settings.get().dataRoots ?? [])],
    };
  }

  private runDir(id: string | undefined): string | null {
    return id ? this.store.dir(id) : null;
  }
  private runRef(id: string | undefined): { id: string; dir: string } | null {
    return id ? { id, dir: this.store.dir(id) } : null;
  }
}
