// `prh data import`: any supported dataset written as the layout (dataset.json + images/), a frozen copy that no
// longer depends on the reader, the seed or the download's folder names. Photos are copied (cloned where the file
// system can), keeping their relative paths.
import { copyFileSync, constants, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { InputError } from '../errors';
import { checkImageFiles } from './image-files';
import { DATASET_FILE, IMAGES_DIR, writeDataset } from './layout';
import type { OpenedDataset } from './open';

export type ImportOptions = { images?: boolean; force?: boolean; onProgress?: (done: number, total: number) => void };

export function importDataset(
  opened: OpenedDataset,
  out: string,
  { images = true, force = false, onProgress }: ImportOptions = {},
): { images: number; copied: number } {
  if (existsSync(join(out, DATASET_FILE)) && !force)
    throw new InputError(`${join(out, DATASET_FILE)}: exists (--force replaces it)`);
  const ds = opened.dataset;
  const withFiles = ds.images.filter((im) => im.file);
  if (images && withFiles.length)
    checkImageFiles(opened, withFiles, 'import copies the photos (--no-images writes the captions only)');
  let copied = 0;
  if (images)
    for (const im of withFiles) {
      const to = join(out, IMAGES_DIR, im.file!);
      mkdirSync(dirname(to), { recursive: true });
      copyFileSync(join(opened.imagesDir, im.file!), to, constants.COPYFILE_FICLONE);
      copied++;
      onProgress?.(copied, withFiles.length);
    }
  const params = {
    ...ds.params,
    importedFrom: opened.file,
    format: opened.format,
    ...(images ? {} : { images: 'not copied' }),
  };
  writeDataset(out, { ...ds, params, createdAt: new Date().toISOString() });
  return { images: ds.images.length, copied };
}
