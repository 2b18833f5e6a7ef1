// The image->text maps compared in the paper: the fitted Procrustes map and its two controls (docs/reference.md#controls),
// a random orthonormal map and a Procrustes map fitted on shuffled pairs; both should score at chance.
import { Matrix, QrDecomposition } from 'ml-matrix';
import { type Mat, gaussianMatrix, permutation, rngFrom, transpose } from '../linalg';
import type { MapKind } from './map-kind';
import { type OrthoMap, freeParameters, procrustes } from './procrustes';

// W = Q from the QR of a Gaussian [p, q] (p >= q), columns signed so diag(R) > 0 (a Haar-distributed frame).
export function randomOrthonormal(dImg: number, dTxt: number, seed: number): Mat {
  const [p, q] = dImg >= dTxt ? [dImg, dTxt] : [dTxt, dImg];
  const g = gaussianMatrix(rngFrom(seed), p, q);
  const qr = new QrDecomposition(
    new Matrix(Array.from({ length: p }, (_, i) => Array.from(g.data.subarray(i * q, (i + 1) * q)))),
  );
  const qm = qr.orthogonalMatrix;
  const r = qr.upperTriangularMatrix;
  const w = { rows: p, cols: q, data: new Float64Array(p * q) };
  for (let j = 0; j < q; j++) {
    const sign = r.get(j, j) < 0 ? -1 : 1;
    for (let i = 0; i < p; i++) w.data[i * q + j] = sign * qm.get(i, j);
  }
  return dImg >= dTxt ? w : transpose(w);
}

// x: [n, dImg], y: [n, dTxt] centred fit rows.
export async function fitMap(kind: MapKind, x: Mat, y: Mat, seed: number): Promise<OrthoMap> {
  if (kind === 'procrustes') return procrustes(x, y);
  if (kind === 'random')
    return {
      w: randomOrthonormal(x.cols, y.cols, seed),
      rank: 0,
      singularValues: [],
      freeParameters: freeParameters(x.cols, y.cols),
    };
  // shuffled: permute the text rows, then fit
  const perm = permutation(rngFrom(seed), y.rows);
  const ys = { rows: y.rows, cols: y.cols, data: new Float64Array(y.data.length) };
  perm.forEach((src, i) => ys.data.set(y.data.subarray(src * y.cols, (src + 1) * y.cols), i * y.cols));
  return procrustes(x, ys);
}
