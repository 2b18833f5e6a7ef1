// The experiment's figures and tables as specs, pure functions of its run data: the GUI draws them live and
// engine/experiment writes the same ones into the run's report/ (PNG/SVG/PDF, CSV/Markdown/LaTeX).
import {
  armColor,
  armRank,
  bySeries,
  isNtp,
  seriesKey,
  seriesLook,
  shade,
  smoothed,
  withX,
  X_LABEL,
  type CurveSeries,
  type XMode,
} from './curves';
import type { ArmResult, ExperimentResult, GridDifference, Interval } from './experiment';
import { MARKERS, PALETTE, type FigureSpec, type RefLine } from './figures';
import type { MetricRecord } from './runs';
import { SELECTED_BY } from './train';
import type { Estimate, TableSpec } from './tables';
import { armTimeTable, coresBusyFigure, timeTable } from './time-figures';

const armLabel = (arm: string, seed: number, seeds: number) => (seeds > 1 ? `${arm} (seed ${seed})` : arm);

// How the live curves are drawn: x as step, epoch or wall time, and the EMA weight (0: raw).
export type CurveView = { x?: XMode; smoothing?: number };

// Per-epoch axes run half an epoch past the first and last epoch, ticking whole epochs, so a single epoch sits in
// the middle and no point sits on the border. A loss chart with JEPA and NTP arms puts the NTP cross-entropy on
// its own right axis: the two losses have different units and scales.
// One metric's curve per (arm, seed). refLines: chance levels and floors; yMin: the y axis' lower end (R@1: 0).
type CurveOf = {
  id: string;
  title: string;
  scope: string;
  key: string;
  y: string;
  refLines?: RefLine[];
  yMin?: number;
};
function curve(
  records: readonly MetricRecord[],
  { id, title, scope, key, y, refLines = [], yMin }: CurveOf,
  { epochs = 0, view = {} }: { epochs?: number; view?: CurveView },
): FigureSpec {
  const native: XMode = scope === 'train' ? 'step' : 'epoch';
  const mode = view.x ?? native;
  const series: CurveSeries[] = withX(bySeries(records, scope, key), records, scope, mode);
  const seedList = [...new Set(series.map((s) => s.seed))].sort((a, b) => a - b);
  const seeds = seedList.length;
  const seedIndex = (seed: number) => seedList.indexOf(seed);
  const lastX = Math.max(0, ...series.flatMap((s) => s.points.map((p) => p.x)));
  const splitLoss = /loss/i.test(key) && series.some((s) => isNtp(s.arm)) && series.some((s) => !isNtp(s.arm));
  const x =
    mode === 'epoch' && native === 'epoch'
      ? { label: 'epoch', min: 0.5, max: Math.max(epochs, lastX, 1) + 0.5, integer: true }
      : { label: X_LABEL[mode], integer: mode === 'step' };
  return {
    id,
    title,
    x,
    y: { label: splitLoss ? `${y} (JEPA arms)` : y, min: yMin },
    ...(splitLoss ? { y2: { label: `${y}: cross-entropy (NTP arms)` } } : {}),
    series: series.map((s) => ({
      label: armLabel(s.arm, s.seed, seeds),
      key: seriesKey(s.arm, s.seed),
      ...seriesLook({ arm: s.arm, seedIndex: seedIndex(s.seed) }),
      yAxis: splitLoss && isNtp(s.arm) ? ('right' as const) : ('left' as const),
      points: s.points.map(({ x, y }) => ({ x, y })),
    })),
    refLines,
  };
}

const lastValue = (records: readonly MetricRecord[], scope: string, key: string): number | null => {
  for (let i = records.length - 1; i >= 0; i--)
    if (records[i].scope === scope && typeof records[i].values[key] === 'number')
      return records[i].values[key] as number;
  return null;
};

// The curves of an experiment (see shared/experiment.ts for what each scope carries), as the report draws them
// (view omitted) or as the user chose to see them.
export function experimentCurves(
  records: readonly MetricRecord[],
  prefix = 'experiment',
  epochs = 0,
  view: CurveView = {},
): FigureSpec[] {
  const chanceR1 = lastValue(records, 'eval', 'chanceR1');
  const chanceMknn = lastValue(records, 'eval', 'chanceMknn');
  // The epoch-1 floor: the lowest R@1 any arm had after one epoch, so later gains read against it.
  const first = bySeries(records, 'eval', 'r1')
    .map((s) => s.points.find((p) => p.x === 1)?.y)
    .filter((v): v is number => typeof v === 'number');
  const floor = first.length ? Math.min(...first) : null;
  const r1Lines: RefLine[] = [
    ...(chanceR1 !== null ? [{ axis: 'y' as const, value: chanceR1, label: `chance ${chanceR1.toFixed(3)}` }] : []),
    ...(floor !== null
      ? [{ axis: 'y' as const, value: floor, label: `epoch-1 floor ${floor.toFixed(3)}`, color: '#E69F00' }]
      : []),
  ];
  const images = bySeries(records, 'image', 'loss');
  // The 2x2's image arms (scope 'image', tagged 'image <arm>'): always per step, the only x they have.
  const imageArms: FigureSpec[] = images.length
    ? [
        {
          id: `${prefix}-image-loss`,
          title: '2x2 image arms: image-JEPA training loss (inv + λ·SIGReg)',
          x: { label: 'step', integer: true },
          y: { label: 'loss' },
          series: images.map((s) => ({
            label: s.arm,
            color: armColor(s.arm.replace(/^image /, '')),
            dash: 'dashed' as const,
            points: s.points.map(({ x, y }) => ({ x, y })),
          })),
          refLines: [],
        },
      ]
    : [];
  const at = { epochs, view };
  const figures = [
    ...imageArms,
    curve(
      records,
      {
        id: `${prefix}-r1`,
        title: 'Image→text R@1 on the test pairs, per epoch',
        scope: 'eval',
        key: 'r1',
        y: 'R@1',
        refLines: r1Lines,
        yMin: 0,
      },
      at,
    ),
    curve(
      records,
      {
        id: `${prefix}-mknn`,
        title: 'Mutual 10-NN on the test pairs, per epoch',
        scope: 'eval',
        key: 'mknn',
        y: 'mutual k-NN',
        refLines:
          chanceMknn !== null ? [{ axis: 'y', value: chanceMknn, label: `chance ${chanceMknn.toFixed(3)}` }] : [],
        yMin: 0,
      },
      at,
    ),
    curve(
      records,
      {
        id: `${prefix}-loss`,
        title: 'Training loss (JEPA: inv + λ·SIGReg; NTP: cross-entropy)',
        scope: 'train',
        key: 'loss',
        y: 'loss',
      },
      at,
    ),
    curve(
      records,
      { id: `${prefix}-inv`, title: 'Invariance term (JEPA arms)', scope: 'train', key: 'inv', y: 'inv' },
      at,
    ),
    curve(
      records,
      { id: `${prefix}-sigreg`, title: 'SIGReg term (JEPA arms)', scope: 'train', key: 'sigreg', y: 'SIGReg' },
      at,
    ),
    curve(
      records,
      {
        id: `${prefix}-lr`,
        title: 'Learning rate per step, as it ran (warmup, then cosine)',
        scope: 'train',
        key: 'lr',
        y: 'learning rate',
        yMin: 0,
      },
      at,
    ),
    curve(
      records,
      { id: `${prefix}-val-loss`, title: 'Validation loss per epoch', scope: 'epoch', key: 'valLoss', y: 'val loss' },
      at,
    ),
    // older experiments did not score it
    ...(lastValue(records, 'eval', 'foldR1') !== null
      ? [
          curve(
            records,
            {
              id: `${prefix}-fold-r1`,
              title: 'Image→text R@1 on the fit pairs, two folds, per epoch (what select val-pairs picks by)',
              scope: 'eval',
              key: 'foldR1',
              y: 'R@1',
              yMin: 0,
            },
            at,
          ),
        ]
      : []),
  ];
  return figures.map((f) => smoothed(f, view.smoothing ?? 0));
}

// --- tables ---------------------------------------------------------------------------------------------------

const est = (i: Interval | null): Estimate | null => (i ? { value: i.estimate, lo: i.lo, hi: i.hi } : null);

export function armsTable(
  rows: (ArmResult & { experiment?: string })[],
  id = 'arms',
  title = 'Arms on the test pairs (95% paired-bootstrap CIs)',
): TableSpec {
  const multi = rows.some((r) => r.experiment);
  const diverged = rows.some((r) => r.diverged);
  const lr = rows.some((r) => r.lr !== undefined);
  const short = rows.filter((r) => r.lr !== undefined && r.lrReached !== undefined && r.lrReached < r.lr * (1 - 1e-9));
  return {
    id,
    title,
    columns: [
      ...(multi ? [{ key: 'experiment', label: 'Experiment' }] : []),
      { key: 'arm', label: 'Arm' },
      { key: 'seed', label: 'Seed', format: 'int' as const },
      { key: 'epoch', label: 'Epoch', format: 'int' as const },
      ...(lr ? [{ key: 'lr', label: 'Peak lr reached', format: 'sci' as const }] : []),
      { key: 'r1', label: 'R@1', format: 'ci' as const },
      { key: 'r5', label: 'R@5', format: 'ci' as const },
      { key: 'r10', label: 'R@10', format: 'ci' as const },
      { key: 't2iR1', label: 'Text→image R@1', format: 'ci' as const },
      { key: 'mknn', label: 'Mutual k-NN', format: 'ci' as const },
      { key: 'fitR1', label: 'Fit R@1', format: 'fixed3' as const },
      { key: 'random', label: 'Random map', format: 'fixed3' as const },
      { key: 'shuffled', label: 'Shuffled pairs', format: 'fixed3' as const },
      ...(diverged ? [{ key: 'status', label: 'Status' }] : []),
    ],
    rows: rows.map((a) => ({
      ...(multi ? { experiment: a.experiment ?? '' } : {}),
      arm: a.arm,
      seed: a.seed,
      epoch: a.epoch,
      ...(lr ? { lr: a.lrReached ?? a.lr ?? null } : {}),
      r1: est(a.r1),
      r5: est(a.r5),
      r10: est(a.r10),
      t2iR1: est(a.t2iR1),
      mknn: est(a.mknn),
      fitR1: a.fitR1,
      random: a.controls.random,
      shuffled: a.controls.shuffled,
      ...(diverged
        ? { status: a.diverged ? `diverged: scored at epoch ${a.epoch}, its last good checkpoint` : 'done' }
        : {}),
    })),
    notes:
      `Epoch: the checkpoint scored (never test): ${[...new Set(rows.map((r) => r.select ?? 'last'))].map((p) => SELECTED_BY[p]).join('; ')}. ` +
      'Fit R@1: the fit pairs scored among themselves (the overfitting gap). Random map / shuffled pairs: controls that should sit at chance.' +
      (short.length
        ? ` Peak lr reached: the highest lr of the schedule as it ran; ${short.map((a) => `${a.arm} (seed ${a.seed}) was set to ${a.lr!.toExponential(2)} but its warmup did not end before its last step`).join('; ')}.`
        : '') +
      (diverged
        ? ' Status: an arm that diverged (NaN/Inf) is scored at its last good checkpoint, not where training was meant to end.'
        : ''),
  };
}

export const differencesTable = (r: ExperimentResult, id = 'differences'): TableSpec => ({
  id,
  title: 'Paired differences between arms (a − b, same resampled test items)',
  columns: [
    { key: 'metric', label: 'Metric' },
    { key: 'a', label: 'a' },
    { key: 'b', label: 'b' },
    { key: 'seed', label: 'Seed', format: 'int' },
    { key: 'diff', label: 'a − b', format: 'ci' },
    { key: 'verdict', label: 'Verdict' },
  ],
  rows: r.differences.map((d) => ({
    metric: d.metric === 'r1' ? 'R@1' : 'mutual k-NN',
    a: d.a,
    b: d.b,
    seed: d.seed,
    diff: { value: d.estimate, lo: d.lo, hi: d.hi },
    verdict: d.lo > 0 ? `${d.a} better` : d.hi < 0 ? `${d.b} better` : 'CI covers 0',
  })),
});

// The paired R@1 differences in one line each, as the Experiment page opens with them.
export const differenceVerdicts = (r: ExperimentResult): string[] =>
  r.differences
    .filter((d) => d.metric === 'r1')
    .map(
      (d) =>
        `${d.a} − ${d.b}: R@1 ${ci(d)}${new Set(r.differences.map((x) => x.seed)).size > 1 ? ` (seed ${d.seed})` : ''}: ` +
        (d.lo > 0 ? `${d.a} better` : d.hi < 0 ? `${d.b} better` : 'no difference told apart (the CI covers 0)'),
    );

export const spreadTable = (r: ExperimentResult, id = 'seed-spread'): TableSpec => ({
  id,
  title: 'Across seeds: R@1 spread (training noise)',
  columns: [
    { key: 'arm', label: 'Arm' },
    { key: 'seeds', label: 'Seeds', format: 'int' },
    { key: 'mean', label: 'Mean R@1', format: 'fixed3' },
    { key: 'sd', label: 'SD', format: 'fixed3' },
    { key: 'min', label: 'Min', format: 'fixed3' },
    { key: 'max', label: 'Max', format: 'fixed3' },
  ],
  rows: r.spread.map((s) => ({
    arm: s.arm,
    seeds: s.seeds,
    mean: s.meanR1,
    sd: s.seeds > 1 ? s.sdR1 : null,
    min: s.minR1,
    max: s.maxR1,
  })),
});

// The protocol every number of a result was measured under: one line for the CLI, a table for the report.
export function protocolLine(r: ExperimentResult): string {
  const img = `${r.image.dim}-d image side (${r.image.preset}${r.image.tensor ? `, tensor ${r.image.tensor}, pool ${r.image.pool}` : ''})`;
  return (
    `protocol: n fit ${r.pairs.fit}, n test ${r.pairs.test}; chance R@1 ${r.chance.r1.toFixed(4)}, mutual k-NN ${r.chance.mknn.toFixed(4)}; ` +
    `free parameters of the map ${r.pairs.freeParameters.toLocaleString('en')}; ${img}; ${r.seconds.toFixed(0)} s`
  );
}
export const protocolTable = (r: ExperimentResult, id = 'protocol'): TableSpec => ({
  id,
  title: 'Protocol',
  columns: [
    { key: 'what', label: 'What' },
    { key: 'value', label: 'Value' },
  ],
  rows: [
    { what: 'fit pairs (val photos the map is fitted on)', value: String(r.pairs.fit) },
    { what: 'test pairs (photos it is scored on)', value: String(r.pairs.test) },
    { what: 'chance R@1 / mutual k-NN', value: `${r.chance.r1.toFixed(4)} / ${r.chance.mknn.toFixed(4)}` },
    { what: 'free parameters of the orthogonal map', value: r.pairs.freeParameters.toLocaleString('en') },
    {
      what: 'image side',
      value: `${r.image.model} (${r.image.preset}${r.image.tensor ? `, tensor ${r.image.tensor}, pool ${r.image.pool}` : ''}), ${r.image.dim}-d`,
    },
    { what: 'seconds', value: r.seconds.toFixed(0) },
  ],
});

// Bars with CIs: one bar group per arm, one bar series per experiment (or per seed within one experiment), in the
// experiment's colour when given (Compare colours bars by run, like its curves). One experiment's seeds are labelled
// by seed alone: its name is the page's title.
export function armBars(
  groups: { label: string; arms: ArmResult[]; color?: string }[],
  metric: 'r1' | 'mknn',
  id: string,
  chance?: number,
): FigureSpec {
  const arms = [...new Set(groups.flatMap((g) => g.arms.map((a) => a.arm)))].sort((a, b) => armRank(a) - armRank(b));
  // Bars of one group's seeds side by side, each a lighter shade of the group's colour.
  const series = groups.flatMap((g, gi) => {
    const seeds = [...new Set(g.arms.map((a) => a.seed))];
    const base = g.color ?? PALETTE[gi % PALETTE.length];
    return seeds.map((seed, si) => ({
      label: seeds.length < 2 ? g.label : groups.length > 1 ? `${g.label} (seed ${seed})` : `seed ${seed}`,
      style: 'bars' as const,
      color: shade(base, si),
      points: g.arms
        .filter((a) => a.seed === seed && a[metric])
        .map((a) => ({ x: arms.indexOf(a.arm), y: a[metric]!.estimate, lo: a[metric]!.lo, hi: a[metric]!.hi })),
    }));
  });
  return {
    id,
    title: `${metric === 'r1' ? 'Image→text R@1' : 'Mutual k-NN'} per arm (95% CIs)`,
    x: { label: 'arm', min: -0.6, max: arms.length - 0.4, categories: arms },
    y: { label: metric === 'r1' ? 'R@1' : 'mutual k-NN', min: 0 },
    series,
    refLines: chance !== undefined ? [{ axis: 'y', value: chance, label: `chance ${chance.toFixed(3)}` }] : [],
  };
}

// R@1 against the number of fit pairs: test pairs (solid, ±1 SD over the random subsets) on the left axis, the fit
// pairs scored among themselves (dashed) on the right: fit R@1 runs to ~1 while test R@1 stays near chance, and
// one linear axis would flatten the test curves.
export function sweepFigure(r: ExperimentResult, id = 'sweep-r1-vs-pairs'): FigureSpec {
  const keys = [...new Set(r.sweep.map((s) => `${s.arm}\u0000${s.seed}`))];
  const seedList = [...new Set(r.sweep.map((s) => s.seed))].sort((a, b) => a - b);
  const seeds = seedList.length;
  return {
    id,
    title: 'R@1 against the number of fit pairs',
    x: { label: 'fit pairs n (log)', log: true },
    y: { label: 'test R@1 (solid, ±1 SD over repeats)', min: 0 },
    y2: { label: 'fit-pair R@1 (dashed)', min: 0, max: 1 },
    series: keys.flatMap((k) => {
      const [arm, seed] = k.split('\u0000');
      const rows = r.sweep.filter((s) => s.arm === arm && String(s.seed) === seed).sort((a, b) => a.n - b.n);
      const name = seeds > 1 ? `${arm} s${seed}` : arm;
      // Line style says test or fit pairs here, so a seed is its marker.
      const marker = seeds > 1 ? { marker: MARKERS[seedList.indexOf(Number(seed)) % MARKERS.length] } : {};
      return [
        {
          label: `${name}: test (solid, left)`,
          key: seriesKey(arm, Number(seed)),
          color: armColor(arm),
          ...marker,
          points: rows.map((s) => ({ x: s.n, y: s.testR1, lo: s.testR1 - s.sdTestR1, hi: s.testR1 + s.sdTestR1 })),
        },
        {
          label: `${name}: fit pairs (dashed, right)`,
          key: seriesKey(arm, Number(seed)),
          color: armColor(arm),
          ...marker,
          dash: 'dashed' as const,
          yAxis: 'right' as const,
          points: rows.map((s) => ({ x: s.n, y: s.fitR1 })),
        },
      ];
    }),
    refLines: [{ axis: 'y', value: r.chance.r1, label: `chance ${r.chance.r1.toFixed(3)}` }],
  };
}

// Rank bins [edges[i] + 1, edges[i + 1]] of the true caption; a one-rank bin is labelled by its rank alone.
export const rankBinLabels = (edges: number[]): string[] =>
  edges.map((e, i) =>
    i + 1 >= edges.length ? `>${e}` : edges[i + 1] === e + 1 ? String(e + 1) : `${e + 1}–${edges[i + 1]}`,
  );

export function rankFigure(r: ExperimentResult, id = 'rank-histogram'): FigureSpec {
  const h = r.rankHistograms;
  const edges = h[0]?.edges ?? [];
  const seedList = [...new Set(h.map((x) => x.seed))].sort((a, b) => a - b);
  const seeds = seedList.length;
  return {
    id,
    title: 'Rank of the true caption among the test captions (image→text)',
    x: { label: 'rank of the true caption', min: -0.6, max: edges.length - 0.4, categories: rankBinLabels(edges) },
    y: { label: 'test queries', min: 0 },
    series: h.map((x) => ({
      label: seeds > 1 ? `${x.arm} s${x.seed}` : x.arm,
      key: seriesKey(x.arm, x.seed),
      style: 'bars' as const,
      color: shade(armColor(x.arm), seedList.indexOf(x.seed)), // an arm's seeds: lighter shades of its colour
      points: x.counts.map((c, i) => ({ x: i, y: c })),
    })),
    refLines: [],
  };
}

export const sweepTable = (r: ExperimentResult, id = 'sweep'): TableSpec => ({
  id,
  title: 'Pair-count sweep',
  columns: [
    { key: 'arm', label: 'Arm' },
    { key: 'seed', label: 'Seed', format: 'int' },
    { key: 'n', label: 'Fit pairs', format: 'int' },
    { key: 'test', label: 'Test R@1', format: 'fixed3' },
    { key: 'sd', label: 'SD', format: 'fixed3' },
    { key: 'fit', label: 'Fit R@1', format: 'fixed3' },
  ],
  rows: r.sweep.map((s) => ({ arm: s.arm, seed: s.seed, n: s.n, test: s.testR1, sd: s.sdTestR1, fit: s.fitR1 })),
});

export const ceilingTable = (r: ExperimentResult, id = 'image-ceiling'): TableSpec => ({
  id,
  title: 'Image-side ceiling: the image encoder against an oracle text side that knows every scene',
  columns: [
    { key: 'what', label: 'Text side' },
    { key: 'r1', label: 'R@1', format: 'fixed3' },
    { key: 'mknn', label: 'Mutual k-NN', format: 'fixed3' },
  ],
  rows: [
    { what: "oracle text (bag of the scene's concepts)", r1: r.ceiling?.r1 ?? null, mknn: r.ceiling?.mknn ?? null },
    ...r.arms.map((a) => ({ what: `${a.arm} (seed ${a.seed})`, r1: a.r1.estimate, mknn: a.mknn?.estimate ?? null })),
  ],
  notes:
    'No text encoder can be expected above the oracle row: when it is low, the frozen image side limits R@1, not the arms.',
});

// --- the 2x2 (image views x text views) ----------------------------------------------------------------------

const VARIES: Record<GridDifference['varies'], string> = {
  text: 'text views',
  image: 'image views',
  both: 'both',
  crossed: 'crossed',
};
const cellName = (c: { image: string; text: string }) => `image ${c.image} · text ${c.text}`;

export function gridTable(r: ExperimentResult, id = 'grid'): TableSpec {
  const cells = r.grid?.cells ?? [];
  return {
    id,
    title: '2x2: image views x text views on the test pairs (95% paired-bootstrap CIs)',
    columns: [
      { key: 'image', label: 'Image views' },
      { key: 'text', label: 'Text views' },
      { key: 'seed', label: 'Seed', format: 'int' },
      { key: 'r1', label: 'R@1', format: 'ci' },
      { key: 'r5', label: 'R@5', format: 'ci' },
      { key: 'mknn', label: 'Mutual k-NN', format: 'ci' },
    ],
    rows: cells.map((c) => ({
      image: c.image,
      text: c.text,
      seed: c.seed,
      r1: est(c.r1),
      r5: est(c.r5),
      mknn: est(c.mknn),
    })),
    notes:
      'Image arms: a ViT trained from scratch as an image JEPA on the training scenes (no captions), views = other renders of the same scene (good) or crops and colour changes of one render (bad); same ViT, steps and seed. Text arms: the JEPA text arms. Every cell: the same fit and test pairs and the same Procrustes evaluation.',
  };
}

// Which paired differences a reader of the 2x2 wants first: one side's views changed, the other side fixed.
export function gridDifferencesTable(r: ExperimentResult, id = 'grid-differences'): TableSpec {
  const diffs = r.grid?.differences ?? [];
  return {
    id,
    title: '2x2: paired differences between cells (a − b, same resampled test queries)',
    columns: [
      { key: 'metric', label: 'Metric' },
      { key: 'varies', label: 'Changed' },
      { key: 'a', label: 'a' },
      { key: 'b', label: 'b' },
      { key: 'seed', label: 'Seed', format: 'int' },
      { key: 'diff', label: 'a − b', format: 'ci' },
      { key: 'verdict', label: 'Verdict' },
    ],
    rows: diffs.map((d) => ({
      metric: d.metric === 'r1' ? 'R@1' : d.metric === 'r5' ? 'R@5' : 'mutual k-NN',
      varies: VARIES[d.varies],
      a: cellName(d.a),
      b: cellName(d.b),
      seed: d.seed,
      diff: { value: d.estimate, lo: d.lo, hi: d.hi },
      verdict: d.lo > 0 ? 'a better' : d.hi < 0 ? 'b better' : 'CI covers 0',
    })),
    notes: gridVerdict(r).join(' '),
  };
}

const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(3)}`;
const ci = (d: { estimate: number; lo: number; hi: number }) =>
  `${signed(d.estimate)} [${d.lo.toFixed(3)}, ${d.hi.toFixed(3)}]`;

const METRIC_LABEL: Record<GridDifference['metric'], string> = { r1: 'R@1', r5: 'R@5', mknn: 'mutual k-NN' };

/** The paper's reading of its MSR-VTT 2x2 on this result, one line per seed and metric (R@1, R@5, mutual k-NN):
 *  from the bad/bad cell, the gain of good text views alone, of good image views alone and of both, and whether the
 *  two single gains are told apart (their difference is the crossed pair, image good·text bad − image bad·text good,
 *  with its own paired CI); then the paper's numbers (R@1 +.059 text alone, +.043 image alone). Empty without a full
 *  2x2. */
export function gridVerdict(r: ExperimentResult): string[] {
  const diffs = r.grid?.differences ?? [];
  const find = (seed: number, metric: string, a: [string, string], b: [string, string]) =>
    diffs.find(
      (d) =>
        d.seed === seed &&
        d.metric === metric &&
        d.a.image === a[0] &&
        d.a.text === a[1] &&
        d.b.image === b[0] &&
        d.b.text === b[1],
    );
  const keys = [...new Set(diffs.map((d) => `${d.seed}|${d.metric}`))];
  const lines = keys.flatMap((key) => {
    const [seedText, metric] = key.split('|');
    const seed = Number(seedText);
    const text = find(seed, metric, ['bad', 'good'], ['bad', 'bad']),
      image = find(seed, metric, ['good', 'bad'], ['bad', 'bad']);
    const both = find(seed, metric, ['good', 'good'], ['bad', 'bad']),
      crossed = find(seed, metric, ['good', 'bad'], ['bad', 'good']);
    if (!text || !image || !both || !crossed) return [];
    const which =
      crossed.hi < 0
        ? 'the text side gains more'
        : crossed.lo > 0
          ? 'the image side gains more'
          : 'the two gains are not told apart';
    return [
      `Seed ${seed}, ${METRIC_LABEL[metric as GridDifference['metric']]} from image bad · text bad: good text views alone ${ci(text)}, good image views alone ${ci(image)}, ` +
        `both ${ci(both)}; image alone − text alone ${ci(crossed)}: ${which}.`,
    ];
  });
  return lines.length
    ? [
        ...lines,
        'The paper (MSR-VTT, R@1) found +0.059 with good text views alone and +0.043 with good image views alone: most of the gain on the text side.',
      ]
    : [];
}

// Grouped bars: one group per image arm, one bar per text arm (and seed), with CIs.
export function gridBars(r: ExperimentResult, metric: 'r1' | 'mknn', id = `grid-bars-${metric}`): FigureSpec {
  const cells = r.grid?.cells ?? [];
  const images = [...new Set(cells.map((c) => c.image))];
  const seeds = [...new Set(cells.map((c) => c.seed))];
  const texts = [...new Set(cells.map((c) => c.text))];
  return {
    id,
    title: `2x2: ${metric === 'r1' ? 'image→text R@1' : 'mutual k-NN'} by image views (groups) and text views (bars), 95% CIs`,
    x: { label: 'image views', min: -0.6, max: images.length - 0.4, categories: images.map((i) => `image ${i}`) },
    y: { label: metric === 'r1' ? 'R@1' : 'mutual k-NN', min: 0 },
    series: texts.flatMap((text) =>
      seeds.map((seed, i) => ({
        label: seeds.length > 1 ? `text ${text} (seed ${seed})` : `text ${text}`,
        style: 'bars' as const,
        color: armColor(text),
        ...(i > 0 ? { dash: 'dashed' as const } : {}),
        points: cells
          .filter((c) => c.text === text && c.seed === seed && c[metric])
          .map((c) => ({ x: images.indexOf(c.image), y: c[metric]!.estimate, lo: c[metric]!.lo, hi: c[metric]!.hi })),
      })),
    ),
    refLines: [{ axis: 'y', value: metric === 'r1' ? r.chance.r1 : r.chance.mknn, label: 'chance' }],
  };
}

export const imageArmsTable = (r: ExperimentResult, id = 'image-arms'): TableSpec => ({
  id,
  title: '2x2: the image arms (image JEPAs trained inside the experiment)',
  columns: [
    { key: 'arm', label: 'Image views' },
    { key: 'renders', label: 'Renders per scene', format: 'int' },
    { key: 'steps', label: 'Steps', format: 'int' },
    { key: 'batch', label: 'Scenes per step', format: 'int' },
    { key: 'views', label: 'Views', format: 'int' },
    { key: 'dim', label: 'Width', format: 'int' },
    { key: 'first', label: 'First loss', format: 'fixed3' },
    { key: 'last', label: 'Last loss', format: 'fixed3' },
    { key: 'seconds', label: 'Seconds', format: 'fixed1' },
    { key: 'ceiling', label: 'Ceiling R@1', format: 'fixed3' },
    { key: 'backend', label: 'Backend' },
    { key: 'sha', label: 'ONNX sha256' },
  ],
  rows: (r.grid?.imageArms ?? []).map((a) => ({
    arm: a.arm,
    renders: a.renders,
    steps: a.steps,
    batch: a.batch,
    views: a.views,
    dim: a.dim,
    first: a.loss.first,
    last: a.loss.last,
    seconds: a.seconds,
    ceiling: r.grid?.ceilings?.find((c) => c.image === a.arm)?.r1 ?? null,
    backend: a.backend,
    sha: a.sha256.slice(0, 12),
  })),
  notes:
    'Good: the views of a scene are renders drawn from its pool (same state, other positions within cells, sizes, rotations, lighting, noise, drawing order) plus light pixel noise. Bad: crops and brightness/contrast changes of render 0 (the dataset image). Ceiling: R@1 of the image arm against an oracle text side that knows every scene, the most any text arm could reach through it.',
});

// A table with the result's warnings appended to its notes, so an exported table carries them too.
const withWarnings = (t: TableSpec, warnings: string[]): TableSpec =>
  warnings.length ? { ...t, notes: `${t.notes ?? ''} Warnings: ${warnings.join('; ')}.`.trim() } : t;

// Everything the report of a finished experiment holds.
export function experimentReport(
  r: ExperimentResult,
  records: readonly MetricRecord[],
): { figures: FigureSpec[]; tables: TableSpec[] } {
  const grid = r.grid
    ? {
        figures: [gridBars(r, 'r1'), gridBars(r, 'mknn')],
        tables: [gridTable(r), gridDifferencesTable(r), imageArmsTable(r)],
      }
    : { figures: [], tables: [] };
  return {
    figures: [
      ...grid.figures,
      ...experimentCurves(records),
      armBars([{ label: 'this experiment', arms: r.arms }], 'r1', 'bars-r1', r.chance.r1),
      armBars([{ label: 'this experiment', arms: r.arms }], 'mknn', 'bars-mknn', r.chance.mknn),
      sweepFigure(r),
      rankFigure(r),
      ...(r.time ? [coresBusyFigure(r.time)] : []),
    ],
    tables: [
      protocolTable(r),
      ...grid.tables,
      withWarnings(armsTable(r.arms), r.warnings ?? []),
      differencesTable(r),
      spreadTable(r),
      sweepTable(r),
      ...(r.ceiling ? [ceilingTable(r)] : []),
      ...(r.time ? [timeTable(r.time), armTimeTable(r.time)] : []),
    ],
  };
}
