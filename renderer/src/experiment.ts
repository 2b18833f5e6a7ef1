// What an experiment looks like on screen beyond its figures and tables (those are in shared/experiment-figures.ts,
// shared with the run's report): which runs are finished experiments, the λ_eff their training recorded, and an ETA
// from progress events.
import type { ExperimentResult } from '../../shared/experiment';
import type { Progress, RunState } from '../../shared/runs';

export const isExperimentResult = (r: unknown): r is ExperimentResult =>
  !!r &&
  typeof r === 'object' &&
  Array.isArray((r as ExperimentResult).arms) &&
  Array.isArray((r as ExperimentResult).differences);
export const experimentResult = (s: RunState | undefined): ExperimentResult | null =>
  isExperimentResult(s?.result) ? s.result : null;

// ETA from the rate of progress events: a window of recent (time, done) samples, restarted when the phase changes.
// The λ_eff an experiment's training resolved and recorded (its first JEPA arm's); null until an arm has one.
export const recordedLambEff = (r: ExperimentResult | null): number | null =>
  r?.arms.find((a) => a.lambEff !== undefined)?.lambEff ?? null;

export type Rate = { samples: { t: number; done: number }[]; phase: string };
export function observe(rate: Rate, p: Progress, now = Date.now()): void {
  const phase = `${p.message ?? ''}/${p.total}`;
  if (phase !== rate.phase || (rate.samples.length && p.done < rate.samples[rate.samples.length - 1].done)) {
    rate.phase = phase;
    rate.samples = [];
  }
  rate.samples.push({ t: now, done: p.done });
  while (rate.samples.length > 2 && now - rate.samples[0].t > 60_000) rate.samples.shift();
}
export function eta(rate: Rate, p: Progress | undefined): string {
  const s = rate.samples;
  if (!p || s.length < 2 || p.done >= p.total) return '';
  const perMs = (s[s.length - 1].done - s[0].done) / (s[s.length - 1].t - s[0].t);
  if (!(perMs > 0)) return '';
  const sec = Math.round((p.total - p.done) / perMs / 1000);
  const text = sec < 90 ? `${sec} s` : sec < 5400 ? `${Math.round(sec / 60)} min` : `${(sec / 3600).toFixed(1)} h`;
  return `${text} left in this phase (${(perMs * 1000).toFixed(2)} /s)`;
}
