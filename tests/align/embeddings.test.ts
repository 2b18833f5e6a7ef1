// Embedding file IO against files numpy wrote (fixtures/, from make_embedding_fixtures.py) and back.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  asLayerStack,
  readEmbeddings,
  readNpy,
  readNpyTensor,
  readSafetensors,
  writeEmbeddings,
  writeNpy,
  writeSafetensors,
} from '../../engine/embeddings';
import { InputError } from '../../engine/errors';

const fx = (name: string) => join(import.meta.dirname, 'fixtures', name);
const expected = JSON.parse(readFileSync(fx('expected.json'), 'utf8')) as Record<string, number[]>;
const tmp = mkdtempSync(join(tmpdir(), 'prh-emb-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const hasNumpy = (() => {
  try {
    execFileSync('/usr/bin/python3', ['-c', 'import numpy'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const expectError = (fn: () => unknown, ...parts: (string | RegExp)[]) => {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(InputError);
  for (const p of parts) expect((err as Error).message).toMatch(p);
};

describe('.npy', () => {
  it('reads numpy float32 and float64 (v1 and v2 headers) exactly', () => {
    const a = readNpy(fx('f32.npy'));
    expect([a.rows, a.dim, a.data instanceof Float32Array]).toEqual([3, 4, true]);
    expect(Array.from(a.data)).toEqual(expected.f32);
    for (const f of ['f64.npy', 'v2.npy']) {
      const b = readNpy(fx(f));
      expect([b.rows, b.dim, b.data instanceof Float64Array]).toEqual([2, 5, true]);
      expect(Array.from(b.data)).toEqual(expected.f64);
    }
  });

  it('reads an [L, N, D] stack as per-layer views', () => {
    const layers = asLayerStack(readNpyTensor(fx('stack.npy')), 'stack');
    expect(layers.map((l) => [l.rows, l.dim])).toEqual([
      [3, 4],
      [3, 4],
    ]);
    expect([...layers[0].data, ...layers[1].data]).toEqual(expected.stack);
  });

  it('rejects bad files with the file name and the reason', () => {
    expectError(() => readNpy(fx('int.npy')), 'int.npy', "'<i8'", 'float32');
    expectError(() => readNpy(fx('fortran.npy')), 'fortran.npy', 'Fortran');
    expectError(() => readNpy(fx('rank1.npy')), 'rank1.npy', '2-D', '[5]');
    expectError(() => readNpy(fx('stack.npy')), 'stack.npy', '2-D');
    expectError(() => readNpy(fx('truncated.npy')), 'truncated.npy', 'truncated', '48 bytes', 'found 43');
    expectError(() => readNpy(fx('nan.npy')), 'nan.npy', '1 row(s)', 'row index 1');
    expectError(() => readNpy(fx('inf.npy')), 'inf.npy', '2 row(s)', 'row index 2, 3');
    expectError(() => readNpy(fx('missing.npy')), 'missing.npy', 'ENOENT');
    expectError(() => readNpy(fx('expected.json')), 'expected.json', 'magic');
  });

  it('writes files numpy reads back bit-exactly, atomically (no temp file left)', () => {
    const a = { rows: 3, dim: 2, data: Float64Array.from([1, -2.5, Math.PI, 1e-300, 7, 8]) };
    const b = { rows: 2, dim: 3, data: Float32Array.from([0.1, 0.2, 0.3, -4, 5, 6]) };
    writeNpy(join(tmp, 'a.npy'), a);
    writeNpy(join(tmp, 'b.npy'), b);
    expect(readNpy(join(tmp, 'a.npy')).data).toEqual(a.data);
    expect(readNpy(join(tmp, 'b.npy')).data).toEqual(b.data);
    expect(readdirSync(tmp).filter((f) => f.includes('tmp'))).toEqual([]);
  });

  it.skipIf(!hasNumpy)('numpy loads what we wrote', () => {
    const out = execFileSync('/usr/bin/python3', [
      '-c',
      'import numpy as np, sys, json; a = np.load(sys.argv[1]); b = np.load(sys.argv[2]); print(json.dumps([str(a.dtype), a.shape, a.ravel().tolist(), str(b.dtype), b.shape, b.ravel().astype(float).tolist()]))',
      join(tmp, 'a.npy'),
      join(tmp, 'b.npy'),
    ]).toString();
    const [da, sa, va, db, sb, vb] = JSON.parse(out);
    expect([da, sa, va]).toEqual(['float64', [3, 2], [1, -2.5, Math.PI, 1e-300, 7, 8]]);
    expect([db, sb, vb]).toEqual(['float32', [2, 3], Array.from(Float32Array.from([0.1, 0.2, 0.3, -4, 5, 6]))]);
  });
});

describe('.safetensors', () => {
  it('reads named F32/F64/F16 tensors and metadata', () => {
    const f = readSafetensors(fx('two.safetensors'), ['cls', 'mean', 'half']);
    expect(f.metadata).toEqual({ model: 'dinov2' });
    expect(f.tensors.cls.shape).toEqual([3, 4]);
    expect(Array.from(f.tensors.cls.data)).toEqual(expected.f32);
    expect(Array.from(f.tensors.mean.data)).toEqual(expected.f64);
    expect(Array.from(f.tensors.half.data)).toEqual(expected.half);
  });

  it('names the tensor and dtype it cannot read, and the tensor it cannot find', () => {
    expectError(() => readSafetensors(fx('two.safetensors')), 'two.safetensors', "'ids'", 'I64');
    expectError(() => readSafetensors(fx('two.safetensors'), ['nope']), "'nope'", 'cls, mean, half, ids');
  });

  it('round-trips and truncation is reported', () => {
    const p = join(tmp, 'x.safetensors');
    const t = { shape: [2, 2], data: Float64Array.from([1, 2, 3, 4]) };
    writeSafetensors(p, { w: t, v: { shape: [3], data: Float32Array.from([1, 2, 3]) } }, { a: 'b' });
    const back = readSafetensors(p);
    expect(back.tensors.w).toEqual(t);
    expect(back.metadata).toEqual({ a: 'b' });
    expect((readFileSync(p).readUInt32LE(0) + 8) % 8).toBe(0);
    writeFileSync(join(tmp, 'cut.safetensors'), readFileSync(p).subarray(0, -3));
    expectError(() => readSafetensors(join(tmp, 'cut.safetensors')), 'cut.safetensors', 'truncated', "'v'");
  });
});

describe('embedding files with row-id sidecars', () => {
  it('reads the sidecar next to a numpy file', () => {
    const f = readEmbeddings(fx('f32.npy'));
    expect(f.ids).toEqual(['a', 'b', 'c']);
    expect(readEmbeddings(fx('f64.npy')).ids).toBeNull();
  });

  it('selects a safetensors tensor by `file:name`, or the only one', () => {
    expect(readEmbeddings(`${fx('two.safetensors')}:mean`).emb.rows).toBe(2);
    expect(readEmbeddings(fx('one.safetensors')).tensor).toBe('feats');
    expectError(() => readEmbeddings(fx('two.safetensors')), 'holds 4 tensors', ':<name>');
  });

  it('writes and checks the sidecar', () => {
    const p = join(tmp, 'e.npy');
    const emb = { rows: 2, dim: 2, data: Float32Array.from([1, 2, 3, 4]) };
    writeEmbeddings(p, emb, ['img1', 'img2']);
    expect(readEmbeddings(p)).toMatchObject({ ids: ['img1', 'img2'], emb });
    writeFileSync(`${p}.ids.json`, JSON.stringify(['x']));
    expectError(() => readEmbeddings(p), 'e.npy.ids.json', '1 ids', '2 rows');
    writeFileSync(`${p}.ids.json`, JSON.stringify(['x', 'x']));
    expectError(() => readEmbeddings(p), "duplicate id 'x'", 'rows 0 and 1');
    writeEmbeddings(p, emb);
    expect(existsSync(`${p}.ids.json`)).toBe(false);
    const s = join(tmp, 'e.safetensors');
    writeEmbeddings(`${s}:img`, emb, ['u', 'v']);
    expect(readEmbeddings(`${s}:img`)).toMatchObject({ ids: ['u', 'v'], tensor: 'img', emb });
  });
});
