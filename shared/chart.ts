// FigureSpec -> chart.js configuration, used by the renderer (live) and by engine/report (export).
import {
  Chart,
  type ChartConfiguration,
  type ChartDataset,
  type ChartEvent,
  type LegendElement,
  type LegendItem,
  type Plugin,
} from 'chart.js';
import { FigureSpec, PALETTE, type FigureSpecResolved, type RefLine } from './figures';

export type ChartTheme = { fg: string; muted: string; grid: string; bg: string };
export const LIGHT: ChartTheme = { fg: '#1b1f24', muted: '#57606a', grid: '#d8dee4', bg: '#ffffff' };
export const DARK: ChartTheme = { fg: '#e6edf3', muted: '#9da7b3', grid: '#30363d', bg: '#0d1117' };

// Draws reference lines (thresholds, chance levels) as dashed lines; their labels are legend entries, so no
// text covers the data. chart.js has no built-in for this.
export const refLinesPlugin: Plugin<'line'> = {
  id: 'refLines',
  afterDatasetsDraw(chart: Chart) {
    const opts = (chart.options.plugins as { refLines?: { lines: RefLine[]; color: string } }).refLines;
    if (!opts?.lines.length) return;
    const { ctx, chartArea: a, scales } = chart;
    ctx.save();
    ctx.lineWidth = 1.5;
    ctx.setLineDash(REF_DASH);
    for (const line of opts.lines) {
      ctx.strokeStyle = line.color ?? opts.color;
      const px = (line.axis === 'y' ? scales.y : scales.x).getPixelForValue(line.value);
      if (line.axis === 'y' ? px < a.top || px > a.bottom : px < a.left || px > a.right) continue;
      ctx.beginPath();
      if (line.axis === 'y') {
        ctx.moveTo(a.left, px);
        ctx.lineTo(a.right, px);
      } else {
        ctx.moveTo(px, a.top);
        ctx.lineTo(px, a.bottom);
      }
      ctx.stroke();
    }
    ctx.restore();
  },
};
const REF_DASH = [6, 4];
type Dash = FigureSpecResolved['series'][number]['dash'];
const DASHES: Record<Dash, number[]> = { solid: [], dashed: [7, 3], dotted: [2, 3], dashdot: [8, 3, 2, 3] };
// The legend's line marks are ~13 px long: the same patterns, shorter, so two dashes show.
const LEGEND_DASHES: Record<Dash, number[]> = { solid: [], dashed: [4, 2], dotted: [1.5, 2], dashdot: [4, 2, 1, 2] };

type IntervalPoint = { x: number; y: number | null; lo?: number; hi?: number };
type Flagged = { bars?: boolean; band?: boolean; yAxisID?: string };

// Visible bar series share each x slot (80% of the smallest x gap), side by side: centre offset and width in px.
function barLayout(chart: Chart): { offset: Map<number, number>; width: number } {
  const idx = chart.data.datasets
    .map((ds, i) => ((ds as Flagged).bars && chart.isDatasetVisible(i) ? i : -1))
    .filter((i) => i >= 0);
  const xs = [...new Set(idx.flatMap((i) => (chart.data.datasets[i].data as IntervalPoint[]).map((p) => p.x)))].sort(
    (p, q) => p - q,
  );
  const gap = xs.length > 1 ? Math.min(...xs.slice(1).map((v, k) => v - xs[k])) : 1;
  const slot = Math.abs(chart.scales.x.getPixelForValue(gap) - chart.scales.x.getPixelForValue(0)) * 0.8;
  const width = slot / Math.max(1, idx.length);
  return { offset: new Map(idx.map((i, k) => [i, -slot / 2 + (k + 0.5) * width])), width };
}

// The lo..hi band of a series, filled under its line (a polygon along hi, back along lo), clipped to the chart.
function drawBand(chart: Chart, i: number): void {
  const ds = chart.data.datasets[i];
  const y = chart.scales[(ds as Flagged).yAxisID ?? 'y'],
    x = chart.scales.x;
  const pts = (ds.data as IntervalPoint[]).filter((p) => p.y !== null && p.lo !== undefined && p.hi !== undefined);
  if (pts.length < 2) return;
  const { ctx } = chart;
  ctx.beginPath();
  pts.forEach((p, k) => (k ? ctx.lineTo : ctx.moveTo).call(ctx, x.getPixelForValue(p.x), y.getPixelForValue(p.hi!)));
  for (const p of [...pts].reverse()) ctx.lineTo(x.getPixelForValue(p.x), y.getPixelForValue(p.lo!));
  ctx.closePath();
  ctx.fillStyle = String(ds.borderColor);
  ctx.globalAlpha = 0.18;
  ctx.fill();
}

// Bars, bands and error bars: chart.js draws none of them in a line chart (and its bar chart cannot share a linear
// x axis with lines), so 'bars' series are drawn here as rectangles, band series get a shaded lo..hi band, and every
// other point with lo/hi gets a capped vertical whisker.
export const intervalsPlugin: Plugin<'line'> = {
  id: 'intervals',
  beforeDatasetsDraw(chart: Chart) {
    const { ctx, chartArea: a, scales } = chart;
    const { offset, width } = barLayout(chart);
    ctx.save();
    ctx.beginPath();
    ctx.rect(a.left, a.top, a.right - a.left, a.bottom - a.top);
    ctx.clip();
    chart.data.datasets.forEach((ds, i) => (ds as Flagged).band && chart.isDatasetVisible(i) && drawBand(chart, i));
    ctx.globalAlpha = 0.8;
    for (const [i, dx] of offset) {
      const ds = chart.data.datasets[i];
      const y = scales[(ds as Flagged).yAxisID ?? 'y'];
      const base = y.getPixelForValue(Math.max(0, y.min));
      ctx.fillStyle = String(ds.backgroundColor);
      for (const p of ds.data as IntervalPoint[]) {
        if (p.y === null) continue;
        const top = y.getPixelForValue(p.y);
        ctx.fillRect(
          scales.x.getPixelForValue(p.x) + dx - width / 2 + 1,
          Math.min(top, base),
          width - 2,
          Math.abs(base - top),
        );
      }
    }
    ctx.restore();
  },
  afterDatasetsDraw(chart: Chart) {
    const { ctx, chartArea: a, scales } = chart;
    const { offset } = barLayout(chart);
    const fg = (chart.options.plugins as { intervals?: { color: string } }).intervals?.color ?? '#000';
    ctx.save();
    ctx.beginPath();
    ctx.rect(a.left, a.top, a.right - a.left, a.bottom - a.top); // a whisker past an axis limit (an SD below 0) is cut there
    ctx.clip();
    ctx.lineWidth = 1.5;
    chart.data.datasets.forEach((ds, i) => {
      if (!chart.isDatasetVisible(i) || (ds as Flagged).band) return;
      const y = scales[(ds as Flagged).yAxisID ?? 'y'];
      ctx.strokeStyle = offset.has(i) ? fg : String(ds.borderColor);
      for (const p of ds.data as IntervalPoint[]) {
        if (p.lo === undefined || p.hi === undefined || p.y === null) continue;
        const px = scales.x.getPixelForValue(p.x) + (offset.get(i) ?? 0);
        const lo = y.getPixelForValue(p.lo),
          hi = y.getPixelForValue(p.hi);
        ctx.beginPath();
        ctx.moveTo(px, lo);
        ctx.lineTo(px, hi);
        ctx.moveTo(px - 5, lo);
        ctx.lineTo(px + 5, lo);
        ctx.moveTo(px - 5, hi);
        ctx.lineTo(px + 5, hi);
        ctx.stroke();
      }
    });
    ctx.restore();
  },
};

// Fills the background so exported PNGs are not transparent.
export const backgroundPlugin: Plugin<'line'> = {
  id: 'background',
  beforeDraw(chart: Chart) {
    const bg = (chart.options.plugins as { background?: { color: string } }).background?.color;
    if (!bg) return;
    chart.ctx.save();
    chart.ctx.fillStyle = bg;
    chart.ctx.fillRect(0, 0, chart.width, chart.height);
    chart.ctx.restore();
  },
};

// Log axes label 1, 2, 3 and 5 times a power of ten (as 1e-14 outside [1e-3, 1e5]), not chart.js's long decimals;
// an axis spanning less than that gives (one label, "3", is no scale) labels every tick to two digits.
const logValue = (x: number, digits: number) => {
  const e = Math.floor(Math.log10(x) + 1e-9);
  return e < -3 || e >= 5
    ? x
        .toExponential(digits - 1)
        .replace(/\.?0+e/, 'e')
        .replace('e+', 'e')
    : String(+x.toPrecision(digits));
};
function logRound(v: number | string): string {
  const x = Number(v);
  const e = Math.floor(Math.log10(x) + 1e-9);
  const m = Math.round(x / 10 ** e);
  if (![1, 2, 3, 5].includes(m) || Math.abs(x - m * 10 ** e) > 1e-6 * x) return '';
  return e < -3 || e >= 5 ? `${m === 1 ? '' : `${m}×`}1e${e}` : String(+(m * 10 ** e).toPrecision(3));
}
export function logTick(v: number | string, _index: number, ticks: { value: number }[]): string {
  if (ticks.filter((t) => logRound(t.value)).length >= 2) return logRound(v);
  return logValue(Number(v), 2);
}

// The range an axis must show: its data (with lo/hi and 0 under bars) and its reference lines. A linear range
// narrower than 10% of its largest magnitude is widened around its centre, so float noise (a loss moving in its
// fourth digit) does not fill the chart like a trend.
function extent(values: number[], log: boolean): { suggestedMin?: number; suggestedMax?: number } {
  const v = values.filter((x) => Number.isFinite(x) && (!log || x > 0));
  if (!v.length) return {};
  let lo = Math.min(...v),
    hi = Math.max(...v);
  const mag = Math.max(Math.abs(lo), Math.abs(hi));
  if (!log && hi - lo < 0.1 * mag) [lo, hi] = [(lo + hi) / 2 - 0.05 * mag, (lo + hi) / 2 + 0.05 * mag];
  return { suggestedMin: lo, suggestedMax: hi };
}

// Series with the same values as one before them (bad exactly under good) would vanish behind it: each says so in
// its label and is drawn dashed over it, so the one below shows through the gaps.
export function markCoinciding(series: FigureSpecResolved['series']): FigureSpecResolved['series'] {
  const key = (s: FigureSpecResolved['series'][number]) =>
    s.faint || !s.points.length || s.style === 'bars'
      ? null
      : `${s.yAxis}|${s.points.map((p) => `${p.x}:${p.y}`).join(',')}`;
  const first = new Map<string, string>();
  return series.map((s) => {
    const k = key(s);
    if (k === null) return s;
    const under = first.get(k);
    if (under === undefined) {
      first.set(k, s.label);
      return s;
    }
    return { ...s, label: `${s.label} (same values as ${under})`, dash: s.dash === 'solid' ? 'dashed' : s.dash };
  });
}

const MARKER_RADIUS = 3.5;

export function chartConfig(
  input: FigureSpec | FigureSpecResolved,
  theme: ChartTheme = LIGHT,
  opts: { animation?: boolean; background?: boolean } = {},
): ChartConfiguration<'line'> {
  const parsed = FigureSpec.parse(input);
  const spec = { ...parsed, series: markCoinciding(parsed.series) };
  const datasets = spec.series.map((s, i) => {
    const color = s.color ?? PALETTE[i % PALETTE.length];
    // A marker on a long curve: on every n-th point, about 12 along it.
    const every = Math.max(1, Math.round(s.points.length / 12));
    const ds: ChartDataset<'line'> = {
      label: s.label,
      data: s.points,
      borderColor: s.faint ? `${color}55` : color,
      backgroundColor: color,
      borderWidth: s.style === 'points' ? 0 : s.faint ? 1 : 2,
      showLine: s.style !== 'points',
      pointRadius: s.marker
        ? (c: { dataIndex: number }) => (c.dataIndex % every === 0 ? MARKER_RADIUS : 0)
        : s.style === 'points'
          ? 3
          : s.faint || s.points.length > 60
            ? 0
            : 2.5,
      ...(s.marker ? { pointStyle: s.marker } : {}),
      borderDash: DASHES[s.dash],
      stepped: s.style === 'step' ? 'middle' : false,
      yAxisID: s.yAxis === 'right' ? 'y2' : 'y',
      parsing: false,
      clip: 6, // points on the axis limits are drawn whole, not cut in half
    };
    if (s.style === 'bars')
      Object.assign(ds, { bars: true, showLine: false, pointRadius: 0, pointHitRadius: 8, pointStyle: 'rect' });
    if (s.band) Object.assign(ds, { band: true });
    if (s.faint) Object.assign(ds, { faint: true }); // the hover read-out skips it
    return ds;
  });
  const values = (axis: 'x' | 'left' | 'right') => [
    ...spec.series
      .filter((s) => axis === 'x' || (s.yAxis === 'right') === (axis === 'right'))
      .flatMap((s) => [
        ...s.points.flatMap((p) =>
          (axis === 'x' ? [p.x] : [p.y, p.lo, p.hi]).filter((v): v is number => typeof v === 'number'),
        ),
        ...(s.style === 'bars' && axis !== 'x' ? [0] : []),
      ]),
    ...spec.refLines.filter((l) => (l.axis === 'x') === (axis === 'x') && axis !== 'right').map((l) => l.value),
  ];
  const axis = (a: FigureSpecResolved['x'], which: 'x' | 'left' | 'right') => ({
    type: a.log ? ('logarithmic' as const) : ('linear' as const),
    position: which === 'x' ? undefined : which,
    min: a.min,
    max: a.max,
    ...(which === 'x' ? {} : { ...extent(values(which), a.log), grace: a.log ? 0 : '5%' }), // a line at the data's edge stays off the border
    title: { display: true, text: a.label, color: theme.fg, font: { size: 13 } },
    // Category axes (arms, rank bins) label the integer positions only; integer axes (epochs) tick whole numbers.
    // Neither adds ticks at its padded limits (-0.6, 0.5), which would crowd out the first real label.
    ticks: a.categories
      ? {
          color: theme.fg,
          stepSize: 1,
          autoSkip: false,
          includeBounds: false,
          callback: (v: number | string) => (Number.isInteger(Number(v)) ? (a.categories?.[Number(v)] ?? '') : ''),
        }
      : a.log
        ? { color: theme.muted, maxRotation: 0, callback: logTick }
        : { color: theme.muted, ...(a.integer ? { precision: 0, includeBounds: false } : {}) },
    grid: { color: theme.grid, drawOnChartArea: which !== 'right' },
    border: { color: theme.grid },
  });
  const scales: Record<string, ReturnType<typeof axis>> = { x: axis(spec.x, 'x'), y: axis(spec.y, 'left') };
  if (spec.y2) scales.y2 = axis(spec.y2, 'right');
  const shown = spec.series.filter((s) => !s.faint).length + spec.refLines.length;
  return {
    type: 'line',
    data: { datasets },
    options: {
      animation: opts.animation ? undefined : false,
      responsive: false,
      maintainAspectRatio: false,
      layout: { padding: { right: 14 } }, // room for the last x tick label
      scales,
      plugins: {
        title: { display: true, text: spec.title, color: theme.fg, font: { size: 15, weight: 'bold' } },
        // Legend marks show each series' style (a solid or dashed line, a dot for points, a square for bars), then
        // the reference lines as dashed lines in their colour.
        legend: {
          display: shown > 1,
          onClick: (e: ChartEvent, item: LegendItem, legend: LegendElement<'line'>) =>
            item.datasetIndex !== undefined && Chart.defaults.plugins.legend.onClick.call(legend, e, item, legend),
          labels: {
            color: theme.fg,
            usePointStyle: true,
            boxHeight: 9,
            generateLabels: (chart: Chart) => [
              ...Chart.defaults.plugins.legend.labels
                .generateLabels(chart)
                .filter((item) => !spec.series[item.datasetIndex!]?.faint)
                .map((item) => {
                  const s = spec.series[item.datasetIndex!];
                  const line = s?.style !== 'points' && s?.style !== 'bars';
                  return {
                    ...item,
                    pointStyle: s?.marker ?? (s?.style === 'points' ? 'circle' : s?.style === 'bars' ? 'rect' : 'line'),
                    lineWidth: line ? 2 : 0,
                    lineDash: line && !s?.marker ? LEGEND_DASHES[s.dash] : [],
                  };
                }),
              ...spec.refLines.map((l) => ({
                text: l.label,
                fontColor: theme.fg,
                strokeStyle: l.color ?? theme.muted,
                fillStyle: l.color ?? theme.muted,
                lineDash: LEGEND_DASHES.dashed,
                lineWidth: 1.5,
                pointStyle: 'line' as const,
                hidden: false,
              })),
            ],
          },
        },
        refLines: { lines: spec.refLines, color: theme.muted },
        intervals: { color: theme.fg },
        background: opts.background ? { color: theme.bg } : undefined,
      } as never,
    },
    plugins: [refLinesPlugin, backgroundPlugin, intervalsPlugin],
  };
}
