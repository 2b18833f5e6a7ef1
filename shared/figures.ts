// A figure as data: the GUI draws it live with chart.js, and the engine renders the very same spec to
// PNG/SVG for papers, so an exported figure is what the researcher saw.
import { z } from 'zod';

// lo/hi: an interval around y (e.g. a 95% bootstrap CI), drawn as an error bar.
export const Point = z.object({
  x: z.number(),
  y: z.number().nullable(),
  lo: z.number().optional(),
  hi: z.number().optional(),
});

export const MARKERS = ['circle', 'triangle', 'rect', 'rectRot', 'crossRot', 'star'] as const;

export const Series = z.object({
  label: z.string(),
  key: z.string().optional(), // what the series is (an arm and seed), the same on every chart: hidden on one, hidden on all
  points: z.array(Point),
  color: z.string().optional(),
  style: z.enum(['line', 'points', 'bars', 'step']).default('line'), // bars: from 0 (or the axis minimum) to y, centred on x
  dash: z.enum(['solid', 'dashed', 'dotted', 'dashdot']).default('solid'), // tells seeds apart in one colour
  marker: z.enum(MARKERS).optional(), // point marker: tells runs (or arms) apart when colour and line style are taken
  yAxis: z.enum(['left', 'right']).default('left'),
  band: z.boolean().default(false), // lo/hi drawn as a shaded band (mean ± sd over seeds) instead of error bars
  faint: z.boolean().default(false), // thin and translucent behind its smoothed line, with no legend entry
});
export type Series = z.infer<typeof Series>;

// A horizontal (y = value) or vertical (x = value) reference line, e.g. a threshold or chance level; its label
// goes in the legend, so no text sits on the data.
export const RefLine = z.object({
  axis: z.enum(['x', 'y']),
  value: z.number(),
  label: z.string(),
  color: z.string().optional(),
});
export type RefLine = z.infer<typeof RefLine>;

// categories: tick labels for x = 0, 1, 2, ... (a bar chart of arms); other ticks stay unlabelled.
// integer: ticks only at whole numbers (epochs).
const Axis = z.object({
  label: z.string(),
  min: z.number().optional(),
  max: z.number().optional(),
  log: z.boolean().default(false),
  categories: z.array(z.string()).optional(),
  integer: z.boolean().default(false),
});

export const FigureSpec = z.object({
  id: z.string().regex(/^[A-Za-z0-9._-]{1,80}$/), // becomes the file name on export
  title: z.string(),
  x: Axis,
  y: Axis,
  y2: Axis.optional(),
  series: z.array(Series).max(64),
  refLines: z.array(RefLine).max(32).default([]),
});
export type FigureSpec = z.input<typeof FigureSpec>;
export type FigureSpecResolved = z.output<typeof FigureSpec>;

export const FigureFormat = z.enum(['png', 'svg', 'pdf']);
export type FigureFormat = z.infer<typeof FigureFormat>;

// Colour per series index: Okabe-Ito, readable for colour-blind readers and in print.
export const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#F0E442', '#000000'];
