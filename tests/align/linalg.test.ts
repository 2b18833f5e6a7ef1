// The dense linear algebra under Procrustes: symmetric EVD against numpy's eigh (make_linalg_golden.py), and the
// identities each piece must satisfy (A = Q T Q^T, A = Q R, orthonormality, a canonical rank-deficient map).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { polar, procrustes } from '../../engine/align';
import { readNpy } from '../../engine/embeddings';
import {
  type Mat,
  applyQ,
  colMeans,
  completeBasis,
  gaussianMatrix,
  gemm,
  householderQR,
  rngFrom,
  subRow,
  symEig,
  transpose,
  tridiagonalize,
} from '../../engine/linalg';

const dir = join(import.meta.dirname, 'golden');
const eigW: Record<string, number[]> = JSON.parse(readFileSync(join(dir, 'linalg.json'), 'utf8'));
const loadMat = (name: string): Mat => {
  const e = readNpy(join(dir, name));
  return { rows: e.rows, cols: e.dim, data: Float64Array.from(e.data) };
};
const maxAbs = (a: ArrayLike<number>) => {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]));
  return m;
};
const diff = (a: Mat, b: Mat) => {
  expect([a.rows, a.cols]).toEqual([b.rows, b.cols]);
  return maxAbs(a.data.map((v, i) => v - b.data[i]));
};
const eye = (n: number): Mat => ({
  rows: n,
  cols: n,
  data: Float64Array.from({ length: n * n }, (_, i) => (i % (n + 1) === 0 ? 1 : 0)),
});
const col = (m: Mat, j: number) => Float64Array.from({ length: m.rows }, (_, i) => m.data[i * m.cols + j]);
const orthoError = async (v: Mat) => diff(await gemm(v, v, true), eye(v.cols)); // max |V^T V - I|

describe('symEig against numpy eigh', () => {
  it.each(['symmetric45', 'spikedGram48', 'rankDeficient40', 'repeated20'])(
    '%s: eigenvalues, residual, orthonormality',
    async (name) => {
      const a = loadMat(`eig_${name}_a.npy`);
      const norm = maxAbs(eigW[name]);
      const { w, v } = await symEig(a);
      expect(maxAbs(w.map((x, i) => x - eigW[name][i]))).toBeLessThan(1e-13 * norm);
      const n = a.rows;
      const av = await gemm(a, v);
      const resid = av.data.map((x, i) => x - v.data[i] * w[n - 1 - (i % n)]); // column j holds w[n-1-j]
      expect(maxAbs(resid)).toBeLessThan(1e-13 * norm);
      expect(await orthoError(v)).toBeLessThan(1e-14);
    },
  );

  it.each(['symmetric45', 'spikedGram48'])('%s: every eigenvector matches numpy up to sign to 1e-10', async (name) => {
    const a = loadMat(`eig_${name}_a.npy`);
    const ref = loadMat(`eig_${name}_v.npy`); // columns, ascending
    const { v } = await symEig(a);
    const n = a.rows;
    for (let j = 0; j < n; j++) {
      const ours = col(v, n - 1 - j);
      const theirs = col(ref, j);
      const sign = Math.sign(ours.reduce((s, x, i) => s + x * theirs[i], 0));
      expect(maxAbs(ours.map((x, i) => sign * x - theirs[i]))).toBeLessThan(1e-10);
    }
  });

  it('rank-deficient Gram: only the kept 12 vectors are computed, largest first, and they match numpy', async () => {
    const a = loadMat('eig_rankDeficient40_a.npy');
    const ref = loadMat('eig_rankDeficient40_v.npy');
    const { w, v } = await symEig(a, (lam) => lam.filter((l) => l > 1e-10 * lam[lam.length - 1]).length);
    expect(v.cols).toBe(12);
    expect(maxAbs(w.subarray(0, 28))).toBeLessThan(1e-12 * w[39]); // the null space at rounding level
    for (let j = 0; j < 12; j++) {
      const ours = col(v, j);
      const theirs = col(ref, 39 - j);
      const sign = Math.sign(ours.reduce((s, x, i) => s + x * theirs[i], 0));
      expect(maxAbs(ours.map((x, i) => sign * x - theirs[i]))).toBeLessThan(1e-10);
    }
  });

  it('repeated eigenvalues: each eigenspace projector V_k V_k^T matches numpy', async () => {
    const a = loadMat('eig_repeated20_a.npy');
    const ref = loadMat('eig_repeated20_v.npy');
    const { v } = await symEig(a);
    for (let g = 0; g < 4; g++) {
      // ours: columns 19-5g-4..19-5g (descending); numpy: columns 5g..5g+4 (ascending)
      const pick = (m: Mat, cols: number[]): Mat => ({
        rows: 20,
        cols: 5,
        data: Float64Array.from({ length: 100 }, (_, i) => m.data[Math.floor(i / 5) * 20 + cols[i % 5]]),
      });
      const ours = pick(
        v,
        [0, 1, 2, 3, 4].map((c) => 15 - 5 * g + c),
      );
      const theirs = pick(
        ref,
        [0, 1, 2, 3, 4].map((c) => 5 * g + c),
      );
      expect(diff(await gemm(ours, ours, false, true), await gemm(theirs, theirs, false, true))).toBeLessThan(1e-12);
    }
  });
});

describe('tridiagonalize', () => {
  it.each([1, 2, 3, 33, 70])('n = %i: Q T Q^T = A with Q orthogonal (panels of 32 and their remainders)', async (n) => {
    const b = gaussianMatrix(rngFrom(n), n, n);
    const a = { rows: n, cols: n, data: b.data.map((x, i) => (x + b.data[(i % n) * n + Math.floor(i / n)]) / 2) };
    const { d, e, q } = await tridiagonalize(a);
    const t = { rows: n, cols: n, data: new Float64Array(n * n) };
    for (let i = 0; i < n; i++) t.data[i * n + i] = d[i];
    for (let i = 0; i + 1 < n; i++) t.data[(i + 1) * n + i] = t.data[i * n + i + 1] = e[i];
    const qm = await applyQ(q, eye(n)); // Q: [n, n]
    expect(await orthoError(qm)).toBeLessThan(1e-14);
    const qtq = await gemm(await gemm(qm, t), qm, false, true);
    expect(diff(qtq, a)).toBeLessThan(1e-13 * Math.max(1, maxAbs(a.data)));
  });
});

describe('Householder QR and the orthonormal completion', () => {
  it('A = Q R with Q orthogonal and R upper triangular; Q^T undoes Q', async () => {
    const a = gaussianMatrix(rngFrom(3), 100, 45);
    const { q, r } = await householderQR(a);
    const pad = { rows: 100, cols: 45, data: new Float64Array(100 * 45) }; // [R; 0]
    pad.data.set(r.data);
    expect(diff(await applyQ(q, pad), a)).toBeLessThan(1e-13);
    for (let i = 0; i < 45; i++) for (let j = 0; j < i; j++) expect(r.data[i * 45 + j]).toBe(0);
    expect(diff(await applyQ(q, await applyQ(q, a), true), a)).toBeLessThan(1e-13);
  });

  it('completes an orthonormal frame, and the completion ignores the sign of each column', async () => {
    const u = await applyQ((await householderQR(gaussianMatrix(rngFrom(4), 80, 30))).q, {
      ...eye(80),
      cols: 30,
      data: eye(80).data.filter((_, i) => i % 80 < 30),
    });
    const c = await completeBasis(u, 50);
    const both = { rows: 80, cols: 80, data: new Float64Array(80 * 80) };
    for (let i = 0; i < 80; i++) {
      both.data.set(u.data.subarray(i * 30, (i + 1) * 30), i * 80);
      both.data.set(c.data.subarray(i * 50, (i + 1) * 50), i * 80 + 30);
    }
    expect(await orthoError(both)).toBeLessThan(1e-14);
    const flipped = { ...u, data: u.data.map((x, i) => (i % 30 === 7 || i % 30 === 20 ? -x : x)) };
    expect(diff(await completeBasis(flipped, 50), c)).toBeLessThan(1e-14);
    expect(
      diff(await completeBasis({ rows: 5, cols: 0, data: new Float64Array(0) }, 2), {
        rows: 5,
        cols: 2,
        data: Float64Array.from([1, 0, 0, 1, 0, 0, 0, 0, 0, 0]),
      }),
    ).toBe(0);
  });
});

describe('Procrustes with fewer pairs than the widths', () => {
  const centred = (m: Mat) => subRow(m, colMeans(m));
  const rng = rngFrom(9);
  const x = centred(gaussianMatrix(rng, 12, 48));
  const y = centred(gaussianMatrix(rng, 12, 24));

  it('the n-wide path gives the same map as the polar factor of X^T Y, both orientations', async () => {
    const few = await procrustes(x, y);
    const full = await polar(await gemm(x, y, true));
    expect(few.rank).toBe(11);
    expect(diff(few.w, full.w)).toBeLessThan(1e-13);
    expect(maxAbs(few.singularValues.map((s, i) => s - full.sv[i]))).toBeLessThan(1e-12 * full.sv[0]);
    const wide = await procrustes(y, x); // 24 -> 48: W with orthonormal rows
    expect(diff(wide.w, transpose(few.w))).toBeLessThan(1e-13);
    expect(await orthoError(few.w)).toBeLessThan(1e-14);
  });

  it('the free part of a rank-deficient map is canonical: 1e-15 input noise moves W by ~1e-15, not O(1)', async () => {
    const a = await procrustes(x, y);
    const noisy = { ...x, data: x.data.map((v, i) => v * (1 + 1e-15 * Math.sin(i + 1))) };
    const b = await procrustes(noisy, y);
    expect(diff(a.w, b.w)).toBeLessThan(1e-12);
  });
});
