// Float64 dense linear algebra: row-major matrices, fast GEMM (onnxruntime), symmetric EVD, orthonormal completion.
export type { Mat } from './matrix';
export { colMeans, normalizeRows, subRow, takeRows, transpose, zeros } from './matrix';
export { gemm, setGemmThreads } from './gemm';
export { symEig } from './sym-eig';
export { completeBasis } from './householder';
export { gaussianMatrix, permutation, randomInts, rngFrom } from './random';
