// Image drop on a finished experiment: embed the dropped images with the experiment's frozen image encoder, map
// them into each arm's text space (x − μ_img) W, and rank a caption pool (y − μ_txt) by cosine. Runs in the lab's
// child process (engine/api/lab-task.ts).
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Match, MatchResult, Nearness, OwnCaptions } from '../../shared/api';
import type { Dataset } from '../../shared/dataset';
import { ExperimentConfig } from '../../shared/experiment';
import { isJepaArm } from '../../shared/train';
import { openDataset, type OpenedDataset } from '../data';
import { readJson } from '../json-file';
import { readEmbeddings, readNpy, readNpyTensor, writeNpy, type Embeddings } from '../embeddings';
import { InputError } from '../errors';
import { embedImages, openImageEncoder, sha256 } from '../image';
import { gemm, subRow, takeRows, type Mat } from '../linalg';
import { cosineSimilarity } from '../metrics';
import { RunStore } from '../runs';
import { captionIds, loadTokenizer } from '../text';
import { buildModel, embedCaptions, initBackend, loadCheckpoint } from '../train';
import { EncoderRecord, FinishedArms, ResolvedArm, armLayout, experimentLayout } from './layout';
import { openExperimentData } from './protocol';

type Pool = { name: string; captions: string[]; photos: (string | null)[]; fromDataset: boolean };

// 'test': every caption (all 5 per photo) of the experiment's test photos; else any dataset engine/data opens
// (a folder or a caption file: COCO captions JSON, Flickr8k, a caption table, ...), all its captions.
function captionPool(pool: string, experimentData: OpenedDataset): Pool {
  const test = pool === 'test';
  const ds = test ? experimentData.dataset : openDataset(pool).dataset;
  const images = test ? ds.images.filter((im) => im.split === 'test') : ds.images;
  const captions: string[] = [],
    photos: string[] = [];
  for (const im of images)
    for (const c of im.captions) {
      captions.push(c.text);
      photos.push(im.id);
    }
  if (!captions.length) throw new InputError(`${test ? experimentData.path : pool}: the caption pool is empty`);
  return { name: test ? `${ds.name} test captions` : pool, captions, photos, fromDataset: test };
}

const vector = (file: string): Float64Array => Float64Array.from(readNpyTensor(file).data);
const asMat = (e: Embeddings): Mat =>
  takeRows(
    e,
    Int32Array.from({ length: e.rows }, (_, i) => i),
  );

// The pool through one arm's selected checkpoint (last layer, as the experiment scores), cached per pool in final/.
async function poolEmbeddings(
  armDir: string,
  finalDir: string,
  runId: string,
  epoch: number,
  pool: Pool,
): Promise<Embeddings> {
  const hash = createHash('sha256')
    .update(JSON.stringify([runId, epoch, pool.captions]))
    .digest('hex')
    .slice(0, 16);
  const cache = join(finalDir, `pool-${hash}.npy`);
  if (existsSync(cache)) return readNpy(cache);
  const files = armLayout(armDir);
  const r = readJson(files.resolvedConfig, ResolvedArm);
  await initBackend('auto'); // whatever this machine has; inference only
  const tk = loadTokenizer(files.tokenizer);
  const jepa = isJepaArm(r.arm);
  const m = buildModel(r.encoder, r.vocab, jepa, 0);
  loadCheckpoint(armDir, epoch, m.params, null);
  const seqs = pool.captions.map((t) => {
    const ids = captionIds(tk, t, r.encoder.maxLen);
    return [tk.cls, ...(ids.length ? ids : [tk.unk]), tk.sep];
  });
  const { layers, nLayers } = await embedCaptions(m, seqs, !jepa);
  const n = seqs.length,
    d = r.encoder.d;
  const emb: Embeddings = { rows: n, dim: d, data: layers.slice((nLayers - 1) * n * d) };
  writeNpy(cache, emb);
  return emb;
}

// perPhoto: each pool photo listed once, at its best caption (else its five paraphrases can fill the top k).
export async function matchDroppedImages(
  expDir: string,
  images: { name: string; base64: string }[],
  poolSpec: string,
  topK: number,
  perPhoto = false,
): Promise<MatchResult> {
  const layout = experimentLayout(expDir);
  const config = readJson(join(expDir, 'config.json'), ExperimentConfig); // the run store's copy of the config
  if (!existsSync(layout.result))
    throw new InputError(`${expDir}: the experiment has no finished arms yet (image drop needs its final maps)`);
  const arms = readJson(layout.result, FinishedArms).arms;
  const enc = readJson(layout.image.encoder, EncoderRecord);
  const spec = enc.spec;
  if (!spec)
    throw new InputError(
      `${expDir}: the image side was precomputed (${enc.model}), so there is no encoder to embed dropped images with`,
    );
  const data = openExperimentData(config);
  const pool = captionPool(poolSpec, data);
  const known = datasetPhotos(
    data,
    images.map((im) => Buffer.from(im.base64, 'base64')),
  );

  // Dropped bytes go to a temp folder under their own (sanitised) names, so errors name the user's file.
  const tmp = mkdtempSync(join(tmpdir(), 'prh-drop-'));
  let x: Embeddings, ids: string[], skipped: { name: string; reason: string }[];
  try {
    const refs = images.map((im, i) => {
      const file = join(tmp, `${i}-${im.name.replace(/[^\w.-]+/g, '_').slice(-80) || 'image'}`);
      writeFileSync(file, Buffer.from(im.base64, 'base64'));
      return { id: String(i), file };
    });
    // a 2x2's image side is its first image arm, inside the run folder: found there, so a moved folder still works
    const model = config.imageViews ? layout.imageArm(config.imageViews.arms[0], true).onnx : enc.model;
    const encoder = await openImageEncoder(model, { preset: spec.preset, overrides: spec });
    try {
      const res = await embedImages(encoder, refs, { onBadImage: 'skip' });
      x = res.emb;
      ids = res.ids;
      skipped = res.skipped.map((s) => ({
        name: images[Number(s.id)].name,
        reason: s.reason.replace(s.file, images[Number(s.id)].name),
      }));
    } catch (err) {
      if (err instanceof InputError && /none of the/.test(err.message))
        throw new InputError(`none of the dropped files is a readable image (${images.map((i) => i.name).join(', ')})`);
      throw err;
    } finally {
      await encoder.release();
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }

  const store = new RunStore(layout.arms);
  const out: MatchResult['arms'] = [];
  for (const a of arms) {
    const final = layout.final(a.arm, a.seed);
    const w = readNpy(final.w); // [dImg, dTxt]
    const muImg = vector(final.imageMean);
    const muTxt = vector(final.textMean);
    if (w.rows !== x.dim) throw new InputError(`${final.w}: maps ${w.rows}-d images, the encoder gives ${x.dim}-d`);
    const y = await poolEmbeddings(store.dir(a.runId), final.dir, a.runId, a.epoch, pool);
    const mapped = await gemm(subRow(asMat(x), muImg), asMat(w)); // [nImg, dTxt]
    const sim = await cosineSimilarity(mapped, subRow(asMat(y), muTxt)); // [nImg, nPool]
    out.push({
      arm: a.arm,
      seed: a.seed,
      images: ids.map((id, r) => {
        const row = sim.data.subarray(r * sim.cols, (r + 1) * sim.cols);
        return {
          name: images[Number(id)].name,
          top: topMatches(row, pool, topK, perPhoto),
          own: ownCaptions(row, pool, known[Number(id)]),
        };
      }),
    });
  }
  const first = layout.final(arms[0].arm, arms[0].seed);
  return {
    pool: { name: pool.name, size: pool.captions.length, photos: new Set(pool.photos.map(photoKey)).size },
    arms: out,
    nearness: await nearness(
      x,
      layout.image.test,
      vector(first.imageMean),
      ids.map((id) => images[Number(id)].name),
    ),
    skipped,
  };
}

// Each dropped image's nearest test photo (cosine, the fit photos' mean taken off), and the 5th-95th percentile of
// the test photos' cosines to their own nearest other photo: the range a photo like the dataset's falls in.
async function nearness(x: Embeddings, testFile: string, mu: Float64Array, names: string[]): Promise<Nearness[]> {
  const { emb: test, ids } = readEmbeddings(testFile);
  const t = subRow(asMat(test), mu);
  const self = await cosineSimilarity(t, t); // [n, n]
  const nearestOther = Array.from({ length: self.rows }, (_, i) => {
    let best = -Infinity;
    for (let j = 0; j < self.cols; j++) if (j !== i) best = Math.max(best, self.data[i * self.cols + j]);
    return best;
  }).sort((a, b) => a - b);
  const q = (p: number) => nearestOther[Math.min(nearestOther.length - 1, Math.floor(p * nearestOther.length))];
  const typical = { lo: q(0.05), hi: q(0.95) };
  const sim = await cosineSimilarity(subRow(asMat(x), mu), t); // [nImg, n]
  return names.map((name, r) => {
    let j = 0;
    for (let k = 1; k < sim.cols; k++) if (sim.data[r * sim.cols + k] > sim.data[r * sim.cols + j]) j = k;
    return { name, photo: ids?.[j] ?? String(j), cosine: sim.data[r * sim.cols + j], typical };
  });
}

// Which dropped images are the dataset's own photos (same bytes), so the drop can say where their captions rank.
// Files are hashed only when their size matches a dropped image: a Flickr30k folder is ~4 GB.
function datasetPhotos(
  { dataset: ds, imagesDir }: OpenedDataset,
  dropped: Buffer[],
): ({ id: string; split: Dataset['images'][number]['split'] } | null)[] {
  const bySize = new Map<number, number[]>(); // bytes -> indices of dropped images
  dropped.forEach((b, i) => bySize.set(b.length, [...(bySize.get(b.length) ?? []), i]));
  const found: ({ id: string; split: Dataset['images'][number]['split'] } | null)[] = dropped.map(() => null);
  const hashes = dropped.map((b) => sha256(b));
  for (const im of ds.images) {
    if (!im.file) continue;
    const file = join(imagesDir, im.file);
    const size = existsSync(file) ? statSync(file).size : -1;
    const same = bySize.get(size);
    if (!same) continue;
    const h = sha256(readFileSync(file));
    for (const i of same) if (hashes[i] === h && !found[i]) found[i] = { id: im.id, split: im.split };
  }
  return found;
}

// A pool caption's photo, or the caption itself when it has none (a caption file without photos).
const photoKey = (p: string | null, i: number) => p ?? `#${i}`;

// 1-based rank of each of the photo's own pool captions in one row: 1 + #{j ≠ i: s_j ≥ s_i} (ties count against it,
// as R@k does); null for a NaN cosine. ranks is null when the photo's captions are not in the pool (another split).
// photoRank: 1 + the other photos with a caption at or above the photo's best one (each photo at its best caption).
export function ownCaptions(
  row: ArrayLike<number>,
  pool: Pick<Pool, 'photos' | 'fromDataset'>,
  photo: { id: string; split: string } | null,
): OwnCaptions | null {
  if (!photo) return null;
  const own = pool.fromDataset ? pool.photos.flatMap((p, i) => (p === photo.id ? [i] : [])) : [];
  if (!own.length) return { photo: photo.id, split: photo.split, ranks: null, photoRank: null };
  const ranks = own.map((i) => {
    if (!Number.isFinite(row[i])) return null;
    let above = 0;
    for (let j = 0; j < row.length; j++) if (j !== i && row[j] >= row[i]) above++;
    return above + 1;
  });
  const best = Math.max(...own.map((i) => (Number.isFinite(row[i]) ? row[i] : -Infinity)));
  if (best === -Infinity) return { photo: photo.id, split: photo.split, ranks, photoRank: null };
  const above = new Set<string>();
  for (let j = 0; j < row.length; j++)
    if (pool.photos[j] !== photo.id && row[j] >= best) above.add(photoKey(pool.photos[j], j));
  return { photo: photo.id, split: photo.split, ranks, photoRank: above.size + 1 };
}

// The k highest cosines of one row, best first (NaN rows — a zero vector — rank nothing); perPhoto: a photo's best
// caption only.
export function topMatches(
  row: ArrayLike<number>,
  pool: Pick<Pool, 'captions' | 'photos'>,
  k: number,
  perPhoto = false,
): Match[] {
  const order = Array.from({ length: row.length }, (_, i) => i).filter((i) => Number.isFinite(row[i]));
  order.sort((a, b) => row[b] - row[a] || a - b);
  const kept: number[] = [],
    seen = new Set<string>();
  for (const i of order) {
    if (kept.length === k) break;
    const p = photoKey(pool.photos[i], i);
    if (perPhoto && seen.has(p)) continue;
    seen.add(p);
    kept.push(i);
  }
  return kept.map((i) => ({ caption: pool.captions[i], cosine: row[i], photo: pool.photos[i] }));
}
