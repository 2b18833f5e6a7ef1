// In-memory float tensors and the [N, D] embedding matrix every alignment step consumes.
import { InputError } from './errors';

export type FloatArray = Float32Array | Float64Array;
export type FloatDtype = 'float32' | 'float64';

// A dense row-major (C order) float tensor of any rank, as read from .npy or .safetensors.
export type Tensor = { shape: number[]; data: FloatArray };

// X: [rows, dim] row-major; row i is data[i*dim .. (i+1)*dim).
export type Embeddings = { rows: number; dim: number; data: FloatArray };

export const dtypeOf = (data: FloatArray): FloatDtype => (data instanceof Float64Array ? 'float64' : 'float32');

export const numel = (shape: readonly number[]): number => shape.reduce((a, b) => a * b, 1);

// A rank-2 tensor viewed as embeddings; `source` names the file (and tensor) in the error.
export function asEmbeddings(t: Tensor, source: string): Embeddings {
  if (t.shape.length !== 2)
    throw new InputError(`${source}: expected a 2-D [N, D] array, got shape [${t.shape.join(', ')}]`);
  const [rows, dim] = t.shape;
  if (rows < 1 || dim < 1) throw new InputError(`${source}: empty array of shape [${rows}, ${dim}]`);
  return { rows, dim, data: t.data };
}

// An [L, N, D] stack (one [N, D] matrix per layer) split into views that share the buffer.
export function asLayerStack(t: Tensor, source: string): Embeddings[] {
  if (t.shape.length !== 3)
    throw new InputError(`${source}: expected a 3-D [L, N, D] layer stack, got shape [${t.shape.join(', ')}]`);
  const [layers, rows, dim] = t.shape;
  if (layers < 1 || rows < 1 || dim < 1)
    throw new InputError(`${source}: empty stack of shape [${t.shape.join(', ')}]`);
  return Array.from({ length: layers }, (_, l) => ({
    rows,
    dim,
    data: t.data.subarray(l * rows * dim, (l + 1) * rows * dim),
  }));
}

// NaN/Inf poison every cosine they touch, so a file holding any is rejected naming the first bad rows.
// The "row" is the index along all leading axes flattened (row r of an [N, D] matrix; layer*N + r of a stack).
export function assertFinite(t: Tensor, source: string): void {
  const dim = t.shape.length ? t.shape[t.shape.length - 1] : 1;
  const bad: number[] = [];
  let count = 0;
  const d = t.data;
  for (let i = 0; i < d.length; i++) {
    if (!Number.isFinite(d[i])) {
      const row = Math.floor(i / dim);
      if (bad[bad.length - 1] !== row) {
        count++;
        if (bad.length < 5) bad.push(row);
      }
      i = (row + 1) * dim - 1; // skip the rest of the row
    }
  }
  if (count)
    throw new InputError(
      `${source}: ${count} row(s) contain NaN or Inf, first at row index ${bad.join(', ')}${count > bad.length ? ', ...' : ''}`,
    );
}
