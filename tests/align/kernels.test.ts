// The WebAssembly kernels embedded in engine/linalg/kernels-wasm.ts are the build of kernels.c: rebuilt here when a
// clang with the wasm32 target and wasm-ld is installed (kernels-build.sh's command), skipped with the reason if not.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KERNELS_WASM } from '../../engine/linalg/kernels-wasm';

const src = join(import.meta.dirname, '..', '..', 'engine', 'linalg', 'kernels.c');

const FLAGS = ['--target=wasm32', '-O3', '-msimd128', '-nostdlib', '-Wl,--no-entry', '-Wl,--import-memory'];

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

const clang = findClang();
if (!clang)
  console.log('kernels.test: skipped, no clang that links wasm32 (apt-get install clang-14 lld-14 to check the build)');

describe.skipIf(!clang)('embedded WebAssembly kernels', () => {
  it('match a fresh build of kernels.c', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prh-kernels-'));
    try {
      const out = join(dir, 'kernels.wasm');
      execFileSync(clang!, [...FLAGS, '-o', out, src], { stdio: 'pipe' });
      expect(readFileSync(out).toString('base64')).toBe(KERNELS_WASM);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
