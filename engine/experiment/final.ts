// After training: score every arm's selected checkpoint on the test pairs with paired-bootstrap CIs (per seed: the
// same resampled test items for every arm), the two controls, the pair-count sweep, rank histograms and the
// across-seed spread; keep each arm's map for the image drop; write the report (figures + tables).
import {
  armLr,
  type ArmDifference,
  type ArmResult,
  type ExperimentConfig,
  type ExperimentResult,
  type GridResult,
  type ImageViewArm,
  type SeedSpread,
  type SweepRow,
} from '../../shared/experiment';
import { compareArms, controls, fitAlignment, freeParameters, sweepPairs } from '../align';
import { writeJsonAtomic } from '../atomic';
import { writeNpy } from '../embeddings';
import { writeReport } from '../report';
import { readMetricsFile, type JobContext, type RunStore } from '../runs';
import { experimentReport } from '../../shared/experiment-figures';
import type { Dataset } from '../../shared/dataset';
import { isJepaArm } from '../../shared/train';
import { imageCeiling } from './ceiling';
import { scoreGrid } from './grid';
import type { ImageArms } from './image-arms';
import type { ImageSide } from './images';
import { armLayout, childKey, experimentLayout } from './layout';
import { pairSplits, readSide, type Paired, type Side } from './pairs';
import { experimentClock } from './time-table';

const RANK_EDGES = [0, 1, 5, 10, 50, 100, 500, 1000]; // bins [e_i, e_i+1) of the true caption's rank; last bin open

// The checkpoint an arm is scored at: its train config's policy (last, lowest validation loss, or best two-fold R@1 on
// the fit pairs); never test. A diverged arm is scored at the checkpoint its policy picks among the good ones before
// the NaN.
function selectedEpoch(store: RunStore, id: string, arm: string, seed: number): { epoch: number; diverged?: string } {
  const s = store.get(id);
  const r = s.result as { selected?: { epoch: number } | null; epochs?: number } | null;
  const epoch = r?.selected?.epoch ?? r?.epochs;
  if (s.status === 'diverged') {
    if (!epoch)
      throw new Error(
        `arm ${arm} (seed ${seed}) diverged before its first checkpoint, so there is nothing to score: ${s.error}; lower --lr or λ, or set --clip`,
      );
    return { epoch, diverged: s.error ?? 'diverged' };
  }
  if (!epoch) throw new Error(`arm ${arm} (seed ${seed}, run ${id}) has no scored checkpoint`);
  return { epoch };
}

function histogram(ranks: number[]): number[] {
  const counts = new Array(RANK_EDGES.length).fill(0);
  for (const r of ranks) {
    let b = RANK_EDGES.length - 1;
    while (b > 0 && r < RANK_EDGES[b]) b--;
    counts[b]++;
  }
  return counts;
}

// What scoring an experiment reads besides its config: the dataset, the image side, the arms' run store and ids
// (childKey -> run id), when it started (ms since the epoch) and, for a 2x2, its image arms.
export type FinalInputs = {
  dataset: Dataset;
  img: ImageSide;
  store: RunStore;
  children: Record<string, string>;
  t0: number;
  imageArms?: ImageArms | null;
};

export async function finalize(
  ctx: JobContext<ExperimentConfig>,
  c: ExperimentConfig,
  { dataset, img, store, children, t0, imageArms = null }: FinalInputs,
): Promise<ExperimentResult> {
  const layout = experimentLayout(ctx.runDir);
  const images = { val: readSide(img.val), test: readSide(img.test) };
  const arms: ArmResult[] = [];
  const differences: ArmDifference[] = [];
  const sweep: SweepRow[] = [];
  const rankHistograms: ExperimentResult['rankHistograms'] = [];
  const warnings = new Set<string>(); // the map's (same for every arm) once; an arm's own with its name
  let pairs: Paired | null = null;
  const grid: GridResult | null = imageArms && { imageArms: imageArms.records, cells: [], differences: [] };
  const gridImages = new Map<ImageViewArm, { val: Side; test: Side }>(
    [...(imageArms?.sides ?? [])].map(([arm, s]) => [arm, { val: readSide(s.val), test: readSide(s.test) }]),
  );

  for (const seed of c.seeds) {
    const paired = new Map<string, { id: string; epoch: number; diverged?: string; p: Paired }>();
    const texts = new Map<string, { val: Side; test: Side }>();
    for (const arm of c.arms) {
      const id = children[childKey(arm, seed)];
      const { epoch, diverged } = selectedEpoch(store, id, arm, seed);
      const emb = armLayout(store.dir(id)).embeddings(epoch);
      texts.set(arm, { val: readSide(emb.val), test: readSide(emb.test) });
      paired.set(arm, { id, epoch, diverged, p: pairSplits(images, texts.get(arm)!) });
    }
    if (grid) {
      ctx.progress(0, 1, `2x2 cells (seed ${seed})`);
      const g = await scoreGrid(gridImages, texts, seed, {
        k: c.eval.k,
        bootstrap: c.eval.bootstrap,
        seed: c.eval.seed,
      });
      grid.cells.push(...g.cells);
      grid.differences.push(...g.differences);
    }
    const first = paired.values().next().value!.p;
    pairs ??= first;
    const cmp = await compareArms({
      arms: c.arms.map((arm) => ({ name: arm, image: paired.get(arm)!.p.image, text: paired.get(arm)!.p.text })),
      fit: first.fit,
      test: first.test,
      k: c.eval.k,
      resamples: c.eval.bootstrap,
      seed: c.eval.seed,
    });
    for (const e of cmp.arms)
      for (const w of e.warnings) warnings.add(w.startsWith('the map') ? w : `${e.name} (seed ${seed}): ${w}`);
    const interval = (metric: keyof typeof cmp.bootstrap, arm: string) => {
      const i = cmp.bootstrap[metric]?.scores[arm];
      return i ? { estimate: i.estimate, lo: i.lo, hi: i.hi } : null;
    };
    for (const [n, arm] of c.arms.entries()) {
      const { id, epoch, diverged, p } = paired.get(arm)!;
      ctx.progress(n, c.arms.length, `controls and pair sweep (${arm}, seed ${seed})`);
      const ctl = await controls({
        image: p.image,
        text: p.text,
        fit: p.fit,
        test: p.test,
        k: c.eval.k,
        seed: c.eval.seed,
      });
      const nFit = p.fit.end - p.fit.start;
      const counts = [...new Set([...c.eval.sweepCounts.filter((x) => x < nFit), nFit])];
      const sw = await sweepPairs({
        image: p.image,
        text: p.text,
        fit: p.fit,
        test: p.test,
        counts,
        repeats: c.eval.sweepRepeats,
        seed: c.eval.seed,
      });
      for (const s of sw.summary)
        sweep.push({
          arm,
          seed,
          n: s.n,
          testR1: s.test.imageToText.r1,
          fitR1: s.fit.imageToText.r1,
          sdTestR1: s.sdTestR1,
        });
      const full = sw.summary.find((s) => s.n === nFit)!;
      // What its training said of itself (a warmup it never finished, a loss that exploded), and the lr it reached.
      const trained = store.get(id).result as {
        lrReached?: number | null;
        lambEff?: number;
        warnings?: string[];
      } | null;
      for (const w of trained?.warnings ?? []) warnings.add(`${arm} (seed ${seed}): ${w}`);
      arms.push({
        arm,
        seed,
        runId: id,
        epoch,
        select: c.train.select,
        lr: armLr(c, arm),
        ...(typeof trained?.lrReached === 'number' ? { lrReached: trained.lrReached } : {}),
        ...(isJepaArm(arm) && typeof trained?.lambEff === 'number' ? { lambEff: trained.lambEff } : {}),
        ...(diverged ? { diverged } : {}),
        r1: interval('imageToText.r1', arm)!,
        r5: interval('imageToText.r5', arm)!,
        r10: interval('imageToText.r10', arm)!,
        t2iR1: interval('textToImage.r1', arm)!,
        mknn: interval('mknn', arm),
        fitR1: full.fit.imageToText.r1,
        controls: { random: ctl.random.imageToText.r1, shuffled: ctl.shuffled.imageToText.r1 },
      });
      const e = cmp.arms.find((a) => a.name === arm)!;
      rankHistograms.push({ arm, seed, edges: RANK_EDGES, counts: histogram(e.ranks.imageToText) });
      // The map and means the image drop needs: image -> (x - mu_img) W, caption -> y - mu_txt.
      const al = await fitAlignment({ image: p.image, text: p.text, fit: p.fit });
      const out = layout.final(arm, seed);
      writeNpy(out.w, { rows: al.w.rows, dim: al.w.cols, data: al.w.data });
      writeNpy(out.imageMean, { rows: 1, dim: al.imageMean.length, data: al.imageMean });
      writeNpy(out.textMean, { rows: 1, dim: al.textMean.length, data: al.textMean });
      writeJsonAtomic(out.alignment, { arm, seed, runId: id, epoch, map: al.map });
    }
    for (const metric of ['imageToText.r1', 'mknn'] as const)
      for (const d of cmp.bootstrap[metric]?.differences ?? [])
        differences.push({
          a: d.a,
          b: d.b,
          seed,
          metric: metric === 'mknn' ? 'mknn' : 'r1',
          estimate: d.estimate,
          lo: d.lo,
          hi: d.hi,
        });
  }

  const spread: SeedSpread[] = c.arms.map((arm) => {
    const r1 = arms.filter((a) => a.arm === arm).map((a) => a.r1.estimate);
    const mean = r1.reduce((s, x) => s + x, 0) / r1.length;
    const sd = r1.length > 1 ? Math.sqrt(r1.reduce((s, x) => s + (x - mean) ** 2, 0) / (r1.length - 1)) : 0;
    return { arm, seeds: r1.length, meanR1: mean, sdR1: sd, minR1: Math.min(...r1), maxR1: Math.max(...r1) };
  });
  const nTest = pairs!.test.end - pairs!.test.start;
  if (grid)
    for (const [image, side] of gridImages) {
      const cl = await imageCeiling(dataset, side, { dim: pairs!.text.dim, k: c.eval.k, seed: c.eval.seed });
      if (cl) (grid.ceilings ??= []).push({ image, r1: cl.r1, mknn: cl.mknn });
    }
  const result: ExperimentResult = {
    arms,
    differences,
    spread,
    sweep,
    rankHistograms,
    chance: { r1: 1 / nTest, mknn: c.eval.k / (nTest - 1) },
    image: {
      model: img.encoder.model,
      sha256: img.encoder.sha256,
      dim: img.encoder.dim,
      preset: img.encoder.preset,
      ...(img.encoder.spec ? { tensor: img.encoder.spec.embedding.tensor, pool: img.encoder.spec.embedding.pool } : {}),
    },
    pairs: { fit: pairs!.fit.end, test: nTest, freeParameters: freeParameters(img.encoder.dim, pairs!.text.dim) },
    ceiling: await imageCeiling(dataset, images, { dim: pairs!.text.dim, k: c.eval.k, seed: c.eval.seed }),
    seconds: (Date.now() - t0) / 1000,
    warnings: [...warnings],
    ...(grid ? { grid } : {}),
  };
  for (const w of warnings) ctx.log(w, 'warn');
  // The report shows where the time went up to the report; result.json, once the report is written, all of it.
  ctx.time.enter('report');
  const timeNow = experimentClock(() => ctx.time.spans(), {
    store,
    children,
    keys: c.seeds.flatMap((seed) => c.arms.map((arm) => ({ arm, seed }))),
  });
  const beforeReport = { ...result, time: timeNow() };
  writeJsonAtomic(layout.result, beforeReport);
  const metrics = readMetricsFile(ctx.path('metrics.jsonl'));
  await writeReport(ctx.path('report'), {
    title: c.name ?? 'Good views vs bad views vs next-token prediction',
    ...experimentReport(beforeReport, metrics),
    config: c,
  });
  result.time = timeNow();
  writeJsonAtomic(layout.result, result);
  return result;
}
