// The 2x2's tables, bars and verdict (shared/experiment-figures.ts), from a hand-made result: what the report, the
// CLI and the Experiment page show.
import { describe, expect, it } from 'vitest';
import type { ExperimentResult, GridDifference } from '../../shared/experiment';
import { gridBars, gridDifferencesTable, gridTable, gridVerdict } from '../../shared/experiment-figures';
import { FigureSpec } from '../../shared/figures';
import { TableSpec } from '../../shared/tables';

const iv = (estimate: number, half = 0.01) => ({ estimate, lo: estimate - half, hi: estimate + half });
const at = (y: number) => ({ y, lo: y - 0.01, hi: y + 0.01 }); // a bar with its cell's CI
const R1: Record<string, number> = { 'good/good': 0.2, 'good/bad': 0.15, 'bad/good': 0.18, 'bad/bad': 0.1 };
const cells = Object.entries(R1).map(([k, r1]) => {
  const [image, text] = k.split('/') as ['good' | 'bad', string];
  return { image, text, seed: 0, r1: iv(r1), r5: iv(2 * r1), mknn: iv(r1 / 2) };
});
const diff = (a: string, b: string, varies: GridDifference['varies'], half = 0.02): GridDifference => {
  const [ai, at] = a.split('/') as ['good' | 'bad', string], [bi, bt] = b.split('/') as ['good' | 'bad', string];
  return { seed: 0, metric: 'r1', varies, a: { image: ai, text: at }, b: { image: bi, text: bt }, ...iv(R1[a] - R1[b], half) };
};
const result = {
  chance: { r1: 0.001, mknn: 0.01 },
  grid: {
    imageArms: [],
    cells,
    differences: [
      diff('good/good', 'good/bad', 'text'), diff('good/good', 'bad/good', 'image'), diff('good/good', 'bad/bad', 'both'),
      diff('good/bad', 'bad/good', 'crossed'), diff('good/bad', 'bad/bad', 'image', 0.06), diff('bad/good', 'bad/bad', 'text'),
    ],
  },
} as unknown as ExperimentResult;

describe('2x2 figures', () => {
  it('reads the paper\'s comparisons off the bad/bad cell: text alone, image alone, both, and which side gains more', () => {
    const [line] = gridVerdict(result);
    expect(line).toContain('good text views alone +0.080 [0.060, 0.100] (a gain)');
    expect(line).toContain('good image views alone +0.050 [-0.010, 0.110] (no clear change)');
    expect(line).toContain('both +0.100');
    expect(line).toMatch(/larger gain is on the text side, as in the paper\.$/);
    expect(gridVerdict({ ...result, grid: { ...result.grid!, differences: result.grid!.differences.slice(0, 2) } })).toEqual([]);
    expect(gridVerdict({ ...result, grid: undefined })).toEqual([]);
  });

  it('tables and bars are valid specs: one row per cell and per difference, one bar group per image arm', () => {
    const t = TableSpec.parse(gridTable(result));
    expect(t.rows.map((r) => `${r.image}/${r.text}`)).toEqual(Object.keys(R1));
    const d = TableSpec.parse(gridDifferencesTable(result));
    expect(d.rows.map((r) => r.verdict)).toEqual(['a better', 'a better', 'a better', 'b better', 'CI covers 0', 'a better']);
    const bars = FigureSpec.parse(gridBars(result, 'r1'));
    expect(bars.x.categories).toEqual(['image good', 'image bad']);
    expect(bars.series.map((s) => s.label)).toEqual(['text good', 'text bad']);
    expect(bars.series[1].points).toEqual([{ x: 0, ...at(0.15) }, { x: 1, ...at(0.1) }]);
  });
});
