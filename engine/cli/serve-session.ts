// What keeps a `prh serve` session alive across restarts: one token per runs folder, kept in `<runs>/.serve-token`
// (mode 0600, beside the run folders), so a tab left open reconnects to the restarted server; and the built UI,
// built once from a clean clone when it is missing.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { InputError } from '../errors';

const TOKEN_FILE = '.serve-token';
const TOKEN = /^[0-9a-f]{48}$/;

// The runs folder's token, made on first use or when `renew` asks for a new one (which signs every open tab out).
export function serveToken(runsDir: string, renew = false): string {
  const file = join(runsDir, TOKEN_FILE);
  const kept = !renew && existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  if (TOKEN.test(kept)) return kept;
  const token = randomBytes(24).toString('hex');
  writeFileSync(`${file}.${process.pid}.tmp`, token + '\n', { mode: 0o600 }); // private from its first byte
  renameSync(`${file}.${process.pid}.tmp`, file);
  return token;
}

// The project this `prh` runs from: its built UI is out/renderer.
export const PROJECT = resolve(import.meta.dirname, '..', '..');

// electron-vite's command in `project`, or null where it is not installed (`npm install --omit=dev`). Its package
// exports no bin/ path, so the bin is read from its package.json, which it does export.
export function electronViteBin(project: string): string | null {
  try {
    const manifest = createRequire(join(project, 'package.json')).resolve('electron-vite/package.json');
    const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
    return join(dirname(manifest), bin['electron-vite']);
  } catch {
    return null;
  }
}

// The UI `prh serve` serves (<project>/out/renderer): built here with the project's electron-vite when missing
// (stdout stays free for --json), else a message that says which command builds it.
export function ensureRenderer(project = PROJECT): string {
  const dir = join(project, 'out', 'renderer');
  if (existsSync(join(dir, 'index.html'))) return dir;
  const bin = electronViteBin(project);
  if (!bin)
    throw new InputError(
      `no built UI in ${dir}, and electron-vite (a dev dependency) is not installed to build it: run \`npm install\` in ${project} (with dev dependencies, not --omit=dev), then \`npm run build\``,
    );
  console.error(`prh serve: building the UI once (${dir}), as \`npm run build\` would…`);
  const t0 = Date.now();
  const { status } = spawnSync(process.execPath, [bin, 'build', '--logLevel', 'warn'], {
    cwd: project,
    stdio: ['ignore', 2, 2],
  });
  if (status !== 0 || !existsSync(join(dir, 'index.html')))
    throw new InputError(
      `no built UI in ${dir}: building it failed (exit ${status}); run \`npm run build\` to see why`,
    );
  console.error(`prh serve: built the UI in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  return dir;
}
