// The frozen image side of an experiment: embed the fit (val) and test photos once, through the same path a
// real DINOv2 ONNX takes, and keep them (plus how they were made) in the run folder.
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import type { Dataset } from '../../shared/dataset';
import type { ImageEncoderChoice } from '../../shared/experiment';
import { writeJsonAtomic } from '../atomic';
import { readJson } from '../json-file';
import { writeEmbeddings } from '../embeddings';
import { InputError } from '../errors';
import { embedCached, openImageEncoder, type ImageRef } from '../image';
import { EncoderRecord, type ExperimentLayout } from './layout';
import { imageModelPath } from './resources';

export type ImageSide = { val: string; test: string; encoder: EncoderRecord };

export async function embedImageSide(
  dataset: Dataset, dataDir: string, choice: ImageEncoderChoice, out: ExperimentLayout['image'], cacheDir: string | null,
  opts: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void; log?: (message: string) => void } = {},
): Promise<ImageSide> {
  const paths = { val: out.val, test: out.test };
  if (existsSync(out.encoder) && existsSync(paths.val) && existsSync(paths.test)) {
    return { ...paths, encoder: readJson(out.encoder, EncoderRecord) }; // resumed: already embedded
  }
  const refs = (split: 'val' | 'test'): ImageRef[] =>
    dataset.images.filter((im) => im.split === split).map((im) => {
      if (!im.file) throw new InputError(`${dataDir}: photo ${im.id} has no image file; an experiment needs images for the fit and test photos`);
      return { id: im.id, file: join(dataDir, 'images', im.file) };
    });
  const val = refs('val');
  const test = refs('test');
  const model = imageModelPath(choice.model);
  const enc = await openImageEncoder(model, { preset: choice.preset, device: choice.device, log: opts.log });
  try {
    const total = val.length + test.length;
    const v = await embedCached(enc, val, cacheDir, { signal: opts.signal, onProgress: (d) => opts.onProgress?.(d, total) });
    const t = await embedCached(enc, test, cacheDir, { signal: opts.signal, onProgress: (d) => opts.onProgress?.(val.length + d, total) });
    writeEmbeddings(paths.val, v.emb, v.ids);
    writeEmbeddings(paths.test, t.emb, t.ids);
    const encoder: EncoderRecord = { model, sha256: enc.modelSha256, preset: enc.spec.preset, spec: enc.spec, dim: v.emb.dim, skipped: v.skipped.length + t.skipped.length, device: enc.device, adapter: enc.adapter };
    writeJsonAtomic(out.encoder, encoder);
    return { ...paths, encoder };
  } finally {
    await enc.release();
  }
}
