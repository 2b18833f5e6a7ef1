import { describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { InputError } from '../../engine/errors';
import { tableToCsv, tableToLatex, tableToMarkdown } from '../../engine/report';
import type { TableSpec } from '../../shared/tables';

const table: TableSpec = {
  id: 'tab-align',
  title: 'Alignment by method',
  columns: [
    { key: 'method', label: 'Method' },
    { key: 'n', label: 'n', format: 'int' },
    { key: 'knn', label: 'mutual kNN', format: 'ci' },
    { key: 'acc', label: 'Acc.', format: 'pct' },
    { key: 'err', label: 'error', format: 'sci', align: 'center' },
  ],
  rows: [
    { method: 'JEPA, large', n: 1000, knn: { value: 0.2431, lo: 0.2149, hi: 0.2712 }, acc: 0.7431, err: 1.5e-14 },
    { method: 'say "hi"\nthen|go', n: 12.4, knn: null, acc: -0.00001 },
    { method: 'a & b % c $ d # e _ f { g } h ~ i ^ j \\ k', knn: { value: -0.5, lo: -0.75, hi: 0.1 }, acc: 1, err: -2 },
  ],
  notes: '95% CIs from 2000 bootstrap resamples; n_ref = 5.',
};

describe('tableToCsv', () => {
  it('round-trips through csv-parse as data: estimates in value / lo / hi columns, numbers in full (RFC 4180, CRLF)', () => {
    const csv = tableToCsv(table);
    expect(csv.endsWith('\r\n')).toBe(true);
    expect(parse(csv)).toEqual([
      ['Method', 'n', 'mutual kNN', 'mutual kNN lo', 'mutual kNN hi', 'Acc.', 'error'],
      ['JEPA, large', '1000', '0.2431', '0.2149', '0.2712', '0.7431', '1.5e-14'],
      ['say "hi"\nthen|go', '12.4', '', '', '', '-0.00001', ''],
      ['a & b % c $ d # e _ f { g } h ~ i ^ j \\ k', '', '-0.5', '-0.75', '0.1', '1', '-2'],
    ]);
    expect(csv).toContain('"say ""hi""\nthen|go"');
    // what a reader such as pandas gets back: numbers, not "0.243 [0.215, 0.271]" or "74.3%"
    const rows = parse(csv, { columns: true, cast: true }) as Record<string, unknown>[];
    expect(rows[0]).toMatchObject({
      'mutual kNN': 0.2431,
      'mutual kNN lo': 0.2149,
      'mutual kNN hi': 0.2712,
      'Acc.': 0.7431,
    });
  });

  it('writes numbers in full, integers as integers, without float noise', () => {
    const csv = tableToCsv({
      id: 't',
      title: 't',
      columns: [{ key: 'v', label: 'v' }],
      rows: [{ v: 3 }, { v: 0.123456 }, { v: 1234.5678 }, { v: 2.5e-7 }, { v: 0.1 + 0.064 }, { v: 1 / 3 }],
    });
    // 0.1 + 0.064 is 0.16399999999999995 in doubles (the reported arms CSV); 1/3 keeps 15 digits
    expect(parse(csv).flat()).toEqual(['v', '3', '0.123456', '1234.5678', '2.5e-7', '0.164', '0.333333333333333']);
  });
});

describe('tableToMarkdown', () => {
  it('aligns numbers right, text left, honours align, escapes pipes and newlines, pads columns', () => {
    const md = tableToMarkdown(table);
    const lines = md.split('\n');
    expect(lines[0]).toBe('**Alignment by method**');
    const rule = lines[3]
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    expect(rule.map((r) => (r.startsWith(':') ? (r.endsWith(':') ? 'c' : 'l') : r.endsWith(':') ? 'r' : '?'))).toEqual([
      'l',
      'r',
      'r',
      'r',
      'c',
    ]);
    const rows = lines.slice(2, 7);
    expect(new Set(rows.map((l) => l.length)).size).toBe(1); // padded: every row equally wide
    expect(md).toContain('say "hi"<br>then\\|go');
    expect(lines[5]).toMatch(/\|\s+– \|/); // empty ci cell
    expect(md).toContain('0.243 [0.215, 0.271]');
    expect(md.trimEnd().endsWith('95% CIs from 2000 bootstrap resamples; n_ref = 5.')).toBe(true);
  });
});

describe('tableToLatex', () => {
  const tex = tableToLatex(table);
  it('is a booktabs table with a caption, label and column alignment', () => {
    expect(tex).toContain('\\begin{tabular}{lrrrc}');
    expect(tex.indexOf('\\toprule')).toBeLessThan(tex.indexOf('\\midrule'));
    expect(tex.indexOf('\\midrule')).toBeLessThan(tex.indexOf('\\bottomrule'));
    expect(tex).toContain('\\caption{Alignment by method}');
    expect(tex).toContain('\\label{tab:tab-align}');
    expect(tex).toContain('    Method & n & mutual kNN & Acc. & error \\\\');
    // the interval small under its estimate: two lines in one cell, not one wide one
    expect(tex).toContain(
      '    JEPA, large & 1000 & \\begin{tabular}[t]{@{}r@{}}0.243\\\\{\\scriptsize [0.215, 0.271]}\\end{tabular} & 74.3\\% & 1.50e-14 \\\\',
    );
  });
  it('escapes every LaTeX special once, and prints minus signs and empty cells', () => {
    expect(tex).toContain(
      '    a \\& b \\% c \\$ d \\# e \\_ f \\{ g \\} h \\textasciitilde{} i \\textasciicircum{} j \\textbackslash{} k & -- & \\begin{tabular}[t]{@{}r@{}}$-$0.500\\\\{\\scriptsize [$-$0.750, 0.100]}\\end{tabular} & 100.0\\% & $-$2.00e+0 \\\\',
    );
    expect(tex).toContain('    say "hi" then\\textbar{}go & 12 & -- & 0.0\\% & -- \\\\');
    expect(tex).toContain('{\\footnotesize 95\\% CIs from 2000 bootstrap resamples; n\\_ref = 5.\\par}');
    // every & that is not a column separator is escaped: 4 separators per row
    for (const line of tex.split('\n').filter((l) => l.startsWith('    ') && l.endsWith('\\\\')))
      expect(line.match(/(?<!\\)&/g)).toHaveLength(4);
  });
});

describe('TableSpec validation', () => {
  const bad = (t: TableSpec) => () => tableToCsv(t);
  it('rejects a plain number in a ci column, unknown row keys and duplicate column keys with InputError', () => {
    expect(bad({ ...table, rows: [{ knn: 0.3 }] })).toThrow(InputError);
    expect(bad({ ...table, rows: [{ knn: 0.3 }] })).toThrow(/tab-align.*rows\.0\.knn.*format ci/);
    expect(bad({ ...table, rows: [{ methd: 'x' }] })).toThrow(/no column has key 'methd'/);
    expect(bad({ ...table, columns: [...table.columns, { key: 'n', label: 'again' }] })).toThrow(/unique/);
    expect(bad({ ...table, rows: [{ knn: { value: 0.3, lo: 0.4, hi: 0.2 } }] })).toThrow(/lo <= hi/);
  });
});
