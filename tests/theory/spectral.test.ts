import { describe, expect, it } from 'vitest';
import { Matrix, QrDecomposition } from 'ml-matrix';
import {
  TheoryRng,
  canonicalBasis,
  complementBasis,
  kernel,
  nontrivialSpectrum,
  topK,
  uniformWorld,
  worldFromJoint,
} from '../../engine/theory';

const maxAbs = (A: Matrix) => A.abs().max();

describe('spectral core', () => {
  it('complement basis is orthonormal and orthogonal to v', () => {
    const v = Float64Array.from([0.1, -0.5, 0.3, 0.7, 0.2]);
    const norm = Math.hypot(...v);
    const u = v.map((x) => x / norm);
    const B = complementBasis(u);
    expect(B.rows).toBe(5);
    expect(B.columns).toBe(4);
    expect(maxAbs(B.transpose().mmul(B).sub(Matrix.eye(4)))).toBeLessThan(1e-14);
    expect(maxAbs(Matrix.rowVector(Array.from(u)).mmul(B))).toBeLessThan(1e-14);
  });

  it('removes the constant by construction even when another eigenvalue ties with 1', () => {
    // Two disconnected blocks: mu_1 = 1 exactly (block indicator contrast), tied with the trivial eigenvalue.
    const n = 6;
    const W = new Float64Array(n * n);
    const rng = TheoryRng.stream(3);
    for (let i = 0; i < n; i++)
      for (let j = 0; j <= i; j++) if (i < 3 === j < 3) W[i * n + j] = W[j * n + i] = 0.5 + rng.uniform();
    const total = W.reduce((a, x) => a + x, 0);
    const world = worldFromJoint(
      W.map((x) => x / total),
      n,
    );
    const sq = world.pi.map(Math.sqrt);
    const spec = nontrivialSpectrum(kernel(world), sq);
    expect(spec.values.length).toBe(n - 1);
    expect(spec.values[0]).toBeCloseTo(1, 12);
    expect(spec.values[1]).toBeLessThan(1 - 1e-3);
    // The kept eigenvector is the block contrast, orthogonal to sqrt(pi).
    const g = spec.vectors.getColumn(0);
    expect(Math.abs(g.reduce((a, x, s) => a + x * sq[s], 0))).toBeLessThan(1e-14);
    const ratio = g.map((x, s) => x / sq[s]);
    expect(Math.sign(ratio[0])).toBe(Math.sign(ratio[2]));
    expect(Math.sign(ratio[0])).toBe(-Math.sign(ratio[4]));
  });

  it('eigenpairs satisfy S g = mu g with values descending', () => {
    const world = uniformWorld(TheoryRng.stream(1), 15);
    const S = kernel(world);
    const spec = nontrivialSpectrum(S, world.pi.map(Math.sqrt));
    for (let i = 1; i < spec.values.length; i++) expect(spec.values[i]).toBeLessThanOrEqual(spec.values[i - 1]);
    const resid = S.mmul(spec.vectors).sub(spec.vectors.mmul(Matrix.diag(Array.from(spec.values))));
    expect(maxAbs(resid)).toBeLessThan(1e-13);
    expect(maxAbs(spec.vectors.transpose().mmul(spec.vectors).sub(Matrix.eye(14)))).toBeLessThan(1e-13);
  });

  it('canonical basis depends only on the subspace, and signs its pivot entry positive', () => {
    const rng = TheoryRng.stream(5);
    const B = new QrDecomposition(
      new Matrix(Array.from({ length: 7 }, () => [rng.normal(), rng.normal(), rng.normal()])),
    ).orthogonalMatrix; // [7, 3]
    const Q = canonicalBasis(B);
    const t = 0.7;
    const R = new Matrix([
      [Math.cos(t), -Math.sin(t), 0],
      [Math.sin(t), Math.cos(t), 0],
      [0, 0, -1],
    ]);
    expect(maxAbs(canonicalBasis(B.mmul(R)).sub(Q))).toBeLessThan(1e-13);
    expect(maxAbs(Q.mmul(Q.transpose()).sub(B.mmul(B.transpose())))).toBeLessThan(1e-13); // same subspace
    for (let j = 0; j < 3; j++) {
      const col = Q.getColumn(j);
      const pivot = col.reduce((best, x, i) => (Math.abs(x) > Math.abs(col[best]) ? i : best), 0);
      expect(col[pivot]).toBeGreaterThan(0);
    }
  });

  it('topK reports the gap and flags a tie straddling k', () => {
    const spec = { values: Float64Array.from([0.9, 0.5, 0.5, 0.1]), vectors: Matrix.eye(5, 4) };
    const at1 = topK(spec, 1);
    expect(at1.gap).toBeCloseTo(0.4, 15);
    expect(at1.unique).toBe(true);
    expect(at1.tie).toBe(false);
    const at2 = topK(spec, 2);
    expect(at2.unique).toBe(false);
    expect(at2.tie).toBe(true);
    const at3 = topK(spec, 3);
    expect(at3.unique).toBe(true);
    expect(at3.tie).toBe(false);
    expect(topK(spec, 4).gap).toBeNull();
  });
});
