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
  if (Array.isArray(obj)) {
    return obj.every((x) => typeof x === 'number') && obj.length <= 12 ? [[prefix, obj.map(fmt).join(', ')]] : [[prefix, `${obj.length} values`]];
  }
  return Object.entries(obj).flatMap(([k, v]) => flatten(v, prefix ? `${prefix}.${k}` : k));
}
