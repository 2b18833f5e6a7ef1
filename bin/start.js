#!/usr/bin/env node
// `npm start`: the desktop window where a display exists, else the same UI through `prh serve` with the URL printed.
// Electron 45 downloads its binary on first use, not at install: when it is missing, Electron's own installer
// (node_modules/electron/install.js) fetches it; then Electron's package gives its path (or ELECTRON_OVERRIDE_DIST_PATH's).
// Only when that fails, or the window does not start, does this fall back to `prh serve`, and it says why.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { downloadFailure, windowFailure } from './start-causes.js';

const root = join(import.meta.dirname, '..');
const require = createRequire(import.meta.url);
const QUICK_EXIT_MS = 15_000; // a window that exits with an error this soon did not start

// Electron's installer, run when the binary is missing; its error (say "TypeError: fetch failed") on failure.
function download() {
  const pkg = dirname(require.resolve('electron/package.json'));
  const rel = existsSync(join(pkg, 'path.txt')) ? readFileSync(join(pkg, 'path.txt'), 'utf8') : null;
  if (process.env.ELECTRON_OVERRIDE_DIST_PATH || (rel && existsSync(join(pkg, 'dist', rel)))) return null;
  console.log("Downloading Electron's binary (first start only)…");
  const r = spawnSync(process.execPath, [join(pkg, 'install.js')], {
    stdio: ['ignore', 'inherit', 'pipe'],
    encoding: 'utf8',
  });
  return r.status === 0 ? null : (r.stderr.split('\n').find((l) => /\w*Error\b/.test(l)) ?? `exit ${r.status}`).trim();
}

function electronBinary() {
  try {
    const failed = download();
    if (failed) return { why: downloadFailure(failed, process.versions.node) };
    const bin = require('electron');
    if (existsSync(bin)) return { bin };
    const skipped = process.env.ELECTRON_SKIP_BINARY_DOWNLOAD
      ? ' (ELECTRON_SKIP_BINARY_DOWNLOAD is set, so it was not downloaded: unset it and npm start again)'
      : '';
    return { why: `Electron's binary is not at ${bin}${skipped}` };
  } catch (err) {
    return { why: `Electron is not installed (${String(err?.message ?? err).split('\n')[0]}): run npm install` };
  }
}

function serveInstead(why) {
  console.log(`${why}: serving the same UI in your browser instead.`);
  const child = spawn(process.execPath, [join(root, 'bin', 'prh.js'), 'serve', ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  child.on('exit', (code) => process.exit(code ?? 0));
}

const headless = process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
if (headless) serveInstead('no display (neither DISPLAY nor WAYLAND_DISPLAY is set)');
else {
  const electron = electronBinary();
  if (!electron.bin) serveInstead(electron.why);
  else {
    const started = Date.now();
    let failed = false; // 'error' and 'exit' can both fire for one failed start
    const fail = (why) => failed || ((failed = true), serveInstead(why));
    // Electron's errors go to the terminal as they come, and are kept to say why a window did not start.
    const child = spawn(electron.bin, [root], { stdio: ['inherit', 'inherit', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => {
      process.stderr.write(d);
      stderr = (stderr + d).slice(-8192);
    });
    child.on('error', (err) => fail(`the desktop window did not start (${err.message})`));
    child.on('exit', (code, signal) => {
      if (code && Date.now() - started < QUICK_EXIT_MS) fail(windowFailure(stderr, code));
      else if (!failed) process.exit(code ?? (signal ? 1 : 0));
    });
  }
}
