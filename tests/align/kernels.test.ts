// The WebAssembly kernels embedded in engine/linalg/kernels-wasm.ts and engine/models/heap-kernels-wasm.ts are the
// builds of their C files: rebuilt here when a clang with the wasm32 target and wasm-ld is installed
// (engine/kernels-build.sh's command), skipped with the reason if not. The heap kernels run on tfjs-backend-wasm's own
// memory, so their module must hold no data segment (it would be written into tfjs's memory when instantiated) and use
// no stack (wasm-ld places it at the start of that memory).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KERNELS_WASM } from '../../engine/linalg/kernels-wasm';
import { HEAP_KERNELS_WASM } from '../../engine/models/heap-kernels-wasm';

const engine = join(import.meta.dirname, '..', '..', 'engine');

const FLAGS = [
  '--target=wasm32',
  '-O3',
  '-msimd128',
  '-nostdlib',
  '-fno-builtin',
  '-Wl,--no-entry',
  '-Wl,--import-memory',
];

// A clang that compiles and links a trivial wasm module, or null.
function findClang(): string | null {
  for (const c of ['clang', 'clang-14', 'clang-15', 'clang-16', 'clang-17', 'clang-18', 'clang-19']) {
    try {
      execFileSync(c, [...FLAGS, '-x', 'c', '-o', '/dev/null', '-'], {
        input: 'int f;',
        stdio: ['pipe', 'ignore', 'ignore'],
      });
      return c;
    } catch {
      // not this one
    }
  }
  return null;
}

// The ids of a wasm binary's top-level sections (1 type, 2 import, ..., 6 global, 10 code, 11 data, 0 custom).
function sectionIds(bytes: Buffer): number[] {
  const ids: number[] = [];
  let at = 8; // magic and version
  while (at < bytes.length) {
    const id = bytes[at++];
    let size = 0;
    for (let shift = 0; ; shift += 7) {
      const b = bytes[at++];
      size |= (b & 0x7f) << shift;
      if (b < 0x80) break;
    }
    ids.push(id);
    at += size;
  }
  return ids;
}

const clang = findClang();
if (!clang)
  console.log('kernels.test: skipped, no clang that links wasm32 (apt-get install clang-14 lld-14 to check the build)');

describe.skipIf(!clang)('embedded WebAssembly kernels', () => {
  for (const [src, embedded] of [
    ['linalg/kernels.c', KERNELS_WASM],
    ['models/heap-kernels.c', HEAP_KERNELS_WASM],
  ])
    it(`${src} matches its fresh build`, () => {
      const dir = mkdtempSync(join(tmpdir(), 'prh-kernels-'));
      try {
        const out = join(dir, 'kernels.wasm');
        execFileSync(clang!, [...FLAGS, '-o', out, join(engine, src)], { stdio: 'pipe' });
        expect(readFileSync(out).toString('base64')).toBe(embedded);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

  it('the heap kernels hold no data segment and never touch the stack pointer', () => {
    const bytes = Buffer.from(HEAP_KERNELS_WASM, 'base64');
    expect(sectionIds(bytes)).not.toContain(11);
    const dir = mkdtempSync(join(tmpdir(), 'prh-kernels-'));
    try {
      const file = join(dir, 'heap-kernels.wasm');
      writeFileSync(file, bytes);
      // llvm-objdump of clang's version (Debian's llvm-14 beside clang-14)
      const code = execFileSync(clang!.replace('clang', 'llvm-objdump'), ['-d', file], { encoding: 'utf8' });
      expect(code).toMatch(/softmax_rows/);
      expect(code).not.toMatch(/global\.(get|set)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
