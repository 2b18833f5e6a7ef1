// Metric curves of runs as figure series: one series per (arm, seed) from tagged metric records, their x as step,
// epoch or wall time, seeds folded into a mean ± sd band, and EMA smoothing with the raw curve faint behind.
import { MARKERS, PALETTE, type FigureSpec, type Series } from './figures';
import type { MetricRecord } from './runs';

export type XMode = 'step' | 'epoch' | 'time';
type CurvePoint = { x: number; y: number | null; t: number };
export type CurveSeries = { arm: string; seed: number; points: CurvePoint[] };

// Every metric a run streams (see shared/experiment.ts), by scope: x is a step for 'train', an epoch otherwise.
export const CURVE_METRICS = [
  { id: 'r1', scope: 'eval', key: 'r1', label: 'R@1', title: 'Image→text R@1 on the test pairs' },
  { id: 'r5', scope: 'eval', key: 'r5', label: 'R@5', title: 'Image→text R@5 on the test pairs' },
  { id: 'r10', scope: 'eval', key: 'r10', label: 'R@10', title: 'Image→text R@10 on the test pairs' },
  { id: 't2iR1', scope: 'eval', key: 't2iR1', label: 'text→image R@1', title: 'Text→image R@1 on the test pairs' },
  { id: 'mknn', scope: 'eval', key: 'mknn', label: 'mutual k-NN', title: 'Mutual 10-NN on the test pairs' },
  { id: 'loss', scope: 'train', key: 'loss', label: 'loss', title: 'Training loss' },
  { id: 'inv', scope: 'train', key: 'inv', label: 'inv', title: 'Invariance term (JEPA arms)' },
  { id: 'sigreg', scope: 'train', key: 'sigreg', label: 'SIGReg', title: 'SIGReg term (JEPA arms)' },
  { id: 'lr', scope: 'train', key: 'lr', label: 'learning rate', title: 'Learning rate' },
  { id: 'gradNorm', scope: 'train', key: 'gradNorm', label: 'gradient norm', title: 'Gradient norm' },
  { id: 'trainLoss', scope: 'epoch', key: 'trainLoss', label: 'train loss', title: 'Training loss per epoch' },
  { id: 'valLoss', scope: 'epoch', key: 'valLoss', label: 'val loss', title: 'Validation loss per epoch' },
] as const;
export type CurveMetric = (typeof CURVE_METRICS)[number];

// One colour per arm everywhere (Okabe-Ito): good blue, bad vermillion, ntp green, pair-ntp purple.
export const ARM_COLOR: Record<string, string> = {
  good: '#0072B2',
  bad: '#D55E00',
  ntp: '#009E73',
  'pair-ntp': '#CC79A7',
};
export const armColor = (arm: string) => ARM_COLOR[arm] ?? '#E69F00';

// One look per series on every chart: colour says the arm (or, coloured by run, the run), line style the seed, and
// the marker the run (or the arm): runs x arms x seeds stay told apart whichever colouring is picked.
const SEED_DASHES: Series['dash'][] = ['solid', 'dashed', 'dotted', 'dashdot'];
export function seriesLook(
  of: { arm: string; seedIndex: number; runIndex?: number; armIndex?: number },
  colourBy: 'arm' | 'run' = 'arm',
): Pick<Series, 'color' | 'dash' | 'marker'> {
  const dash = SEED_DASHES[of.seedIndex % SEED_DASHES.length];
  return colourBy === 'run'
    ? {
        color: PALETTE[(of.runIndex ?? 0) % PALETTE.length],
        dash,
        marker: MARKERS[(of.armIndex ?? 0) % MARKERS.length],
      }
    : { color: armColor(of.arm), dash, ...(of.runIndex ? { marker: MARKERS[of.runIndex % MARKERS.length] } : {}) };
}

// What a series is on every chart of the app (an arm and seed, or an arm's mean over seeds): one visibility each.
export const seriesKey = (arm: string, seed: number | 'mean'): string => `${arm}/${seed}`;

// A colour lighter by step k (k = 0 is the colour itself): bars of one arm's seeds side by side, told apart.
export function shade(hex: string, k: number): string {
  const f = Math.min(0.75, 0.3 * k);
  const c = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return `#${c
    .map((v) =>
      Math.round(v + (255 - v) * f)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
}
const ARM_ORDER = Object.keys(ARM_COLOR);
// An arm's place in the paper's order (good, bad, ntp, pair-ntp); any other arm after them.
export const armRank = (arm: string): number => {
  const i = ARM_ORDER.indexOf(arm);
  return i < 0 ? ARM_ORDER.length : i;
};
export const isNtp = (arm: string) => arm === 'ntp' || arm === 'pair-ntp'; // their loss is a cross-entropy

const key = (arm: string, seed: number) => `${arm}\u0000${seed}`;
const tagsOf = (r: MetricRecord) => ({ arm: String(r.tags?.arm ?? 'run'), seed: Number(r.tags?.seed ?? 0) });

// Records of one scope grouped by (arm, seed) tags, each series sorted by x; later records of the same x win
// (a resumed arm repeats its epoch).
export function bySeries(records: readonly MetricRecord[], scope: string, metric: string): CurveSeries[] {
  const groups = new Map<string, { arm: string; seed: number; at: Map<number, CurvePoint> }>();
  for (const r of records) {
    if (r.scope !== scope || !(metric in r.values)) continue;
    const { arm, seed } = tagsOf(r);
    const g = groups.get(key(arm, seed)) ?? { arm, seed, at: new Map() };
    g.at.set(r.x, { x: r.x, y: r.values[metric], t: r.t });
    groups.set(key(arm, seed), g);
  }
  return [...groups.values()]
    .sort((a, b) => armRank(a.arm) - armRank(b.arm) || a.arm.localeCompare(b.arm) || a.seed - b.seed)
    .map((g) => ({ arm: g.arm, seed: g.seed, points: [...g.at.values()].sort((a, b) => a.x - b.x) }));
}

// Steps per epoch of each (arm, seed): the last training step logged before its first epoch record. An epoch is
// the same pass over the same photos every time, so one count converts steps and epochs both ways.
function stepsPerEpoch(records: readonly MetricRecord[]): Map<string, number> {
  const firstEpoch = new Map<string, number>();
  for (const r of records)
    if (r.scope === 'epoch' && r.x === 1) firstEpoch.set(key(tagsOf(r).arm, tagsOf(r).seed), r.t);
  const out = new Map<string, number>();
  for (const r of records) {
    if (r.scope !== 'train') continue;
    const k = key(tagsOf(r).arm, tagsOf(r).seed);
    const end = firstEpoch.get(k);
    if (end !== undefined && r.t <= end) out.set(k, Math.max(out.get(k) ?? 0, r.x));
  }
  return out;
}

// The series with x as the chosen axis: wall time in minutes since the run's first record, or steps and epochs
// converted through steps per epoch. A series that cannot be converted yet (no epoch finished) is left out.
export function withX(
  series: CurveSeries[],
  records: readonly MetricRecord[],
  scope: string,
  mode: XMode,
): CurveSeries[] {
  const native: XMode = scope === 'train' ? 'step' : 'epoch';
  if (mode === native) return series;
  if (mode === 'time') {
    const t0 = Math.min(...records.map((r) => r.t));
    return series.map((s) => ({ ...s, points: s.points.map((p) => ({ ...p, x: (p.t - t0) / 60_000 })) }));
  }
  const spe = stepsPerEpoch(records);
  return series.flatMap((s) => {
    const n = spe.get(key(s.arm, s.seed));
    if (!n) return [];
    return [{ ...s, points: s.points.map((p) => ({ ...p, x: mode === 'epoch' ? p.x / n : p.x * n })) }];
  });
}

export const X_LABEL: Record<XMode, string> = { step: 'step', epoch: 'epoch', time: 'wall time (min)' };

// Seeds of one arm folded into their mean, with a ±1 sd band, at the x values every seed reached.
export function seedMeans(
  series: CurveSeries[],
): { arm: string; seeds: number; points: { x: number; y: number; lo: number; hi: number }[] }[] {
  const arms = [...new Set(series.map((s) => s.arm))];
  return arms.map((arm) => {
    const of = series.filter((s) => s.arm === arm);
    const at = of.map((s) => new Map(s.points.filter((p) => p.y !== null).map((p) => [p.x, p.y as number])));
    const xs = [...at[0].keys()].filter((x) => at.every((m) => m.has(x))).sort((a, b) => a - b);
    return {
      arm,
      seeds: of.length,
      points: xs.map((x) => {
        const ys = at.map((m) => m.get(x)!);
        const mean = ys.reduce((a, b) => a + b, 0) / ys.length;
        const sd = ys.length > 1 ? Math.sqrt(ys.reduce((a, y) => a + (y - mean) ** 2, 0) / (ys.length - 1)) : 0;
        return { x, y: mean, lo: mean - sd, hi: mean + sd };
      }),
    };
  });
}

// TensorBoard's debiased exponential moving average: s_i = Σ w^(i-j)(1-w) y_j / Σ w^(i-j)(1-w), so the first points
// are not pulled towards 0. weight 0 is the raw curve; nulls are gaps and do not enter the average.
export function ema(ys: readonly (number | null)[], weight: number): (number | null)[] {
  let acc = 0,
    norm = 0;
  return ys.map((y) => {
    if (y === null || !Number.isFinite(y)) return y;
    acc = acc * weight + (1 - weight) * y;
    norm = norm * weight + (1 - weight);
    return acc / norm;
  });
}

// A figure with its line series smoothed, each raw curve kept faint behind its smoothed one.
export function smoothed(spec: FigureSpec, weight: number): FigureSpec {
  if (!(weight > 0)) return spec;
  return {
    ...spec,
    series: spec.series.flatMap((s) => {
      if ((s.style ?? 'line') !== 'line' || s.faint || s.points.length < 3) return [s];
      const ys = ema(
        s.points.map((p) => p.y),
        weight,
      );
      return [
        { ...s, faint: true, band: false },
        { ...s, points: s.points.map((p, i) => ({ ...p, y: ys[i] })) },
      ];
    }),
  };
}
