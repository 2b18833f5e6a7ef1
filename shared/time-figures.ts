// Where an experiment's time went, as specs: its phases, each arm's phases, and the cores busy over time. The
// Experiment page draws them, `prh runs show` prints the tables, and the report writes the same ones.
import { PALETTE, type FigureSpec } from './figures';
import type { TableSpec } from './tables';
import { TRAIN_PHASES, type PhaseTime, type TimeTable } from './timing';

// m:ss, to the nearest second
export function clock(s: number): string {
  const r = Math.round(s);
  return `${Math.floor(r / 60)}:${String(r % 60).padStart(2, '0')}`;
}

// One line: the idlest minute and the cores, or '' when the table has no curve.
export function idlestLine(t: TimeTable): string {
  if (!t.idlest) return '';
  const to = Math.min(t.idlest.toS, t.busy.stepS * t.busy.cores.length);
  return `idlest ${to - t.idlest.fromS >= 60 ? 'minute' : 'stretch'}: ${clock(t.idlest.fromS)}–${clock(to)}, ${t.idlest.cores.toFixed(2)} of ${t.cores} cores busy`;
}

// Phases as rows: wall, its share, CPU and the cores it kept busy, then the total.
export function phaseTable(phases: readonly PhaseTime[], opts: { id?: string; notes?: string } = {}): TableSpec {
  const total = (k: 'wallS' | 'cpuS') => phases.reduce((s, p) => s + p[k], 0);
  const wall = total('wallS');
  const row = (p: PhaseTime) => ({
    phase: p.phase,
    wall: p.wallS,
    share: wall > 0 ? p.wallS / wall : null,
    cpu: p.cpuS,
    cores: p.wallS > 0 ? p.cpuS / p.wallS : null,
  });
  return {
    id: opts.id ?? 'time',
    title: 'Time per phase',
    columns: [
      { key: 'phase', label: 'Phase' },
      { key: 'wall', label: 'Wall (s)', format: 'fixed1' },
      { key: 'share', label: 'Of the wall time', format: 'pct' },
      { key: 'cpu', label: 'CPU (s)', format: 'fixed1' },
      { key: 'cores', label: 'Cores busy', format: 'fixed2' },
    ],
    rows: [...phases.map(row), row({ phase: 'total', wallS: wall, cpuS: total('cpuS') })],
    ...(opts.notes ? { notes: opts.notes } : {}),
  };
}

// One line: the wall and CPU time, the phase that took most of it, the idlest minute.
export function timeLine(t: TimeTable): string {
  const top = [...t.phases].sort((a, b) => b.wallS - a.wallS)[0];
  const most = top && t.wallS > 0 ? `; ${top.phase} ${((100 * top.wallS) / t.wallS).toFixed(0)}% of it` : '';
  const idle = idlestLine(t);
  return `${clock(t.wallS)} wall, ${Math.round(t.cpuS).toLocaleString('en')} CPU seconds on ${t.cores} cores${most}${idle ? `; ${idle}` : ''}`;
}

export function timeTable(t: TimeTable, id = 'time'): TableSpec {
  const idle = idlestLine(t);
  return phaseTable(t.phases, {
    id,
    notes: [
      `CPU: user + system seconds of the experiment's process and, in training arms, of its ${t.arms.length} arm run(s) too (the next table); cores busy = CPU / wall, of ${t.cores}.`,
      idle && `${idle}${t.attempts > 1 ? ' (this attempt)' : ''}.`,
      t.attempts > 1 ? `${t.attempts} attempts: the phases add every attempt's time.` : '',
      "report: writing the report's figures and tables; the copy of this table in report/ was made as that began.",
    ]
      .filter(Boolean)
      .join(' '),
  });
}

const isTrainPhase = (phase: string) => (TRAIN_PHASES as readonly string[]).includes(phase);

// An arm's phases as columns; a phase an arm never entered is empty, one no training phase names is 'other'.
export const armTimeTable = (t: TimeTable, id = 'time-arms'): TableSpec => {
  const seeds = new Set(t.arms.map((a) => a.seed)).size;
  const other = (a: TimeTable['arms'][number]) =>
    a.phases.filter((p) => !isTrainPhase(p.phase)).reduce((s, p) => s + p.wallS, 0);
  return {
    id,
    title: 'Time per arm run (wall seconds per phase)',
    columns: [
      { key: 'arm', label: 'Arm' },
      ...(seeds > 1 ? [{ key: 'seed', label: 'Seed', format: 'int' as const }] : []),
      { key: 'wall', label: 'Wall (s)', format: 'fixed1' },
      ...TRAIN_PHASES.map((p) => ({ key: p, label: p, format: 'fixed1' as const })),
      ...(t.arms.some((a) => other(a) > 0) ? [{ key: 'other', label: 'other', format: 'fixed1' as const }] : []),
      { key: 'cpu', label: 'CPU (s)', format: 'fixed1' },
      { key: 'cores', label: 'Cores', format: 'fixed2' },
    ],
    rows: t.arms.map((a) => ({
      arm: a.arm,
      ...(seeds > 1 ? { seed: a.seed } : {}),
      wall: a.wallS,
      ...Object.fromEntries(a.phases.filter((p) => isTrainPhase(p.phase)).map((p) => [p.phase, p.wallS])),
      ...(other(a) > 0 ? { other: other(a) } : {}),
      cpu: a.cpuS,
      cores: a.wallS > 0 ? a.cpuS / a.wallS : null,
    })),
    notes:
      'cores: CPU / wall, what the arm got of the cores it shared; starting: the process loading its modules; setup: backend, tokenizer, corpus and model; evaluation: embedding the val and test captions and scoring the epoch on the fit pairs.',
  };
};

export function coresBusyFigure(t: TimeTable, id = 'cores-busy'): FigureSpec {
  return {
    id,
    title: 'Cores busy over time',
    x: { label: 'minutes from the start', min: 0, max: (t.busy.cores.length * t.busy.stepS) / 60 },
    y: { label: `cores busy (of ${t.cores})`, min: 0 },
    series: [
      {
        label: 'experiment and its arms',
        color: PALETTE[0],
        style: 'step',
        points: t.busy.cores.map((c, i) => ({ x: ((i + 0.5) * t.busy.stepS) / 60, y: c })), // at bin centres
      },
    ],
    refLines: [
      { axis: 'y', value: t.cores, label: `${t.cores} cores` },
      ...(t.idlest ? [{ axis: 'x' as const, value: t.idlest.fromS / 60, label: idlestLine(t) }] : []),
    ],
  };
}
