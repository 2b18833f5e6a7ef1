// The frozen image side of an experiment: embed the fit (val) and test photos once, through the same path a
// real DINOv2 ONNX takes (with any of `prh embed`'s spec overrides), or take them from embeddings computed
// elsewhere; keep them (plus how they were made) in the run folder.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DatasetImage } from '../../shared/dataset';
import type { ExperimentConfig, ImageEncoderChoice } from '../../shared/experiment';
import { writeJsonAtomic } from '../atomic';
import { idsPath, readEmbeddings, writeEmbeddings, type Embeddings } from '../embeddings';
import { InputError } from '../errors';
import { isDatasetDir } from '../data';
import {
  BadImageError,
  cacheKey,
  defaultCacheDir,
  decodeImage,
  embedCached,
  embedImages,
  openImageEncoder,
  readWorldEncoderManifest,
  sha256,
  specOverrides,
  type ImageEncoder,
  type ImageRef,
} from '../image';
import { readJson } from '../json-file';
import { EncoderRecord, type ExperimentLayout } from './layout';
import { assertRows, protocolPhotos } from './protocol';
import { WORLD_ENCODER_MANIFEST, imageModelPath, resourcePath } from './resources';

export type ImageSide = { val: string; test: string; encoder: EncoderRecord };
export type Photos = { fit: DatasetImage[]; test: DatasetImage[]; imagesDir: string };

// Rows of a precomputed [photos, D] matrix for the given photos, in their order.
function gatherRows(file: string, emb: Embeddings, ids: string[], want: DatasetImage[]): Embeddings {
  assertRows(file, ids, want);
  const row = new Map(ids.map((id, i) => [id, i]));
  const data = new Float32Array(want.length * emb.dim);
  want.forEach((im, r) =>
    data.set(emb.data.subarray(row.get(im.id)! * emb.dim, (row.get(im.id)! + 1) * emb.dim), r * emb.dim),
  );
  return { rows: want.length, dim: emb.dim, data };
}

function precomputed(file: string, photos: Photos, out: ExperimentLayout['image']): ImageSide {
  const path = resolve(file);
  const { emb, ids } = readEmbeddings(path);
  if (!ids)
    throw new InputError(
      `${path}: precomputed image embeddings need an ids sidecar ${idsPath(path)} (photo ids, one per row)`,
    );
  writeEmbeddings(
    out.val,
    gatherRows(path, emb, ids, photos.fit),
    photos.fit.map((im) => im.id),
  );
  writeEmbeddings(
    out.test,
    gatherRows(path, emb, ids, photos.test),
    photos.test.map((im) => im.id),
  );
  const encoder: EncoderRecord = {
    model: path,
    sha256: sha256(readFileSync(path)),
    preset: 'precomputed',
    spec: null,
    dim: emb.dim,
    skipped: 0,
  };
  writeJsonAtomic(out.encoder, encoder);
  return { val: out.val, test: out.test, encoder };
}

// A dataset folder keeps its embedding cache beside it; real data may sit on a read-only share, so its cache is the user's.
export const imageCacheDir = (data: string): string =>
  isDatasetDir(data) ? join(data, '.embeddings') : defaultCacheDir();

const refs = (ims: DatasetImage[], imagesDir: string): ImageRef[] =>
  ims.map((im) => ({ id: im.id, file: join(imagesDir, im.file!) }));

// The experiment's image encoder, opened with its spec.
async function openImageSide(choice: ImageEncoderChoice, log?: (message: string) => void): Promise<ImageEncoder> {
  const model = imageModelPath(choice.model);
  // The shipped world encoder sees what it trained on, the whole render at its side (not DINOv2's resize to 8/7 of
  // the side and centre crop, which zooms in and cuts the border cells); flags given still win.
  const side =
    choice.model === 'world'
      ? readWorldEncoderManifest(resourcePath(WORLD_ENCODER_MANIFEST)).recipe.world.imageSize
      : null;
  const overrides = { ...(side ? { size: side, resize: side } : {}), ...specOverrides(choice) };
  return openImageEncoder(model, { preset: choice.preset, overrides, device: choice.device, log });
}

const PREFLIGHT_BATCH = 4;

/** Before an experiment exists: its image model loads, has the tensor asked for, gives finite embeddings for the
 * first photos, and every fit and test photo decodes (unless their embeddings are cached already). */
export async function preflightImageSide(photos: Photos, choice: ImageEncoderChoice, cacheDir: string | null) {
  if (choice.embeddings) return; // checked with the data (protocolPhotos)
  const enc = await openImageSide(choice);
  try {
    const val = refs(photos.fit, photos.imagesDir);
    const test = refs(photos.test, photos.imagesDir);
    const cached = (ims: ImageRef[]) =>
      cacheDir !== null && existsSync(resolve(cacheDir, `${cacheKey(enc.modelSha256, enc.spec, ims)}.npy`));
    if (!cached(val) || !cached(test)) {
      const bad: string[] = [];
      for (const r of [...val, ...test])
        await decodeImage(r.file).catch((err: unknown) => {
          if (!(err instanceof BadImageError)) throw err;
          bad.push(err.message);
        });
      if (bad.length)
        throw new InputError(
          `${bad.length} of the ${val.length + test.length} fit and test photos cannot be decoded: ${bad.slice(0, 3).join('; ')}${bad.length > 3 ? '; …' : ''}`,
        );
    }
    await embedImages(enc, val.slice(0, PREFLIGHT_BATCH), { batchSize: PREFLIGHT_BATCH }); // finite, or an InputError
  } finally {
    await enc.release();
  }
}

// Whether an earlier attempt embedded the photos already (a resume reads them back).
export const imageSideDone = (out: ExperimentLayout['image']): boolean =>
  existsSync(out.encoder) && existsSync(out.val) && existsSync(out.test);

export async function embedImageSide(
  photos: Photos,
  choice: ImageEncoderChoice,
  out: ExperimentLayout['image'],
  cacheDir: string | null,
  opts: {
    signal?: AbortSignal;
    onProgress?: (done: number, total: number) => void;
    log?: (message: string) => void;
  } = {},
): Promise<ImageSide> {
  const paths = { val: out.val, test: out.test };
  if (imageSideDone(out)) {
    return { ...paths, encoder: readJson(out.encoder, EncoderRecord) }; // resumed: already embedded
  }
  if (choice.embeddings) return precomputed(choice.embeddings, photos, out);
  const val = refs(photos.fit, photos.imagesDir);
  const test = refs(photos.test, photos.imagesDir);
  const enc = await openImageSide(choice, opts.log);
  try {
    const total = val.length + test.length;
    const v = await embedCached(enc, val, cacheDir, {
      signal: opts.signal,
      onProgress: (d) => opts.onProgress?.(d, total),
    });
    const t = await embedCached(enc, test, cacheDir, {
      signal: opts.signal,
      onProgress: (d) => opts.onProgress?.(val.length + d, total),
    });
    writeEmbeddings(paths.val, v.emb, v.ids);
    writeEmbeddings(paths.test, t.emb, t.ids);
    const encoder: EncoderRecord = {
      model: enc.source,
      sha256: enc.modelSha256,
      preset: enc.spec.preset,
      spec: enc.spec,
      dim: v.emb.dim,
      skipped: v.skipped.length + t.skipped.length,
      device: enc.device,
      adapter: enc.adapter,
    };
    writeJsonAtomic(out.encoder, encoder);
    return { ...paths, encoder };
  } finally {
    await enc.release();
  }
}

/** The image half of an experiment's preflight (the data half is protocolPhotos), in the lab's child process: it loads
 * onnxruntime, which the service's process does not. The 2x2 trains its image side, so it has nothing to check here. */
export async function preflightExperimentImages(c: ExperimentConfig): Promise<void> {
  if (c.imageViews) return;
  const { opened, fit, test } = protocolPhotos(c);
  await preflightImageSide({ fit, test, imagesDir: opened.imagesDir }, c.image, imageCacheDir(c.data));
}
