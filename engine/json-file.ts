// Reads JSON through a zod schema, the one way any folder reads a JSON file it did not just write: every failure
// becomes an InputError naming the file and the line:column (syntax) or the JSON path (schema: Karpathy and COCO
// files are one long line, so a path says more). `what` names the expected document in schema errors.
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { InputError } from './errors';

export function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

export const issuePath = (path: readonly PropertyKey[]): string =>
  path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`)).join('') || '(top level)';

export function parseJson<S extends z.ZodType>(file: string, text: string, schema: S, what?: string): z.infer<S> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    const msg = (e as Error).message;
    const pos = errorOffset(msg, text);
    const at = text.trim() === '' ? ' (empty file)' : pos === null ? ' at end of file' : ` at ${lineColumn(text, pos)}`;
    // Never the file's own characters: V8 quotes the text around the error ("root:x:0:0"...), which for a file
    // that is not JSON at all (a served page naming /etc/passwd) would hand its first bytes to the caller.
    const reason = /^Unexpected token/.test(msg) ? 'unexpected character' : msg.replace(/( in JSON)? at position \d+.*/, '').replace(/, (\.\.\.)?"[\s\S]*"(\.\.\.)? is not valid JSON$/, '');
    throw new InputError(`${file}: invalid JSON${at}: ${reason}`);
  }
  const r = schema.safeParse(raw);
  if (!r.success) {
    const issues = r.error.issues.slice(0, 3).map((i) => `${issuePath(i.path)}: ${i.message}`);
    const more = r.error.issues.length > 3 ? ` (and ${r.error.issues.length - 3} more)` : '';
    throw new InputError(`${file}: ${what ? `not ${what}: ` : ''}${issues.join('; ')}${more}`);
  }
  return r.data;
}

export const readJson = <S extends z.ZodType>(file: string, schema: S, what?: string): z.infer<S> => parseJson(file, readText(file), schema, what);

// V8 (Node 20) gives either "at position N" or, for an unexpected token, the 10 characters either side of it
// ("..." marking a cut); both are turned back into an offset.
function errorOffset(msg: string, text: string): number | null {
  const pos = /position (\d+)/.exec(msg);
  if (pos) return Number(pos[1]);
  const ctx = /^Unexpected token '([\s\S])', (\.\.\.)?"([\s\S]*)"(\.\.\.)? is not valid JSON$/.exec(msg);
  if (!ctx) return null;
  const [, token, cutBefore, excerpt] = ctx;
  const start = text.indexOf(excerpt);
  if (start < 0) return null;
  return start + (cutBefore ? 10 : excerpt.indexOf(token));
}

function lineColumn(text: string, pos: number): string {
  const before = text.slice(0, pos);
  const line = before.split('\n').length;
  return `line ${line}, column ${pos - before.lastIndexOf('\n')}`;
}
