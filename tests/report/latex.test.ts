// The LaTeX tables the workbench exports compile with pdflatex (Debian texlive-latex-base + -recommended for
// booktabs; CI installs them): every table of an experiment report, a config diff, and labels full of the
// Unicode the GUI uses (→ − λ_eff β₁ ρ ± × …). Where pdflatex is absent the test says so and skips the compile;
// the ASCII check runs everywhere.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tableToLatex } from '../../engine/report';
import { configDiff } from '../../shared/compare-figures';
import type { ExperimentResult } from '../../shared/experiment';
import { experimentReport } from '../../shared/experiment-figures';
import type { TableSpec } from '../../shared/tables';

const iv = (estimate: number) => ({ estimate, lo: estimate - 0.01, hi: estimate + 0.01 });
const arm = (name: string, r1: number) => ({
  arm: name,
  seed: 0,
  runId: `r-${name}`,
  epoch: 4,
  r1: iv(r1),
  r5: iv(2 * r1),
  r10: iv(3 * r1),
  t2iR1: iv(r1),
  mknn: iv(0.04),
  fitR1: 0.83,
  controls: { random: 0.001, shuffled: 0.002 },
});
const result: ExperimentResult = {
  arms: [arm('good', 0.02), arm('bad', 0.01), arm('ntp', 0.002)],
  differences: [
    { a: 'good', b: 'bad', seed: 0, metric: 'r1', estimate: 0.01, lo: 0.001, hi: 0.02 },
    { a: 'good', b: 'ntp', seed: 0, metric: 'mknn', estimate: -0.003, lo: -0.01, hi: 0.004 },
  ],
  spread: [{ arm: 'good', seeds: 1, meanR1: 0.02, sdR1: 0, minR1: 0.02, maxR1: 0.02 }],
  sweep: [{ arm: 'good', seed: 0, n: 25, testR1: 0.005, fitR1: 1, sdTestR1: 0.001 }],
  chance: { r1: 0.001, mknn: 0.01 },
  rankHistograms: [{ arm: 'good', seed: 0, edges: [0, 1, 5], counts: [20, 30, 950] }],
  image: { model: 'world', sha256: 'ab'.repeat(32), dim: 64, preset: 'dinov2' },
  pairs: { fit: 1014, test: 1000, freeParameters: 220992 },
  ceiling: { r1: 0.123, mknn: 0.2, concepts: 40, dim: 64 },
  seconds: 300,
  grid: {
    imageArms: [
      {
        arm: 'good',
        renders: 4,
        steps: 300,
        batch: 32,
        views: 4,
        seconds: 400,
        loss: { first: 9, last: 2 },
        sha256: 'cd'.repeat(32),
        dim: 64,
        backend: 'wasm',
      },
    ],
    cells: [{ image: 'good', text: 'bad', seed: 0, r1: iv(0.02), r5: iv(0.05), mknn: null }],
    differences: [
      {
        seed: 0,
        metric: 'r1',
        varies: 'both',
        a: { image: 'good', text: 'good' },
        b: { image: 'bad', text: 'bad' },
        estimate: 0.01,
        lo: 0,
        hi: 0.02,
      },
    ],
  },
};
const unicode: TableSpec = {
  id: 'unicode',
  title: 'Image→text R@1 with λ_eff = λ·N·world_size, β₁ = ρ ≤ α_k (… – —)',
  columns: [
    { key: 'what', label: 'a − b ± sd' },
    { key: 'v', label: 'R@1 × 100', format: 'ci' },
  ],
  rows: [{ what: 'good → bad, μ₁ ≈ 0.5 ≥ 2⁻¹, café', v: { value: -0.01, lo: -0.02, hi: 0 } }],
  notes: '95% CIs; “paired” over the same items; ρ ∈ [0, 1] ✓',
};
const tables: TableSpec[] = [
  ...experimentReport(result, []).tables,
  configDiff([
    { label: 'run A', config: { train: { lamb: 0.02, epochs: 8 }, data: '/d/world_1' } },
    { label: 'run B', config: { train: { lamb: 0.05, epochs: 8 }, data: '/d/world_2' } },
  ]),
  unicode,
];

const hasTex = () =>
  spawnSync('kpsewhich', ['booktabs.sty'], { encoding: 'utf8' }).stdout?.trim().endsWith('booktabs.sty') ?? false;
const noTex = hasTex()
  ? false
  : 'pdflatex with booktabs is not installed (apt-get install texlive-latex-base texlive-latex-recommended)';

describe('LaTeX tables', () => {
  it('hold only ASCII and accented Latin letters, with every header filled', () => {
    for (const t of tables) {
      const tex = tableToLatex(t);
      expect(tex, t.id).not.toMatch(/[^\x00-\x7f\u00c0-\u024f]/u);
      const header = tex.split('\n')[tex.split('\n').indexOf('    \\toprule') + 1];
      expect(
        header.split(' & ').every((h) => h.trim().replace(/\\\\$/, '').trim().length > 0),
        `${t.id}: ${header}`,
      ).toBe(true);
    }
    expect(tableToLatex(unicode)).toContain('Image$\\rightarrow$text R@1 with $\\lambda$\\_eff');
    expect(tableToLatex(unicode)).toContain('$\\beta$$_{1}$ = $\\rho$');
  });

  it.skipIf(noTex)('compile with pdflatex', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prh-latex-'));
    tables.forEach((t) => writeFileSync(join(dir, `${t.id}.tex`), tableToLatex(t)));
    writeFileSync(
      join(dir, 'main.tex'),
      [
        '\\documentclass[a4paper]{article}',
        '\\usepackage{booktabs}',
        '\\usepackage{graphicx}',
        '\\begin{document}',
        ...tables.map((t) => `\\input{${t.id}.tex}\\clearpage`),
        '\\end{document}',
        '',
      ].join('\n'),
    );
    const run = spawnSync('pdflatex', ['-interaction=nonstopmode', '-halt-on-error', 'main.tex'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 60_000,
    });
    const log = readFileSync(join(dir, 'main.log'), 'latin1');
    expect(
      log
        .split('\n')
        .filter((l) => l.startsWith('!') || /Missing character/.test(l))
        .join('\n'),
    ).toBe('');
    expect(run.status, run.stdout.slice(-2000)).toBe(0);
    // Every table fits the A4 page (before: the arms table, 12 columns with inline CIs, overflowed by 28 pt).
    expect(log.split('\n').filter((l) => /^Overfull \\hbox/.test(l))).toEqual([]);
    expect(readFileSync(join(dir, 'main.pdf')).subarray(0, 5).toString()).toBe('%PDF-');
  });
});
