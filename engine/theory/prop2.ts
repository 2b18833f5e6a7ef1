// Prop 2: unpaired first and second moments cannot identify the rotation between whitened embeddings; k pairs in
// general position can (Procrustes recovers Q exactly), k - 1 pairs leave a reflection free.
import { EigenvalueDecomposition, Matrix, QrDecomposition, determinant } from 'ml-matrix';
import { TheoryRng } from './rng';
import { makeWorld } from './world';
import { checkK, whitenedOptimum } from './prop1';
import { crossMoment, procrustes, rotateRows } from './procrustes';
import { Prop2Params, type Prop2Demo } from '../../shared/theory';
import { parseParams } from './params';

// Haar-random Q in O(k): QR of a Gaussian matrix with the signs of diag(R) folded into Q.
export function randomOrthogonal(rng: TheoryRng, k: number): Matrix {
  const A = new Matrix(Array.from({ length: k }, () => Array.from({ length: k }, () => rng.normal())));
  const qr = new QrDecomposition(A);
  const Q = qr.orthogonalMatrix;
  const R = qr.upperTriangularMatrix;
  for (let j = 0; j < k; j++) if (R.get(j, j) < 0) for (let i = 0; i < k; i++) Q.set(i, j, -Q.get(i, j));
  return Q;
}

export function prop2Demo(input: unknown): Prop2Demo {
  const params = parseParams(Prop2Params, input, 'theory prop2');
  const { n, k } = params;
  checkK(k, n);
  const rng = TheoryRng.stream(params.seed, 0);
  const world = makeWorld(rng, n, k, params);
  const f = whitenedOptimum(world, k).f; // [n, k]
  const mean = (g: Matrix) =>
    Array.from({ length: k }, (_, a) => world.pi.reduce((acc, p, s) => acc + p * g.get(s, a), 0));
  const mean0 = mean(f);
  const cov0 = crossMoment(f, f, world.pi);
  const Qs = Array.from({ length: params.rotations }, () => randomOrthogonal(rng, k));
  let meanMaxAbsDiff = 0;
  let covMaxAbsDiff = 0;
  for (const Q of Qs) {
    const g = rotateRows(f, Q);
    meanMaxAbsDiff = Math.max(meanMaxAbsDiff, ...mean(g).map((x, a) => Math.abs(x - mean0[a])));
    covMaxAbsDiff = Math.max(covMaxAbsDiff, crossMoment(g, g, world.pi).sub(cov0).abs().max());
  }
  const Q = Qs[0];
  const states = Array.from(rng.permutation(n).subarray(0, k));
  const X = new Matrix(states.map((s) => f.getRow(s))); // [k, k] pairs x_i = f(s_i), y_i = Q x_i
  const Y = rotateRows(X, Q);
  const kPairs = {
    states,
    minSingularValue: Math.sqrt(
      Math.max(0, new EigenvalueDecomposition(X.transpose().mmul(X), { assumeSymmetric: true }).realEigenvalues[0]),
    ),
    recoveryMaxAbsError: procrustes(X, Y).sub(Q).abs().max(),
  };
  // k - 1 pairs: the unit normal v of their span is free, so Q R with R = I - 2 v v^T fits them exactly as well.
  const X1 = X.subMatrix(0, k - 2, 0, k - 1);
  const Y1 = Y.subMatrix(0, k - 2, 0, k - 1);
  const v = new EigenvalueDecomposition(X1.transpose().mmul(X1), {
    assumeSymmetric: true,
  }).eigenvectorMatrix.getColumnVector(0);
  const R = Matrix.eye(k).sub(v.mmul(v.transpose()).mul(2));
  const Q2 = Q.mmul(R);
  const heldOut = Array.from({ length: n }, (_, s) => s).filter((s) => !states.slice(0, k - 1).includes(s));
  const F = new Matrix(heldOut.map((s) => f.getRow(s)));
  const diff = rotateRows(F, Q).sub(rotateRows(F, Q2));
  return {
    n,
    k,
    rotations: params.rotations,
    meanMaxAbsDiff,
    covMaxAbsDiff,
    kPairs,
    kMinus1Pairs: {
      states: states.slice(0, k - 1),
      fitResidual: [rotateRows(X1, Q).sub(Y1).abs().max(), rotateRows(X1, Q2).sub(Y1).abs().max()],
      mapsMaxAbsDiff: Matrix.sub(Q, Q2).abs().max(), // static: Matrix#sub is in place
      determinants: [determinant(Q), determinant(Q2)],
      heldOutMaxDisagreement: Math.max(...diff.to2DArray().map((row) => Math.hypot(...row))),
    },
  };
}
