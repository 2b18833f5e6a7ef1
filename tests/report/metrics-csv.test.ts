import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { metricsToCsv } from '../../engine/report';
import type { MetricRecord } from '../../shared/runs';

describe('metricsToCsv', () => {
  it('writes one row per record: scope, x, ISO time, every tag, every value (empty when absent), numbers in full', () => {
    const records: MetricRecord[] = [
      {
        t: Date.UTC(2026, 0, 2, 3, 4, 5),
        scope: 'train',
        x: 5,
        values: { loss: 0.693147, inv: null },
        tags: { arm: 'good', seed: 0 },
      },
      {
        t: Date.UTC(2026, 0, 2, 3, 4, 6),
        scope: 'eval',
        x: 1,
        values: { r1: 0.0125 },
        tags: { arm: 'ntp, "x"', seed: 1 },
      },
    ];
    const rows = parse(metricsToCsv(records), { columns: true }) as Record<string, string>[];
    expect(rows).toEqual([
      {
        scope: 'train',
        x: '5',
        time: '2026-01-02T03:04:05.000Z',
        arm: 'good',
        seed: '0',
        loss: '0.693147',
        inv: '',
        r1: '',
      },
      {
        scope: 'eval',
        x: '1',
        time: '2026-01-02T03:04:06.000Z',
        arm: 'ntp, "x"',
        seed: '1',
        loss: '',
        inv: '',
        r1: '0.0125',
      },
    ]);
  });
});
