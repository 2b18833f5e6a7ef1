// The README's commands, run as a new user runs them: each line of its ```sh blocks, as written, in a fresh clone of
// this working tree with nothing built, a fresh home folder (so a fresh PRH_HOME) and `npm install` from npm's cache.
// Where the README means data this machine lacks, the fresh home holds tiny data in the format named (~/data/flickr30k
// is a small Flickr30k in its own token format, dinov2-small.onnx a small ViT in the Hugging Face DINOv2 layout), and
// where it means the default world's 6 minutes or eight epochs of nine arms, PLAN below appends flags for tiny runs
// (a tiny world, one epoch): the command string itself still comes from the README. Every README command must have a plan here, and every plan a README command: changing
// a command in the README without changing its plan fails this test. `prh serve`'s page must show the Theory lab.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { loadImage } from '@napi-rs/canvas';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateWorld } from '../../engine/data';
import { buildVitOnnx, randomVitWeights } from '../../engine/models/onnx';
import { CHROMIUM, noChromium } from '../e2e/harness';

const root = join(import.meta.dirname, '..', '..');
const README = readFileSync(join(root, 'README.md'), 'utf8');

// Each command line of the README's ```sh blocks, in order, without its trailing comment.
export function readmeCommands(text: string): string[] {
  const blocks = [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  return blocks
    .flatMap((b) => b.split('\n'))
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter((l) => l && !l.startsWith('#'));
}

type Plan =
  | { skip: string }
  | {
      append?: string[]; // tiny-data flags after the README's command
      serve?: true; // runs until stopped: its URL is opened in Chromium, which must show the Theory lab
      expect?: RegExp; // in its output
    };
const TINY_WORLD = '../tiny-world'; // beside the clone, generated below
// In the order they run: the first `prh serve` is the one that builds the UI.
const PLAN: [string, Plan][] = [
  ['npm install', { expect: /added \d+ packages/ }],
  ['npx prh serve', { serve: true }],
  ['npm start', { serve: true }],
  ['npm test', { skip: 'the command that runs this test (it would run itself)' }],
  ['npm link', { expect: /added 1 package|up to date/ }],
  ['npm run prh -- demo', { append: ['--world', TINY_WORLD, '--epochs', '1'], expect: /\| good +\|[\s\S]*\| ntp +\|/ }],
  ['prh data inspect ~/data/flickr30k', { expect: /120 listed under .*: 0 missing, 0 unreadable/ }],
  [
    'prh data inspect ~/data/flickr30k/results_20130124.token --images ~/photos/flickr30k-images',
    { expect: /120 listed under .*flickr30k-images: 0 missing, 0 unreadable/ },
  ],
  [
    'prh embed --model dinov2-small.onnx --data ~/data/flickr30k --split test --out test.npy',
    { expect: /pooler_output/ },
  ],
  [
    'prh experiment --data ~/data/flickr30k --image-model dinov2-small.onnx --arms good,bad,ntp --seeds 0,1,2',
    { append: ['--epochs', '1'], expect: /good . bad/ }, // nine arms: one epoch each on the tiny data
  ],
  ['prh data import ~/data/flickr30k --out ~/data/flickr30k-frozen', { expect: /flickr30k-frozen/ }],
  [
    'prh slurm check [--partition P] [--account A] [--wait 300] [--no-probe] [--json]',
    {
      skip: 'a synopsis, and it needs a Slurm cluster: tests/slurm/cluster.test.ts runs prh slurm check on one it starts',
    },
  ],
];

describe("the README's commands", () => {
  it('each has a plan here, and each plan is a README command', () => {
    const commands = [...new Set(readmeCommands(README))];
    const planned = PLAN.map(([c]) => c);
    expect(
      commands.filter((c) => !planned.includes(c)),
      'README commands with no plan',
    ).toEqual([]);
    expect(
      planned.filter((c) => !commands.includes(c)),
      'plans of commands the README no longer has',
    ).toEqual([]);
  });
});

// A clone of this working tree as it is (committed or not): what a user gets from `git clone` of it.
function cloneWorkingTree(dst: string): void {
  const git = (args: string[], cwd = root, input?: Buffer) => {
    const r = spawnSync('git', args, { cwd, input, maxBuffer: 1 << 30 });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  git(['clone', '--quiet', '--no-hardlinks', root, dst]);
  const diff = git(['diff', 'HEAD', '--binary']);
  if (diff.length) git(['apply', '--binary', '-'], dst, diff);
  const untracked = git(['ls-files', '--others', '--exclude-standard', '-z']).toString().split('\0').filter(Boolean);
  for (const f of untracked) {
    mkdirSync(dirname(join(dst, f)), { recursive: true });
    cpSync(join(root, f), join(dst, f));
  }
}

// ~/data/flickr30k: 120 photos (96 train, 12 + 12 held out by the seeded split) in Flickr30k's own layout.
async function tinyFlickr30k(home: string): Promise<void> {
  const world = join(home, 'world-for-flickr30k');
  generateWorld(world, { seed: 7, splits: { train: 120, val: 0, test: 0 }, imageSize: 64 });
  const ds = JSON.parse(readFileSync(join(world, 'dataset.json'), 'utf8')) as {
    images: { file: string; captions: { text: string }[] }[];
  };
  const dir = join(home, 'data', 'flickr30k');
  mkdirSync(join(dir, 'flickr30k-images'), { recursive: true });
  const lines: string[] = [];
  for (const [i, im] of ds.images.entries()) {
    const name = `${1000092795 + i}.jpg`;
    const img = await loadImage(join(world, 'images', im.file));
    const { createCanvas } = await import('@napi-rs/canvas');
    const c = createCanvas(img.width, img.height);
    c.getContext('2d').drawImage(img, 0, 0);
    writeFileSync(join(dir, 'flickr30k-images', name), c.toBuffer('image/jpeg'));
    im.captions.forEach((cap, n) => lines.push(`${name}#${n}\t${cap.text}`));
  }
  writeFileSync(join(dir, 'results_20130124.token'), lines.join('\n') + '\n');
  mkdirSync(join(home, 'photos'));
  symlinkSync(join(dir, 'flickr30k-images'), join(home, 'photos', 'flickr30k-images'));
}

// The environment of a new user's shell: their home, npm's cache (so `npm install` needs no network), this test's
// Node first on the PATH (CI runs the test under each supported Node line), then the global bin `npm link` fills.
function userEnv(home: string): NodeJS.ProcessEnv {
  const cache = spawnSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).stdout.trim();
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!/^(npm_|PRH_HOME$|XDG_|INIT_CWD$|DISPLAY$|WAYLAND_DISPLAY$)/i.test(k)) env[k] = v;
  return {
    ...env,
    HOME: home,
    npm_config_cache: cache,
    npm_config_prefer_offline: 'true',
    NPM_CONFIG_PREFIX: join(home, 'npm-global'),
    PATH: [dirname(process.execPath), join(home, 'npm-global', 'bin'), process.env.PATH].join(':'),
    ELECTRON_SKIP_BINARY_DOWNLOAD: '1',
  };
}

describe.skipIf(noChromium)('from a fresh clone', () => {
  const base = mkdtempSync(join(tmpdir(), 'prh-readme-'));
  const clone = join(base, 'prh-workbench');
  const home = join(base, 'home');
  const env = userEnv(home);
  const shell = (command: string) => spawnSync('bash', ['-c', command], { cwd: clone, env, encoding: 'utf8' });
  const log: string[] = [];

  beforeAll(async () => {
    cloneWorkingTree(clone);
    mkdirSync(home);
    await tinyFlickr30k(home);
    generateWorld(join(base, 'tiny-world'), { seed: 0, splits: { train: 96, val: 16, test: 16 }, imageSize: 64 });
    // A small ViT in the layout of the Hugging Face DINOv2 export (pixel_values -> last_hidden_state, pooler_output).
    const vit = { imageSize: 224, patchSize: 14, hidden: 16, depth: 1, heads: 2, mlp: 32 };
    writeFileSync(join(clone, 'dinov2-small.onnx'), buildVitOnnx(vit, randomVitWeights(vit, 0)));
  }, 300_000);
  afterAll(() => console.log(log.join('\n')));

  // A command that serves until stopped: its URL opened in Chromium shows the Theory lab. Seconds to the URL.
  async function serves(command: string): Promise<number> {
    const t0 = Date.now();
    const proc: ChildProcess = spawn('bash', ['-c', command], { cwd: clone, env, detached: true, stdio: 'pipe' });
    let output = '';
    proc.stderr!.on('data', (d) => (output += d));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        createInterface({ input: proc.stdout! }).on('line', (l) => {
          output += `${l}\n`;
          const m = /open (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+)/.exec(l);
          if (m) resolve(m[1]);
        });
        proc.once('exit', (code) => reject(new Error(`${command} exited with ${code}:\n${output}`)));
      });
      const seconds = (Date.now() - t0) / 1000;
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
      });
      try {
        const page = await browser.newPage();
        await page.goto(url);
        await page.getByRole('heading', { name: 'Theory lab' }).waitFor({ timeout: 60_000 });
      } finally {
        await browser.close();
      }
      return seconds;
    } finally {
      if (proc.exitCode === null && proc.signalCode === null) {
        process.kill(-proc.pid!, 'SIGTERM');
        await new Promise((r) => proc.once('exit', r));
      }
    }
  }

  // `npm install`'s warnings beyond the ones the README explains (Electron 45's EBADENGINE on Node < 22.12).
  const [major, minor] = process.versions.node.split('.').map(Number);
  const explained = (line: string) =>
    (major < 22 || (major === 22 && minor < 12)) &&
    /EBADENGINE/.test(line) &&
    /electron|@electron|Unsupported engine \{$|required:|current:|^npm warn EBADENGINE \}$/.test(line);

  it.each(PLAN.filter(([, p]) => !('skip' in p)))(
    '%s',
    async (command, plan) => {
      if ('skip' in plan) return;
      if (plan.serve) {
        if (command === 'npx prh serve') {
          // Installed without dev dependencies, nothing can build the UI: the message says which command does.
          const vite = join(clone, 'node_modules', 'electron-vite');
          renameSync(vite, `${vite}.away`);
          const r = shell(command);
          renameSync(`${vite}.away`, vite);
          expect(r.status).toBe(2);
          expect(r.stderr).toMatch(
            /electron-vite \(a dev dependency\) is not installed to build it: run `npm install`/,
          );
          expect(existsSync(join(clone, 'out', 'renderer'))).toBe(false); // nothing built yet: the first start builds it
        }
        log.push(`${command}: the URL after ${(await serves(command)).toFixed(0)} s`);
        return;
      }
      const t0 = Date.now();
      const r = shell([command, ...(plan.append ?? [])].join(' '));
      log.push(`${command}: exit ${r.status} after ${((Date.now() - t0) / 1000).toFixed(0)} s`);
      expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
      if (plan.expect) expect(`${r.stdout}\n${r.stderr}`).toMatch(plan.expect);
      if (command === 'npm install') {
        const warnings = r.stderr.split('\n').filter((l) => /^npm warn/i.test(l) && !explained(l));
        expect(warnings, 'warnings the README does not explain').toEqual([]);
      }
      if (command === 'npm link') {
        const help = shell('prh --help');
        expect(help.status).toBe(0);
        expect(help.stderr).toBe(''); // no warning
        expect(help.stdout).toMatch(/^Usage: prh /);
      }
    },
    900_000,
  );
});
