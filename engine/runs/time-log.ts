// A run's time.jsonl: the phases of its job as spans of wall time with the CPU the process used in them. A span is
// written when the phase changes and every tickMs while it lasts, so a killed process loses at most one tick.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { TimeSpan } from '../../shared/timing';

export const TIME_FILE = 'time.jsonl';
const TICK_MS = 5_000;

const cpuSeconds = () => {
  const u = process.cpuUsage(); // µs, every thread of this process
  return (u.user + u.system) / 1e6;
};

export class TimeLog {
  private phase: string;
  private from: number;
  private cpu: number;
  private readonly tick: NodeJS.Timeout;

  // The first span starts with the process (loading modules is part of a run's cost): phase `first`.
  constructor(
    private readonly file: string,
    first: string,
    opts: { tickMs?: number } = {},
  ) {
    this.phase = first;
    this.from = Math.round(performance.timeOrigin);
    this.cpu = 0;
    this.tick = setInterval(() => this.flush(), opts.tickMs ?? TICK_MS).unref();
  }

  // From now on the process works on `phase` (the same phase again: nothing changes).
  enter(phase: string): void {
    if (phase === this.phase) return;
    this.flush();
    this.phase = phase;
  }

  // Every span of the file so far, the current phase's up to now included.
  spans(): TimeSpan[] {
    this.flush();
    return readTimeLog(this.file);
  }

  close(): void {
    clearInterval(this.tick);
    this.flush();
  }

  // Writes the current phase's span up to now. A lost write (a full disk) loses the span, never the run.
  private flush(): void {
    const to = Date.now();
    const cpu = cpuSeconds();
    const span: TimeSpan = { phase: this.phase, from: this.from, to, cpu: Math.max(0, cpu - this.cpu) };
    [this.from, this.cpu] = [to, cpu];
    if (span.to <= span.from && span.cpu === 0) return;
    try {
      appendFileSync(this.file, JSON.stringify(span) + '\n');
    } catch {
      // the time table is a record of the run, not part of its result
    }
  }
}

// The spans of a time.jsonl; a torn or foreign line is skipped, a missing file has none.
export function readTimeLog(file: string): TimeSpan[] {
  if (!existsSync(file)) return [];
  const spans: TimeSpan[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const s = TimeSpan.safeParse(JSON.parse(line));
      if (s.success) spans.push(s.data);
    } catch {
      // a line cut by a kill
    }
  }
  return spans;
}
