// The images to embed: those of any dataset engine/data opens (a dataset folder, or Karpathy / Flickr30k / COCO
// caption files with their image folder), optionally one split; or every image file of a plain folder
// (ids = file names), for photos a user drops in.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Split } from '../../shared/dataset';
import { isImageFile, openDataset } from '../data';
import { InputError } from '../errors';
import type { ImageRef } from './embed';

function plainFolder(dir: string, split: Split | undefined, why: InputError): ImageRef[] {
  const files = readdirSync(dir).filter(isImageFile).sort();
  if (!files.length) throw why;
  if (split)
    throw new InputError(
      `${dir}: is a plain folder of images, so it has no splits (drop --split to embed every image in it)`,
    );
  return files.map((f) => ({ id: f, file: join(dir, f) }));
}

export function listImages(path: string, split?: Split, imagesDir?: string): ImageRef[] {
  let opened;
  try {
    opened = openDataset(path, { imagesDir });
  } catch (err) {
    if (err instanceof InputError && existsSync(path) && statSync(path).isDirectory())
      return plainFolder(path, split, err);
    throw err;
  }
  const chosen = opened.dataset.images.filter((im) => !split || im.split === split);
  const withFiles = chosen.filter((im) => im.file !== null);
  if (!withFiles.length)
    throw new InputError(
      chosen.length
        ? `${path}: the ${chosen.length} images${split ? ` of split '${split}'` : ''} have no image files (captions only)`
        : `${path}: no images in split '${split}'`,
    );
  if (!existsSync(opened.imagesDir))
    throw new InputError(
      `${path}: its image folder ${opened.imagesDir} does not exist (captions only here? give the images with --images DIR)`,
    );
  return withFiles.map((im) => ({ id: im.id, file: join(opened.imagesDir, im.file!) }));
}
