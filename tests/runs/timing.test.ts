// Where the time went: spans summed into phases, spread into cores busy per bin, the idlest minute, and a process's
// own time.jsonl (wall and CPU per phase, back to back, a torn line skipped).
import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTimeLog, TimeLog } from '../../engine/runs';
import { parseTable } from '../../engine/report';
import { armTimeTable, clock, coresBusyFigure, idlestLine, timeLine, timeTable } from '../../shared/time-figures';
import { coresBusy, idlestWindow, phaseTotals, type TimeSpan, type TimeTable } from '../../shared/timing';

const span = (phase: string, fromS: number, toS: number, cpu: number): TimeSpan => ({
  phase,
  from: fromS * 1000,
  to: toS * 1000,
  cpu,
});

describe('time spans', () => {
  it('add up per phase, in the order each phase first ran', () => {
    const p = phaseTotals([span('a', 0, 2, 1), span('b', 2, 3, 0.5), span('a', 3, 7, 4)]);
    expect(p).toEqual([
      { phase: 'a', wallS: 6, cpuS: 5 },
      { phase: 'b', wallS: 1, cpuS: 0.5 },
    ]);
  });

  it('spread their CPU evenly over their wall time into bins of cores busy', () => {
    // process 1: 2 cores' worth for 0-10 s (20 CPU s), process 2: one core for 5-15 s; window 0-20 s in 5 s bins
    const busy = coresBusy([span('x', 0, 10, 20), span('y', 5, 15, 10)], { from: 0, to: 20_000, stepS: 5 });
    expect(busy).toEqual([2, 3, 1, 0]);
    // a span cut by the window counts only its part inside; a last, shorter bin is a rate over its own length
    expect(coresBusy([span('x', -5, 5, 10)], { from: 0, to: 7_000, stepS: 5 })).toEqual([1, 0]);
    expect(coresBusy([span('x', 0, 7, 7)], { from: 0, to: 7_000, stepS: 5 })).toEqual([1, 1]);
    // a span within one clock tick keeps its CPU, in the bin it fell in
    expect(coresBusy([span('x', 6, 6, 0.5)], { from: 0, to: 10_000, stepS: 5 })).toEqual([0, 0.1]);
  });

  it('conserve CPU: the bins integrate to the CPU of the spans inside the window', () => {
    const spans = Array.from({ length: 40 }, (_, i) => span(`p${i % 3}`, i * 1.7, i * 1.7 + 3.1, (i % 5) * 0.9));
    spans.push(span('within a tick', 5, 5, 0.3));
    const to = 40 * 1.7 + 3.1;
    const busy = coresBusy(spans, { from: 0, to: to * 1000, stepS: 2 });
    const integral = busy.reduce((s, c, i) => s + c * Math.min(2, to - 2 * i), 0);
    expect(integral).toBeCloseTo(
      spans.reduce((s, x) => s + x.cpu, 0),
      9,
    );
  });

  it('find the idlest window of consecutive bins', () => {
    expect(idlestWindow({ stepS: 10, cores: [2, 2, 1, 0.5, 2, 2, 2] }, 2)).toEqual({ fromS: 20, toS: 40, cores: 0.75 });
    expect(idlestWindow({ stepS: 10, cores: [1.5, 1] }, 6)).toEqual({ fromS: 0, toS: 20, cores: 1.25 });
    expect(idlestWindow({ stepS: 10, cores: [] }, 6)).toBeNull();
  });
});

describe('a process time log', () => {
  it('writes back-to-back spans from the process start, with the CPU of each phase', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'prh-time-')), 'time.jsonl');
    const log = new TimeLog(file, 'starting', { tickMs: 50 });
    log.enter('spinning');
    const cpu0 = process.cpuUsage();
    let x = 0;
    while (process.cpuUsage(cpu0).user < 300_000) x += Math.sqrt(x + 1); // 0.3 CPU s, however busy the machine
    log.enter('sleeping');
    await new Promise((r) => setTimeout(r, 400));
    log.enter('sleeping'); // the same phase again changes nothing
    const spans = log.spans();
    log.close();
    expect(spans[0]).toMatchObject({ phase: 'starting', from: Math.round(performance.timeOrigin) });
    for (let i = 1; i < spans.length; i++) expect(spans[i].from).toBe(spans[i - 1].to);
    const p = Object.fromEntries(phaseTotals(spans).map((t) => [t.phase, t]));
    expect(Object.keys(p)).toEqual(['starting', 'spinning', 'sleeping']);
    expect(p.spinning.cpuS).toBeGreaterThanOrEqual(0.3);
    expect(p.sleeping.wallS).toBeGreaterThanOrEqual(0.39);
    expect(p.sleeping.cpuS).toBeLessThan(0.2);
    // ticks split a long phase, so a killed process loses at most one tick of it
    expect(spans.filter((s) => s.phase === 'sleeping').length).toBeGreaterThanOrEqual(2);
    expect(x).toBeGreaterThan(0);

    appendFileSync(file, '{"phase":"torn","from":1');
    expect(readTimeLog(file)).toHaveLength(readFileSync(file, 'utf8').trim().split('\n').length - 1);
  });
});

describe('the time tables', () => {
  const t: TimeTable = {
    startedAt: '2026-12-06T00:00:00.000Z',
    wallS: 200,
    cpuS: 330,
    cores: 2,
    attempts: 1,
    phases: [
      { phase: 'starting', wallS: 2, cpuS: 1.5 },
      { phase: 'training arms', wallS: 180, cpuS: 320 },
      { phase: 'comparing arms', wallS: 18, cpuS: 8.5 },
    ],
    arms: [
      {
        arm: 'good',
        seed: 0,
        wallS: 170,
        cpuS: 160,
        phases: [
          { phase: 'starting', wallS: 2, cpuS: 2 },
          { phase: 'steps', wallS: 160, cpuS: 150 },
          { phase: 'checkpoints', wallS: 8, cpuS: 8 },
        ],
      },
      { arm: 'ntp', seed: 0, wallS: 60, cpuS: 60, phases: [{ phase: 'steps', wallS: 60, cpuS: 60 }] },
    ],
    busy: { stepS: 60, cores: [1.9, 1.2, 1.95, 1.6] },
    idlest: { fromS: 60, toS: 120, cores: 1.2 },
  };

  it('put the phases with their share and cores busy, and a total', () => {
    const table = parseTable(timeTable(t));
    expect(table.rows.map((r) => r.phase)).toEqual(['starting', 'training arms', 'comparing arms', 'total']);
    expect(table.rows[1]).toMatchObject({ wall: 180, share: 0.9, cpu: 320, cores: 320 / 180 });
    expect(table.rows[3]).toMatchObject({ wall: 200, share: 1, cpu: 330 });
    expect(table.notes).toContain('idlest minute: 1:00–2:00, 1.20 of 2 cores busy');
  });

  it('give each arm its phases as columns, empty where it never entered one', () => {
    const table = parseTable(armTimeTable(t));
    expect(table.columns.map((c) => c.key)).toEqual([
      'arm',
      'wall',
      'starting',
      'setup',
      'steps',
      'validation',
      'evaluation',
      'checkpoints',
      'cpu',
      'cores',
    ]);
    expect(table.rows[0]).toMatchObject({ arm: 'good', steps: 160, checkpoints: 8 });
    expect(table.rows[1].validation).toBeUndefined();
  });

  it('draw the cores busy per bin against minutes, with the machine cores and the idlest minute', () => {
    const f = coresBusyFigure(t);
    expect(f.series[0].points).toEqual([
      { x: 0.5, y: 1.9 },
      { x: 1.5, y: 1.2 },
      { x: 2.5, y: 1.95 },
      { x: 3.5, y: 1.6 },
    ]);
    expect(f.refLines?.map((r) => [r.axis, r.value])).toEqual([
      ['y', 2],
      ['x', 1],
    ]);
    expect([59.6, 119.4, 612.5].map(clock)).toEqual(['1:00', '1:59', '10:13']);
    expect(timeLine(t)).toBe(
      '3:20 wall, 330 CPU seconds on 2 cores; training arms 90% of it; idlest minute: 1:00–2:00, 1.20 of 2 cores busy',
    );
    expect(idlestLine({ ...t, idlest: { fromS: 0, toS: 60, cores: 0.4 }, busy: { stepS: 5, cores: [0.4, 0.4] } })).toBe(
      'idlest stretch: 0:00–0:10, 0.40 of 2 cores busy',
    );
  });
});
