// Crash-safe file writes: a reader sees the old file or the new one, never half of either.
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { diskFull } from '../errors';

let counter = 0;

// Write to a temp file in the same folder, fsync, then rename over the target (atomic on POSIX). A full disk is a
// DiskFullError naming `path`, with the temp file gone.
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const tmp = `${path}.${process.pid}.${counter++}.tmp`;
  try {
    mkdirSync(dirname(path), { recursive: true });
    const fd = openSync(tmp, 'w');
    try {
      writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw diskFull(err, path);
  }
}

export const writeJsonAtomic = (path: string, value: unknown): void =>
  writeFileAtomic(path, JSON.stringify(value, null, 2) + '\n');

// Append one line and flush it to disk, so a killed process loses at most the line being written.
// A full disk may leave part of the line (cut back by the next opener, see engine/runs cutTornTail).
export function appendLineSync(path: string, line: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    const fd = openSync(path, 'a');
    try {
      writeSync(fd, line.endsWith('\n') ? line : line + '\n');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    throw diskFull(err, path);
  }
}
