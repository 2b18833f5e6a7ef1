// A run as one zip (config, metrics, logs, artifacts, report) to share or archive; big checkpoints stay out.
import { lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { zipSync, type Zippable } from 'fflate';
import { writeFileAtomic } from '../atomic';
import { InputError } from '../errors';

export type BundleOptions = { maxCheckpointBytes?: number }; // files under any checkpoints/ folder above this are left out
const MAX_CHECKPOINT_BYTES = 100 * 2 ** 20;
const STORED = /\.(png|jpe?g|pdf|zip|gz)$/i; // already compressed: deflate would only cost time
const PARTIAL = /\.\d+\.\d+\.tmp$/; // an engine/atomic write in progress

// Entries sit under `<run id>/` so unzipping makes the run's folder; bundle.json lists what was left out.
// fflate builds the zip in memory and writes no Zip64, so a bundle must stay under 4 GiB.
export function bundleRun(runDir: string, opts: BundleOptions = {}): Uint8Array {
  const root = resolve(runDir);
  if (!statSync(root, { throwIfNoEntry: false })?.isDirectory()) throw new InputError(`${runDir}: not a run folder`);
  const limit = opts.maxCheckpointBytes ?? MAX_CHECKPOINT_BYTES;
  const name = basename(root);
  const files: Zippable = {};
  const skipped: { path: string; bytes: number }[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir).sort()) {
      const abs = join(dir, entry);
      const st = lstatSync(abs);
      const rel = relative(root, abs).split(sep).join('/');
      if (st.isDirectory()) walk(abs);
      else if (!st.isFile() || PARTIAL.test(entry)) continue;
      else if (/(^|\/)checkpoints\//.test(rel) && st.size > limit)
        skipped.push({ path: rel, bytes: st.size }); // an experiment's arms keep theirs under arms/<run>/
      else files[`${name}/${rel}`] = [readFileSync(abs), { level: STORED.test(entry) ? 0 : 6, mtime: st.mtime }];
    }
  };
  walk(root);
  files[`${name}/bundle.json`] = new TextEncoder().encode(
    JSON.stringify({ maxCheckpointBytes: limit, skipped }, null, 2) + '\n',
  );
  return zipSync(files);
}

export function writeBundle(runDir: string, outFile: string, opts: BundleOptions = {}): void {
  const rel = relative(resolve(runDir), resolve(outFile));
  if (!rel.startsWith('..') && !isAbsolute(rel))
    throw new InputError(`${outFile}: the bundle cannot be written inside the run folder it bundles`);
  writeFileAtomic(outFile, bundleRun(runDir, opts));
}
