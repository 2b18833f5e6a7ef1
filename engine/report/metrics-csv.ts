// A run's metric records (metrics.jsonl) as one CSV table: scope, x, time, every tag, then every value key, a row
// per record in file order; an absent value is an empty cell. Numbers are written in full.
import type { MetricRecord } from '../../shared/runs';
import { csvField as field } from './table';

export function metricsToCsv(records: readonly MetricRecord[]): string {
  const tags = [...new Set(records.flatMap((r) => Object.keys(r.tags ?? {})))].sort();
  const values = [...new Set(records.flatMap((r) => Object.keys(r.values)))];
  const head = ['scope', 'x', 'time', ...tags, ...values];
  const rows = records.map((r) => [
    r.scope,
    String(r.x),
    new Date(r.t).toISOString(),
    ...tags.map((k) => (r.tags?.[k] === undefined ? '' : String(r.tags[k]))),
    ...values.map((k) => (r.values[k] === undefined || r.values[k] === null ? '' : String(r.values[k]))),
  ]);
  return [head, ...rows].map((row) => row.map(field).join(',')).join('\r\n') + '\r\n';
}
