// Crash-safe file writes: a reader sees the old file or the new one, never half of either.
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

let counter = 0;

// Write to a temp file in the same folder, fsync, then rename over the target (atomic on POSIX).
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.${counter++}.tmp`;
  try {
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
    throw err;
  }
}

export const writeJsonAtomic = (path: string, value: unknown): void =>
  writeFileAtomic(path, JSON.stringify(value, null, 2) + '\n');

// Append one line and flush it to disk, so a killed process loses at most the line being written.
export function appendLineSync(path: string, line: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, 'a');
  try {
    writeSync(fd, line.endsWith('\n') ? line : line + '\n');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
