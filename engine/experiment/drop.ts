// Image drop on a finished experiment: embed the dropped images with the experiment's frozen image encoder, map
// them into each arm's text space (x − μ_img) W, and rank a caption pool (y − μ_txt) by cosine. Runs in the lab's
// child process (engine/api/lab-task.ts).
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Match, MatchResult } from '../../shared/api';
import { ExperimentConfig } from '../../shared/experiment';
import { isJepaArm } from '../../shared/train';
import { readCoco, readDataset } from '../data';
import { readJson } from '../json-file';
import { readNpy, readNpyTensor, writeNpy, type Embeddings } from '../embeddings';
import { InputError } from '../errors';
import { embedImages, openImageEncoder } from '../image';
import { gemm, subRow, takeRows, type Mat } from '../linalg';
import { cosineSimilarity } from '../metrics';
import { RunStore } from '../runs';
import { captionIds, loadTokenizer } from '../text';
import { buildModel, embedCaptions, initBackend, loadCheckpoint } from '../train';
import { EncoderRecord, FinishedArms, ResolvedArm, armLayout, experimentLayout } from './layout';

type Pool = { name: string; captions: string[]; photos: (string | null)[] };

// 'test': every caption (all 5 per photo) of the dataset's test split; else a COCO captions JSON.
function captionPool(pool: string, data: string): Pool {
  const ds = pool === 'test' ? readDataset(data) : readCoco(pool);
  const images = pool === 'test' ? ds.images.filter((im) => im.split === 'test') : ds.images;
  const captions: string[] = [], photos: string[] = [];
  for (const im of images) for (const c of im.captions) { captions.push(c.text); photos.push(im.id); }
  if (!captions.length) throw new InputError(`${pool === 'test' ? data : pool}: the caption pool is empty`);
  return { name: pool === 'test' ? `${ds.name} test captions` : pool, captions, photos };
}

const vector = (file: string): Float64Array => Float64Array.from(readNpyTensor(file).data);
const asMat = (e: Embeddings): Mat => takeRows(e, Int32Array.from({ length: e.rows }, (_, i) => i));

// The pool through one arm's selected checkpoint (last layer, as the experiment scores), cached per pool in final/.
async function poolEmbeddings(armDir: string, finalDir: string, runId: string, epoch: number, pool: Pool): Promise<Embeddings> {
  const hash = createHash('sha256').update(JSON.stringify([runId, epoch, pool.captions])).digest('hex').slice(0, 16);
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
  const n = seqs.length, d = r.encoder.d;
  const emb: Embeddings = { rows: n, dim: d, data: layers.slice((nLayers - 1) * n * d) };
  writeNpy(cache, emb);
  return emb;
}

export async function matchDroppedImages(expDir: string, images: { name: string; base64: string }[], poolSpec: string, topK: number): Promise<MatchResult> {
  const layout = experimentLayout(expDir);
  const config = readJson(join(expDir, 'config.json'), ExperimentConfig); // the run store's copy of the config
  if (!existsSync(layout.result)) throw new InputError(`${expDir}: the experiment has no finished arms yet (image drop needs its final maps)`);
  const arms = readJson(layout.result, FinishedArms).arms;
  const enc = readJson(layout.image.encoder, EncoderRecord);
  const pool = captionPool(poolSpec, config.data);

  // Dropped bytes go to a temp folder under their own (sanitised) names, so errors name the user's file.
  const tmp = mkdtempSync(join(tmpdir(), 'prh-drop-'));
  let x: Embeddings, ids: string[], skipped: { name: string; reason: string }[];
  try {
    const refs = images.map((im, i) => {
      const file = join(tmp, `${i}-${im.name.replace(/[^\w.-]+/g, '_').slice(-80) || 'image'}`);
      writeFileSync(file, Buffer.from(im.base64, 'base64'));
      return { id: String(i), file };
    });
    const encoder = await openImageEncoder(enc.model, { preset: enc.spec.preset, overrides: enc.spec });
    try {
      const res = await embedImages(encoder, refs, { onBadImage: 'skip' });
      x = res.emb; ids = res.ids;
      skipped = res.skipped.map((s) => ({ name: images[Number(s.id)].name, reason: s.reason.replace(s.file, images[Number(s.id)].name) }));
    } catch (err) {
      if (err instanceof InputError && /none of the/.test(err.message)) throw new InputError(`none of the dropped files is a readable image (${images.map((i) => i.name).join(', ')})`);
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
      arm: a.arm, seed: a.seed,
      images: ids.map((id, r) => ({ name: images[Number(id)].name, top: topMatches(sim.data.subarray(r * sim.cols, (r + 1) * sim.cols), pool, topK) })),
    });
  }
  return { pool: { name: pool.name, size: pool.captions.length }, arms: out, skipped };
}

// The k highest cosines of one row, best first (NaN rows — a zero vector — rank nothing).
export function topMatches(row: ArrayLike<number>, pool: Pick<Pool, 'captions' | 'photos'>, k: number): Match[] {
  const order = Array.from({ length: row.length }, (_, i) => i).filter((i) => Number.isFinite(row[i]));
  order.sort((a, b) => row[b] - row[a] || a - b);
  return order.slice(0, k).map((i) => ({ caption: pool.captions[i], cosine: row[i], photo: pool.photos[i] }));
}
