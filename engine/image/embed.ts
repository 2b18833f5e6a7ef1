// Batched embedding of image files: decode + preprocess batch b+1 while the model runs batch b; progress per
// batch; an AbortSignal stops between batches; unreadable files are skipped (and listed) or fail the job.
import type { Embeddings } from '../embeddings';
import { InputError } from '../errors';
import { Cancelled } from '../runs/job';
import type { ImageEncoder } from './encoder';
import { BadImageError, Preprocessor, decodeImage } from './preprocess';

export type ImageRef = { id: string; file: string };
export type BadImagePolicy = 'skip' | 'fail';
export type SkippedImage = ImageRef & { reason: string };

export type EmbedOptions = {
  batchSize?: number;
  onBadImage?: BadImagePolicy; // default 'fail'
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void; // images processed (embedded or skipped)
};

// emb row i is the image ids[i]; skipped images have no row.
export type ImageEmbeddings = { emb: Embeddings; ids: string[]; skipped: SkippedImage[] };

type Batch = { pixels: Float32Array; ids: string[]; skipped: SkippedImage[] };

// A model output row with NaN or Inf: the model cannot embed that image (bad weights, overflow, a broken export).
function nonFinite(out: { dim: number; data: Float32Array }, ids: string[]): string[] {
  return ids.filter((_, r) => !out.data.subarray(r * out.dim, (r + 1) * out.dim).every(Number.isFinite));
}

export async function embedImages(
  enc: ImageEncoder,
  images: ImageRef[],
  opts: EmbedOptions = {},
): Promise<ImageEmbeddings> {
  // A model exported with a fixed batch runs only that many images per call; a short last batch is padded with zeros.
  const batchSize = enc.fixedBatch ?? opts.batchSize ?? 16;
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new InputError(`batch size must be a positive integer, got ${batchSize}`);
  if (images.length === 0) throw new InputError('no images to embed');
  const { size } = enc.spec;
  const pre = new Preprocessor(enc.spec);
  const per = 3 * size * size;

  // One image decoded at a time, drawn, then dropped: a batch of 12-megapixel photos would otherwise hold ~1 GB.
  const prepare = async (b: number): Promise<Batch> => {
    const refs = images.slice(b * batchSize, (b + 1) * batchSize);
    const batch: Batch = { pixels: new Float32Array(refs.length * per), ids: [], skipped: [] };
    for (const r of refs) {
      try {
        pre.draw(await decodeImage(r.file), batch.pixels, batch.ids.length * per);
        batch.ids.push(r.id);
      } catch (err) {
        if (!(err instanceof BadImageError && opts.onBadImage === 'skip')) throw err;
        batch.skipped.push({ ...r, reason: err.message });
      }
    }
    return batch;
  };

  const batches = Math.ceil(images.length / batchSize);
  const parts: Float32Array[] = [];
  const ids: string[] = [];
  const skipped: SkippedImage[] = [];
  let dim = 0;
  let next = prepare(0);
  for (let b = 0; b < batches; b++) {
    const cur = await next;
    if (opts.signal?.aborted)
      throw new Cancelled(`embedding cancelled after ${ids.length + skipped.length} of ${images.length} images`);
    if (b + 1 < batches) {
      next = prepare(b + 1);
      next.catch(() => {}); // awaited on the next turn; this only keeps Node from calling it unhandled meanwhile
    }
    skipped.push(...cur.skipped);
    if (cur.ids.length) {
      const n = enc.fixedBatch ?? cur.ids.length;
      const pixels = n > cur.ids.length ? new Float32Array(n * per) : cur.pixels; // zeros past the real images
      if (pixels !== cur.pixels) pixels.set(cur.pixels.subarray(0, cur.ids.length * per));
      const full = await enc.encode(pixels, n);
      const out = { dim: full.dim, data: full.data.subarray(0, cur.ids.length * full.dim) };
      const bad = nonFinite(out, cur.ids);
      if (bad.length)
        throw new InputError(
          `${enc.source}: the model's output is NaN or infinite for ${bad.length} of ${cur.ids.length} images in this batch (${bad.slice(0, 8).join(', ')}${bad.length > 8 ? ', ...' : ''}); no embeddings were written`,
        );
      dim = out.dim;
      parts.push(out.data.slice());
      ids.push(...cur.ids);
    }
    opts.onProgress?.(ids.length + skipped.length, images.length);
  }
  if (ids.length === 0)
    throw new InputError(`none of the ${images.length} images could be read, e.g. ${skipped[0].reason}`);
  const data = new Float32Array(ids.length * dim);
  let o = 0;
  for (const p of parts) {
    data.set(p, o);
    o += p.length;
  }
  return { emb: { rows: ids.length, dim, data }, ids, skipped };
}
