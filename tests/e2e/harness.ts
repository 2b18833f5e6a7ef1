// End-to-end harness: a real `prh serve` (real engine, real worker processes) and Debian's Chromium.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const noChromium = existsSync(CHROMIUM) ? false : `Debian chromium is not installed at ${CHROMIUM} (apt-get install chromium)`;
export const root = join(import.meta.dirname, '..', '..');
export const screensDir = join(root, '.cache', 'screens');

export type App = { url: string; home: string; proc: ChildProcess; browser: Browser; page: Page; downloads: string; close(): Promise<void> };

export async function startApp(): Promise<App> {
  const home = mkdtempSync(join(tmpdir(), 'prh-e2e-'));
  const proc = spawn(process.execPath, [join(root, 'bin', 'prh.js'), 'serve', '--json', '--port', '0', '--threads', '2'], {
    env: { ...process.env, PRH_HOME: home },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('prh serve did not start')), 30_000);
    createInterface({ input: proc.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      resolve((JSON.parse(line) as { url: string }).url);
    });
    proc.once('exit', (code) => reject(new Error(`prh serve exited with ${code}`)));
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1440, height: 1000 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  const downloads = join(home, 'downloads');
  mkdirSync(downloads, { recursive: true });
  mkdirSync(screensDir, { recursive: true });
  return {
    url, home, proc, browser, page, downloads,
    async close() {
      await browser.close();
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
      if (errors.length) throw new Error(`the page logged errors:\n${errors.join('\n')}`);
    },
  };
}
