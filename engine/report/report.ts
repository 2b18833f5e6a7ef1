// A report folder: every figure as PNG/SVG/PDF, every table as CSV/Markdown/LaTeX, the resolved config,
// and index.md tying them together for a person to read.
import { join } from 'node:path';
import { writeFileAtomic, writeJsonAtomic } from '../atomic';
import { InputError } from '../errors';
import { FigureSpec, type FigureFormat } from '../../shared/figures';
import { renderFigure } from './figure';
import type { TableSpec } from '../../shared/tables';
import { parseTable, tableToCsv, tableToLatex, tableToMarkdown } from './table';

const FIGURE_FORMATS: FigureFormat[] = ['png', 'svg', 'pdf'];
const CONFIG_ROWS = 60; // beyond this the summary points to config.json

export type ReportInput = { title?: string; figures: FigureSpec[]; tables: TableSpec[]; config: unknown };

// Writes the files (each atomically) and returns their names relative to dir, index.md last.
export async function writeReport(dir: string, input: ReportInput): Promise<string[]> {
  const figures = input.figures.map((f) => {
    const parsed = FigureSpec.safeParse(f);
    if (!parsed.success)
      throw new InputError(
        `figure '${(f as { id?: string })?.id ?? '?'}': invalid figure spec (${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')})`,
      );
    return parsed.data;
  });
  const tables = input.tables.map(parseTable);
  for (const [kind, ids] of [
    ['figure', figures.map((f) => f.id)],
    ['table', tables.map((t) => t.id)],
  ] as const) {
    const dup = ids.find((id, i) => ids.indexOf(id) !== i);
    if (dup) throw new InputError(`report: two ${kind}s have the id '${dup}'`);
  }
  if (tables.some((t) => t.id === 'index'))
    throw new InputError("report: a table cannot have the id 'index' (its index.md would replace the report's)");
  if (input.config === undefined) throw new InputError('report: config is required (the resolved config of the run)');

  const written: string[] = [];
  const write = (name: string, data: string | Uint8Array) => {
    writeFileAtomic(join(dir, name), data);
    written.push(name);
  };
  for (const f of figures)
    for (const format of FIGURE_FORMATS) write(`${f.id}.${format}`, (await renderFigure(f, format)).bytes);
  for (const t of tables) {
    write(`${t.id}.csv`, tableToCsv(t));
    write(`${t.id}.md`, tableToMarkdown(t));
    write(`${t.id}.tex`, tableToLatex(t));
  }
  writeJsonAtomic(join(dir, 'config.json'), input.config);
  written.push('config.json');

  const title = input.title ?? 'Report';
  const md = [
    `# ${title}`,
    '',
    '## Configuration',
    '',
    'Full resolved configuration: [config.json](config.json)',
    '',
    configSummary(input.config),
    '',
  ];
  if (tables.length) {
    md.push('## Tables', '');
    for (const t of tables)
      md.push(tableToMarkdown(t), `Files: [CSV](${t.id}.csv) · [Markdown](${t.id}.md) · [LaTeX](${t.id}.tex)`, '');
  }
  if (figures.length) {
    md.push('## Figures', '');
    for (const f of figures)
      md.push(
        `### ${f.title}`,
        '',
        `![${f.title}](${f.id}.png)`,
        '',
        `Files: [PNG](${f.id}.png) · [SVG](${f.id}.svg) · [PDF](${f.id}.pdf)`,
        '',
      );
  }
  write('index.md', md.join('\n'));
  return written;
}

// The config's leaves as `dotted.key | value` rows; short arrays of scalars inline, longer ones as a count.
function configSummary(config: unknown): string {
  const rows: [string, string][] = [];
  const walk = (v: unknown, key: string) => {
    if (Array.isArray(v)) {
      if (v.length <= 8 && v.every((x) => x === null || typeof x !== 'object')) rows.push([key, JSON.stringify(v)]);
      else rows.push([key, `[${v.length} items]`]);
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v);
      if (!entries.length) rows.push([key, '{}']);
      for (const [k, x] of entries) walk(x, key ? `${key}.${k}` : k);
    } else rows.push([key || '(value)', typeof v === 'string' ? v : JSON.stringify(v)]);
  };
  walk(config, '');
  const esc = (s: string) => s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
  const shown = rows.slice(0, CONFIG_ROWS).map(([k, v]) => `| ${esc(k)} | ${esc(v)} |`);
  const more = rows.length > CONFIG_ROWS ? ['', `… and ${rows.length - CONFIG_ROWS} more in config.json`] : [];
  return ['| key | value |', '|:---|:---|', ...shown, ...more].join('\n');
}
