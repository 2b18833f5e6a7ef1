// The experiment's figures and tables as specs, pure functions of its run data: the GUI draws them live and
// engine/experiment writes the same ones into the run's report/ (PNG/SVG/PDF, CSV/Markdown/LaTeX).
import type { ArmResult, ExperimentResult, Interval } from './experiment';
import type { FigureSpec, RefLine } from './figures';
import type { MetricRecord } from './runs';
import type { Estimate, TableSpec } from './tables';

// One colour per arm everywhere (Okabe-Ito): good blue, bad vermillion, ntp green, pair-ntp purple.
export const ARM_COLOR: Record<string, string> = { good: '#0072B2', bad: '#D55E00', ntp: '#009E73', 'pair-ntp': '#CC79A7' };
export const armColor = (arm: string) => ARM_COLOR[arm] ?? '#E69F00';
const armLabel = (arm: string, seed: number, seeds: number) => (seeds > 1 ? `${arm} (seed ${seed})` : arm);

// Records of one scope grouped by (arm, seed) tags, each series sorted by x; later records of the same x win
// (a resumed arm repeats its epoch).
export function bySeries(records: readonly MetricRecord[], scope: string, key: string): { arm: string; seed: number; points: { x: number; y: number | null }[] }[] {
  const groups = new Map<string, { arm: string; seed: number; at: Map<number, number | null> }>();
  for (const r of records) {
    if (r.scope !== scope || !(key in r.values)) continue;
    const arm = String(r.tags?.arm ?? 'run'), seed = Number(r.tags?.seed ?? 0);
    const g = groups.get(`${arm}\u0000${seed}`) ?? { arm, seed, at: new Map() };
    g.at.set(r.x, r.values[key]);
    groups.set(`${arm}\u0000${seed}`, g);
  }
  const order = Object.keys(ARM_COLOR);
  return [...groups.values()]
    .sort((a, b) => (order.indexOf(a.arm) - order.indexOf(b.arm)) || a.arm.localeCompare(b.arm) || a.seed - b.seed)
    .map((g) => ({ arm: g.arm, seed: g.seed, points: [...g.at].sort((a, b) => a[0] - b[0]).map(([x, y]) => ({ x, y })) }));
}

// Per-epoch axes run over whole epochs 1..max(2, epochs) so one epoch is not drawn as a 1.00-1.05 sliver.
function curve(id: string, title: string, records: readonly MetricRecord[], scope: string, key: string, x: string, y: string, refLines: RefLine[] = [], yMin?: number, epochs = 0): FigureSpec {
  const series = bySeries(records, scope, key);
  const seeds = new Set(series.map((s) => s.seed)).size;
  const perEpoch = scope !== 'train';
  const lastX = Math.max(0, ...series.flatMap((s) => s.points.map((p) => p.x)));
  return {
    id, title, x: perEpoch ? { label: x, min: 1, max: Math.max(2, epochs, lastX), integer: true } : { label: x, integer: true }, y: { label: y, min: yMin },
    series: series.map((s, i) => ({ label: armLabel(s.arm, s.seed, seeds), color: armColor(s.arm), dashed: i > 0 && series[i - 1].arm === s.arm, points: s.points })),
    refLines,
  };
}

const lastValue = (records: readonly MetricRecord[], scope: string, key: string): number | null => {
  for (let i = records.length - 1; i >= 0; i--) if (records[i].scope === scope && typeof records[i].values[key] === 'number') return records[i].values[key] as number;
  return null;
};

// The live curves of an experiment (see shared/experiment.ts for what each scope carries).
export function experimentCurves(records: readonly MetricRecord[], prefix = 'experiment', epochs = 0): FigureSpec[] {
  const chanceR1 = lastValue(records, 'eval', 'chanceR1');
  const chanceMknn = lastValue(records, 'eval', 'chanceMknn');
  // The epoch-1 floor: the lowest R@1 any arm had after one epoch, so later gains read against it.
  const first = bySeries(records, 'eval', 'r1').map((s) => s.points.find((p) => p.x === 1)?.y).filter((v): v is number => typeof v === 'number');
  const floor = first.length ? Math.min(...first) : null;
  const r1Lines: RefLine[] = [
    ...(chanceR1 !== null ? [{ axis: 'y' as const, value: chanceR1, label: `chance ${chanceR1.toFixed(3)}` }] : []),
    ...(floor !== null ? [{ axis: 'y' as const, value: floor, label: `epoch-1 floor ${floor.toFixed(3)}`, color: '#E69F00' }] : []),
  ];
  return [
    curve(`${prefix}-r1`, 'Image→text R@1 on the test pairs, per epoch', records, 'eval', 'r1', 'epoch', 'R@1', r1Lines, 0, epochs),
    curve(`${prefix}-mknn`, 'Mutual 10-NN on the test pairs, per epoch', records, 'eval', 'mknn', 'epoch', 'mutual k-NN', chanceMknn !== null ? [{ axis: 'y', value: chanceMknn, label: `chance ${chanceMknn.toFixed(3)}` }] : [], 0, epochs),
    curve(`${prefix}-loss`, 'Training loss (JEPA: inv + λ·SIGReg; NTP: cross-entropy)', records, 'train', 'loss', 'step', 'loss'),
    curve(`${prefix}-inv`, 'Invariance term (JEPA arms)', records, 'train', 'inv', 'step', 'inv'),
    curve(`${prefix}-sigreg`, 'SIGReg term (JEPA arms)', records, 'train', 'sigreg', 'step', 'SIGReg'),
    curve(`${prefix}-val-loss`, 'Validation loss per epoch', records, 'epoch', 'valLoss', 'epoch', 'val loss', [], undefined, epochs),
  ];
}

// --- tables ---------------------------------------------------------------------------------------------------

const est = (i: Interval | null): Estimate | null => (i ? { value: i.estimate, lo: i.lo, hi: i.hi } : null);

export function armsTable(rows: (ArmResult & { experiment?: string })[], id = 'arms', title = 'Arms on the test pairs (95% paired-bootstrap CIs)'): TableSpec {
  const multi = rows.some((r) => r.experiment);
  return {
    id, title,
    columns: [
      ...(multi ? [{ key: 'experiment', label: 'Experiment' }] : []),
      { key: 'arm', label: 'Arm' }, { key: 'seed', label: 'Seed', format: 'int' as const }, { key: 'epoch', label: 'Epoch', format: 'int' as const },
      { key: 'r1', label: 'R@1', format: 'ci' as const }, { key: 'r5', label: 'R@5', format: 'ci' as const }, { key: 'r10', label: 'R@10', format: 'ci' as const },
      { key: 't2iR1', label: 'Text→image R@1', format: 'ci' as const }, { key: 'mknn', label: 'Mutual k-NN', format: 'ci' as const },
      { key: 'fitR1', label: 'Fit R@1', format: 'fixed3' as const }, { key: 'random', label: 'Random map', format: 'fixed3' as const }, { key: 'shuffled', label: 'Shuffled pairs', format: 'fixed3' as const },
    ],
    rows: rows.map((a) => ({
      ...(multi ? { experiment: a.experiment ?? '' } : {}),
      arm: a.arm, seed: a.seed, epoch: a.epoch, r1: est(a.r1), r5: est(a.r5), r10: est(a.r10), t2iR1: est(a.t2iR1), mknn: est(a.mknn),
      fitR1: a.fitR1, random: a.controls.random, shuffled: a.controls.shuffled,
    })),
    notes: 'Fit R@1: the fit pairs scored among themselves (the overfitting gap). Random map / shuffled pairs: controls that should sit at chance.',
  };
}

export const differencesTable = (r: ExperimentResult, id = 'differences'): TableSpec => ({
  id, title: 'Paired differences between arms (a − b, same resampled test items)',
  columns: [{ key: 'metric', label: 'Metric' }, { key: 'a', label: 'a' }, { key: 'b', label: 'b' }, { key: 'seed', label: 'Seed', format: 'int' }, { key: 'diff', label: 'a − b', format: 'ci' }, { key: 'verdict', label: '' }],
  rows: r.differences.map((d) => ({
    metric: d.metric === 'r1' ? 'R@1' : 'mutual k-NN', a: d.a, b: d.b, seed: d.seed, diff: { value: d.estimate, lo: d.lo, hi: d.hi },
    verdict: d.lo > 0 ? `${d.a} better` : d.hi < 0 ? `${d.b} better` : 'CI covers 0',
  })),
});

export const spreadTable = (r: ExperimentResult, id = 'seed-spread'): TableSpec => ({
  id, title: 'Across seeds: R@1 spread (training noise)',
  columns: [{ key: 'arm', label: 'Arm' }, { key: 'seeds', label: 'Seeds', format: 'int' }, { key: 'mean', label: 'Mean R@1', format: 'fixed3' }, { key: 'sd', label: 'SD', format: 'fixed3' }, { key: 'min', label: 'Min', format: 'fixed3' }, { key: 'max', label: 'Max', format: 'fixed3' }],
  rows: r.spread.map((s) => ({ arm: s.arm, seeds: s.seeds, mean: s.meanR1, sd: s.seeds > 1 ? s.sdR1 : null, min: s.minR1, max: s.maxR1 })),
});

// Bars with CIs: one bar group per arm, one bar series per experiment (or per seed within one experiment).
export function armBars(groups: { label: string; arms: ArmResult[] }[], metric: 'r1' | 'mknn', id: string, chance?: number): FigureSpec {
  const order = Object.keys(ARM_COLOR);
  const arms = [...new Set(groups.flatMap((g) => g.arms.map((a) => a.arm)))].sort((a, b) => (order.indexOf(a) + 99 * +!order.includes(a)) - (order.indexOf(b) + 99 * +!order.includes(b)));
  const series = groups.flatMap((g) => {
    const seeds = [...new Set(g.arms.map((a) => a.seed))];
    return seeds.map((seed) => ({
      label: seeds.length > 1 ? `${g.label} (seed ${seed})` : g.label,
      style: 'bars' as const,
      points: g.arms.filter((a) => a.seed === seed && a[metric]).map((a) => ({ x: arms.indexOf(a.arm), y: a[metric]!.estimate, lo: a[metric]!.lo, hi: a[metric]!.hi })),
    }));
  });
  return {
    id, title: `${metric === 'r1' ? 'Image→text R@1' : 'Mutual k-NN'} per arm (95% CIs)`,
    x: { label: 'arm', min: -0.6, max: arms.length - 0.4, categories: arms }, y: { label: metric === 'r1' ? 'R@1' : 'mutual k-NN', min: 0 },
    series,
    refLines: chance !== undefined ? [{ axis: 'y', value: chance, label: `chance ${chance.toFixed(3)}` }] : [],
  };
}

// R@1 against the number of fit pairs: test (solid, ±1 SD over the random subsets) and the fit pairs themselves (dashed).
export function sweepFigure(r: ExperimentResult, id = 'sweep-r1-vs-pairs'): FigureSpec {
  const keys = [...new Set(r.sweep.map((s) => `${s.arm}\u0000${s.seed}`))];
  const seeds = new Set(r.sweep.map((s) => s.seed)).size;
  return {
    id,
    title: 'R@1 against the number of fit pairs (test: solid with ±1 SD over repeats; fit pairs: dashed)',
    x: { label: 'fit pairs n (log)', log: true },
    y: { label: 'R@1', min: 0 },
    series: keys.flatMap((k) => {
      const [arm, seed] = k.split('\u0000');
      const rows = r.sweep.filter((s) => s.arm === arm && String(s.seed) === seed).sort((a, b) => a.n - b.n);
      const name = seeds > 1 ? `${arm} s${seed}` : arm;
      return [
        { label: `${name} test`, color: armColor(arm), points: rows.map((s) => ({ x: s.n, y: s.testR1, lo: s.testR1 - s.sdTestR1, hi: s.testR1 + s.sdTestR1 })) },
        { label: `${name} fit`, color: armColor(arm), dashed: true, points: rows.map((s) => ({ x: s.n, y: s.fitR1 })) },
      ];
    }),
    refLines: [{ axis: 'y', value: r.chance.r1, label: `chance ${r.chance.r1.toFixed(3)}` }],
  };
}

export function rankFigure(r: ExperimentResult, id = 'rank-histogram'): FigureSpec {
  const h = r.rankHistograms;
  const edges = h[0]?.edges ?? [];
  const seeds = new Set(h.map((x) => x.seed)).size;
  return {
    id,
    title: 'Rank of the true caption among the test captions (image→text)',
    x: { label: 'rank bin', min: -0.6, max: edges.length - 0.4, categories: edges.map((e, i) => (i + 1 < edges.length ? `${e + 1}–${edges[i + 1]}` : `>${e}`)) },
    y: { label: 'test queries', min: 0 },
    series: h.map((x) => ({ label: seeds > 1 ? `${x.arm} s${x.seed}` : x.arm, style: 'bars' as const, color: armColor(x.arm), points: x.counts.map((c, i) => ({ x: i, y: c })) })),
    refLines: [],
  };
}

export const sweepTable = (r: ExperimentResult, id = 'sweep'): TableSpec => ({
  id,
  title: 'Pair-count sweep',
  columns: [{ key: 'arm', label: 'Arm' }, { key: 'seed', label: 'Seed', format: 'int' }, { key: 'n', label: 'Fit pairs', format: 'int' }, { key: 'test', label: 'Test R@1', format: 'fixed3' }, { key: 'sd', label: 'SD', format: 'fixed3' }, { key: 'fit', label: 'Fit R@1', format: 'fixed3' }],
  rows: r.sweep.map((s) => ({ arm: s.arm, seed: s.seed, n: s.n, test: s.testR1, sd: s.sdTestR1, fit: s.fitR1 })),
});

export const ceilingTable = (r: ExperimentResult, id = 'image-ceiling'): TableSpec => ({
  id,
  title: 'Image-side ceiling: the image encoder against an oracle text side that knows every scene',
  columns: [{ key: 'what', label: '' }, { key: 'r1', label: 'R@1', format: 'fixed3' }, { key: 'mknn', label: 'Mutual k-NN', format: 'fixed3' }],
  rows: [
    { what: 'oracle text (bag of the scene\'s concepts)', r1: r.ceiling?.r1 ?? null, mknn: r.ceiling?.mknn ?? null },
    ...r.arms.map((a) => ({ what: `${a.arm} (seed ${a.seed})`, r1: a.r1.estimate, mknn: a.mknn?.estimate ?? null })),
  ],
  notes: 'No text encoder can be expected above the oracle row: when it is low, the frozen image side limits R@1, not the arms.',
});

// Everything the report of a finished experiment holds.
export function experimentReport(r: ExperimentResult, records: readonly MetricRecord[]): { figures: FigureSpec[]; tables: TableSpec[] } {
  return {
    figures: [...experimentCurves(records), armBars([{ label: 'this experiment', arms: r.arms }], 'r1', 'bars-r1', r.chance.r1), armBars([{ label: 'this experiment', arms: r.arms }], 'mknn', 'bars-mknn', r.chance.mknn), sweepFigure(r), rankFigure(r)],
    tables: [armsTable(r.arms), differencesTable(r), spreadTable(r), sweepTable(r), ...(r.ceiling ? [ceilingTable(r)] : [])],
  };
}
