// The experiment as one run: embed the photos with the frozen image encoder (the 2x2: train the image arms here and
// embed with each), train every arm x seed as a child train run in arms/ (as many at once as cores, or every one as
// a Slurm job; each scoring itself every epoch), relay their curves, then compare once every arm is done.
// Cancel stops the children gracefully; resume continues each child from its own last checkpoint.
import { cpus } from 'node:os';
import { splitCounts, type Dataset } from '../../shared/dataset';
import { armConfig, type ExperimentConfig, type ImageViews } from '../../shared/experiment';
import { describeAdapter } from '../../shared/gpu';
import { RESUMABLE } from '../../shared/runs';
import { armSteps, TrainConfig, type Arm } from '../../shared/train';
import { Cancelled, RunStore, Scheduler, type Job, type JobContext } from '../runs';
import { startOrder } from './arm-order';
import { finalize } from './final';
import { imageArms, type ImageArms } from './image-arms';
import { renderableWorld, type RenderableWorld } from './world-scenes';
import { embedImageSide, imageCacheDir, imageSideDone, type ImageSide, type Photos } from './images';
import { childKey, experimentLayout } from './layout';
import { protocolPhotos } from './protocol';

type Children = Record<string, string>; // childKey(arm, seed) -> child run id

export const experimentJob: Job<ExperimentConfig> = async (ctx) => {
  const t0 = Date.now();
  const c = ctx.config;
  ctx.time.enter('opening data');
  await ctx.executor.preflight?.(); // a cluster that cannot take the arms fails now, not after the embedding
  const { opened, fit, test } = protocolPhotos(c);
  const dataset = opened.dataset;
  const layout = experimentLayout(ctx.runDir);
  ctx.log(
    `data: ${opened.file} (${opened.format}; ${describeSplit(dataset)}); images ${opened.imagesDir}; fit pairs ${fit.length}, test pairs ${test.length}`,
  );

  const photos = { fit, test, imagesDir: opened.imagesDir };
  ctx.time.enter(c.imageViews ? 'training image arms' : 'embedding photos');
  const grid = c.imageViews
    ? await trainImageArms(
        ctx,
        { ...c, imageViews: c.imageViews },
        renderableWorld(dataset, opened.file, opened.format),
        photos,
      )
    : null;
  const side = grid ? grid.sides.get(c.imageViews!.arms[0])! : await frozenImageSide(ctx, photos);
  const how = side.encoder.spec
    ? `, tensor ${side.encoder.spec.embedding.tensor}, pool ${side.encoder.spec.embedding.pool}`
    : '';
  const where = side.encoder.spec
    ? ` on ${side.encoder.device ?? 'cpu'}${side.encoder.adapter ? ` (${describeAdapter(side.encoder.adapter)})` : ''}`
    : '';
  ctx.log(
    `image side: ${side.encoder.model} (${side.encoder.preset}${how}, ${side.encoder.dim}-d, sha256 ${side.encoder.sha256.slice(0, 12)})${where}`,
  );

  // Arms a live Slurm job of an earlier attempt still computes are left to it (the executor asks the cluster).
  const store = new RunStore(layout.arms, ctx.executor.ownerAlive?.bind(ctx.executor));
  store.recover();
  const children: Children = ctx.checkpoint.load<{ children: Children }>()?.children ?? {};
  // Each arm's run folder is made when it is about to start (arms/ holds only the arms that ran or run).
  const create = (arm: Arm, seed: number): string => {
    const config = TrainConfig.parse(
      armConfig(c, arm, seed, { images: { val: side.val, test: side.test }, k: c.eval.k }),
    );
    const id = store.create(config).id;
    children[childKey(arm, seed)] = id;
    ctx.checkpoint.save({ children });
    return id;
  };

  ctx.time.enter('training arms');
  // Locally, at least one seed's arms at once: arms differ in cost (an NTP arm is a quarter of a view arm) and one
  // queued behind the others adds its own time, where beside them it shares theirs (the demo, 11 epochs, 2 cores:
  // 578 s with its 3 arms at once against 666 s two at a time).
  await trainArms(ctx, store, children, {
    create,
    steps: armSteps(splitCounts(dataset).train, c.train).total,
    concurrency: c.parallel ?? ctx.executor.concurrency ?? Math.max(cpus().length, c.arms.length),
  });
  const states = Object.values(children).map((id) => store.get(id));
  const failed = states.filter((s) => s.status !== 'done' && s.status !== 'diverged');
  // An arm's error: its cause line(s), without a stack (that stays in the arm's logs.txt).
  const cause = (e: string) =>
    e
      .split('\n')
      .filter((l) => l.trim() && !/^\s+at /.test(l) && !l.startsWith('(the worker'))
      .slice(0, 3)
      .join(' / ');
  if (failed.length)
    throw new Error(
      `arm(s) did not finish: ${failed.map((s) => `${s.name}: ${s.status}${s.error ? ` (${cause(s.error)})` : ''}`).join('; ')}`,
    );
  for (const s of states.filter((s) => s.status === 'diverged')) {
    const kept = (s.result as { selected?: { epoch: number } | null } | null)?.selected;
    ctx.log(
      `${s.name} diverged (${s.error}); ${kept ? `scoring its last good checkpoint, epoch ${kept.epoch}` : 'it has no good checkpoint to score'}`,
      'warn',
    );
  }

  ctx.progress(0, 1, 'comparing arms');
  ctx.time.enter('comparing arms');
  const result = await finalize(ctx, c, { dataset, img: side, store, children, t0, imageArms: grid });
  ctx.progress(1, 1, 'done');
  return { status: 'done', result };
};

// The image side of the classic experiment: the photos through the frozen image encoder of the config.
async function frozenImageSide(ctx: JobContext<ExperimentConfig>, photos: Photos): Promise<ImageSide> {
  const c = ctx.config;
  const out = experimentLayout(ctx.runDir).image;
  if (!imageSideDone(out)) ctx.progress(0, 1, 'embedding photos'); // a resume with its photos embedded goes on to the arms
  return embedImageSide(photos, c.image, out, imageCacheDir(c.data), {
    signal: ctx.signal,
    onProgress: (done, total) => ctx.progress(done, total, 'embedding photos'),
    log: (m) => ctx.log(m),
  });
}

// The 2x2's image side: each image arm trained in this process (before the text arms, which score their epochs
// through the first image arm), its training curve streamed as scope 'image'.
function trainImageArms(
  ctx: JobContext<ExperimentConfig>,
  c: ExperimentConfig & { imageViews: ImageViews },
  world: RenderableWorld,
  photos: Photos,
): Promise<ImageArms> {
  return imageArms(c, world, photos, experimentLayout(ctx.runDir), {
    signal: ctx.signal,
    log: (m) => ctx.log(m),
    progress: (done, total, message) => ctx.progress(done, total, message),
    metric: (arm, s) => {
      if (s.step % 5 === 0 || s.step + 1 === c.imageViews.steps)
        ctx.metric(
          'image',
          s.step,
          { loss: s.loss, inv: s.inv, sigreg: s.sigreg, lr: s.lr },
          { arm: `image ${arm}`, seed: c.imageViews.seed },
        );
    },
    cancelled: () => new Cancelled('experiment cancelled'),
  });
}

function describeSplit(ds: Dataset): string {
  const n = splitCounts(ds);
  const how =
    ds.params.split === 'seeded'
      ? `seeded split, seed ${String(ds.params.splitSeed)}`
      : ds.params.split === 'lists'
        ? 'official split lists'
        : 'its own split';
  return `${how}: train ${n.train} / val ${n.val} / test ${n.test} photos`;
}

// Runs the arms that are not done yet, each made (create) as a place frees up, and relays their events as the
// experiment's own, tagged by arm/seed. Its progress is the steps the arms have reached out of all their steps
// (`steps` each): it never goes back, also when a resumed arm trains again the steps after its last checkpoint.
async function trainArms(
  ctx: JobContext<ExperimentConfig>,
  store: RunStore,
  children: Children,
  opts: { create: (arm: Arm, seed: number) => string; concurrency: number; steps: number },
): Promise<void> {
  const scheduler = new Scheduler(store, { concurrency: opts.concurrency, executor: ctx.executor });
  const keys = startOrder(ctx.config.seeds.flatMap((seed) => ctx.config.arms.map((arm) => ({ arm, seed }))));
  const tagOf = new Map<string, { arm: string; seed: number }>();
  const reached = new Map<string, number>(); // arm run -> the furthest step it reached
  const finished = (id: string) => ['done', 'diverged'].includes(store.get(id).status);
  for (const k of keys) {
    const id = children[childKey(k.arm, k.seed)];
    if (!id) continue;
    tagOf.set(id, k);
    reached.set(id, finished(id) ? opts.steps : (store.get(id).progress?.done ?? 0));
  }
  const report = () =>
    ctx.progress(
      [...reached.values()].reduce((a, b) => a + b, 0),
      opts.steps * keys.length,
      'training arms',
    );
  // What is left, in start order: arms of an earlier attempt continue, the others are made when they start.
  const left = keys.filter((k) => {
    const id = children[childKey(k.arm, k.seed)];
    return !id || !finished(id);
  });
  const submitNext = () => {
    const k = left.shift();
    if (!k) return;
    const id = children[childKey(k.arm, k.seed)] ?? opts.create(k.arm, k.seed);
    tagOf.set(id, k);
    if (!reached.has(id)) reached.set(id, 0);
    scheduler.submit(id, RESUMABLE.includes(store.get(id).status));
  };
  scheduler.on('event', (e) => {
    const tag = tagOf.get(e.runId)!;
    if (e.type === 'metric') ctx.metric(e.record.scope, e.record.x, e.record.values, { ...e.record.tags, ...tag });
    else if (e.type === 'log') ctx.log(`[${tag.arm} s${tag.seed}] ${e.text}`, e.level);
    else if (e.type === 'progress') {
      reached.set(e.runId, Math.max(reached.get(e.runId) ?? 0, e.progress.done));
      report();
    } else if (e.type === 'status') {
      ctx.log(`[${tag.arm} s${tag.seed}] ${e.state.status}${e.state.error ? `: ${e.state.error.split('\n')[0]}` : ''}`);
      if (['done', 'diverged'].includes(e.state.status)) reached.set(e.runId, opts.steps);
      if (!['queued', 'running'].includes(e.state.status) && !ctx.signal.aborted) submitNext();
    }
  });
  const onAbort = () => void scheduler.shutdown();
  ctx.signal.addEventListener('abort', onAbort);
  report();
  for (let i = 0; i < opts.concurrency && left.length; i++) submitNext();
  await scheduler.idle();
  ctx.signal.removeEventListener('abort', onAbort);
  if (ctx.signal.aborted) throw new Cancelled('experiment cancelled');
}
