// The one backend service: every transport (Electron IPC, `prh serve`) calls dispatch, which validates the call
// against shared/api.ts once; the methods get the parsed parameters. It owns the run store and the scheduler;
// jobs compute in workers.
import { ApiParams, type Api, type ApiArgs, type ApiMethod, type ApiResults, type MatchResult } from '../../shared/api';
import type { SweepRow } from '../../shared/experiment';
import { RESUMABLE, type RunEvent, type RunState } from '../../shared/runs';
import { armRank } from '../../shared/curves';
import type { EntryCommand } from '../child';
import { describeOwner, otherOwner, RunStore, Scheduler, signalWorker } from '../runs';
import { explore, prop2Demo, thm1Demo } from '../theory';
import { EXECUTOR_FILE, workerCommand } from '../worker';
import { writeJsonAtomic } from '../atomic';
import { RunExecutor, resolveExecutor } from '../../shared/settings';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { ZodError } from 'zod';
import { join } from 'node:path';
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
import { fingerprint, fingerprintChanges, readFingerprint, writeFingerprint } from '../data/fingerprint';
import { APP_NAME, APP_VERSION } from '../version';

// runsDir: where runs are stored; userData: the app's user-data folder (the lab's datasets/); worker: how to start
// a job's process (default: engine/worker through bin/entry.js, or the Electron bundle's worker.js); confine: keep the paths
// calls name inside the roots a served UI may use (access.ts) — `prh serve` sets it, the desktop app and CLI do not.
export type ServiceOptions = {
  runsDir: string;
  userData: string;
  settings: SettingsStore;
  concurrency?: number;
  worker?: EntryCommand;
  transport: 'ipc' | 'ws';
  confine?: boolean;
  recoverEveryMs?: number; // how often runs other processes left running are checked (RECOVER_EVERY_MS)
};
const RECOVER_EVERY_MS = 5_000;

const isFolder = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

export class Service implements Api {
  readonly store: RunStore;
  readonly scheduler: Scheduler;
  private readonly access: Access;
  private readonly listeners = new Set<(e: RunEvent) => void>();
  private readonly watch: NodeJS.Timeout;

  constructor(private readonly opts: ServiceOptions) {
    this.store = new RunStore(opts.runsDir);
    this.store.recover(); // runs a previous process left running are now `interrupted`
    this.scheduler = new Scheduler(this.store, {
      concurrency: opts.concurrency ?? opts.settings.get().threads,
      worker: opts.worker ?? workerCommand(),
    });
    this.scheduler.on('event', (e) => this.listeners.forEach((l) => l(e)));
    this.access = new Access(opts.confine ? () => this.roots() : null);
    this.watch = setInterval(() => this.recoverOthers(), opts.recoverEveryMs ?? RECOVER_EVERY_MS).unref();
  }

  // A run another process ran (a `prh experiment`, a killed `prh serve` whose worker outlived it by a moment) is
  // `interrupted` as soon as nothing computes it any more, and every page hears so: no run shows `running` after
  // its processes are gone, whenever they went.
  private recoverOthers(): void {
    for (const id of this.store.ids()) {
      if (this.scheduler.has(id)) continue;
      let state: RunState;
      try {
        state = this.store.get(id);
      } catch {
        continue; // unreadable: listed as such, nothing to recover
      }
      if (state.status !== 'running' && state.status !== 'queued') continue;
      const now = this.store.recoverRun(state);
      if (now !== state) this.listeners.forEach((l) => l({ type: 'status', runId: id, state: now }));
    }
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
      app: `${APP_NAME} ${APP_VERSION}`,
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
    const data = preflightRun(config);
    // The image model and photos too (decodable, a finite embedding), in a child: that needs onnxruntime.
    if (config.kind === 'experiment') await runLabTask({ task: 'preflight', config });
    const state = this.store.create(config);
    if (data) writeFingerprint(this.store.dir(state.id), fingerprint(data.opened, data.tokenizer));
    this.writeExecutor(state.id);
    return this.scheduler.submit(state.id);
  }
  // A run this process computes is cancelled through its scheduler; one another process computes on this machine (a
  // `prh experiment` in a terminal, the desktop app) through its worker, whose owner then records `cancelled`.
  async planExperiment({ config }: ApiArgs<'planExperiment'>) {
    if (config.kind !== 'experiment') throw new InputError('planExperiment: an experiment config');
    this.access.checkConfig(config);
    const { planExperiment } = await import('../experiment/protocol');
    return planExperiment(config);
  }
  async cancelRun({ id }: ApiArgs<'cancelRun'>) {
    if (this.scheduler.has(id)) return this.scheduler.cancel(id);
    const state = this.store.get(id);
    const owner = otherOwner(this.store.dir(id), this.store.ownerAlive);
    if (!owner)
      throw new InputError(
        `run ${id} is ${state.status}: nothing computes it, so there is nothing to cancel${RESUMABLE.includes(state.status) ? ' (prh runs resume continues it)' : ''}`,
      );
    try {
      signalWorker(this.store.dir(id), owner);
    } catch (err) {
      throw new InputError(`run ${id} cannot be cancelled from here: ${(err as Error).message}`);
    }
    return state;
  }
  async resumeRun({ id }: ApiArgs<'resumeRun'>) {
    if (RESUMABLE.includes(this.store.get(id).status)) await this.checkData(id);
    this.writeExecutor(id);
    return this.scheduler.submit(id, true);
  }
  // A run resumes on the data it started on, or not at all: what changed is named, with the way forward.
  private async checkData(id: string): Promise<void> {
    const was = readFingerprint(this.store.dir(id));
    if (!was) return; // a run from before fingerprints, or one without data
    const { runData } = await import('../experiment/protocol');
    const data = runData(this.store.config(id));
    if (!data) return;
    const changes = fingerprintChanges(was, fingerprint(data.opened, data.tokenizer));
    if (changes.length)
      throw new InputError(
        `run ${id} cannot resume: its data changed since it started: ${changes.join('; ')}. Resuming would train on a mix of the two; start a new run on the data as it is now, or put the data back as it was`,
      );
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
    this.checkDeletable(id);
    rmSync(this.store.dir(id), { recursive: true, force: true });
    return { id };
  }
  // A run some process still computes (or queues, or whose worker still writes) is cancelled first.
  checkDeletable(id: string): void {
    const { status } = this.store.peek(id); // an unreadable run can be deleted too
    const owner = otherOwner(this.store.dir(id), this.store.ownerAlive);
    if (status === 'running' || status === 'queued' || this.scheduler.has(id) || owner)
      throw new InputError(
        `run ${id} is ${status}${owner ? ` under ${describeOwner(owner)}` : ''}: cancel it before deleting it (prh runs cancel ${id})`,
      );
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
  // The arms live in the experiment's own store (arms/); listed by seed, then arm in the paper's order (their ids are
  // made in the same second, so id order is random).
  async childRuns({ id }: ApiArgs<'childRuns'>) {
    this.store.get(id); // a clear error for an unknown run
    const dir = join(this.store.dir(id), 'arms');
    if (!existsSync(dir)) return [];
    const arms = new RunStore(dir, this.store.ownerAlive);
    // Arms an experiment's worker left running when it died (kill -9 of their `prh serve`) are `interrupted` once
    // nothing can write them: the experiment is not computed here, and no process owns it or any of its arms.
    if (!this.scheduler.has(id) && !otherOwner(this.store.dir(id), this.store.ownerAlive)) arms.recover();
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
  async sweepExperiment({ id, counts, repeats }: ApiArgs<'sweepExperiment'>) {
    if (this.store.get(id).status !== 'done') throw new InputError(`run ${id} is not a finished experiment`);
    return (await runLabTask({ task: 'sweep', runDir: this.store.dir(id), counts, repeats })) as SweepRow[];
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
    // Nor what a batch job runs or where it writes: its free #SBATCH lines, its shell lines, the node's Node.js, the
    // project folder. A served page may pick the named resources only (SlurmResources).
    const shell = (['extra', 'setup', 'node', 'project'] as const)
      .filter((k) => patch.slurm && JSON.stringify(patch.slurm[k]) !== JSON.stringify(now.slurm?.[k]))
      .map((k) => `slurm.${k}`);
    if (this.access.confined && shell.length)
      throw new InputError(
        `${shell.join(', ')} cannot be changed from a served page: they decide what a batch job runs and where it writes; change them in the desktop app or the settings file`,
      );
    return this.opts.settings.set(patch);
  }

  async close(): Promise<void> {
    clearInterval(this.watch);
    await this.scheduler.shutdown();
  }

  // The folder browser's roots: the lab's datasets folder, the settings' dataRoots, and each dataset a stored run
  // used: its own folder and image folder (for a caption file: the file, and the folder its photos were found in),
  // never the folder around it. A served UI reads under these and the runs folder, and writes under the lab's
  // datasets folder and the dataRoots.
  private browseRoots(): string[] {
    return [
      datasetsDir(this.opts.userData),
      ...this.usedData().filter((p) => isFolder(p)),
      ...(this.opts.settings.get().dataRoots ?? []),
    ];
  }
  private roots(): Roots {
    return {
      read: [
        this.store.root,
        datasetsDir(this.opts.userData),
        ...this.usedData(),
        ...(this.opts.settings.get().dataRoots ?? []),
      ],
      write: [datasetsDir(this.opts.userData), ...(this.opts.settings.get().dataRoots ?? [])],
    };
  }
  // Each run's data paths, kept once its fingerprint is there (a run's config and fingerprint do not change).
  private readonly dataOfRun = new Map<string, string[]>();
  private usedData(): string[] {
    return this.store.ids().flatMap((id) => this.dataOfRun.get(id) ?? this.runDataPaths(id));
  }
  private runDataPaths(id: string): string[] {
    const c = this.store.configOrNull(id); // an unreadable config.json adds no root
    if (!c || !('data' in c)) return [];
    const f = readFingerprint(this.store.dir(id));
    const paths = [c.data, ...(c.images ? [c.images] : []), ...(f ? [f.imagesDir] : [])];
    if (f) this.dataOfRun.set(id, paths);
    return paths;
  }

  private runDir(id: string | undefined): string | null {
    return id ? this.store.dir(id) : null;
  }
  private runRef(id: string | undefined): { id: string; dir: string } | null {
    return id ? { id, dir: this.store.dir(id) } : null;
  }
}
