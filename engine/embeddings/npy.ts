// NumPy .npy files (format versions 1-3), float32/float64, little-endian, C order, as np.save writes them.
import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../atomic';
import { InputError } from '../errors';
import { type Embeddings, type Tensor, asEmbeddings, assertFinite, dtypeOf, numel } from '../tensor';

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // "\x93NUMPY"

// The header is a Python dict literal, e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
function parseHeader(text: string, path: string): { descr: string; fortran: boolean; shape: number[] } {
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(text)?.[1];
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(text)?.[1];
  const shape = /'shape'\s*:\s*\(([^)]*)\)/.exec(text)?.[1];
  if (descr === undefined || fortran === undefined || shape === undefined)
    throw new InputError(`${path}: malformed .npy header ${JSON.stringify(text.trim())}`);
  const dims = shape
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (!dims.every((s) => /^\d+$/.test(s))) throw new InputError(`${path}: malformed shape (${shape}) in .npy header`);
  return { descr, fortran: fortran === 'True', shape: dims.map(Number) };
}

// Any-rank float tensor; NaN/Inf rows are rejected.
export function readNpyTensor(path: string): Tensor {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch (err) {
    throw new InputError(`${path}: cannot read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  if (buf.length < 10 || !MAGIC.every((b, i) => buf[i] === b))
    throw new InputError(`${path}: not a .npy file (bad magic)`);
  const major = buf[6];
  if (major < 1 || major > 3) throw new InputError(`${path}: unsupported .npy format version ${major}.${buf[7]}`);
  const lenBytes = major === 1 ? 2 : 4;
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const dataStart = 8 + lenBytes + headerLen;
  if (dataStart > buf.length) throw new InputError(`${path}: truncated .npy header`);
  const { descr, fortran, shape } = parseHeader(
    buf.toString(major === 3 ? 'utf8' : 'latin1', 8 + lenBytes, dataStart),
    path,
  );
  const dtype = descr === '<f4' ? 'float32' : descr === '<f8' ? 'float64' : null;
  if (!dtype)
    throw new InputError(
      `${path}: dtype '${descr}' is not supported; expected float32 '<f4' or float64 '<f8' (e.g. x.astype(np.float32))`,
    );
  if (fortran && shape.length > 1)
    throw new InputError(`${path}: array is in Fortran order; save np.ascontiguousarray(x) instead`);
  const itemsize = dtype === 'float32' ? 4 : 8;
  const want = numel(shape) * itemsize;
  const have = buf.length - dataStart;
  if (have < want)
    throw new InputError(
      `${path}: truncated data, expected ${want} bytes for shape (${shape.join(', ')}), found ${have}`,
    );
  if (have > want)
    throw new InputError(
      `${path}: ${have - want} unexpected trailing bytes after the data of shape (${shape.join(', ')})`,
    );
  // Copy into a fresh, aligned buffer: Node's Buffer may start at any byte offset of a shared pool.
  const bytes = new Uint8Array(want);
  bytes.set(buf.subarray(dataStart, dataStart + want));
  const data = dtype === 'float32' ? new Float32Array(bytes.buffer) : new Float64Array(bytes.buffer);
  const t = { shape, data };
  assertFinite(t, path);
  return t;
}

// [N, D] float matrix.
export const readNpy = (path: string): Embeddings => asEmbeddings(readNpyTensor(path), path);

// np.save-compatible bytes: version 1.0 header padded with spaces so the data starts on a 64-byte boundary.
export function encodeNpy(t: Tensor): Uint8Array {
  const descr = dtypeOf(t.data) === 'float32' ? '<f4' : '<f8';
  const shape = t.shape.length === 1 ? `(${t.shape[0]},)` : `(${t.shape.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  const total = Math.ceil((10 + header.length + 1) / 64) * 64;
  header = header.padEnd(total - 10 - 1, ' ') + '\n';
  const out = new Uint8Array(total + t.data.byteLength);
  out.set(MAGIC, 0);
  out[6] = 1;
  out[7] = 0;
  new DataView(out.buffer).setUint16(8, header.length, true);
  out.set(Buffer.from(header, 'latin1'), 10);
  out.set(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength), total);
  return out;
}

export function writeNpyTensor(path: string, t: Tensor): void {
  if (numel(t.shape) !== t.data.length)
    throw new InputError(`${path}: shape (${t.shape.join(', ')}) does not match ${t.data.length} values`);
  writeFileAtomic(path, encodeNpy(t));
}

export const writeNpy = (path: string, emb: Embeddings): void =>
  writeNpyTensor(path, { shape: [emb.rows, emb.dim], data: emb.data });
