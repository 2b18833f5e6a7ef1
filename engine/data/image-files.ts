// Do the photos a step needs exist under the dataset's image folder? One message for every command: the folder is
// absent, none of its files match the captions' names, or some are missing (the count and the first five names).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DatasetImage } from '../../shared/dataset';
import { InputError } from '../errors';
import type { OpenedDataset } from './open';

const SHOWN = 5;
const IMAGE_EXT = /\.(jpe?g|png|webp|gif|bmp|avif)$/i;
// An image file by its name: what a folder of photos holds.
export const isImageFile = (name: string): boolean => IMAGE_EXT.test(name);

/** Throws unless every photo in `images` has its file under opened.imagesDir; `why` says what needs them. */
export function checkImageFiles(opened: OpenedDataset, images: DatasetImage[], why: string): void {
  const { imagesDir, path } = opened;
  const captionsOnly = images.filter((im) => !im.file);
  if (captionsOnly.length)
    throw new InputError(
      `${path}: ${captionsOnly.length} photo(s) have no image file (captions only), e.g. ${captionsOnly[0].id}; ${why}`,
    );
  if (!existsSync(imagesDir))
    throw new InputError(
      `${path}: its image folder ${imagesDir} does not exist (captions only here? give the images with --images DIR); ${why}`,
    );
  const missing = images.filter((im) => !existsSync(join(imagesDir, im.file!)));
  if (!missing.length) return;
  const names = (xs: string[]) => xs.slice(0, SHOWN).join(', ') + (xs.length > SHOWN ? ', ...' : '');
  if (missing.length === images.length) {
    const held = readdirSync(imagesDir).filter(isImageFile).sort();
    throw new InputError(
      `${imagesDir}: none of the ${images.length} photos named in ${opened.file} is in this folder ` +
        `(the captions name ${names(images.map((im) => im.file!))}; the folder holds ${held.length} image file(s)${held.length ? `: ${names(held)}` : ''}); ${why}`,
    );
  }
  throw new InputError(
    `${imagesDir}: ${missing.length} of the ${images.length} photos named in ${opened.file} are missing: ${names(missing.map((im) => im.file!))}; ${why}`,
  );
}
