// TableSpec -> CSV (RFC 4180), Markdown (GFM pipe table) and LaTeX (booktabs), all printing the same cell text.
import { InputError } from '../errors';
import {
  TableSpec as TableSchema,
  type Cell,
  type Column,
  type ColumnFormat,
  type TableSpec,
  type TableSpecResolved,
} from '../../shared/tables';

export function parseTable(input: TableSpec): TableSpecResolved {
  const parsed = TableSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const where =
    typeof (input as { id?: unknown })?.id === 'string' ? `table '${(input as { id: string }).id}'` : 'table';
  const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'table'}: ${i.message}`).join('; ');
  throw new InputError(`${where}: invalid table spec (${issues})`);
}

function formatNumber(x: number, format: ColumnFormat): string {
  const s =
    format === 'int'
      ? Math.round(x).toString()
      : format === 'fixed1'
        ? x.toFixed(1)
        : format === 'fixed2'
          ? x.toFixed(2)
          : format === 'fixed3' || format === 'ci'
            ? x.toFixed(3)
            : format === 'pct'
              ? `${(100 * x).toFixed(1)}%`
              : format === 'sci'
                ? x.toExponential(2)
                : Number.isInteger(x)
                  ? String(x)
                  : String(Number(x.toPrecision(4)));
  return s.replace(/^-(?=0(\.0*)?%?$)/, ''); // -0.000 -> 0.000
}

// A cell as text: `main`, plus the interval bounds for an estimate; null for an empty cell.
type CellText = { main: string; ci?: [string, string]; numeric: boolean } | null;
function cellText(cell: Cell | undefined, format: ColumnFormat): CellText {
  if (cell === undefined || cell === null) return null;
  if (typeof cell === 'string') return { main: cell, numeric: false };
  if (typeof cell === 'number') return { main: formatNumber(cell, format), numeric: true };
  return {
    main: formatNumber(cell.value, format),
    ci: [formatNumber(cell.lo, format), formatNumber(cell.hi, format)],
    numeric: true,
  };
}

const plain = (c: CellText): string => (c === null ? '' : c.ci ? `${c.main} [${c.ci[0]}, ${c.ci[1]}]` : c.main);

// Numbers read best right-aligned; a column holding any number defaults to right.
function alignOf(t: TableSpecResolved, col: Column): 'left' | 'center' | 'right' {
  return (
    col.align ??
    (t.rows.some((r) => {
      const v = r[col.key];
      return typeof v === 'number' || (v !== null && typeof v === 'object');
    })
      ? 'right'
      : 'left')
  );
}

// csv-stringify is not installed; RFC 4180 quoting is this one rule.
export const csvField = (s: string): string => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
const hasEstimates = (t: TableSpecResolved, c: Column) =>
  c.format === 'ci' ||
  t.rows.some((r) => {
    const v = r[c.key];
    return v !== null && typeof v === 'object';
  });
// Every digit a double holds, and no float noise past them: 0.16399999999999995 is 0.164.
const csvNumber = (x: number | undefined): string => (x === undefined ? '' : String(Number(x.toPrecision(15))));

// Data to load, not to read: a header row of column labels, then one line per row, CRLF-terminated (RFC 4180).
// Numbers are written to 15 significant digits (no formatting, no %), and a column of estimates becomes three:
// `R@1`, `R@1 lo`, `R@1 hi`. Title and notes are not data.
export function tableToCsv(input: TableSpec): string {
  const t = parseTable(input);
  const header = t.columns.flatMap((c) =>
    hasEstimates(t, c) ? [c.label, `${c.label} lo`, `${c.label} hi`] : [c.label],
  );
  const rows = t.rows.map((r) =>
    t.columns.flatMap((c) => {
      const v = r[c.key];
      const cells =
        v === undefined || v === null
          ? ['']
          : typeof v === 'string'
            ? [v]
            : typeof v === 'number'
              ? [csvNumber(v)]
              : [csvNumber(v.value), csvNumber(v.lo), csvNumber(v.hi)];
      return hasEstimates(t, c) ? [...cells, '', ''].slice(0, 3) : cells;
    }),
  );
  return [header, ...rows].map((cells) => cells.map(csvField).join(',')).join('\r\n') + '\r\n';
}

// Bold title, a pipe table padded so the source reads as a table too, then the notes; empty cells print as –.
export function tableToMarkdown(input: TableSpec): string {
  const t = parseTable(input);
  const esc = (s: string) => s.replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
  const grid = [
    t.columns.map((c) => esc(c.label)),
    ...t.rows.map((r) => t.columns.map((c) => esc(plain(cellText(r[c.key], c.format)) || '–'))),
  ];
  const aligns = t.columns.map((c) => alignOf(t, c));
  const widths = t.columns.map((_, j) => Math.max(3, ...grid.map((row) => row[j].length)));
  const pad = (s: string, j: number) => (aligns[j] === 'right' ? s.padStart(widths[j]) : s.padEnd(widths[j]));
  const rule = aligns.map((a, j) =>
    a === 'left'
      ? ':' + '-'.repeat(widths[j] - 1)
      : a === 'right'
        ? '-'.repeat(widths[j] - 1) + ':'
        : ':' + '-'.repeat(widths[j] - 2) + ':',
  );
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const body = [line(grid[0].map(pad)), line(rule), ...grid.slice(1).map((row) => line(row.map(pad)))];
  return [`**${esc(t.title)}**`, '', ...body, ...(t.notes ? ['', esc(t.notes)] : []), ''].join('\n');
}

const LATEX_SPECIALS: Record<string, string> = {
  '&': '\\&',
  '%': '\\%',
  $: '\\$',
  '#': '\\#',
  _: '\\_',
  '{': '\\{',
  '}': '\\}',
  '~': '\\textasciitilde{}',
  '^': '\\textasciicircum{}',
  '\\': '\\textbackslash{}',
  // not special, but the default OT1 font encoding prints them as an em dash and inverted marks
  '|': '\\textbar{}',
  '<': '\\textless{}',
  '>': '\\textgreater{}',
};
// What labels and notes hold beyond ASCII, as commands pdflatex knows without extra packages: pdflatex stops on a
// character its font encoding lacks (Greek, arrows, the minus sign, subscripts), and Latin letters with accents are
// left to its default utf8 input encoding.
const LATEX_UNICODE: Record<string, string> = {
  '→': '$\\rightarrow$',
  '←': '$\\leftarrow$',
  '↔': '$\\leftrightarrow$',
  '−': '$-$',
  '±': '$\\pm$',
  '×': '$\\times$',
  '·': '$\\cdot$',
  '≤': '$\\leq$',
  '≥': '$\\geq$',
  '≈': '$\\approx$',
  '≠': '$\\neq$',
  '∞': '$\\infty$',
  '√': '$\\surd$',
  '∑': '$\\sum$',
  Σ: '$\\Sigma$',
  '–': '--',
  '—': '---',
  '…': '\\ldots{}',
  '‘': '`',
  '’': "'",
  '“': '``',
  '”': "''",
  '°': '$^\\circ$',
  '\u00a0': '~',
  α: '$\\alpha$',
  β: '$\\beta$',
  γ: '$\\gamma$',
  δ: '$\\delta$',
  ε: '$\\epsilon$',
  η: '$\\eta$',
  θ: '$\\theta$',
  κ: '$\\kappa$',
  λ: '$\\lambda$',
  μ: '$\\mu$',
  ν: '$\\nu$',
  π: '$\\pi$',
  ρ: '$\\rho$',
  σ: '$\\sigma$',
  τ: '$\\tau$',
  φ: '$\\phi$',
  χ: '$\\chi$',
  ψ: '$\\psi$',
  ω: '$\\omega$',
  Δ: '$\\Delta$',
  Λ: '$\\Lambda$',
  Ω: '$\\Omega$',
};
const SUBSCRIPT = '₀₁₂₃₄₅₆₇₈₉',
  SUPERSCRIPT = '⁰¹²³⁴⁵⁶⁷⁸⁹';
function latexChar(ch: string): string {
  if (LATEX_SPECIALS[ch]) return LATEX_SPECIALS[ch];
  if (LATEX_UNICODE[ch]) return LATEX_UNICODE[ch];
  if (SUBSCRIPT.includes(ch)) return `$_{${SUBSCRIPT.indexOf(ch)}}$`;
  if (SUPERSCRIPT.includes(ch)) return `$^{${SUPERSCRIPT.indexOf(ch)}}$`;
  return /[\u00c0-\u024f]/.test(ch) ? ch : '?'; // accented Latin letters pass; anything else would stop pdflatex
}
// One pass, so the backslashes this adds are not escaped again; newlines become spaces (a cell is one line).
const latexEscape = (s: string): string =>
  s.replace(/\s*\r?\n\s*/g, ' ').replace(/[&%$#_{}~^\\|<>]|[^\x00-\x7f]/gu, latexChar);

// A table float with booktabs rules; an interval is set small under its estimate (a cell two lines high, not twice
// as wide); numbers get a true minus. A table wider than the text (the arms table: 12 columns) is scaled to the
// text width, so it fits an A4 page.
export function tableToLatex(input: TableSpec): string {
  const t = parseTable(input);
  const num = (s: string) => latexEscape(s).replace(/^-/, '$-$');
  const cell = (c: CellText, align: string): string =>
    c === null
      ? '--'
      : !c.numeric
        ? latexEscape(c.main)
        : c.ci
          ? `\\begin{tabular}[t]{@{}${align}@{}}${num(c.main)}\\\\{\\scriptsize [${num(c.ci[0])}, ${num(c.ci[1])}]}\\end{tabular}`
          : num(c.main);
  const aligns = t.columns.map((c) => alignOf(t, c)[0]);
  const row = (cells: string[]) => `    ${cells.join(' & ')} \\\\`;
  return [
    '% needs \\usepackage{booktabs} and \\usepackage{graphicx}',
    '\\begin{table}[t]',
    '  \\centering',
    `  \\caption{${latexEscape(t.title)}}`,
    `  \\label{tab:${t.id}}`,
    '  \\small\\setlength{\\tabcolsep}{4pt}',
    '  \\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%',
    `  \\begin{tabular}{${aligns.join('')}}`,
    '    \\toprule',
    row(t.columns.map((c) => latexEscape(c.label))),
    '    \\midrule',
    ...t.rows.map((r) => row(t.columns.map((c, j) => cell(cellText(r[c.key], c.format), aligns[j])))),
    '    \\bottomrule',
    '  \\end{tabular}}',
    ...(t.notes ? ['  \\par\\smallskip', `  {\\footnotesize ${latexEscape(t.notes)}\\par}`] : []),
    '\\end{table}',
    '',
  ].join('\n');
}
