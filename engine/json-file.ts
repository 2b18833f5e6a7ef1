// Reads JSON through a zod schema, the one way any folder reads a JSON file it did not just write: every failure
// becomes an InputError naming the file and the line:column (syntax) or the JSON path (schema: Karpathy and COCO
// files are one long line, so a path says more). `what` names the expected document in schema errors.
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { issueText } from '../shared/issues';
import { InputError } from './errors';

// Text files are UTF-8. Bytes that are not become U+FFFD, as Node's 'utf8' reading makes them, but never silently:
// `warn` hears which lines (default: a process warning, which the CLI prints and a worker's stderr keeps in logs.txt).
export type Warn = (message: string) => void;
const processWarning: Warn = (m) => process.emitWarning(m, 'EncodingWarning');

export function decodeUtf8(file: string, bytes: Uint8Array, warn: Warn = processWarning): string {
  const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  try {
    return fatal.decode(bytes);
  } catch {
    /* find the lines below: a newline byte never sits inside a UTF-8 sequence, so lines decode on their own */
  }
  const bad: number[] = [];
  for (let i = 0, start = 0, line = 1; i <= bytes.length; i++) {
    if (i < bytes.length && bytes[i] !== 0x0a) continue;
    try {
      fatal.decode(bytes.subarray(start, i));
    } catch {
      bad.push(line);
    }
    line++;
    start = i + 1;
  }
  warn(
    `${file}: ${bad.length} line(s) are not valid UTF-8 and read with U+FFFD in place of the bad bytes: line ${bad.slice(0, 5).join(', ')}${bad.length > 5 ? ', ...' : ''}`,
  );
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
}

export function readText(file: string, warn?: Warn): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    throw new InputError(`${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  return decodeUtf8(file, bytes, warn);
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
    const reason = /^Unexpected token/.test(msg)
      ? 'unexpected character'
      : msg
          .replace(/( in JSON)? at position \d+.*/, '')
          .replace(/, (\.\.\.)?"[\s\S]*"(\.\.\.)? is not valid JSON$/, '');
    throw new InputError(`${file}: invalid JSON${at}: ${reason}`);
  }
  const r = schema.safeParse(raw);
  if (!r.success) {
    const issues = r.error.issues.slice(0, 3).map((i) => `${issuePath(i.path)}: ${issueText(i)}`);
    const more = r.error.issues.length > 3 ? ` (and ${r.error.issues.length - 3} more)` : '';
    throw new InputError(`${file}: ${what ? `not ${what}: ` : ''}${issues.join('; ')}${more}`);
  }
  return r.data;
}

export const readJson = <S extends z.ZodType>(file: string, schema: S, what?: string, warn?: Warn): z.infer<S> =>
  parseJson(file, readText(file, warn), schema, what);

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
