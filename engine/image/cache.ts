// Embeddings on disk with their record (`<file>.spec.json`: model hash, spec, skipped files), and a cache keyed by
// model hash + spec + image list, so a dataset is embedded once per model: `<cacheDir>/<key>.npy`.
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { GpuAdapter } from '../../shared/gpu';
import { writeJsonAtomic } from '../atomic';
import { readEmbeddings, writeEmbeddings } from '../embeddings';
import { InputError } from '../errors';
import { readJson } from '../json-file';
import { type EmbedOptions, type ImageEmbeddings, type ImageRef, embedImages } from './embed';
import type { ImageEncoder } from './encoder';
import { ImageSpec } from './spec';

// The resampler is part of the record: another library's bicubic gives other numbers (~0.07 mean abs here).
export const RESAMPLER = `@napi-rs/canvas ${(createRequire(import.meta.url)('@napi-rs/canvas/package.json') as { version: string }).version} (Skia)`;

export const EmbeddingRecord = z.object({
  version: z.literal(1),
  model: z.object({ file: z.string(), sha256: z.string() }),
  spec: ImageSpec,
  resampler: z.string(),
  rows: z.number().int(),
  dim: z.number().int(),
  skipped: z.array(z.object({ id: z.string(), file: z.string(), reason: z.string() })),
  cacheKey: z.string(),
  // where the model ran (absent in records written before devices were recorded); not part of the cache key, since
  // WebGPU and CPU agree to ~1e-6 (tests/gpu/image.test.ts)
  device: z.object({ kind: z.enum(['cpu', 'cuda', 'webgpu']), adapter: GpuAdapter.nullable() }).optional(),
});
export type EmbeddingRecord = z.infer<typeof EmbeddingRecord>;

// Where embeddings are cached unless told otherwise (XDG layout).
export const defaultCacheDir = (): string =>
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'prh-workbench', 'image-embeddings');

export const recordPath = (file: string): string => `${file}.spec.json`;

// Image list = id, absolute path, size and mtime of each file: a changed or moved file changes the key.
export function cacheKey(modelSha256: string, spec: ImageSpec, images: ImageRef[]): string {
  const h = createHash('sha256').update(JSON.stringify({ modelSha256, spec, resampler: RESAMPLER }));
  for (const im of images) {
    const path = resolve(im.file);
    const st = existsSync(path) ? statSync(path) : null;
    h.update(JSON.stringify([im.id, path, st?.size ?? -1, st?.mtimeMs ?? -1]));
  }
  return h.digest('hex').slice(0, 32);
}

export function writeImageEmbeddings(file: string, res: ImageEmbeddings, record: EmbeddingRecord): void {
  writeEmbeddings(file, res.emb, res.ids);
  writeJsonAtomic(recordPath(file), record);
}

export function readImageEmbeddings(file: string): ImageEmbeddings & { record: EmbeddingRecord } {
  const { emb, ids } = readEmbeddings(file);
  const rp = recordPath(file);
  if (!existsSync(rp)) throw new InputError(`${file}: no ${rp} beside it, so how it was embedded is unknown`);
  const record = readJson(rp, EmbeddingRecord, 'an embedding record');
  if (!ids) throw new InputError(`${file}: image embeddings need their ids sidecar`);
  return { emb, ids, skipped: record.skipped, record };
}

export type CachedEmbedding = ImageEmbeddings & { record: EmbeddingRecord; cached: boolean; cacheFile: string | null };

// Embeds `images` unless the cache holds them already; cacheDir null disables the cache.
export async function embedCached(
  enc: ImageEncoder,
  images: ImageRef[],
  cacheDir: string | null,
  opts: EmbedOptions = {},
): Promise<CachedEmbedding> {
  const key = cacheKey(enc.modelSha256, enc.spec, images);
  const cacheFile = cacheDir ? resolve(cacheDir, `${key}.npy`) : null;
  if (cacheFile && existsSync(cacheFile) && existsSync(recordPath(cacheFile))) {
    const hit = readImageEmbeddings(cacheFile);
    if (hit.skipped.length && opts.onBadImage !== 'skip')
      throw new InputError(
        `${hit.skipped.length} image(s) cannot be read, e.g. ${hit.skipped[0].reason} (allow skipping to go on)`,
      );
    opts.onProgress?.(images.length, images.length);
    return { ...hit, cached: true, cacheFile };
  }
  const res = await embedImages(enc, images, opts);
  const record: EmbeddingRecord = {
    version: 1,
    model: { file: resolve(enc.source), sha256: enc.modelSha256 },
    spec: enc.spec,
    resampler: RESAMPLER,
    rows: res.emb.rows,
    dim: res.emb.dim,
    skipped: res.skipped,
    cacheKey: key,
    device: { kind: enc.device, adapter: enc.adapter },
  };
  if (cacheFile) writeImageEmbeddings(cacheFile, res, record);
  return { ...res, record, cached: false, cacheFile };
}
