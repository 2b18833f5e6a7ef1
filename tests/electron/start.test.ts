// `npm start` (bin/start.js) with a stand-in for Electron's binary (ELECTRON_OVERRIDE_DIST_PATH: Electron's own
// package then returns it without downloading): the window starts where a display exists; without a display, when
// the download fails, or when the window exits at once, the same UI is served instead and the reason printed.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

// A stand-in `electron` that records its arguments and exits with `code`.
function standIn(code: number): { dir: string; argsFile: string } {
  const dir = mkdtempSync(join(tmpdir(), 'prh-electron-'));
  const argsFile = join(dir, 'args.txt');
  writeFileSync(join(dir, 'electron'), `#!/bin/sh\nprintf '%s\\n' "$@" > "${argsFile}"\nexit ${code}\n`);
  chmodSync(join(dir, 'electron'), 0o755);
  return { dir, argsFile };
}

// Runs `npm start`'s script; resolves with what it printed once it exits, or once `prh serve` printed its URL
// (then the process group, start.js and the server it started, is stopped).
function start(
  env: Record<string, string | undefined>,
): Promise<{ code: number | null; lines: string[]; served: boolean }> {
  const home = mkdtempSync(join(tmpdir(), 'prh-start-'));
  const child = spawn(process.execPath, [join(root, 'bin', 'start.js'), '--port', '0', '--json'], {
    env: {
      ...process.env,
      DISPLAY: undefined,
      WAYLAND_DISPLAY: undefined,
      ELECTRON_OVERRIDE_DIST_PATH: undefined,
      PRH_HOME: home,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.kill(-child.pid!, 'SIGKILL');
      reject(new Error(`start.js hung: ${lines.join('\n')}`));
    }, 90_000);
    for (const stream of [child.stdout!, child.stderr!])
      createInterface({ input: stream }).on('line', (line) => {
        lines.push(line);
        if (line.startsWith('{"url"')) {
          clearTimeout(timer);
          process.kill(-child.pid!, 'SIGTERM');
          resolve({ code: null, lines, served: true });
        }
      });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, lines, served: false });
    });
  });
}

describe.skipIf(process.platform !== 'linux')('npm start', () => {
  it('opens the desktop window with Electron when a display exists', async () => {
    const e = standIn(0);
    const r = await start({ DISPLAY: ':99', ELECTRON_OVERRIDE_DIST_PATH: e.dir });
    expect(r).toMatchObject({ code: 0, served: false });
    expect(readFileSync(e.argsFile, 'utf8').trim()).toBe(root);
    expect(r.lines.join('\n')).not.toMatch(/serving/);
  });

  it('serves the UI instead when the window exits at once, saying so', async () => {
    const e = standIn(3);
    const r = await start({ DISPLAY: ':99', ELECTRON_OVERRIDE_DIST_PATH: e.dir });
    expect(existsSync(e.argsFile)).toBe(true); // Electron was tried first
    expect(r.served).toBe(true);
    expect(r.lines.join('\n')).toMatch(
      /the desktop window did not start \(Electron exited with 3\): serving the same UI in your browser instead/,
    );
  });

  it('serves the UI without a display, and never tries Electron', async () => {
    const e = standIn(0);
    const r = await start({ ELECTRON_OVERRIDE_DIST_PATH: e.dir });
    expect(r.served).toBe(true);
    expect(r.lines.join('\n')).toMatch(/no display .*: serving the same UI/);
    expect(existsSync(e.argsFile)).toBe(false);
  });

  const installed =
    existsSync(join(root, 'node_modules', 'electron', 'path.txt')) &&
    "Electron's binary is installed in this checkout: no download to trigger";
  it.skipIf(installed)(
    "triggers Electron's own download when the binary is missing, and serves instead when it fails, saying why",
    async () => {
      // No binary in this checkout (CI installs with ELECTRON_SKIP_BINARY_DOWNLOAD); the download is pointed at a closed
      // local port, so it fails at once instead of reaching the network.
      const cache = mkdtempSync(join(tmpdir(), 'prh-electron-cache-'));
      const r = await start({ DISPLAY: ':99', ELECTRON_MIRROR: 'http://127.0.0.1:9/', electron_config_cache: cache });
      const out = r.lines.join('\n');
      expect(out).toMatch(/Downloading Electron's binary \(first start only\)/);
      expect(out).toMatch(
        /Electron's binary could not be downloaded \(TypeError: fetch failed\).*: serving the same UI in your browser instead/,
      );
      expect(r.served).toBe(true);
    },
    120_000,
  );
});
