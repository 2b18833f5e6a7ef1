// Many runs side by side: one metric's curves of every run overlaid (colour by arm and marker by run, or the reverse;
// line style by seed, or seeds folded into mean ± sd bands on request), and what changed between their configs.
import {
  armRank,
  bySeries,
  isNtp,
  seedMeans,
  seriesKey,
  seriesLook,
  smoothed,
  withX,
  X_LABEL,
  type CurveMetric,
  type XMode,
} from './curves';
import { PALETTE, type FigureSpec, type Series } from './figures';
import type { MetricRecord } from './runs';
import type { TableSpec } from './tables';

export type OverlayRun = { id: string; label: string; records: readonly MetricRecord[] };
// named: series carry their run's name even when one run is shown (the others hidden).
export type OverlayView = { colourBy: 'run' | 'arm'; bands: boolean; x?: XMode; smoothing?: number; named?: boolean };

export const runColor = (index: number) => PALETTE[index % PALETTE.length];

export function overlayFigure(runs: OverlayRun[], metric: CurveMetric, view: OverlayView): FigureSpec {
  const native: XMode = metric.scope === 'train' ? 'step' : 'epoch';
  const mode = view.x ?? native;
  const arms = [...new Set(runs.flatMap((r) => bySeries(r.records, metric.scope, metric.key).map((s) => s.arm)))].sort(
    (a, b) => armRank(a) - armRank(b),
  );
  const many = runs.length > 1 || !!view.named;
  // A JEPA loss and an NTP cross-entropy differ in scale and meaning: the NTP arms' on their own right axis.
  const splitLoss = /loss/i.test(metric.key) && arms.some(isNtp) && arms.some((a) => !isNtp(a));
  const yAxis = (arm: string) => (splitLoss && isNtp(arm) ? ('right' as const) : ('left' as const));
  const style = (runIndex: number, arm: string, seedIndex: number) =>
    seriesLook({ arm, seedIndex, runIndex, armIndex: arms.indexOf(arm) }, view.colourBy);
  const series: Series[] = runs.flatMap((run, i): Series[] => {
    const curves = withX(bySeries(run.records, metric.scope, metric.key), run.records, metric.scope, mode);
    const name = (arm: string) => (many ? `${run.label}: ${arm}` : arm);
    if (view.bands && new Set(curves.map((c) => c.seed)).size > 1) {
      return seedMeans(curves).map((m) => ({
        label: `${name(m.arm)} (mean ± sd, ${m.seeds} seeds)`,
        key: seriesKey(m.arm, 'mean'),
        ...style(i, m.arm, 0),
        band: true,
        style: 'line' as const,
        yAxis: yAxis(m.arm),
        faint: false,
        points: m.points,
      }));
    }
    const seeds = [...new Set(curves.map((c) => c.seed))].sort((a, b) => a - b);
    return curves.map((c) => ({
      label: `${name(c.arm)}${seeds.length > 1 ? ` s${c.seed}` : ''}`,
      key: seriesKey(c.arm, c.seed),
      ...style(i, c.arm, seeds.indexOf(c.seed)),
      band: false,
      style: 'line' as const,
      yAxis: yAxis(c.arm),
      faint: false,
      points: c.points.map(({ x, y }) => ({ x, y })),
    }));
  });
  const lastX = Math.max(1, ...series.flatMap((s) => s.points.map((p) => p.x)));
  const spec: FigureSpec = {
    id: `compare-${metric.id}`,
    title: `${metric.title}, ${many ? 'runs overlaid' : 'per arm'} (${view.colourBy === 'run' ? 'colour: run, marker: arm' : `colour: arm${many ? ', marker: run' : ''}`}, line style: seed)`,
    x:
      mode === 'epoch' && native === 'epoch'
        ? { label: 'epoch', min: 0.5, max: lastX + 0.5, integer: true }
        : { label: X_LABEL[mode], integer: mode === 'step' },
    y: {
      label: splitLoss ? `${metric.label} (JEPA arms)` : metric.label,
      ...(metric.scope === 'eval' ? { min: 0 } : {}),
    }, // scores are never negative
    ...(splitLoss ? { y2: { label: `${metric.label}: cross-entropy (NTP arms)` } } : {}),
    series,
    refLines: [],
  };
  return smoothed(spec, view.smoothing ?? 0);
}

// Config leaves as dotted keys (arrays of scalars as one value), for a side-by-side diff.
function flattenConfig(value: unknown, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (v: unknown, k: string) => {
    if (
      v !== null &&
      typeof v === 'object' &&
      !(Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object'))
    ) {
      for (const [kk, vv] of Object.entries(v)) walk(vv, k ? `${k}.${kk}` : kk);
    } else out.set(k, Array.isArray(v) ? v.join(', ') : v === undefined ? '' : String(v));
  };
  walk(value, prefix);
  return out;
}

// The config keys whose values differ between the runs (a key missing in one run counts as a difference).
export function configDiff(runs: { label: string; config: unknown }[], id = 'config-diff'): TableSpec {
  const flat = runs.map((r) => flattenConfig(r.config));
  const keys = [...new Set(flat.flatMap((f) => [...f.keys()]))].sort();
  const differs = keys.filter((k) => new Set(flat.map((f) => f.get(k) ?? '—')).size > 1);
  return {
    id,
    title: `What changed between the runs (${differs.length} of ${keys.length} settings differ)`,
    columns: [
      { key: 'setting', label: 'Setting' },
      ...runs.map((r, i) => ({ key: `run${i}`, label: r.label || `run ${i + 1}` })),
    ],
    rows: differs.map((k) => ({ setting: k, ...Object.fromEntries(flat.map((f, i) => [`run${i}`, f.get(k) ?? '—'])) })),
  };
}
