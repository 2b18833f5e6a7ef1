// One embedding matrix on disk: `<file>.npy` or `<file>.safetensors[:tensor]`, plus an optional `<file>.ids.json`
// sidecar (a JSON array of unique row-id strings, one per row) so image and text rows can be matched by id.
import { existsSync, rmSync } from 'node:fs';
import { z } from 'zod';
import { writeJsonAtomic } from '../atomic';
import { InputError } from '../errors';
import { readJson } from '../json-file';
import { readNpyTensor, writeNpy } from './npy';
import { readSafetensors, safetensorsNames, writeSafetensors } from './safetensors';
import { type Embeddings, type Tensor, asEmbeddings } from '../tensor';

export type EmbeddingFile = { path: string; tensor: string | null; emb: Embeddings; ids: string[] | null };

const RowIds = z.array(z.string());
const DEFAULT_TENSOR = 'embeddings';

export const idsPath = (file: string): string => `${file}.ids.json`;

// `feats.safetensors:cls` selects tensor `cls`; a plain path selects the only tensor (or 'embeddings').
export function splitSpec(spec: string): { file: string; tensor: string | null } {
  const m = /^(.*\.safetensors):([^/\\]+)$/.exec(spec);
  return m ? { file: m[1], tensor: m[2] } : { file: spec, tensor: null };
}

// Any-rank tensor from either format (a layer stack [L, N, D] or a plain [N, D]).
export function readTensor(spec: string): { file: string; tensor: string | null; t: Tensor; source: string } {
  const { file, tensor } = splitSpec(spec);
  if (file.endsWith('.npy')) {
    if (tensor) throw new InputError(`${spec}: only .safetensors files hold named tensors`);
    return { file, tensor, t: readNpyTensor(file), source: file };
  }
  if (!file.endsWith('.safetensors')) throw new InputError(`${file}: expected a .npy or .safetensors file`);
  const names = tensor ? [tensor] : safetensorsNames(file);
  const name = names.length === 1 ? names[0] : names.includes(DEFAULT_TENSOR) ? DEFAULT_TENSOR : null;
  if (!name)
    throw new InputError(`${file}: holds ${names.length} tensors (${names.join(', ')}); pick one as ${file}:<name>`);
  return { file, tensor: name, t: readSafetensors(file, [name]).tensors[name], source: `${file} [${name}]` };
}

function readIds(file: string, rows: number): string[] | null {
  const p = idsPath(file);
  if (!existsSync(p)) return null;
  const ids = readJson(p, RowIds, 'a JSON array of row-id strings');
  if (ids.length !== rows) throw new InputError(`${p}: has ${ids.length} ids but ${file} has ${rows} rows`);
  const seen = new Map<string, number>();
  ids.forEach((id, i) => {
    const j = seen.get(id);
    if (j !== undefined) throw new InputError(`${p}: duplicate id '${id}' at rows ${j} and ${i}`);
    seen.set(id, i);
  });
  return ids;
}

export function readEmbeddings(spec: string): EmbeddingFile {
  const { file, tensor, t, source } = readTensor(spec);
  const emb = asEmbeddings(t, source);
  return { path: file, tensor, emb, ids: readIds(file, emb.rows) };
}

// Writes the matrix (atomically) and, when ids are given, the sidecar next to it (else removes an old one).
export function writeEmbeddings(spec: string, emb: Embeddings, ids?: string[]): void {
  const { file, tensor } = splitSpec(spec);
  if (ids && ids.length !== emb.rows) throw new InputError(`${file}: ${ids.length} ids for ${emb.rows} rows`);
  if (ids && new Set(ids).size !== ids.length) throw new InputError(`${file}: row ids are not unique`);
  if (file.endsWith('.npy') && !tensor) writeNpy(file, emb);
  else if (file.endsWith('.safetensors'))
    writeSafetensors(file, { [tensor ?? DEFAULT_TENSOR]: { shape: [emb.rows, emb.dim], data: emb.data } });
  else throw new InputError(`${spec}: expected a .npy or .safetensors path`);
  if (ids) writeJsonAtomic(idsPath(file), ids);
  else rmSync(idsPath(file), { force: true }); // a stale sidecar would mislabel the new rows
}
