import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../engine/errors';
import { writeReport } from '../../engine/report';
import type { FigureSpec } from '../../shared/figures';
import type { TableSpec } from '../../shared/tables';

const figure: FigureSpec = {
  id: 'loss',
  title: 'Training loss',
  x: { label: 'step' },
  y: { label: 'loss', log: true },
  series: [{ label: 'train', points: [1, 2, 3, 4].map((x) => ({ x, y: 1 / x })) }],
  refLines: [{ axis: 'y', value: 0.3, label: 'target' }],
};
const table: TableSpec = {
  id: 'summary',
  title: 'Summary',
  columns: [
    { key: 'metric', label: 'Metric' },
    { key: 'v', label: 'Value', format: 'ci' },
  ],
  rows: [{ metric: 'mutual kNN', v: { value: 0.5, lo: 0.4, hi: 0.6 } }],
};
const config = {
  kind: 'align.compare',
  seed: 7,
  model: { name: 'dinov2-s', dims: [384, 768] },
  data: { paths: Array.from({ length: 20 }, (_, i) => `p${i}`) },
  note: 'a|b',
};
const tmp = () => mkdtempSync(join(tmpdir(), 'prh-report-'));

describe('writeReport', () => {
  it('writes every format of every figure and table, the config, and an index linking them', async () => {
    const dir = tmp();
    const written = await writeReport(join(dir, 'report'), {
      title: 'Run 42',
      figures: [figure],
      tables: [table],
      config,
    });
    const expected = [
      'loss.png',
      'loss.svg',
      'loss.pdf',
      'summary.csv',
      'summary.md',
      'summary.tex',
      'config.json',
      'index.md',
    ];
    expect(written).toEqual(expected);
    expect(readdirSync(join(dir, 'report')).sort()).toEqual([...expected].sort()); // and no leftover .tmp files
    expect(JSON.parse(readFileSync(join(dir, 'report', 'config.json'), 'utf8'))).toEqual(config);
    expect(
      readFileSync(join(dir, 'report', 'loss.pdf'))
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');

    const index = readFileSync(join(dir, 'report', 'index.md'), 'utf8');
    expect(index.startsWith('# Run 42\n')).toBe(true);
    expect(index).toContain('[config.json](config.json)');
    for (const row of [
      '| kind | align.compare |',
      '| seed | 7 |',
      '| model.name | dinov2-s |',
      '| model.dims | [384,768] |',
      '| data.paths | [20 items] |',
      '| note | a\\|b |',
    ])
      expect(index).toContain(row);
    expect(index).toContain('| mutual kNN | 0.500 [0.400, 0.600] |'); // the table inline
    expect(index).toContain('[CSV](summary.csv) · [Markdown](summary.md) · [LaTeX](summary.tex)');
    expect(index).toContain('![Training loss](loss.png)');
    expect(index).toContain('[PNG](loss.png) · [SVG](loss.svg) · [PDF](loss.pdf)');
  });

  it('refuses duplicate ids, a table named index, a missing config and an invalid table before writing anything', async () => {
    const dir = join(tmp(), 'report');
    await expect(writeReport(dir, { figures: [figure, figure], tables: [], config })).rejects.toThrow(
      /two figures have the id 'loss'/,
    );
    await expect(writeReport(dir, { figures: [], tables: [{ ...table, id: 'index' }], config })).rejects.toThrow(
      InputError,
    );
    await expect(writeReport(dir, { figures: [], tables: [table], config: undefined })).rejects.toThrow(
      /config is required/,
    );
    await expect(writeReport(dir, { figures: [], tables: [{ ...table, rows: [{ v: 1 }] }], config })).rejects.toThrow(
      /table 'summary'/,
    );
    await expect(writeReport(dir, { figures: [{ ...figure, id: 'no/slash' }], tables: [], config })).rejects.toThrow(
      InputError,
    );
    expect(existsSync(dir)).toBe(false);
  });
});
