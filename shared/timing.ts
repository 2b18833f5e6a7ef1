// Where a run's time went. Each run's process appends spans to its time.jsonl: an interval of wall time in one phase
// of its job, with the CPU seconds the process used in it (all its threads). An experiment sums its own spans and its
// arms' into phases, and buckets them into cores busy over time.
import { z } from 'zod';

export const TimeSpan = z.object({
  phase: z.string(),
  from: z.number(), // ms since the Unix epoch
  to: z.number(),
  cpu: z.number().min(0), // s, user + system
});
export type TimeSpan = z.infer<typeof TimeSpan>;

// A training run's phases, in the order an epoch passes through them (starting: the process loading its modules;
// setup: backend, tokenizer, corpus and model, once).
export const TRAIN_PHASES = ['starting', 'setup', 'steps', 'validation', 'evaluation', 'checkpoints'] as const;
export type TrainPhase = (typeof TRAIN_PHASES)[number];

export type PhaseTime = { phase: string; wallS: number; cpuS: number };
export type ArmTime = { arm: string; seed: number; wallS: number; cpuS: number; phases: PhaseTime[] };

// busy: mean cores busy per stepS-second bin, from startedAt (this attempt's start); idlest: the minute (or the whole
// attempt, when shorter) with the fewest cores busy on average, from fromS after the start.
export type TimeTable = {
  startedAt: string;
  wallS: number; // the experiment's phases, every attempt
  cpuS: number; // every process: the experiment's and its arms', every attempt
  cores: number; // the machine's the experiment ran on, as Node counts them
  attempts: number; // a resumed experiment's phases add its earlier attempts'; busy covers this one only
  phases: PhaseTime[]; // the experiment's own, in the order they first ran; cpuS of 'training arms' includes the arms'
  arms: ArmTime[];
  busy: { stepS: number; cores: number[] };
  idlest: { fromS: number; toS: number; cores: number } | null;
};

// Wall and CPU seconds per phase, in the order each phase first appears.
export function phaseTotals(spans: readonly TimeSpan[]): PhaseTime[] {
  const out = new Map<string, PhaseTime>();
  for (const s of spans) {
    const p = out.get(s.phase) ?? out.set(s.phase, { phase: s.phase, wallS: 0, cpuS: 0 }).get(s.phase)!;
    p.wallS += (s.to - s.from) / 1000;
    p.cpuS += s.cpu;
  }
  return [...out.values()];
}

// Mean cores busy in each stepS bin of [from, to) (ms): a span's CPU spread evenly over its wall time, summed over
// processes. A span partly outside the window counts only the part inside.
export function coresBusy(spans: readonly TimeSpan[], window: { from: number; to: number; stepS: number }): number[] {
  const step = window.stepS * 1000;
  const bins = new Array<number>(Math.max(1, Math.ceil((window.to - window.from) / step))).fill(0); // CPU s per bin
  for (const s of spans) {
    if (s.to <= s.from) {
      // a span within one clock tick (ms): its CPU in the bin it fell in
      const i = Math.floor((s.from - window.from) / step);
      if (s.from >= window.from && s.from <= window.to) bins[Math.min(i, bins.length - 1)] += s.cpu;
      continue;
    }
    const a = Math.max(s.from, window.from);
    const b = Math.min(s.to, window.to);
    if (b <= a) continue;
    const rate = s.cpu / (s.to - s.from); // CPU s per wall ms
    for (let i = Math.floor((a - window.from) / step); i < bins.length; i++) {
      const lo = Math.max(a, window.from + i * step);
      const hi = Math.min(b, window.from + (i + 1) * step);
      if (hi <= lo) break;
      bins[i] += rate * (hi - lo);
    }
  }
  // the last bin may be shorter than a step
  return bins.map((cpu, i) => cpu / (Math.min(step, window.to - window.from - i * step) / 1000));
}

// The window of `binsPerWindow` consecutive bins with the lowest mean (all of them when there are fewer).
export function idlestWindow(
  busy: { stepS: number; cores: number[] },
  binsPerWindow: number,
): { fromS: number; toS: number; cores: number } | null {
  const n = busy.cores.length;
  if (!n) return null;
  const w = Math.min(binsPerWindow, n);
  let best = { at: 0, sum: Infinity };
  for (let i = 0; i + w <= n; i++) {
    const sum = busy.cores.slice(i, i + w).reduce((a, b) => a + b, 0);
    if (sum < best.sum) best = { at: i, sum };
  }
  return { fromS: best.at * busy.stepS, toS: (best.at + w) * busy.stepS, cores: best.sum / w };
}
