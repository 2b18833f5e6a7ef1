// The experiment's figures and tables as specs: the GUI draws them live, the report writes them for papers.
import type { ExperimentResult } from './experiment';
import type { FigureSpec, Series } from './figures';
import type { MetricRecord } from './runs';
import type { TableSpec } from './tables';

const ARM_COLOURS: Record<string, string> = { good: '#0072B2', bad: '#D55E00', ntp: '#009E73', 'pair-ntp': '#CC79A7' };
const armColour = (arm: string) => ARM_COLOURS[arm] ?? '#000000';
const label = (arm: string, seed: number, seeds: number) => (seeds > 1 ? `${arm} (seed ${seed})` : arm);

type Curve = { arm: string; seed: number; points: { x: number; y: number | null }[] };

// One curve per (arm, seed) of a metric value in a scope, sorted by x.
export function curves(records: MetricRecord[], scope: string, value: string): Curve[] {
  const byKey = new Map<string, Curve>();
  for (const r of records) {
    if (r.scope !== scope || !r.tags || !(value in r.values)) continue;
    const arm = String(r.tags.arm), seed = Number(r.tags.seed);
    const key = `${arm}|${seed}`;
    if (!byKey.has(key)) byKey.set(key, { arm, seed, points: [] });
    byKey.get(key)!.points.push({ x: r.x, y: r.values[value] });
  }
  return [...byKey.values()].map((c) => ({ ...c, points: c.points.sort((a, b) => a.x - b.x) }));
}

const seedCount = (cs: Curve[]) => new Set(cs.map((c) => c.seed)).size;
const toSeries = (cs: Curve[], style: Series['style'] = 'line'): Series[] =>
  cs.map((c) => ({ label: label(c.arm, c.seed, seedCount(cs)), points: c.points, color: armColour(c.arm), style, dashed: c.seed !== cs[0]?.seed, yAxis: 'left' }));

// R@1 (or mutual k-NN) per epoch, with chance and each arm's epoch-1 floor.
export function evalCurveFigure(records: MetricRecord[], metric: 'r1' | 'mknn', id = `curve-${metric}`): FigureSpec {
  const cs = curves(records, 'eval', metric);
  const chance = records.find((r) => r.scope === 'eval')?.values[metric === 'r1' ? 'chanceR1' : 'chanceMknn'] ?? null;
  const floor = cs.map((c) => c.points.find((p) => p.x === 1)?.y).filter((y): y is number => typeof y === 'number');
  return {
    id,
    title: metric === 'r1' ? 'Caption retrieval R@1 (image → text) per epoch' : 'Mutual 10-NN agreement per epoch',
    x: { label: 'epoch', min: 0 },
    y: { label: metric === 'r1' ? 'R@1 on the test pairs' : 'mutual k-NN', min: 0 },
    series: toSeries(cs),
    refLines: [
      ...(chance !== null ? [{ axis: 'y' as const, value: chance, label: `chance ${chance.toPrecision(2)}` }] : []),
      ...(floor.length ? [{ axis: 'y' as const, value: Math.max(...floor), label: 'epoch-1 floor' }] : []),
    ],
  };
}

export function lossFigure(records: MetricRecord[], value: 'loss' | 'inv' | 'sigreg', id = `train-${value}`): FigureSpec {
  return {
    id,
    title: { loss: 'Training loss', inv: 'Invariance term (JEPA arms)', sigreg: 'SIGReg statistic (JEPA arms)' }[value],
    x: { label: 'step' },
    y: { label: value, log: value === 'sigreg' },
    series: toSeries(curves(records, 'train', value)),
    refLines: value === 'sigreg' ? [{ axis: 'y', value: 1.052, label: 'Gaussian ≈ 1.05' }] : [],
  };
}

export function sweepFigure(result: ExperimentResult, id = 'pair-sweep'): FigureSpec {
  const series: Series[] = [];
  const keys = [...new Set(result.sweep.map((s) => `${s.arm}|${s.seed}`))];
  const seeds = new Set(result.sweep.map((s) => s.seed)).size;
  for (const key of keys) {
    const [arm, seed] = [key.split('|')[0], Number(key.split('|')[1])];
    const rows = result.sweep.filter((s) => s.arm === arm && s.seed === seed).sort((a, b) => a.n - b.n);
    series.push({ label: `${label(arm, seed, seeds)}: test`, points: rows.map((r) => ({ x: r.n, y: r.testR1 })), color: armColour(arm), style: 'line', dashed: false, yAxis: 'left' });
    series.push({ label: `${label(arm, seed, seeds)}: fit pairs`, points: rows.map((r) => ({ x: r.n, y: r.fitR1 })), color: armColour(arm), style: 'line', dashed: true, yAxis: 'left' });
  }
  return {
    id,
    title: 'R@1 against the number of pairs the map is fitted on (dashed: on the fit pairs themselves)',
    x: { label: 'fit pairs (log)', log: true },
    y: { label: 'R@1', min: 0, max: 1 },
    series,
    refLines: [{ axis: 'y', value: result.chance.r1, label: 'chance' }],
  };
}

export function rankFigure(result: ExperimentResult, id = 'rank-histogram'): FigureSpec {
  const seed = result.rankHistograms[0]?.seed ?? 0;
  return {
    id,
    title: `Rank of the true caption among the test captions (seed ${seed})`,
    x: { label: 'rank ≥ (log)', log: true, min: 1 },
    y: { label: 'test queries' },
    series: result.rankHistograms.filter((h) => h.seed === seed).map((h) => ({
      label: h.arm, color: armColour(h.arm), style: 'step', dashed: false, yAxis: 'left',
      points: h.edges.map((e, i) => ({ x: e + 1, y: h.counts[i] })), // bin [e, next): plotted at rank e+1 so rank 0 fits a log axis
    })),
    refLines: [],
  };
}

export const experimentFigures = (result: ExperimentResult, records: MetricRecord[]): FigureSpec[] => [
  evalCurveFigure(records, 'r1'),
  evalCurveFigure(records, 'mknn'),
  lossFigure(records, 'loss'),
  sweepFigure(result),
  rankFigure(result),
];

const ci = (i: { estimate: number; lo: number; hi: number } | null) => (i ? { value: i.estimate, lo: i.lo, hi: i.hi } : null);

export function experimentTables(result: ExperimentResult): TableSpec[] {
  return [
    {
      id: 'comparison',
      title: 'Test-pair scores per arm (95% paired-bootstrap CIs)',
      columns: [
        { key: 'arm', label: 'arm' }, { key: 'seed', label: 'seed', format: 'int' }, { key: 'epoch', label: 'epoch', format: 'int' },
        { key: 'r1', label: 'R@1', format: 'ci' }, { key: 'r5', label: 'R@5', format: 'ci' }, { key: 't2i', label: 'R@1 text→image', format: 'ci' },
        { key: 'mknn', label: 'mutual 10-NN', format: 'ci' }, { key: 'fit', label: 'R@1 fit pairs', format: 'fixed3' },
        { key: 'random', label: 'random map', format: 'fixed3' }, { key: 'shuffled', label: 'shuffled map', format: 'fixed3' },
      ],
      rows: result.arms.map((a) => ({ arm: a.arm, seed: a.seed, epoch: a.epoch, r1: ci(a.r1), r5: ci(a.r5), t2i: ci(a.t2iR1), mknn: ci(a.mknn), fit: a.fitR1, random: a.controls.random, shuffled: a.controls.shuffled })),
      notes: `chance R@1 ${result.chance.r1.toPrecision(2)}, mutual k-NN ${result.chance.mknn.toPrecision(2)}; map fitted on ${result.pairs.fit} pairs (${result.pairs.freeParameters} free parameters), scored on ${result.pairs.test}.`,
    },
    {
      id: 'differences',
      title: 'Differences between arms (same resampled test pairs for both arms)',
      columns: [{ key: 'pair', label: 'difference' }, { key: 'metric', label: 'metric' }, { key: 'seed', label: 'seed', format: 'int' }, { key: 'd', label: 'estimate [95% CI]', format: 'ci' }, { key: 'excludes0', label: 'CI excludes 0' }],
      rows: result.differences.map((d) => ({ pair: `${d.a} − ${d.b}`, metric: d.metric === 'r1' ? 'R@1' : 'mutual k-NN', seed: d.seed, d: { value: d.estimate, lo: d.lo, hi: d.hi }, excludes0: d.lo > 0 || d.hi < 0 ? 'yes' : 'no' })),
      notes: 'The bootstrap covers test-pair sampling only; compare the across-seed spread for training noise.',
    },
    {
      id: 'seed-spread',
      title: 'R@1 across seeds',
      columns: [{ key: 'arm', label: 'arm' }, { key: 'seeds', label: 'seeds', format: 'int' }, { key: 'mean', label: 'mean', format: 'fixed3' }, { key: 'sd', label: 'sd', format: 'fixed3' }, { key: 'min', label: 'min', format: 'fixed3' }, { key: 'max', label: 'max', format: 'fixed3' }],
      rows: result.spread.map((s) => ({ arm: s.arm, seeds: s.seeds, mean: s.meanR1, sd: s.sdR1, min: s.minR1, max: s.maxR1 })),
    },
    {
      id: 'pair-sweep',
      title: 'R@1 by number of fit pairs (mean over random subsets)',
      columns: [{ key: 'arm', label: 'arm' }, { key: 'seed', label: 'seed', format: 'int' }, { key: 'n', label: 'fit pairs', format: 'int' }, { key: 'test', label: 'test R@1', format: 'fixed3' }, { key: 'sd', label: 'sd', format: 'fixed3' }, { key: 'fit', label: 'fit-pair R@1', format: 'fixed3' }],
      rows: result.sweep.map((s) => ({ arm: s.arm, seed: s.seed, n: s.n, test: s.testR1, sd: s.sdTestR1, fit: s.fitR1 })),
    },
  ];
}
