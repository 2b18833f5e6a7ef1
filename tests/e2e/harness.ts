// End-to-end harness: a real `prh serve` (real engine, real worker processes) and Debian's Chromium.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const noChromium = existsSync(CHROMIUM)
  ? false
  : `Debian chromium is not installed at ${CHROMIUM} (apt-get install chromium)`;
export const root = join(import.meta.dirname, '..', '..');
// What the browser logs by itself while a test has stopped or killed the server: a refused or reset connection, a
// request dropped mid-way (under load), the WebSocket's own error, a 401 before the page has the new token's cookie.
export const SERVER_AWAY =
  /WebSocket connection|ERR_CONNECTION_REFUSED|ERR_CONNECTION_RESET|ERR_SOCKET_NOT_CONNECTED|status of 401/;
export const screensDir = join(root, '.cache', 'screens');

export type App = {
  url: string;
  home: string;
  proc: ChildProcess;
  browser: Browser;
  page: Page;
  downloads: string;
  stop(): Promise<void>; // stops `prh serve` (the page stays open)
  restart(...args: string[]): Promise<string>; // `prh serve` again on the same port and runs folder; its URL
  allowErrors(re: RegExp): void; // console errors the browser logs by itself (a refused connection) while the server is away
  close(): Promise<void>;
};

function serveProcess(home: string, port: number, args: string[] = []): Promise<{ proc: ChildProcess; url: string }> {
  const proc = spawn(
    process.execPath,
    [join(root, 'bin', 'prh.js'), 'serve', '--json', '--port', String(port), '--threads', '2', ...args],
    {
      env: { ...process.env, PRH_HOME: home },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('prh serve did not start')), 30_000);
    createInterface({ input: proc.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      resolve({ proc, url: (JSON.parse(line) as { url: string }).url });
    });
    proc.once('exit', (code) => reject(new Error(`prh serve exited with ${code}`)));
  });
}
const stopped = (proc: ChildProcess) => new Promise((r) => (proc.exitCode !== null ? r(null) : proc.once('exit', r)));

// `settings`: the app settings (<user data>/config.json) the server starts with, e.g. dataRoots a served page may read.
export async function startApp(settings: Record<string, unknown> = {}): Promise<App> {
  const home = mkdtempSync(join(tmpdir(), 'prh-e2e-'));
  if (Object.keys(settings).length) writeFileSync(join(home, 'config.json'), JSON.stringify(settings));
  let { proc, url } = await serveProcess(home, 0);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1440, height: 1000 } });
  const page = await context.newPage();
  const errors: string[] = [];
  const allowed: RegExp[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && !allowed.some((re) => re.test(m.text())) && errors.push(m.text()));
  const downloads = join(home, 'downloads');
  mkdirSync(downloads, { recursive: true });
  mkdirSync(screensDir, { recursive: true });
  const port = Number(new URL(url).port);
  const app: App = {
    url,
    home,
    proc,
    browser,
    page,
    downloads,
    async stop() {
      proc.kill('SIGTERM');
      await stopped(proc);
    },
    async restart(...args: string[]) {
      ({ proc, url } = await serveProcess(home, port, args));
      app.proc = proc;
      return url;
    },
    allowErrors: (re) => void allowed.push(re),
    async close() {
      await browser.close();
      proc.kill('SIGTERM');
      await stopped(proc);
      if (errors.length) throw new Error(`the page logged errors:\n${errors.join('\n')}`);
    },
  };
  return app;
}

// Every screen as a person sees it: light and dark (through the `system` theme), 1440 and 1024 wide, full page.
export const SIZES = [
  { width: 1440, height: 900 },
  { width: 1024, height: 700 },
];
export async function shootAll(page: Page, name: string): Promise<string[]> {
  const files: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await page.waitForTimeout(250); // charts follow their box on the next frame
      const file = join(screensDir, `${name}-${colorScheme}-${size.width}.png`);
      await page.screenshot({ path: file, fullPage: true });
      files.push(file);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(SIZES[0]);
  return files;
}

// How many pixels of a canvas are near a colour (within `tol` per channel; antialiased lines blend), and how many
// are inked at all (`colour` null), to check that a line of a known colour is drawn.
export const inkNear = (page: Page, selector: string, colour: string | null, tol = 24): Promise<number> =>
  page.locator(selector).evaluate(
    (c: HTMLCanvasElement, [hex, t]) => {
      const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      const want = hex ? [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) : null;
      let n = 0;
      for (let i = 0; i < d.length; i += 4)
        if (d[i + 3] > 0 && (!want || want.every((v, k) => Math.abs(d[i + k] - v) <= (t as number)))) n++;
      return n;
    },
    [colour, tol] as const,
  );
