// Pairs image and text rows by photo id: the fit (val) rows first, then the test rows, so evaluation can use
// the half-open ranges [0, fit) and [fit, fit + test). Photos whose image could not be embedded are dropped.
import { InputError } from '../errors';
import { readEmbeddings, type Embeddings } from '../embeddings';

export type Side = { emb: Embeddings; ids: string[] };

// One side of the pairs from an .npy with its ids sidecar (photo ids).
export function readSide(path: string): Side {
  const f = readEmbeddings(path);
  if (!f.ids) throw new Error(`${path}: no ids sidecar (photo ids)`);
  return { emb: f.emb, ids: f.ids };
}
export type Paired = {
  image: Embeddings;
  text: Embeddings;
  ids: string[];
  fit: { start: number; end: number };
  test: { start: number; end: number };
};

function gather(side: Side, ids: string[], what: string): Float32Array {
  const row = new Map(side.ids.map((id, i) => [id, i]));
  const { dim } = side.emb;
  const out = new Float32Array(ids.length * dim);
  ids.forEach((id, r) => {
    const i = row.get(id);
    if (i === undefined) throw new InputError(`${what} has no row for photo ${id}`);
    out.set(side.emb.data.subarray(i * dim, (i + 1) * dim), r * dim);
  });
  return out;
}

export function pairSplits(image: { val: Side; test: Side }, text: { val: Side; test: Side }): Paired {
  const keep = (img: Side, txt: Side) => {
    const has = new Set(txt.ids);
    return img.ids.filter((id) => has.has(id));
  };
  const val = keep(image.val, text.val);
  const test = keep(image.test, text.test);
  const ids = [...val, ...test];
  const stack = (a: Float32Array, b: Float32Array) => {
    const out = new Float32Array(a.length + b.length);
    out.set(a);
    out.set(b, a.length);
    return out;
  };
  return {
    image: {
      rows: ids.length,
      dim: image.val.emb.dim,
      data: stack(
        gather(image.val, val, 'image embeddings (val)'),
        gather(image.test, test, 'image embeddings (test)'),
      ),
    },
    text: {
      rows: ids.length,
      dim: text.val.emb.dim,
      data: stack(gather(text.val, val, 'text embeddings (val)'), gather(text.test, test, 'text embeddings (test)')),
    },
    ids,
    fit: { start: 0, end: val.length },
    test: { start: val.length, end: ids.length },
  };
}
