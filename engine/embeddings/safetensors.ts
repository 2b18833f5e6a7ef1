// Hugging Face .safetensors: u64 LE header length, a JSON header {name: {dtype, shape, data_offsets}}, then raw bytes.
// F32/F64 are read as is; F16/BF16 (common for PyTorch features) are widened to float32, which is exact.
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { z } from 'zod';
import { writeFileAtomic } from '../atomic';
import { InputError } from '../errors';
import { parseJson } from '../json-file';
import { type Tensor, assertFinite, dtypeOf, numel } from '../tensor';

const Entry = z.object({
  dtype: z.string(),
  shape: z.array(z.number().int().nonnegative()),
  data_offsets: z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]),
});
const Header = z.record(z.string(), z.unknown());
const ITEMSIZE: Record<string, number> = { F16: 2, BF16: 2, F32: 4, F64: 8 };

// IEEE half -> float32 (subnormals, Inf and NaN included).
function halfToFloat(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

function decode(dtype: string, bytes: Uint8Array): Float32Array | Float64Array {
  const copy = new Uint8Array(bytes.length); // aligned private copy (Buffer#slice would be a view of the pool)
  copy.set(bytes);
  if (dtype === 'F32') return new Float32Array(copy.buffer);
  if (dtype === 'F64') return new Float64Array(copy.buffer);
  const u16 = new Uint16Array(copy.buffer);
  const out = new Float32Array(u16.length);
  if (dtype === 'BF16') {
    const bits = new Uint32Array(out.buffer);
    for (let i = 0; i < u16.length; i++) bits[i] = u16[i] << 16;
  } else for (let i = 0; i < u16.length; i++) out[i] = halfToFloat(u16[i]);
  return out;
}

export type SafetensorsFile = { tensors: Record<string, Tensor>; metadata: Record<string, string> };

// The header alone: [u64 length][JSON]. Returns the tensor entries (unvalidated) and the metadata.
function parseHeader(
  buf: Buffer,
  path: string,
): { n: number; entries: Record<string, unknown>; metadata: Record<string, string> } {
  if (buf.length < 8) throw new InputError(`${path}: not a .safetensors file (shorter than 8 bytes)`);
  const n = Number(buf.readBigUInt64LE(0));
  if (n > buf.length - 8) throw new InputError(`${path}: truncated or not a .safetensors file (header of ${n} bytes)`);
  const { __metadata__: meta, ...entries } = parseJson(
    `${path} header`,
    buf.toString('utf8', 8, 8 + n),
    Header,
    'a JSON object',
  );
  const metadata = z.record(z.string(), z.string()).safeParse(meta ?? {});
  if (!metadata.success) throw new InputError(`${path}: __metadata__ must map strings to strings`);
  return { n, entries, metadata: metadata.data };
}

function readAll(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new InputError(`${path}: cannot read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}

// Tensor names in file order, reading only the header.
export function safetensorsNames(path: string): string[] {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    throw new InputError(`${path}: cannot read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  try {
    const head = Buffer.alloc(8);
    const got = readSync(fd, head, 0, 8, 0);
    const n = got === 8 ? Math.min(Number(head.readBigUInt64LE(0)), 1 << 30) : 0;
    const buf = Buffer.alloc(8 + n);
    readSync(fd, buf, 0, 8 + n, 0);
    return Object.keys(parseHeader(buf.subarray(0, got === 8 ? buf.length : got), path).entries);
  } finally {
    closeSync(fd);
  }
}

// Reads every float tensor, or only `names` when given (then other tensors may have any dtype).
export function readSafetensors(path: string, names?: string[]): SafetensorsFile {
  const buf = readAll(path);
  const { n, entries, metadata } = parseHeader(buf, path);
  for (const name of names ?? [])
    if (!(name in entries))
      throw new InputError(`${path}: no tensor named '${name}' (has: ${Object.keys(entries).join(', ') || 'none'})`);
  const dataStart = 8 + n;
  const tensors: Record<string, Tensor> = {};
  for (const [name, value] of Object.entries(entries)) {
    if (names && !names.includes(name)) continue;
    const e = Entry.safeParse(value);
    if (!e.success) throw new InputError(`${path}: tensor '${name}' has a malformed header entry`);
    const {
      dtype,
      shape,
      data_offsets: [begin, end],
    } = e.data;
    const size = ITEMSIZE[dtype];
    if (!size) throw new InputError(`${path}: tensor '${name}' has dtype ${dtype}; expected F32, F64, F16 or BF16`);
    if (end - begin !== numel(shape) * size)
      throw new InputError(
        `${path}: tensor '${name}' spans ${end - begin} bytes but shape [${shape.join(', ')}] ${dtype} needs ${numel(shape) * size}`,
      );
    if (dataStart + end > buf.length)
      throw new InputError(
        `${path}: truncated data, tensor '${name}' ends at byte ${dataStart + end} of ${buf.length}`,
      );
    const t = { shape, data: decode(dtype, buf.subarray(dataStart + begin, dataStart + end)) };
    assertFinite(t, `${path} [${name}]`);
    tensors[name] = t;
  }
  return { tensors, metadata };
}

// Tensors are laid out in the given key order; the header is space-padded to 8 bytes as the reference writer does.
export function encodeSafetensors(tensors: Record<string, Tensor>, metadata: Record<string, string> = {}): Uint8Array {
  const header: Record<string, unknown> = Object.keys(metadata).length ? { __metadata__: metadata } : {};
  let offset = 0;
  for (const [name, t] of Object.entries(tensors)) {
    if (numel(t.shape) !== t.data.length)
      throw new InputError(`tensor '${name}': shape [${t.shape.join(', ')}] does not match ${t.data.length} values`);
    header[name] = {
      dtype: dtypeOf(t.data) === 'float32' ? 'F32' : 'F64',
      shape: t.shape,
      data_offsets: [offset, offset + t.data.byteLength],
    };
    offset += t.data.byteLength;
  }
  const json = JSON.stringify(header);
  const head = Buffer.from(json + ' '.repeat((8 - (Buffer.byteLength(json) % 8)) % 8), 'utf8');
  const out = new Uint8Array(8 + head.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(head.length), true);
  out.set(head, 8);
  let at = 8 + head.length;
  for (const t of Object.values(tensors)) {
    out.set(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength), at);
    at += t.data.byteLength;
  }
  return out;
}

export const writeSafetensors = (
  path: string,
  tensors: Record<string, Tensor>,
  metadata?: Record<string, string>,
): void => writeFileAtomic(path, encodeSafetensors(tensors, metadata));
