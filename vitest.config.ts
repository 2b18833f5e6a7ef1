import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { defineConfig, type Plugin } from 'vitest/config';
import { REQUIRED_PACKAGES } from './bin/entry.js';
import { chromiumLoaderDir } from './tests/gpu/swiftshader.ts';
import SuitesInOrder from './tests/sequencer.ts';

// WebGPU tests run on SwiftShader (tests/gpu/swiftshader.ts). Dawn dlopens the Vulkan loader libvulkan.so.1 (Debian
// package libvulkan1); where only chromium's private copy exists, a folder holding just a link to it goes on the
// workers' LD_LIBRARY_PATH (the dynamic loader reads it at process start, so a test cannot set it for itself).
const loaderDir = chromiumLoaderDir(join(import.meta.dirname, '.cache'));
if (loaderDir) process.env.LD_LIBRARY_PATH = [loaderDir, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':');

// The suites, one vitest project each (`npm test -- --project unit`, or `npm run test:unit`): what each needs beyond
// `npm ci` is in the README's "For developers". A test folder not named here is unit. Their files start in this order,
// then unit's (tests/sequencer.ts).
export const SUITES = {
  'world-encoder': 'tests/world-encoder/**/*.test.ts', // world-encoder builds and probes
  readme: 'tests/readme/**/*.test.ts', // the README's commands in a fresh clone (npm install, a first build, Chromium)
  slurm: 'tests/slurm/**/*.test.ts', // a single-node Slurm cluster of their own (slurm-wlm, munge, root)
  gpu: 'tests/gpu/**/*.test.ts', // WebGPU on SwiftShader, Debian chromium's Vulkan driver (an emulated GPU: slow)
  e2e: 'tests/e2e/**/*.test.ts', // the built UI in Debian Chromium against prh serve
  faults: 'tests/faults/**/*.test.ts', // kills, full disks, servers under hostile input: processes of their own
};

// The engine's sources and the tests load tfjs and onnxruntime-node as `prh`'s processes do (bin/entry.js): through
// require, which skips Node's scan of a CommonJS package (and each package it re-exports) for export names on import,
// ~0.35 s of CPU in every test file that loads tfjs. The import line becomes one line, so line numbers stay; it is
// matched as esbuild writes it, and a line written otherwise stays an import (slower, the same module).
const PACKAGE_IMPORT = new RegExp(`^import \\* as (\\w+) from "(${REQUIRED_PACKAGES.join('|')})";$`, 'gm');
const requirePackages: Plugin = {
  name: 'require-packages',
  enforce: 'post', // on esbuild's JavaScript, before Vite rewrites the imports
  transform(code, id) {
    if (id.includes('/node_modules/')) return null;
    let n = 0;
    const out = code.replace(
      PACKAGE_IMPORT,
      (_, name: string, pkg: string) =>
        `import { createRequire as __require${++n} } from "node:module"; const ${name} = __require${n}(import.meta.url)("${pkg}");`,
    );
    return n ? { code: out, map: null } : null;
  },
};

export default defineConfig({
  plugins: [requirePackages],
  test: {
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two test files at once at least: vitest's default (cores - 1) runs one at a time on 2 cores, where most files
    // wait on the processes, servers and Chromium they start (npm test there: 1,168 s one at a time, 797 s two at
    // once).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    sequence: { sequencer: SuitesInOrder }, // the suites in SUITES' order, then unit
    // The Electron main process is tested with `electron` mocked; electron-store must see that mock too.
    server: { deps: { inline: ['electron-store', 'conf'] } },
    projects: [
      ...Object.entries(SUITES).map(([name, include]) => ({
        extends: true as const,
        test: { name, include: [include] },
      })),
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['tests/**/*.test.ts'],
          exclude: ['**/node_modules/**', ...Object.values(SUITES)],
        },
      },
    ],
  },
});
