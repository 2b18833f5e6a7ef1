// Number formatting for readouts: exact-looking zeros stay readable (5.3e-15), ordinary values get 3-4 digits.
export function fmt(v: unknown): string {
  if (typeof v !== 'number') return v === null || v === undefined ? '—' : String(v);
  if (Number.isInteger(v)) return String(v);
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e5)) return v.toExponential(2);
  return v.toFixed(a < 1 ? 4 : 3);
}

// Flattens a nested JSON result into label/value rows for a compact readout table.
export function flatten(obj: unknown, prefix = ''): [string, string][] {
  if (obj === null || typeof obj !== 'object') return [[prefix, fmt(obj)]];
  if (Array.isArray(obj)) return [[prefix, fmtArray(obj)]];
  return Object.entries(obj).flatMap(([k, v]) => flatten(v, prefix ? `${prefix}.${k}` : k));
}

// Short arrays in full; long numeric ones by their distinct values or their range; matrices by shape.
function fmtArray(a: unknown[]): string {
  if (a.every(Array.isArray)) return `${a.length}×${(a[0] as unknown[] | undefined)?.length ?? 0} matrix`;
  if (a.every((x) => typeof x === 'string') && a.length <= 12) return a.join(', ');
  if (!a.every((x) => typeof x === 'number')) return `${a.length} items`;
  const xs = a as number[];
  if (xs.length <= 12) return xs.map(fmt).join(', ');
  const distinct = [...new Set(xs.map(fmt))];
  if (distinct.length <= 3) return `${distinct.join(', ')} (${xs.length} values)`;
  return `${xs.length} values in [${fmt(Math.min(...xs))}, ${fmt(Math.max(...xs))}]`;
}
