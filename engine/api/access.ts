// What a served UI (`prh serve`) may read and write on this machine. The desktop app and the `prh` CLI name any
// path their user can (the native dialog, the command line); a browser tab holding the token gets less:
//   read:  the runs folder, the lab's datasets folder, the settings' dataRoots, and the folders holding datasets
//          that stored runs used (the same roots the folder browser lists, so a folder picked there is readable);
//   write: the lab's datasets folder and the dataRoots (world generation), besides the runs folder the store owns.
// The roots themselves (dataRoots, runsDir) are set in the desktop app or the settings file, not by the tab.
import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { RunConfig } from '../../shared/runs';
import { clipPath, InputError } from '../errors';

export type Roots = { read: string[]; write: string[] };

// The real path of `p`, or of its nearest existing ancestor with the rest appended (an output not made yet), so
// neither `..` nor a symlink leads out of a root.
function realish(p: string): string {
  const abs = resolve(p);
  if (existsSync(abs)) return realpathSync(abs);
  const parent = dirname(abs);
  return parent === abs ? abs : join(realish(parent), basename(abs));
}

const inside = (root: string, p: string) => {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

export class Access {
  // roots: computed on each check (settings and stored runs change while serving); null: anything goes.
  constructor(private readonly roots: (() => Roots) | null) {}

  get confined(): boolean {
    return this.roots !== null;
  }

  // Throws an InputError naming the path and what it was for when `p` lies outside every root of `mode`.
  check(p: string, mode: 'read' | 'write', what: string): void {
    if (!this.roots) return;
    const roots = [...new Set(this.roots()[mode].map(realish))]; // a root not made yet (datasets/) still counts
    if (roots.some((r) => inside(r, realish(p)))) return;
    throw new InputError(
      `${what} ${clipPath(p)}: outside the folders this server may ${mode} (${roots.join(', ') || 'none'}); add its folder to dataRoots in the settings of the desktop app or the settings file`,
    );
  }

  // The paths a run config names, checked before the run is stored.
  checkConfig(c: RunConfig): void {
    if (c.kind === 'train') {
      this.check(c.data, 'read', 'dataset');
      if (c.images) this.check(c.images, 'read', 'image folder');
      if (c.tokenizer) this.check(c.tokenizer, 'read', 'tokenizer');
      if (c.evaluation)
        for (const f of [c.evaluation.images.val, c.evaluation.images.test]) this.check(f, 'read', 'image embeddings');
    } else if (c.kind === 'experiment') {
      this.check(c.data, 'read', 'dataset');
      if (c.images) this.check(c.images, 'read', 'image folder');
      if (c.image.model !== 'world') this.check(c.image.model, 'read', 'image model');
      if (c.image.embeddings) this.check(c.image.embeddings, 'read', 'image embeddings');
      if (c.train.tokenizer) this.check(c.train.tokenizer, 'read', 'tokenizer');
    } else if (c.kind === 'world.generate') {
      this.check(c.out, 'write', 'world output');
    }
  }
}
