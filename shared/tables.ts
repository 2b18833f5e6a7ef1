// A table as data: the engine writes the same spec as CSV, Markdown and LaTeX for papers and run reports.
import { z } from 'zod';

// A point estimate with its 95% confidence interval, printed as `0.243 [0.215, 0.271]`.
export const Estimate = z
  .object({ value: z.number(), lo: z.number(), hi: z.number() })
  .refine((e) => e.lo <= e.hi, { message: 'an estimate needs lo <= hi' });
export type Estimate = z.infer<typeof Estimate>;

export const Cell = z.union([z.number(), z.string(), z.null(), Estimate]);
export type Cell = z.infer<typeof Cell>;

// How numbers print. auto: integers as is, others to 4 significant digits. pct: a fraction as 24.3%.
// ci: 3 decimals, and every filled cell must be an estimate (so a column cannot silently lose its intervals).
export const ColumnFormat = z.enum(['auto', 'int', 'fixed1', 'fixed2', 'fixed3', 'pct', 'sci', 'ci']);
export type ColumnFormat = z.infer<typeof ColumnFormat>;

export const Column = z.object({
  key: z.string().min(1),
  label: z.string().min(1, 'every column needs a header'),
  align: z.enum(['left', 'center', 'right']).optional(), // default: right for numbers, left for text
  format: ColumnFormat.default('auto'),
});
export type Column = z.output<typeof Column>;

export const TableSpec = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9._-]{1,80}$/), // becomes the file name on export
    title: z.string(),
    columns: z.array(Column).min(1).max(64),
    rows: z.array(z.record(z.string(), Cell)), // a missing key is an empty cell
    notes: z.string().optional(),
  })
  .superRefine((t, ctx) => {
    const keys = new Set(t.columns.map((c) => c.key));
    if (keys.size !== t.columns.length)
      ctx.addIssue({ code: 'custom', path: ['columns'], message: 'column keys must be unique' });
    const ci = t.columns.filter((c) => c.format === 'ci').map((c) => c.key);
    t.rows.forEach((row, i) => {
      for (const k of Object.keys(row))
        if (!keys.has(k)) ctx.addIssue({ code: 'custom', path: ['rows', i, k], message: `no column has key '${k}'` });
      for (const k of ci) {
        const v = row[k];
        if (v !== undefined && v !== null && typeof v !== 'object')
          ctx.addIssue({
            code: 'custom',
            path: ['rows', i, k],
            message: `column '${k}' has format ci: expected {value, lo, hi}, got ${JSON.stringify(v)}`,
          });
      }
    });
  });
export type TableSpec = z.input<typeof TableSpec>;
export type TableSpecResolved = z.output<typeof TableSpec>;
