// What keeps a `prh serve` session alive across restarts: one token per runs folder, kept in `<runs>/.serve-token`
// (mode 0600, beside the run folders), so a tab left open reconnects to the restarted server; and the built UI,
// built once from a clean clone when it is missing.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
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

const root = resolve(import.meta.dirname, '..', '..');
// electron-vite is a dev dependency: present after `npm install`, absent after `npm install --omit=dev`.
function electronViteBuild(): number | null {
  let bin: string;
  try {
    bin = createRequire(join(root, 'package.json')).resolve('electron-vite/bin/electron-vite.js');
  } catch {
    return null;
  }
  return spawnSync(process.execPath, [bin, 'build', '--logLevel', 'warn'], { cwd: root, stdio: ['ignore', 2, 2] })
    .status;
}

// The UI `prh serve` serves: built here when missing (stdout stays free for --json), else a message that says how.
export function ensureRenderer(dir: string, build: () => number | null = electronViteBuild): void {
  if (existsSync(join(dir, 'index.html'))) return;
  console.error(`prh serve: the UI is not built yet (${dir}); building it once, as \`npm run build\` would…`);
  const status = build();
  if (status === 0 && existsSync(join(dir, 'index.html'))) return;
  throw new InputError(
    status === null
      ? `no built UI in ${dir}, and electron-vite (a dev dependency) is not installed to build it: run \`npm install\` (with dev dependencies), then \`npm run build\``
      : `no built UI in ${dir}: building it failed (exit ${status}); run \`npm run build\` to see why`,
  );
}
