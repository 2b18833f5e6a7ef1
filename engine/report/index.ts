// Report: figures (PNG/SVG/PDF), tables (CSV/Markdown/LaTeX), metrics as CSV, report folders and zipped runs.
export { renderFigure } from './figure';
export { parseTable, tableToCsv, tableToMarkdown, tableToLatex } from './table';
export { metricsToCsv } from './metrics-csv';
export { writeReport, type ReportInput } from './report';
export { bundleRun, writeBundle, type BundleOptions } from './bundle';
