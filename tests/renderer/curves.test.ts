// Curve building shared by the GUI and the report: EMA smoothing against its closed form, x as step / epoch / wall
// time, seeds folded into mean ± sd, overlays coloured by run and dashed by arm, the config diff, the run table.
import { describe, expect, it } from 'vitest';
import { configDiff, overlayFigure } from '../../shared/compare-figures';
import { bySeries, CURVE_METRICS, ema, seedMeans, smoothed, withX } from '../../shared/curves';
import { armBars, experimentCurves, rankBinLabels, sweepFigure } from '../../shared/experiment-figures';
import { FigureSpec } from '../../shared/figures';
import { logTick, markCoinciding } from '../../shared/chart';
import type { MetricRecord, RunState } from '../../shared/runs';
import { backoffMs } from '../../renderer/src/connection';
import { queryRows, runRow, type RunRow } from '../../renderer/src/run-table';
import { RunConfig } from '../../shared/runs';

const rec = (
  scope: string,
  x: number,
  t: number,
  values: Record<string, number>,
  arm = 'good',
  seed = 0,
): MetricRecord => ({ scope, x, t, values, tags: { arm, seed } });

// A run's status.json as the run table reads it: a finished run with no result unless `over` says otherwise.
const runState = (over: Partial<RunState>): RunState => ({
  id: 'r',
  kind: 'experiment',
  name: 'r',
  status: 'done',
  createdAt: 'x',
  startedAt: null,
  endedAt: null,
  progress: null,
  error: null,
  pid: null,
  attempts: 1,
  result: null,
  ...over,
});

describe('ema (TensorBoard smoothing, debiased)', () => {
  it('is the raw curve at weight 0, keeps a constant, and matches Σ w^(i-j)(1-w) y_j / Σ w^(i-j)(1-w)', () => {
    expect(ema([1, 5, 2], 0)).toEqual([1, 5, 2]);
    expect(ema([3, 3, 3, 3], 0.9).map((v) => +v!.toFixed(12))).toEqual([3, 3, 3, 3]);
    const w = 0.6,
      ys = [1, 4, 2];
    const closed = ys.map((_, i) => {
      let num = 0,
        den = 0;
      for (let j = 0; j <= i; j++) {
        num += w ** (i - j) * (1 - w) * ys[j];
        den += w ** (i - j) * (1 - w);
      }
      return num / den;
    });
    ema(ys, w).forEach((v, i) => expect(v).toBeCloseTo(closed[i], 12));
    expect(ema([1, null, 3], 0.5)[1]).toBeNull(); // a gap stays a gap
  });
  it('keeps each raw curve faint behind its smoothed one', () => {
    const spec = FigureSpec.parse({
      id: 'a',
      title: 't',
      x: { label: 'x' },
      y: { label: 'y' },
      series: [{ label: 'good', points: [1, 2, 3].map((x) => ({ x, y: x })) }],
    });
    const s = smoothed(spec, 0.5).series;
    expect(s.map((x) => [x.label, !!x.faint])).toEqual([
      ['good', true],
      ['good', false],
    ]);
  });
});

describe('x as step, epoch or wall time', () => {
  // 10 steps per epoch: the epoch-1 record comes after step 10.
  const records = [
    rec('train', 5, 1000, { loss: 2 }),
    rec('train', 10, 2000, { loss: 1 }),
    rec('epoch', 1, 2500, { valLoss: 1 }),
    rec('train', 15, 3000, { loss: 0.5 }),
    rec('eval', 1, 2600, { r1: 0.1 }),
  ];
  it('converts steps to epochs through steps per epoch, epochs to steps, and both to minutes', () => {
    expect(withX(bySeries(records, 'train', 'loss'), records, 'train', 'epoch')[0].points.map((p) => p.x)).toEqual([
      0.5, 1, 1.5,
    ]);
    expect(withX(bySeries(records, 'eval', 'r1'), records, 'eval', 'step')[0].points.map((p) => p.x)).toEqual([10]);
    expect(withX(bySeries(records, 'train', 'loss'), records, 'train', 'time')[0].points.map((p) => p.x)).toEqual([
      0,
      1000 / 60000,
      2000 / 60000,
    ]);
  });
  it('pads per-epoch axes by half an epoch, so one epoch sits inside the chart', () => {
    const r1 = experimentCurves([rec('eval', 1, 1, { r1: 0.1 })], 'e', 1)[0];
    expect(r1.x).toMatchObject({ min: 0.5, max: 1.5, integer: true });
  });
  it('puts NTP cross-entropy on its own axis beside the JEPA loss', () => {
    const loss = experimentCurves([rec('train', 1, 1, { loss: 0.7 }), rec('train', 1, 1, { loss: 5 }, 'ntp')], 'e')[2];
    expect(loss.y2?.label).toMatch(/cross-entropy/);
    expect(loss.series.map((s) => [s.label, s.yAxis])).toEqual([
      ['good', 'left'],
      ['ntp', 'right'],
    ]);
  });
});

describe('many runs', () => {
  const runA = [
    rec('eval', 1, 1, { r1: 0.1 }),
    rec('eval', 1, 1, { r1: 0.3 }, 'good', 1),
    rec('eval', 1, 1, { r1: 0.05 }, 'bad'),
  ];
  const runB = [rec('eval', 1, 1, { r1: 0.2 }), rec('eval', 1, 1, { r1: 0.02 }, 'bad')];
  const r1 = CURVE_METRICS.find((m) => m.id === 'r1')!;
  it("colours by run and dashes by arm (or the reverse), so two runs' good arms differ", () => {
    const byRun = overlayFigure(
      [
        { id: 'a', label: 'A', records: runB },
        { id: 'b', label: 'B', records: runB },
      ],
      r1,
      { colourBy: 'run', bands: false },
    ).series;
    expect(byRun.map((s) => [s.label, s.color, s.marker])).toEqual([
      ['A: good', '#0072B2', 'circle'],
      ['A: bad', '#0072B2', 'triangle'],
      ['B: good', '#D55E00', 'circle'],
      ['B: bad', '#D55E00', 'triangle'],
    ]);
    const byArm = overlayFigure(
      [
        { id: 'a', label: 'A', records: runB },
        { id: 'b', label: 'B', records: runB },
      ],
      r1,
      { colourBy: 'arm', bands: false },
    ).series;
    expect(new Set(byArm.map((s) => `${s.color}/${s.dash}/${s.marker}`)).size).toBe(4);
  });
  it('tells every run x arm x seed apart under either colouring (before: seeds of one arm shared colour and dash)', () => {
    const seeded = (seeds: number[]) =>
      seeds.flatMap((seed) =>
        ['good', 'bad', 'ntp'].map((arm) => rec('eval', 1, 1, { r1: 0.1 + seed / 10 }, arm, seed)),
      );
    const runs = [
      { id: 'a', label: 'A', records: seeded([0, 1, 2]) },
      { id: 'b', label: 'B', records: seeded([0, 1, 2]) },
    ];
    for (const colourBy of ['run', 'arm'] as const) {
      const series = overlayFigure(runs, r1, { colourBy, bands: false }).series;
      expect(series).toHaveLength(18);
      expect(new Set(series.map((s) => `${s.color}/${s.dash}/${s.marker}`)).size, colourBy).toBe(18);
    }
    const curves = experimentCurves(seeded([0, 1, 2])).find((f) => f.id === 'experiment-r1')!.series;
    expect(new Set(curves.map((s) => `${s.color}/${s.dash}`)).size).toBe(9);
    const sweep = sweepFigure({
      sweep: [0, 1, 2].map((seed) => ({ arm: 'good', seed, n: 25, testR1: 0.1, fitR1: 1, sdTestR1: 0 })),
      chance: { r1: 0.001 },
    } as never).series.filter((s) => s.yAxis !== 'right');
    expect(new Set(sweep.map((s) => `${s.color}/${s.dash}/${s.marker}`)).size).toBe(3);
  });
  it('puts a JEPA loss and an NTP cross-entropy on two axes', () => {
    const loss = CURVE_METRICS.find((m) => m.id === 'loss')!;
    const f = overlayFigure(
      [{ id: 'a', label: 'A', records: [rec('train', 1, 1, { loss: 2 }), rec('train', 1, 1, { loss: 9 }, 'ntp')] }],
      loss,
      { colourBy: 'arm', bands: false },
    );
    expect(f.series.map((s) => [s.label, s.yAxis])).toEqual([
      ['good', 'left'],
      ['ntp', 'right'],
    ]);
    expect(f.y2?.label).toMatch(/cross-entropy \(NTP arms\)/);
  });
  it('folds seeds into mean ± sd', () => {
    expect(seedMeans(bySeries(runA, 'eval', 'r1'))[0]).toMatchObject({
      arm: 'good',
      seeds: 2,
      points: [{ x: 1, y: 0.2 }],
    });
    expect(seedMeans(bySeries(runA, 'eval', 'r1'))[0].points[0].hi - 0.2).toBeCloseTo(Math.SQRT2 * 0.1, 12);
    const banded = overlayFigure([{ id: 'a', label: 'A', records: runA }], r1, { colourBy: 'run', bands: true }).series;
    expect(banded.map((s) => [s.label, s.band])).toEqual([
      ['good (mean ± sd, 2 seeds)', true],
      ['bad (mean ± sd, 1 seeds)', true],
    ]);
  });
  it('lists only the settings that differ', () => {
    const t = configDiff([
      { label: 'A', config: { train: { lamb: 0.02, epochs: 8 }, seeds: [0, 1] } },
      { label: 'B', config: { train: { lamb: 0.05, epochs: 8 }, seeds: [0, 1] } },
    ]);
    expect(t.rows).toEqual([{ setting: 'train.lamb', run0: '0.02', run1: '0.05' }]);
  });
});

describe('labels and timing', () => {
  it('labels one-rank bins by the rank alone', () =>
    expect(rankBinLabels([0, 1, 5, 10])).toEqual(['1', '2–5', '6–10', '>10']));
  it('puts fit-pair R@1 on its own right axis in the sweep, and says which line is which', () => {
    const f = sweepFigure({
      sweep: [{ arm: 'good', seed: 0, n: 25, testR1: 0.01, fitR1: 0.9, sdTestR1: 0.001 }],
      chance: { r1: 0.001 },
    } as never);
    expect(f.series.map((s) => [s.label, s.yAxis ?? 'left', s.dash ?? 'solid'])).toEqual([
      ['good: test (solid, left)', 'left', 'solid'],
      ['good: fit pairs (dashed, right)', 'right', 'dashed'],
    ]);
  });
  it("labels one experiment's bar series by seed, several experiments' by name and seed", () => {
    const ci = { estimate: 0.1, lo: 0.08, hi: 0.12 };
    const arms = [0, 1].flatMap((seed) => ['bad', 'good'].map((arm) => ({ arm, seed, r1: ci }))) as never[];
    expect(armBars([{ label: 'demo', arms }], 'r1', 'b').series.map((s) => s.label)).toEqual(['seed 0', 'seed 1']);
    expect(armBars([{ label: 'demo', arms: arms.slice(0, 2) }], 'r1', 'b').series.map((s) => s.label)).toEqual([
      'demo',
    ]);
    const two = armBars(
      [
        { label: 'A', arms },
        { label: 'B', arms },
      ],
      'r1',
      'b',
    );
    expect(two.series.map((s) => s.label)).toEqual(['A (seed 0)', 'A (seed 1)', 'B (seed 0)', 'B (seed 1)']);
    // each group's seeds in shades of its colour, never one colour for two bars
    expect(new Set(two.series.map((s) => s.color)).size).toBe(4);
    expect(two.x.categories).toEqual(['good', 'bad']); // the paper's order, not the data's
  });
  it('backs off 0.5 s doubling to 10 s, with jitter', () => {
    expect([0, 1, 2, 5, 9].map((a) => backoffMs(a, 0.5))).toEqual([500, 1000, 2000, 10000, 10000]);
    expect(backoffMs(0, 0)).toBe(400);
  });
});

describe('the run table', () => {
  const row = (id: string, over: Partial<RunRow>): RunRow => ({
    id,
    name: id,
    kind: 'experiment',
    status: 'done',
    created: id,
    progress: null,
    arms: [],
    epochs: 8,
    batch: 64,
    lambEff: 10.24,
    seeds: [0],
    dataset: '/d/w',
    encoder: 'world',
    r1: {},
    lr: {},
    warmup: null,
    select: 'last',
    minutes: 1,
    goodBad: null,
    tags: [],
    note: '',
    archived: false,
    executor: null,
    ...over,
  });
  const rows = [
    row('a', { r1: { good: 0.02 }, tags: ['baseline'] }),
    row('b', { r1: { good: 0.05 }, note: 'lr sweep' }),
    row('c', { archived: true }),
    row('d', { status: 'failed', kind: 'train' }),
  ];
  const q = { search: '', status: '', kind: '', tag: '', archived: false, sort: 'created' as const, desc: false };
  it('sorts by a result column with empty cells last, filters, searches notes and tags, hides archived runs', () => {
    expect(queryRows(rows, { ...q, sort: 'r1:good', desc: true }).map((r) => r.id)).toEqual(['b', 'a', 'd']);
    expect(queryRows(rows, { ...q, sort: 'r1:good', desc: false }).map((r) => r.id)).toEqual(['a', 'b', 'd']);
    expect(queryRows(rows, { ...q, status: 'failed' }).map((r) => r.id)).toEqual(['d']);
    expect(queryRows(rows, { ...q, search: 'sweep' }).map((r) => r.id)).toEqual(['b']);
    expect(queryRows(rows, { ...q, tag: 'baseline' }).map((r) => r.id)).toEqual(['a']);
    expect(queryRows(rows, { ...q, archived: true }).map((r) => r.id)).toEqual(['a', 'b', 'c', 'd']);
  });
  it("names the image side: the world encoder, an ONNX file, or a 2x2's own image arms", () => {
    const encoder = (over: Record<string, unknown>) =>
      runRow(runState({ kind: 'experiment' }), {
        id: 'r',
        config: RunConfig.parse({ kind: 'experiment', version: 1, data: '/d/w', ...over }),
        annotation: { tags: [], note: '', archived: false },
        executor: null,
      }).encoder;
    expect(encoder({})).toBe('world');
    expect(encoder({ image: { model: '/m/dinov2-small.onnx' } })).toBe('dinov2-small.onnx');
    expect(encoder({ arms: ['good', 'bad'], imageViews: { arms: ['good', 'bad'] } })).toBe('2x2: good, bad image arms');
  });
});

describe("the run table's λ_eff", () => {
  it('is what training recorded once it has, and the configured value until then', () => {
    const config = RunConfig.parse({ kind: 'train', version: 1, data: '/d/w', arm: 'good', batch: 16 });
    const state = (status: 'running' | 'done', result: Record<string, unknown> | null) =>
      runState({ kind: 'train', status, result });
    const entry = { id: 't', config, annotation: { tags: [], note: '', archived: false }, executor: null };
    expect(runRow(state('running', null), entry).lambEff).toBeCloseTo(0.02 * 8 * 16, 12); // as configured
    // a run trained under another default (an older version of the workbench) shows its own weight, not today's
    expect(runRow(state('done', { arm: 'good', lamb: 0.5, lambEff: 64 }), entry).lambEff).toBe(64);
  });
});

describe('what a chart draws', () => {
  it('marks a series with the same values as one before it, and draws it dashed over it', () => {
    const same = [
      { x: 1, y: 0.2 },
      { x: 2, y: 0.3 },
    ];
    const out = markCoinciding(
      FigureSpec.parse({
        id: 'f',
        title: 't',
        x: { label: 'x' },
        y: { label: 'y' },
        series: [
          { label: 'good (seed 0)', points: same },
          { label: 'bad (seed 0)', points: same },
          { label: 'ntp (seed 0)', points: [{ x: 1, y: 0.1 }] },
        ],
      }).series,
    );
    expect(out.map((s) => [s.label, s.dash])).toEqual([
      ['good (seed 0)', 'solid'],
      ['bad (seed 0) (same values as good (seed 0))', 'dashed'],
      ['ntp (seed 0)', 'solid'],
    ]);
  });
  it('labels at least two ticks of a log axis that spans less than a 1-2-3-5 step (before: one label, "3")', () => {
    const ticks = [2.5, 3, 3.5, 4].map((value) => ({ value }));
    const labels = ticks.map((t, i) => logTick(t.value, i, ticks)).filter(Boolean);
    expect(labels.length).toBeGreaterThanOrEqual(2);
    const wide = [0.01, 0.02, 0.03, 0.05, 0.07, 0.1].map((value) => ({ value }));
    expect(wide.map((t, i) => logTick(t.value, i, wide))).toEqual(['0.01', '0.02', '0.03', '0.05', '', '0.1']);
  });
});
