// How far the frozen image side can take any text encoder on a procedural world: the same Procrustes evaluation,
// with the text side replaced by an oracle that knows each scene's facts (a bag of its concepts, randomly projected
// to the text width). A low ceiling means the image encoder, not the text arms, limits R@1: the image side must
// carry what the captions say (docs/reference.md#image-side-ceiling).
import type { Dataset } from '../../shared/dataset';
import { evaluate } from '../align';
import type { Embeddings } from '../embeddings';
import { gaussianMatrix, rngFrom } from '../linalg';
import { pairSplits, type Side } from './pairs';

export type Ceiling = { r1: number; mknn: number | null; concepts: number; dim: number };

// Concepts of a scene: its background, and each object's shape, colour, size and cell.
const concepts = (im: Dataset['images'][number]): string[] =>
  im.state
    ? [
        `bg:${im.state.background}`,
        ...im.state.objects.flatMap((o) => [
          `shape:${o.shape}`,
          `colour:${o.colour}`,
          `size:${o.size}`,
          `cell:${o.cell}`,
        ]),
      ]
    : [];

// The oracle text side's width, the mutual k-NN's k, and the seed of its random projection.
export type CeilingOptions = { dim: number; k: number; seed?: number };

/** The ceiling of image embeddings `emb` (rows named by `ids`, any of the dataset's photos) on the dataset's own
 *  val (fit) and test (scored) photos: what `prh world build-encoder` records for an encoder it probes. */
export function splitCeiling(
  dataset: Dataset,
  { emb, ids }: { emb: Embeddings; ids: string[] },
  opts: CeilingOptions,
): Promise<Ceiling | null> {
  const splitOf = new Map(dataset.images.map((im) => [im.id, im.split]));
  const side = (split: 'val' | 'test'): Side => {
    const rows = ids.flatMap((id, i) => (splitOf.get(id) === split ? [i] : []));
    const data = new Float32Array(rows.length * emb.dim);
    rows.forEach((r, j) => data.set(emb.data.subarray(r * emb.dim, (r + 1) * emb.dim), j * emb.dim));
    return { emb: { rows: rows.length, dim: emb.dim, data }, ids: rows.map((r) => ids[r]) };
  };
  return imageCeiling(dataset, { val: side('val'), test: side('test') }, opts);
}

export async function imageCeiling(
  dataset: Dataset,
  images: { val: Side; test: Side },
  { dim, k, seed = 0 }: CeilingOptions,
): Promise<Ceiling | null> {
  if (!dataset.images.every((im) => im.split === 'train' || im.state)) return null; // real photos: no oracle
  const vocab = new Map<string, number>();
  for (const im of dataset.images) for (const c of concepts(im)) if (!vocab.has(c)) vocab.set(c, vocab.size);
  const P = gaussianMatrix(rngFrom(seed), vocab.size, dim); // [concepts, dim]
  const oracle = (split: 'val' | 'test'): Side => {
    const rows = dataset.images.filter((im) => im.split === split);
    const data = new Float32Array(rows.length * dim);
    rows.forEach((im, r) => {
      for (const c of concepts(im)) {
        const v = vocab.get(c)!;
        for (let d = 0; d < dim; d++) data[r * dim + d] += P.data[v * dim + d];
      }
    });
    return { emb: { rows: rows.length, dim, data }, ids: rows.map((im) => im.id) };
  };
  const p = pairSplits(images, { val: oracle('val'), test: oracle('test') });
  const e = await evaluate({ image: p.image, text: p.text, fit: p.fit, test: p.test, k });
  return { r1: e.imageToText.r1, mknn: e.mknn.degenerate ? null : e.mknn.score, concepts: vocab.size, dim };
}
