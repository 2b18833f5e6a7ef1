// Evaluation embeddings: each photo's evalCaption, whole and unmasked, through the backbone; every hidden state's
// pool is kept ([L+1, n, d]) for best-layer scoring, the last layer is the default embedding.
import * as tf from '@tensorflow/tfjs';
import type { Embeddings } from '../embeddings';
import { encode, packBatch, pool } from '../models';
import type { Corpus } from './corpus';
import type { Model, Special } from './objective';

export type SplitEmbeddings = { ids: string[]; last: Embeddings; layers: Float32Array; nLayers: number };

// Captions are embedded in chunks of packed sequences.
export async function embedCaptions(
  m: Model,
  seqs: number[][],
  causal: boolean,
  chunk = 256,
): Promise<{ layers: Float32Array; nLayers: number }> {
  const n = seqs.length,
    d = m.cfg.d,
    nLayers = m.cfg.layers + 1;
  const out = new Float32Array(nLayers * n * d);
  const order = Array.from({ length: n }, (_, i) => i);
  for (let s = 0; s < n; s += chunk) {
    const idx = order.slice(s, s + chunk);
    const batch = packBatch(idx.map((i) => seqs[i]));
    const pooled = tf.tidy(() =>
      tf.stack(encode(m.cfg, m.params, batch, causal).map((h) => pool(h, batch, m.cfg.pool))),
    );
    const data = (await pooled.data()) as Float32Array;
    pooled.dispose();
    for (let l = 0; l < nLayers; l++)
      idx.forEach((row, r) =>
        out.set(data.subarray((l * idx.length + r) * d, (l * idx.length + r + 1) * d), (l * n + row) * d),
      );
  }
  return { layers: out, nLayers };
}

export async function embedSplit(
  m: Model,
  corpus: Corpus,
  split: 'val' | 'test',
  causal: boolean,
  sp: Special,
): Promise<SplitEmbeddings | null> {
  const photos = corpus.splits[split];
  if (!photos.length) return null;
  const seqs = Array.from(photos, (p) => [sp.cls, ...corpus.tokens[p][corpus.images[p].evalCaption], sp.sep]);
  const { layers, nLayers } = await embedCaptions(m, seqs, causal);
  const n = photos.length,
    d = m.cfg.d;
  return {
    ids: Array.from(photos, (p) => corpus.images[p].id),
    last: { rows: n, dim: d, data: layers.slice((nLayers - 1) * n * d) },
    layers,
    nLayers,
  };
}
