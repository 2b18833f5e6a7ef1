// `npm start` (bin/start.js) with a stand-in for Electron's binary (ELECTRON_OVERRIDE_DIST_PATH: Electron's own
// package then returns it without downloading): the window starts where a display exists; without a display, when
// the download fails, or when the window exits at once, the same UI is served instead and the reason printed.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { downloadFailure, windowFailure } from '../../bin/start-causes.js';

const root = join(import.meta.dirname, '..', '..');

// A stand-in `electron` that records its arguments, prints `stderr` and exits with `code`.
function standIn(code: number, stderr = ''): { dir: string; argsFile: string } {
  const dir = mkdtempSync(join(tmpdir(), 'prh-electron-'));
  const argsFile = join(dir, 'args.txt');
  writeFileSync(
    join(dir, 'electron'),
    `#!/bin/sh\nprintf '%s\\n' "$@" > "${argsFile}"\necho '${stderr}' >&2\nexit ${code}\n`,
  );
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

  it('says the sandbox stopped the window when Electron says so, with the remedy', async () => {
    const e = standIn(1, 'Running as root without --no-sandbox is not supported. See https://crbug.com/638180.');
    const r = await start({ DISPLAY: ':99', ELECTRON_OVERRIDE_DIST_PATH: e.dir });
    expect(r.served).toBe(true);
    expect(r.lines.join('\n')).toMatch(
      /the desktop window did not start: Electron's sandbox could not start \(Running as root without --no-sandbox is not supported\..*\); run npm start as a user other than root/,
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
      // The cause that happened, and only it: before, a Node 20 reader was also told to upgrade Node.
      expect(out).toMatch(
        /Electron's binary could not be downloaded: the network is unreachable \(TypeError: fetch failed\); npm start downloads it once a network is there \(ELECTRON_MIRROR names a mirror\): serving the same UI in your browser instead/,
      );
      expect(out).not.toMatch(/Node 22/);
      expect(r.served).toBe(true);
    },
    120_000,
  );
});

describe('the causes npm start names', () => {
  it('says Node is too old only when the installer failed the way an old Node fails, and the network when it is down', () => {
    const net = 'TypeError: fetch failed';
    expect(downloadFailure(net, '20.20.2')).toMatch(/the network is unreachable/);
    expect(downloadFailure(net, '20.20.2')).not.toMatch(/Node/);
    const esm = 'Error [ERR_REQUIRE_ESM]: require() of ES Module @electron/get not supported';
    expect(downloadFailure(esm, '20.18.0')).toMatch(/its installer needs Node 22\.12 or newer, this is Node 20\.18\.0/);
    expect(downloadFailure(esm, '22.12.0')).toBe(`Electron's binary could not be downloaded (${esm})`);
    expect(windowFailure('[12:ERROR] Missing X server or $DISPLAY\n', 1)).toMatch(/no display it could open/);
    expect(windowFailure('', 3)).toBe('the desktop window did not start (Electron exited with 3)');
  });
});
