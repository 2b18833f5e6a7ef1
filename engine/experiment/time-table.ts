// Where an experiment's time went: its own phases (time.jsonl of its run), each arm's (the arm run's time.jsonl),
// and the cores all of them kept busy over this attempt, with its idlest minute.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { coresBusy, idlestWindow, phaseTotals, type TimeSpan, type TimeTable } from '../../shared/timing';
import { readTimeLog, TIME_FILE, type RunStore } from '../runs';
import { childKey } from './layout';

const BIN_STEPS_S = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600];
const BINS = 150; // at most this many points in the cores-busy curve

// The attempts in one process's spans: each process writes its spans back to back, so a gap starts another.
const attempts = (spans: readonly TimeSpan[]) => spans.filter((s, i) => i === 0 || s.from !== spans[i - 1].to).length;

export function experimentTime(opts: {
  own: TimeSpan[]; // the experiment's spans, all attempts, up to now
  arms: { arm: string; seed: number; spans: TimeSpan[] }[];
  startedAt: number; // this attempt's start, ms since the epoch
  now: number;
}): TimeTable {
  const arms = opts.arms.map(({ arm, seed, spans }) => {
    const phases = phaseTotals(spans);
    const sum = (k: 'wallS' | 'cpuS') => phases.reduce((s, p) => s + p[k], 0);
    return { arm, seed, wallS: sum('wallS'), cpuS: sum('cpuS'), phases };
  });
  const armsCpu = arms.reduce((s, a) => s + a.cpuS, 0);
  const phases = phaseTotals(opts.own).map((p) => (p.phase === 'training arms' ? { ...p, cpuS: p.cpuS + armsCpu } : p));
  const attemptS = (opts.now - opts.startedAt) / 1000;
  const stepS = BIN_STEPS_S.find((s) => s * BINS >= attemptS) ?? BIN_STEPS_S[BIN_STEPS_S.length - 1];
  const busy = {
    stepS,
    cores: coresBusy([...opts.own, ...opts.arms.flatMap((a) => a.spans)], {
      from: opts.startedAt,
      to: opts.now,
      stepS,
    }),
  };
  return {
    startedAt: new Date(opts.startedAt).toISOString(),
    wallS: phases.reduce((s, p) => s + p.wallS, 0),
    cpuS: phases.reduce((s, p) => s + p.cpuS, 0),
    cores: availableParallelism(),
    attempts: attempts(opts.own),
    phases,
    arms,
    busy,
    idlest: idlestWindow(busy, Math.max(1, Math.round(60 / stepS))),
  };
}

// An experiment's table as its own process sees it: the arms' spans read once (they have all ended), its own time.jsonl
// through `spans` (the current phase up to now) each time the returned function is called.
export function experimentClock(
  spans: () => TimeSpan[],
  arms: { store: RunStore; children: Record<string, string>; keys: { arm: string; seed: number }[] },
): () => TimeTable {
  const armSpans = arms.keys.flatMap(({ arm, seed }) => {
    const id = arms.children[childKey(arm, seed)];
    return id ? [{ arm, seed, spans: readTimeLog(join(arms.store.dir(id), TIME_FILE)) }] : [];
  });
  return () => {
    const own = spans();
    return experimentTime({
      own,
      arms: armSpans,
      startedAt: Math.round(performance.timeOrigin),
      now: own.length ? own[own.length - 1].to : Date.now(),
    });
  };
}
