"""Golden values for engine/image/whitened-pooler.ts, run with /usr/bin/python3 (numpy): writes pooler-golden.json.

Tokens [n, 1 + 4x4, D] with anisotropic scales; features = CLS + 2x2 region means (numpy reshapes, not the engine's
pooling matrix); PCA whitening to k by numpy's eigh. Eigenvector signs are arbitrary, so the golden values are the
sign-free P = W W^T (= U_k diag(1/lambda_k) U_k^T) and q = b W^T (= -mu P), plus the features and eigenvalues."""
import json
import os

import numpy as np

n, g0, grid, D, k = 40, 4, 2, 3, 6
rng = np.random.default_rng(12)
tokens = rng.normal(size=(n, 1 + g0 * g0, D)) * np.array([3.0, 1.0, 0.2]) + np.array([0.5, -1.0, 2.0])
tokens = tokens.astype(np.float32)
t = tokens.astype(np.float64)
s = g0 // grid
patches = t[:, 1:].reshape(n, grid, s, grid, s, D).mean((2, 4)).reshape(n, grid * grid, D)  # [n, R-1, D]
regions = np.concatenate([t[:, :1], patches], 1)  # [n, R, D], column 0 = CLS
F = regions.transpose(0, 2, 1).reshape(n, -1)  # feature d*R + r
mu = F.mean(0)
lam, U = np.linalg.eigh(np.cov(F - mu, rowvar=False))
lam, U = lam[::-1][:k], U[:, ::-1][:, :k]
W = U / np.sqrt(lam)
P = W @ W.T
out = {
    "n": n, "patchGrid": g0, "grid": grid, "D": D, "k": k,
    "tokens": tokens.ravel().tolist(),
    "features": F.ravel().tolist(),
    "eigenvalues": lam.tolist(),
    "P": P.ravel().tolist(),
    "q": (-mu @ P).tolist(),
}
json.dump(out, open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "pooler-golden.json"), "w"))
