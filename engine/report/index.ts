// Report: figures (PNG/SVG/PDF), tables (CSV/Markdown/LaTeX), report folders and zipped runs, for papers.
export { renderFigure } from './figure';
export { tableToCsv, tableToMarkdown, tableToLatex } from './table';
export { writeReport, type ReportInput } from './report';
export { bundleRun, writeBundle, type BundleOptions } from './bundle';
