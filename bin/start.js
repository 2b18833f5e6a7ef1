#!/usr/bin/env node
// `npm start`: the desktop window where a display exists, else the same UI through `prh serve` with the URL printed.
// Electron 45 downloads its binary on first use, not at install: when it is missing, Electron's own installer
// (electron/install.js) fetches it; then Electron's package gives its path (or ELECTRON_OVERRIDE_DIST_PATH's).
// Only when that fails, or the window does not start, does this fall back to `prh serve`, and it says why.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const root = join(import.meta.dirname, '..');
const require = createRequire(import.meta.url);
const QUICK_EXIT_MS = 15_000; // a window that exits with an error this soon did not start

// Electron 45's installer (@electron/get) declares Node >= 22.12; on an older Node the download may still work
// (require of ES modules is on from Node 20.19), but when it fails this is the likely reason.
const [major, minor] = process.versions.node.split('.').map(Number);
const oldNode = major < 22 || (major === 22 && minor < 12);
const nodeHint = oldNode
  ? `; Electron 45's installer needs Node 22.12 or newer, this is Node ${process.versions.node}`
  : '';

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
    if (failed) return { why: `Electron's binary could not be downloaded (${failed})${nodeHint}` };
    const bin = require('electron');
    return existsSync(bin) ? { bin } : { why: `Electron's binary is not at ${bin}` };
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
    const fail = (why) => failed || ((failed = true), serveInstead(`the desktop window did not start (${why})`));
    const child = spawn(electron.bin, [root], { stdio: 'inherit' });
    child.on('error', (err) => fail(err.message));
    child.on('exit', (code, signal) => {
      if (code && Date.now() - started < QUICK_EXIT_MS) fail(`Electron exited with ${code}`);
      else if (!failed) process.exit(code ?? (signal ? 1 : 0));
    });
  }
}
