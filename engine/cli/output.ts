// How every command talks: one JSON document with --json, aligned tables otherwise; exit codes that mean something.
import { ZodError, type z } from 'zod';
import { issuePath, issueText } from '../../shared/issues';
import { DiskFullError, InputError } from '../errors';

export const EXIT = { ok: 0, failed: 1, usage: 2, diverged: 3, cancelled: 130 } as const;

export function printTable(rows: Record<string, unknown>[], columns?: string[]): void {
  if (!rows.length) return console.log('(none)');
  const cols = columns ?? Object.keys(rows[0]);
  const cell = (v: unknown) =>
    typeof v === 'number'
      ? Number.isInteger(v)
        ? String(v)
        : v.toPrecision(4)
      : v === null || v === undefined
        ? ''
        : String(v);
  const table = [cols, ...rows.map((r) => cols.map((c) => cell(r[c])))];
  const widths = cols.map((_, i) => Math.max(...table.map((r) => r[i].length)));
  for (const [n, r] of table.entries()) {
    console.log(
      r
        .map((v, i) => v.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    );
    if (n === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
}

// Errors a user can fix print just their message and exit 2; a full disk prints its message and exits 1 (the
// input was fine; resume once space is freed); anything else is a bug and prints its stack.
export function reportError(err: unknown, json: boolean): number {
  if (err instanceof DiskFullError) {
    if (json) console.log(JSON.stringify({ error: err.message }));
    else console.error(`error: ${err.message}`);
    return EXIT.failed;
  }
  const user = err instanceof InputError || err instanceof ZodError;
  const message =
    err instanceof ZodError
      ? err.issues.map((i) => `${issuePath(i) || 'input'}: ${issueText(i)}`).join('\n')
      : err instanceof Error
        ? err.message
        : String(err);
  if (json) console.log(JSON.stringify({ error: message }));
  else console.error(user ? `error: ${message}` : err instanceof Error ? err.stack : message);
  return user ? EXIT.usage : EXIT.failed;
}

// Command-line flags checked against a schema: each issue names its flag as typed (`--lamb-eff: must be more than 0`).
export const flagName = (key: PropertyKey | undefined): string =>
  `--${String(key ?? '').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
export function parseFlags<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const r = schema.safeParse(raw);
  if (!r.success) throw new InputError(r.error.issues.map((i) => `${flagName(i.path[0])}: ${issueText(i)}`).join('; '));
  return r.data;
}

// A numeric option value, or an InputError naming the flag.
export const numberOption =
  (name: string) =>
  (v: string): number => {
    const x = Number(v);
    if (!Number.isFinite(x)) throw new InputError(`--${name}: expected a number, got '${v}'`);
    return x;
  };
