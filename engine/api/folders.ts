// The folder browser behind the dataset picker of `prh serve` (the desktop app has the native dialog): it lists
// sub-folders, never files, and only under the allowed roots: the lab's datasets folder, the folders holding the
// datasets that runs used, and the roots named in the settings (`dataRoots`).
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, isAbsolute } from 'node:path';
import type { FolderListing } from '../../shared/api';
import { isDatasetFolder } from '../data';
import { clipPath, InputError } from '../errors';

const MAX_ENTRIES = 500;
// Any folder engine/data opens (by file names; a COCO download by its annotations/captions_*.json).
const isDataset = isDatasetFolder;

// Real paths, so a symlink cannot lead out of a root; roots that do not exist are dropped.
export function folderRoots(candidates: string[]): string[] {
  const real = candidates.filter((p) => existsSync(p) && statSync(p).isDirectory()).map((p) => realpathSync(p));
  return [...new Set(real)].sort();
}

const inside = (root: string, p: string) => {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

export function browseFolder(path: string | undefined, roots: string[]): FolderListing {
  if (path === undefined)
    return {
      path: null,
      parent: null,
      roots,
      entries: roots.map((r) => ({ name: r, path: r, dataset: isDataset(r) })),
    };
  const dir = existsSync(path) ? realpathSync(resolve(path)) : resolve(path);
  const root = roots.find((r) => inside(r, dir));
  if (!root)
    throw new InputError(
      `${clipPath(path)}: outside the folders this server may list (${roots.join(', ') || 'none'}); add it to dataRoots in the settings`,
    );
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new InputError(`${clipPath(path)}: not a folder`);
  const entries = readdirSync(dir, { withFileTypes: true })
    .filter(
      (e) =>
        !e.name.startsWith('.') &&
        (e.isDirectory() ||
          (e.isSymbolicLink() && existsSync(join(dir, e.name)) && statSync(join(dir, e.name)).isDirectory())),
    )
    .map((e) => join(dir, e.name))
    .filter((p) => inside(root, realpathSync(p)))
    .sort()
    .slice(0, MAX_ENTRIES)
    .map((p) => ({ name: p.slice(dir.length + 1), path: p, dataset: isDataset(p) }));
  return { path: dir, parent: dir === root ? null : dirname(dir), roots, entries };
}
