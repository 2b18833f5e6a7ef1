// Which rows are fit pairs and which are test pairs: a half-open range [start, end) or an explicit index list.
import { z } from 'zod';
import { InputError } from '../errors';

export const RowSelection = z.union([
  z.object({ start: z.number().int().nonnegative(), end: z.number().int().nonnegative() }),
  z.array(z.number().int().nonnegative()).min(1),
]);
export type RowSelection = z.infer<typeof RowSelection>;

// "0:1014" -> {start: 0, end: 1014}
export function parseRange(text: string, flag: string): RowSelection {
  const m = /^(\d+):(\d+)$/.exec(text.trim());
  if (!m) throw new InputError(`${flag}: expected START:END (half-open row range), got '${text}'`);
  return { start: Number(m[1]), end: Number(m[2]) };
}

export function resolveRows(sel: RowSelection, rows: number, what: string): Int32Array {
  const idx = Array.isArray(sel)
    ? Int32Array.from(sel)
    : Int32Array.from({ length: Math.max(0, sel.end - sel.start) }, (_, i) => sel.start + i);
  if (!Array.isArray(sel) && sel.end <= sel.start) throw new InputError(`${what}: empty range ${sel.start}:${sel.end}`);
  for (const i of idx)
    if (i >= rows) throw new InputError(`${what}: row ${i} is out of range (the files have ${rows} rows)`);
  if (new Set(idx).size !== idx.length) throw new InputError(`${what}: repeated row indices`);
  return idx;
}

// Fit and test rows must not overlap: centering means and the map come from fit rows only.
export function assertDisjoint(fit: Int32Array, test: Int32Array): void {
  const f = new Set(fit);
  const shared = test.filter((i) => f.has(i));
  if (shared.length)
    throw new InputError(
      `fit and test rows overlap (${shared.length} rows, first ${shared[0]}); test rows would leak into the map`,
    );
}
