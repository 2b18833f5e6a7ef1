#!/usr/bin/env node
// Runs one of the engine's process entries (a .ts file: the CLI, the job worker, the lab task, a world-encoder member)
// as an esbuild bundle of its sources, built into .cache/entries/ and built again when any of them changed. Under
// tsx's loader every engine module costs a round trip to the loader's thread: ~200 modules, ~1.2 s of CPU and 0.7 s
// of wall time before a command or a job starts. The bundle is the same code (packages stay external, dynamic imports
// stay lazy chunks, import.meta is each source file's own); where it cannot be built, the entry runs under tsx.
//   node bin/entry.js <entry.ts> [args...]   (the entry sees process.argv as under `node --import tsx <entry.ts>`)
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '..');
const cacheDir = join(root, '.cache', 'entries');
// An older build's folder goes after a week, not at once: a job started from it may still import one of its chunks
// (say the report, at the end of a run of several days).
const STALE_BUILD_MS = 7 * 24 * 3600_000;

// A source's identity for the freshness check: its mtime and size ([ms, bytes]), null when it is gone.
const stamp = (file) => {
  try {
    const s = statSync(join(root, file));
    return [s.mtimeMs, s.size];
  } catch {
    return null;
  }
};

// The main file of entry `name`'s last build if every source it was built from is as it was then, else null.
function freshBuild(name) {
  let record;
  try {
    record = JSON.parse(readFileSync(join(cacheDir, `${name}.json`), 'utf8'));
  } catch {
    return null;
  }
  // the bundler's own options are in this file: a build recorded before it was an input is stale too
  for (const [file, was] of Object.entries({ 'bin/entry.js': null, ...record.inputs })) {
    const now = stamp(file);
    if (!now || !was || now[0] !== was[0] || now[1] !== was[1]) return null;
  }
  const main = join(cacheDir, record.dir, `${name}.js`);
  return existsSync(main) ? main : null;
}

// import.meta.url / dirname / filename as the source file's own: modules find files beside their sources, and
// engine/child tells a source install from the desktop app's bundle by them.
const sourceMeta = {
  name: 'source-import-meta',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      const code = readFileSync(args.path, 'utf8')
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)))
        .replaceAll('import.meta.filename', JSON.stringify(args.path));
      return { contents: code, loader: 'ts' };
    });
  },
};

// The CommonJS packages every training or encoding process loads, required instead of imported: Node's ESM import of
// a CommonJS package first scans its source, and that of each package it re-exports, for export names
// (cjs-module-lexer; tfjs's union package re-exports core, layers, converter, data and two backends): loading tfjs
// alone takes 0.49 s of wall and 0.65 s of CPU imported, 0.29 and 0.30 s required, at each process's start. A static
// import of one becomes a CommonJS module of the bundle whose require is Node's own (the banner's); a dynamic import
// stays Node's, whose namespace has the names the scan finds (esbuild's split chunk of a CommonJS module has a default
// export only).
export const REQUIRED_PACKAGES = ['@tensorflow/tfjs', 'onnxruntime-node']; // vitest.config.ts loads them so too
const REQUIRED = new RegExp(`^(${REQUIRED_PACKAGES.join('|')})$`);
const requirePackages = {
  name: 'require-packages',
  setup(build) {
    build.onResolve({ filter: REQUIRED }, (args) =>
      args.kind === 'require-call'
        ? { path: args.path, external: true }
        : args.kind === 'import-statement'
          ? { path: args.path, namespace: 'required' }
          : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'required' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

// Bundles `entry` into a new folder and records its sources; concurrent builds each write their own folder and the
// last record wins (they hold the same code).
async function build(entry, name) {
  const { build: esbuild, stop } = await import('esbuild');
  mkdirSync(cacheDir, { recursive: true });
  const started = Date.now();
  const dir = `${name}-${process.pid}-${started.toString(36)}`;
  const result = await esbuild({
    entryPoints: { [name]: entry },
    outdir: join(cacheDir, dir),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    metafile: true,
    absWorkingDir: root, // the metafile's input paths are relative to it
    logLevel: 'silent',
    plugins: [sourceMeta, requirePackages],
    // require in every chunk: esbuild's require shim calls it for the packages above
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
  }).finally(stop); // esbuild's service process would otherwise live as long as the entry (a job: hours)
  const inputs = {};
  const sources = Object.keys(result.metafile.inputs).filter((f) => !f.startsWith('required:')); // not the packages
  for (const file of [...sources, 'tsconfig.json', 'bin/entry.js']) inputs[file] = stamp(file);
  // A source saved while esbuild read it may be in this build in either version: then the next start builds again.
  const settled = Object.values(inputs).every((s) => !s || s[0] < started);
  const record = join(cacheDir, `${name}.json`);
  if (settled) {
    writeFileSync(`${record}.${process.pid}`, JSON.stringify({ dir, inputs }));
    renameSync(`${record}.${process.pid}`, record);
  }
  for (const old of readdirSync(cacheDir))
    if (
      old.startsWith(`${name}-`) &&
      old !== dir &&
      Date.now() - statSync(join(cacheDir, old)).mtimeMs > STALE_BUILD_MS
    )
      rmSync(join(cacheDir, old), { recursive: true, force: true });
  return join(cacheDir, dir, `${name}.js`);
}

// Imports the entry: its bundle (fresh, or built now), or under tsx where building fails (say a syntax error, which
// tsx then reports as it always has) or .cache is not writable.
export async function runEntry(entry) {
  const rel = relative(root, entry);
  const name = rel.replace(/\.ts$/, '').replaceAll(sep, '-'); // engine-worker-main
  const main = rel.startsWith('..') ? null : (freshBuild(name) ?? (await build(entry, name).catch(() => null)));
  if (main) {
    process.setSourceMapsEnabled(true); // stack traces at the sources' .ts lines, as under tsx
    await import(pathToFileURL(main).href);
  } else {
    const { register } = await import('tsx/esm/api');
    register();
    await import(pathToFileURL(entry).href);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const entry = resolve(process.argv[2]);
  process.argv.splice(1, 1); // [node, entry.ts, ...args], as the entry reads it under tsx
  await runEntry(entry);
}
