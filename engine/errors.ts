// Errors a user can fix (bad file, bad flag, wrong shape): the CLI prints the message alone and exits 2.
export class InputError extends Error {
  override name = 'InputError';
}

// No space left (ENOSPC, or a quota: EDQUOT) while writing `path`: not a bug and not bad input; the run can resume
// once space is freed, so the CLI prints the message alone and exits 1.
export class DiskFullError extends Error {
  override name = 'DiskFullError';
  constructor(readonly path: string) {
    super(`disk full at ${path}: free some space, then resume`);
  }
}

// `err` as a DiskFullError naming `path` when it is one, else unchanged.
export const diskFull = (err: unknown, path: string): unknown =>
  err instanceof DiskFullError
    ? err
    : ['ENOSPC', 'EDQUOT'].includes((err as NodeJS.ErrnoException)?.code ?? '')
      ? new DiskFullError(path)
      : err;

// A path as a message shows it: a caller's path can be any length (a fuzzed or pasted one), a message stays readable.
export const clipPath = (p: string, max = 240): string =>
  p.length <= max ? p : `${p.slice(0, max / 2)}…${p.slice(-max / 2)}`;
