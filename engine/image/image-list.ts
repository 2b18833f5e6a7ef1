// The images to embed: those of a dataset folder (`dataset.json` + `images/`, optionally one split), or every
// image file of a plain folder (ids = file names) for photos a user drops in.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Dataset, type Split } from '../../shared/dataset';
import { InputError } from '../errors';
import type { ImageRef } from './embed';

const IMAGE_EXT = /\.(jpe?g|png|webp|gif|bmp|avif)$/i;

export function listImages(dir: string, split?: Split): ImageRef[] {
  const manifest = join(dir, 'dataset.json');
  if (!existsSync(manifest)) {
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new InputError(`${dir}: no such folder`);
    if (split) throw new InputError(`${dir}: has no dataset.json, so it has no splits (drop --split to embed every image in it)`);
    const files = readdirSync(dir).filter((f) => IMAGE_EXT.test(f)).sort();
    if (!files.length) throw new InputError(`${dir}: no dataset.json and no image files (${IMAGE_EXT.source})`);
    return files.map((f) => ({ id: f, file: join(dir, f) }));
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(manifest, 'utf8'));
  } catch (err) {
    throw new InputError(`${manifest}: not valid JSON (${(err as Error).message})`);
  }
  const parsed = Dataset.safeParse(raw);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw new InputError(`${manifest}: not a dataset (${i.path.join('.')}: ${i.message})`);
  }
  const chosen = parsed.data.images.filter((im) => !split || im.split === split);
  const withFiles = chosen.filter((im) => im.file !== null);
  if (!withFiles.length)
    throw new InputError(
      `${manifest}: ${chosen.length ? `the ${chosen.length} images${split ? ` of split '${split}'` : ''} have no image files (captions only)` : `no images in split '${split}'`}`,
    );
  return withFiles.map((im) => ({ id: im.id, file: join(dir, 'images', im.file!) }));
}
