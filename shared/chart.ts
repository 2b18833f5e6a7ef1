// FigureSpec -> chart.js configuration, used by the renderer (live) and by engine/report (export).
import { Chart, type ChartConfiguration, type ChartDataset, type Plugin } from 'chart.js';
import { FigureSpec, PALETTE, type FigureSpecResolved, type RefLine } from './figures';

export type ChartTheme = { fg: string; muted: string; grid: string; bg: string };
export const LIGHT: ChartTheme = { fg: '#1b1f24', muted: '#57606a', grid: '#d8dee4', bg: '#ffffff' };
export const DARK: ChartTheme = { fg: '#e6edf3', muted: '#9da7b3', grid: '#30363d', bg: '#0d1117' };

// Draws reference lines (thresholds, chance levels) with their labels; chart.js has no built-in for this.
export const refLinesPlugin: Plugin<'line'> = {
  id: 'refLines',
  afterDatasetsDraw(chart: Chart) {
    const opts = (chart.options.plugins as { refLines?: { lines: RefLine[]; color: string } }).refLines;
    if (!opts?.lines.length) return;
    const { ctx, chartArea: a, scales } = chart;
    ctx.save();
    ctx.lineWidth = 1.5;
    ctx.font = `12px ${Chart.defaults.font.family}`; // the chart's own font, so exported PDFs embed one family
    for (const line of opts.lines) {
      const color = line.color ?? opts.color;
      ctx.strokeStyle = color;
      ctx.fillStyle = color;
      ctx.setLineDash([6, 4]);
      ctx.beginPath();
      if (line.axis === 'y') {
        const y = scales.y.getPixelForValue(line.value);
        if (y < a.top || y > a.bottom) continue;
        ctx.moveTo(a.left, y);
        ctx.lineTo(a.right, y);
        ctx.stroke();
        ctx.setLineDash([]); // dashed glyphs become Type 3 fonts in PDFs, which journals reject
        ctx.textAlign = 'right';
        ctx.fillText(line.label, a.right - 4, y - 4);
      } else {
        const x = scales.x.getPixelForValue(line.value);
        if (x < a.left || x > a.right) continue;
        ctx.moveTo(x, a.top);
        ctx.lineTo(x, a.bottom);
        ctx.stroke();
        ctx.setLineDash([]);
        ctx.textAlign = 'left';
        ctx.fillText(line.label, x + 4, a.top + 12);
      }
    }
    ctx.restore();
  },
};

type IntervalPoint = { x: number; y: number | null; lo?: number; hi?: number };
type Flagged = { bars?: boolean; yAxisID?: string };

// Visible bar series share each x slot (80% of the smallest x gap), side by side: centre offset and width in px.
function barLayout(chart: Chart): { offset: Map<number, number>; width: number } {
  const idx = chart.data.datasets.map((ds, i) => ((ds as Flagged).bars && chart.isDatasetVisible(i) ? i : -1)).filter((i) => i >= 0);
  const xs = [...new Set(idx.flatMap((i) => (chart.data.datasets[i].data as IntervalPoint[]).map((p) => p.x)))].sort((p, q) => p - q);
  const gap = xs.length > 1 ? Math.min(...xs.slice(1).map((v, k) => v - xs[k])) : 1;
  const slot = Math.abs(chart.scales.x.getPixelForValue(gap) - chart.scales.x.getPixelForValue(0)) * 0.8;
  const width = slot / Math.max(1, idx.length);
  return { offset: new Map(idx.map((i, k) => [i, -slot / 2 + (k + 0.5) * width])), width };
}

// Bars and error bars: chart.js draws neither in a line chart (and its bar chart cannot share a linear x axis with
// lines), so 'bars' series are drawn here as rectangles, and every point with lo/hi gets a capped vertical whisker.
export const intervalsPlugin: Plugin<'line'> = {
  id: 'intervals',
  beforeDatasetsDraw(chart: Chart) {
    const { ctx, chartArea: a, scales } = chart;
    const { offset, width } = barLayout(chart);
    if (!offset.size) return;
    ctx.save();
    ctx.beginPath();
    ctx.rect(a.left, a.top, a.right - a.left, a.bottom - a.top);
    ctx.clip();
    ctx.globalAlpha = 0.8;
    for (const [i, dx] of offset) {
      const ds = chart.data.datasets[i];
      const y = scales[(ds as Flagged).yAxisID ?? 'y'];
      const base = y.getPixelForValue(Math.max(0, y.min));
      ctx.fillStyle = String(ds.backgroundColor);
      for (const p of ds.data as IntervalPoint[]) {
        if (p.y === null) continue;
        const top = y.getPixelForValue(p.y);
        ctx.fillRect(scales.x.getPixelForValue(p.x) + dx - width / 2 + 1, Math.min(top, base), width - 2, Math.abs(base - top));
      }
    }
    ctx.restore();
  },
  afterDatasetsDraw(chart: Chart) {
    const { ctx, scales } = chart;
    const { offset } = barLayout(chart);
    const fg = (chart.options.plugins as { intervals?: { color: string } }).intervals?.color ?? '#000';
    ctx.save();
    ctx.lineWidth = 1.5;
    chart.data.datasets.forEach((ds, i) => {
      if (!chart.isDatasetVisible(i)) return;
      const y = scales[(ds as Flagged).yAxisID ?? 'y'];
      ctx.strokeStyle = offset.has(i) ? fg : String(ds.borderColor);
      for (const p of ds.data as IntervalPoint[]) {
        if (p.lo === undefined || p.hi === undefined || p.y === null) continue;
        const px = scales.x.getPixelForValue(p.x) + (offset.get(i) ?? 0);
        const lo = y.getPixelForValue(p.lo), hi = y.getPixelForValue(p.hi);
        ctx.beginPath();
        ctx.moveTo(px, lo); ctx.lineTo(px, hi);
        ctx.moveTo(px - 5, lo); ctx.lineTo(px + 5, lo);
        ctx.moveTo(px - 5, hi); ctx.lineTo(px + 5, hi);
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

// Log axes label 1, 2, 3 and 5 times a power of ten (as 1e-14 outside [1e-3, 1e5]), not chart.js's long decimals.
function logTick(v: number | string): string {
  const x = Number(v);
  const e = Math.floor(Math.log10(x) + 1e-9);
  const m = Math.round(x / 10 ** e);
  if (![1, 2, 3, 5].includes(m) || Math.abs(x - m * 10 ** e) > 1e-6 * x) return '';
  return e < -3 || e >= 5 ? `${m === 1 ? '' : `${m}×`}1e${e}` : String(+(m * 10 ** e).toPrecision(3));
}

export function chartConfig(input: FigureSpec | FigureSpecResolved, theme: ChartTheme = LIGHT, opts: { animation?: boolean; background?: boolean } = {}): ChartConfiguration<'line'> {
  const spec = FigureSpec.parse(input);
  const datasets = spec.series.map((s, i) => {
    const color = s.color ?? PALETTE[i % PALETTE.length];
    const ds: ChartDataset<'line'> = {
      label: s.label,
      data: s.points,
      borderColor: color,
      backgroundColor: color,
      borderWidth: s.style === 'points' ? 0 : 2,
      showLine: s.style !== 'points',
      pointRadius: s.style === 'points' ? 3 : s.points.length > 60 ? 0 : 2.5,
      borderDash: s.dashed ? [6, 4] : [],
      stepped: s.style === 'step' ? 'middle' : false,
      yAxisID: s.yAxis === 'right' ? 'y2' : 'y',
      parsing: false,
    };
    if (s.style === 'bars') Object.assign(ds, { bars: true, showLine: false, pointRadius: 0, pointHitRadius: 8, pointStyle: 'rect' });
    return ds;
  });
  // Intervals and bars must fit: the y range grows to every lo/hi (and to 0 under bars) unless the spec fixes it.
  const ys = (right: boolean) => spec.series.filter((s) => (s.yAxis === 'right') === right).flatMap((s) => [
    ...s.points.flatMap((p) => [p.lo, p.hi].filter((v): v is number => v !== undefined)),
    ...(s.style === 'bars' ? [0] : []),
  ]);
  const axis = (a: FigureSpecResolved['x'], position?: 'left' | 'right', extent: number[] = []) => ({
    type: a.log ? ('logarithmic' as const) : ('linear' as const),
    position,
    min: a.min,
    max: a.max,
    suggestedMin: extent.length ? Math.min(...extent) : undefined,
    suggestedMax: extent.length ? Math.max(...extent) : undefined,
    title: { display: true, text: a.label, color: theme.fg, font: { size: 13 } },
    // Log axes label only the powers of ten, as 1e-14, instead of chart.js's long decimals.
    // Category axes (arms) label the integer positions only.
    ticks: a.categories
      ? { color: theme.fg, stepSize: 1, autoSkip: false, callback: (v: number | string) => (Number.isInteger(Number(v)) ? a.categories?.[Number(v)] ?? '' : '') }
      : a.log
      ? { color: theme.muted, maxRotation: 0, callback: logTick }
      : { color: theme.muted, ...(a.integer ? { precision: 0 } : {}) },
    grid: { color: theme.grid, drawOnChartArea: position !== 'right' },
    border: { color: theme.grid },
  });
  const scales: Record<string, ReturnType<typeof axis>> = { x: axis(spec.x), y: axis(spec.y, 'left', ys(false)) };
  if (spec.y2) scales.y2 = axis(spec.y2, 'right', ys(true));
  return {
    type: 'line',
    data: { datasets },
    options: {
      animation: opts.animation ? undefined : false,
      responsive: false,
      maintainAspectRatio: false,
      scales,
      plugins: {
        title: { display: true, text: spec.title, color: theme.fg, font: { size: 15, weight: 'bold' } },
        // Legend marks show the series' style: a line (solid or dashed) or a dot for points-only series.
        legend: {
          display: spec.series.length > 1,
          labels: {
            color: theme.fg, usePointStyle: true, boxHeight: 7,
            generateLabels: (chart: Chart) => Chart.defaults.plugins.legend.labels.generateLabels(chart)
              .map((item) => ({ ...item, pointStyle: spec.series[item.datasetIndex!]?.style === 'points' ? 'circle' : 'line' })),
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
