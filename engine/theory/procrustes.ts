// Best-rotation alignment: the error metric E(f, f*) = min_Q E_pi||Q f - f*||^2 and orthogonal Procrustes on pairs.
import { Matrix, SingularValueDecomposition } from 'ml-matrix';

// E_w[f g^T]: [k, l] for f: [N, k], g: [N, l] (rows = states or observations), w: [N] probabilities.
export function crossMoment(f: Matrix, g: Matrix, w: ArrayLike<number>): Matrix {
  const M = new Matrix(f.columns, g.columns);
  for (let s = 0; s < f.rows; s++) {
    for (let a = 0; a < f.columns; a++) {
      const fa = w[s] * f.get(s, a);
      for (let b = 0; b < g.columns; b++) M.set(a, b, M.get(a, b) + fa * g.get(s, b));
    }
  }
  return M;
}

export function nuclearNorm(M: Matrix): number {
  return new SingularValueDecomposition(M, {
    computeLeftSingularVectors: false,
    computeRightSingularVectors: false,
  }).diagonal.reduce((a, x) => a + x, 0);
}

// min over orthogonal Q of E_w||Q f - f*||^2 = E||f||^2 + E||f*||^2 - 2||E[f* f^T]||_* (equal widths k);
// for whitened f and f* this is 2k - 2||E[f f*^T]||_*, and each direction f misses entirely costs exactly 2.
export function rotationError(f: Matrix, fStar: Matrix, w: ArrayLike<number>): number {
  const energy = (g: Matrix) => crossMoment(g, g, w).trace();
  return energy(f) + energy(fStar) - 2 * nuclearNorm(crossMoment(fStar, f, w));
}

// Orthogonal Q: [k, k] minimising sum_i ||Q x_i - y_i||^2 for pairs X, Y: [p, k] (row i = pair i): Q = U V^T, U S V^T = Y^T X.
export function procrustes(X: Matrix, Y: Matrix): Matrix {
  const svd = new SingularValueDecomposition(Y.transpose().mmul(X));
  return svd.leftSingularVectors.mmul(svd.rightSingularVectors.transpose());
}

// Rows of f mapped by Q (f(s) -> Q f(s)): [N, k].
export function rotateRows(f: Matrix, Q: Matrix): Matrix {
  return f.mmul(Q.transpose());
}
