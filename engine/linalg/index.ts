// Float64 dense linear algebra: row-major matrices, fast GEMM (onnxruntime), symmetric EVD, orthonormal completion.
export type { Mat } from './matrix';
export { colMeans, normalizeRows, subRow, takeRows, transpose, zeros } from './matrix';
export { gemm, setGemmThreads } from './gemm';
export { symEig, tridiagonalEigenvalues, tridiagonalEigenvectors } from './sym-eig';
export { tridiagonalize } from './tridiagonal';
export { applyQ, completeBasis, householderQR, type Reflectors } from './householder';
export { gaussianMatrix, permutation, randomInts, rngFrom } from './random';
