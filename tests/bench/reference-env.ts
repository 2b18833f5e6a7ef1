// The Python references' environment and the BLAS they ran on. This machine's OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE
// pick a kernel older than the CPU's own (Haswell on a Cooper Lake: torch's minilm-33m good-views step 2,319 ms instead
// of 1,409), so a reference run with them would be handicapped: they are removed, and each suite stores the kernel and
// threads OpenBLAS and torch report (blas_info.py) beside its numbers.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const PYTHON = '/usr/bin/python3';
const HANDICAPS = ['OPENBLAS_CORETYPE', 'OPENBLAS_L2_SIZE'];

// The environment of a reference process: this one's, less the OpenBLAS overrides, plus the thread counts given.
export function referenceEnv(threads: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...threads };
  for (const k of HANDICAPS) delete env[k];
  return env;
}

// What the references ran on, under that environment: numpy's BLAS library, its kernel, config and threads, torch's
// version and threads; or why it could not be read.
export function referenceBlas(threads: Record<string, string> = {}): Record<string, unknown> {
  try {
    const out = execFileSync(PYTHON, [join(import.meta.dirname, 'blas_info.py')], {
      encoding: 'utf8',
      env: referenceEnv(threads),
    });
    return { ...JSON.parse(out.trim().split('\n').pop()!), removed: HANDICAPS };
  } catch (err) {
    return { unknown: String((err as Error).message).split('\n')[0] };
  }
}
