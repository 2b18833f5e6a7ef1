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
  const [ai, at] = a.split('/') as ['good' | 'bad', string],
    [bi, bt] = b.split('/') as ['good' | 'bad', string];
  return {
    seed: 0,
    metric: 'r1',
    varies,
    a: { image: ai, text: at },
    b: { image: bi, text: bt },
    ...iv(R1[a] - R1[b], half),
  };
};
const result = {
  chance: { r1: 0.001, mknn: 0.01 },
  grid: {
    imageArms: [],
    cells,
    differences: [
      diff('good/good', 'good/bad', 'text'),
      diff('good/good', 'bad/good', 'image'),
      diff('good/good', 'bad/bad', 'both'),
      diff('good/bad', 'bad/good', 'crossed'),
      diff('good/bad', 'bad/bad', 'image', 0.06),
      diff('bad/good', 'bad/bad', 'text'),
    ],
  },
} as unknown as ExperimentResult;

describe('2x2 figures', () => {
  it("reads the paper's comparisons off the bad/bad cell: text alone, image alone, both, and whether the two gains are told apart", () => {
    const [line, paper, ...rest] = gridVerdict(result);
    expect(line).toBe(
      'Seed 0, R@1 from image bad · text bad: good text views alone +0.080 [0.060, 0.100], good image views alone +0.050 [-0.010, 0.110], ' +
        'both +0.100 [0.080, 0.120]; image alone − text alone −0.030 [-0.050, -0.010]: the text side gains more.',
    );
    expect(paper).toMatch(/^The paper \(MSR-VTT, R@1\) found \+0\.059 with good text views alone and \+0\.043/);
    expect(rest).toEqual([]);
    // A crossed difference whose CI covers 0: no side is named.
    const wide = result.grid!.differences.map((d) => (d.varies === 'crossed' ? { ...d, lo: -0.05, hi: 0.01 } : d));
    expect(gridVerdict({ ...result, grid: { ...result.grid!, differences: wide } })[0]).toMatch(
      /: the two gains are not told apart\.$/,
    );
    expect(
      gridVerdict({ ...result, grid: { ...result.grid!, differences: result.grid!.differences.slice(0, 2) } }),
    ).toEqual([]);
    expect(gridVerdict({ ...result, grid: undefined })).toEqual([]);
  });

  it('tables and bars are valid specs: one row per cell and per difference, one bar group per image arm', () => {
    const t = TableSpec.parse(gridTable(result));
    expect(t.rows.map((r) => `${r.image}/${r.text}`)).toEqual(Object.keys(R1));
    const d = TableSpec.parse(gridDifferencesTable(result));
    expect(d.rows.map((r) => r.verdict)).toEqual([
      'a better',
      'a better',
      'a better',
      'b better',
      'CI covers 0',
      'a better',
    ]);
    const bars = FigureSpec.parse(gridBars(result, 'r1'));
    expect(bars.x.categories).toEqual(['image good', 'image bad']);
    expect(bars.series.map((s) => s.label)).toEqual(['text good', 'text bad']);
    expect(bars.series[1].points).toEqual([
      { x: 0, ...at(0.15) },
      { x: 1, ...at(0.1) },
    ]);
  });
});
