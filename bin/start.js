#!/usr/bin/env node
// `npm start`: the desktop app where Electron's binary is installed and a display exists; otherwise the same
// UI through `prh serve`, with the URL to open printed.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const root = join(import.meta.dirname, '..');
const require = createRequire(import.meta.url);

function electronBinary() {
  try {
    const pkg = dirname(require.resolve('electron/package.json'));
    const rel = existsSync(join(pkg, 'path.txt')) ? readFileSync(join(pkg, 'path.txt'), 'utf8').trim() : null;
    const bin = rel && join(pkg, 'dist', rel);
    return bin && existsSync(bin) ? bin : null;
  } catch {
    return null;
  }
}

const headless = process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
const electron = electronBinary();
const [cmd, args, why] = electron && !headless
  ? [electron, [root], null]
  : [process.execPath, [join(root, 'bin', 'prh.js'), 'serve', ...process.argv.slice(2)],
     !electron ? 'Electron\'s binary is not installed (it downloads on first use of `npx electron`)' : 'no display'];
if (why) console.log(`${why}: serving the same UI in your browser instead.`);
const child = spawn(cmd, args, { stdio: 'inherit' });
child.on('exit', (code) => process.exit(code ?? 0));
