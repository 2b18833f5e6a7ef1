# Golden references for tests/align/golden.test.ts, computed with numpy (LAPACK SVD) from inputs written here.
# Run: /usr/bin/python3 tests/align/make_golden.py   (writes golden/*.npy and golden/golden.json)
import json, os
import numpy as np

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'golden')
os.makedirs(here, exist_ok=True)
rng = np.random.default_rng(20240601)
out = {}

def unit(a):
    n = np.linalg.norm(a, axis=1, keepdims=True)
    with np.errstate(invalid='ignore', divide='ignore'):
        return a / n  # zero rows -> NaN, as the TS retrieval does

def ranks(s):
    # rank_i = #{j: s_ij >= s_ii} - 1; NaN true-pair score -> n (a miss)
    n = s.shape[0]
    d = np.diag(s)
    r = (s >= d[:, None]).sum(1) - 1
    r[np.isnan(d)] = n
    c = (s >= d[None, :]).sum(0) - 1
    c[np.isnan(d)] = n
    return r, c

def recall(r):
    return {'r1': float(np.mean(r < 1)), 'r5': float(np.mean(r < 5)), 'r10': float(np.mean(r < 10))}

def knn(f, k):
    f = f / np.maximum(np.linalg.norm(f, axis=1, keepdims=True), 1e-12)
    s = f @ f.T
    np.fill_diagonal(s, -1e8)
    return np.argsort(-s, axis=1, kind='stable')[:, :k]

def mutual_knn(a, b, k):
    na, nb = knn(a, k), knn(b, k)
    per = np.array([len(set(na[i]) & set(nb[i])) / k for i in range(len(a))])
    return float(per.mean()), per

def hsic_biased(K, L):
    n = K.shape[0]
    H = np.eye(n) - 1.0 / n
    return np.trace(K @ H @ L @ H)

def hsic_unbiased(K, L):
    m = K.shape[0]
    Kt = K.copy(); np.fill_diagonal(Kt, 0)
    Lt = L.copy(); np.fill_diagonal(Lt, 0)
    v = np.sum(Kt * Lt.T) + np.sum(Kt) * np.sum(Lt) / ((m - 1) * (m - 2)) - 2 * np.sum(Kt @ Lt) / (m - 2)
    return v / (m * (m - 3))

def cka(a, b, unbiased):
    f = hsic_unbiased if unbiased else hsic_biased
    K, L = a @ a.T, b @ b.T
    return float(f(K, L) / (np.sqrt(f(K, K) * f(L, L)) + 1e-6))

def polar(m):
    u, s, vt = np.linalg.svd(m, full_matrices=False)
    return u @ vt, s

# --- 1. full pipeline on correlated features: 150 pairs of 48-d (image) vs 24-d (text), fit 0:100, test 100:150
n, di, dt, lat = 150, 48, 24, 12
z = rng.standard_normal((n, lat))
X = z @ rng.standard_normal((lat, di)) + 0.8 * rng.standard_normal((n, di)) + 0.3
Y = z @ rng.standard_normal((lat, dt)) + 0.8 * rng.standard_normal((n, dt)) - 0.2
np.save(os.path.join(here, 'image64.npy'), X)
np.save(os.path.join(here, 'text64.npy'), Y)
np.save(os.path.join(here, 'image32.npy'), X.astype(np.float32))
np.save(os.path.join(here, 'text32.npy'), Y.astype(np.float32))
for tag, (Xs, Ys) in {'f64': (X, Y), 'f32': (X.astype(np.float32).astype(np.float64), Y.astype(np.float32).astype(np.float64))}.items():
    fit, test = slice(0, 100), slice(100, 150)
    mx, my = Xs[fit].mean(0), Ys[fit].mean(0)
    Xc, Yc = Xs[fit] - mx, Ys[fit] - my
    W, s = polar(Xc.T @ Yc)
    res = np.linalg.norm(Xc @ W - Yc)
    S = unit((Xs[test] - mx) @ W) @ unit(Ys[test] - my).T
    r, c = ranks(S)
    a, b = Xs[test], Ys[test]
    an = a / np.linalg.norm(a, axis=1, keepdims=True); bn = b / np.linalg.norm(b, axis=1, keepdims=True)
    mk, per = mutual_knn(a, b, 10)
    out[f'pipeline_{tag}'] = {
        'w': W.ravel().tolist(), 'singular_values': s.tolist(), 'fit_residual': float(res),
        'fit_relative_residual': float(res / np.linalg.norm(Yc)),
        'ranks_i2t': r.tolist(), 'ranks_t2i': c.tolist(), 'i2t': recall(r), 't2i': recall(c),
        'mknn': mk, 'mknn_per_item': per.tolist(),
        'cka_biased': cka(an, bn, False), 'cka_unbiased': cka(an, bn, True),
    }

# --- 2. rank-deficient Procrustes: 10 fit pairs (centred rank 9) for a 48x24 map
fit = slice(0, 10)
Xc, Yc = X[fit] - X[fit].mean(0), Y[fit] - Y[fit].mean(0)
M = Xc.T @ Yc
W, s = polar(M)
out['rank_deficient'] = {
    'fit_residual': float(np.linalg.norm(Xc @ W - Yc)), 'trace': float(np.trace(W.T @ M)),
    'nuclear_norm': float(s.sum()), 'rank': int(np.sum(s > 1e-5 * s[0])),
}
# wide case: 24-d image to 48-d text (W with orthonormal rows)
Wt, _ = polar(Y[:100].T @ X[:100] - 100 * np.outer(Y[:100].mean(0), X[:100].mean(0)))
out['wide_w'] = Wt.ravel().tolist()

# --- 3. planted exact ties and NaN in a similarity matrix (R@k both ways)
S = np.round(rng.standard_normal((12, 12)), 1)  # rounding plants many exact ties
S[:, 5] = 0.5
S[3, :] = S[3, 3]           # query 3 ties with every candidate -> rank 11
S[7, 7] = np.nan            # NaN true pair -> miss both ways
S[8, 2] = np.nan            # NaN elsewhere never counts
r, c = ranks(S)
out['ties'] = {'s': [[None if np.isnan(v) else float(v) for v in row] for row in S], 'ranks_i2t': r.tolist(), 'ranks_t2i': c.tolist()}

# --- 4. mutual k-NN with planted neighbour ties (quantised features) and CKA on another size
A = np.round(rng.standard_normal((40, 6)), 0)
B = np.round(A[:, :4] + 0.7 * rng.standard_normal((40, 4)), 0)
A[A.sum(1) == 0, 0] = 1; B[np.abs(B).sum(1) == 0, 0] = 1
np.save(os.path.join(here, 'knnA.npy'), A); np.save(os.path.join(here, 'knnB.npy'), B)
mk, per = mutual_knn(A, B, 5)
out['mknn_ties'] = {'k': 5, 'score': mk, 'per_item': per.tolist(),
                    'cka_biased_raw': cka(A, B, False), 'cka_unbiased_raw': cka(A, B, True)}

# --- 5. sliced Epps-Pulley (docs/reference.md#sigreg): directions given, N x K data of several kinds
t = np.linspace(0, 3, 17); phi = np.exp(-t ** 2 / 2)
w = phi * 0.1875 * np.where((np.arange(17) == 0) | (np.arange(17) == 16), 1, 2)
K, Msl = 16, 64
D = rng.standard_normal((K, Msl)); D /= np.linalg.norm(D, axis=0, keepdims=True)
np.save(os.path.join(here, 'ep_dirs.npy'), D)
def ep(Xe):
    Z = Xe @ D
    C = np.cos(Z[:, :, None] * t).mean(0); Sn = np.sin(Z[:, :, None] * t).mean(0)
    return float((Xe.shape[0] * ((C - phi) ** 2 + Sn ** 2) @ w).mean())
cases = {'gauss': rng.standard_normal((512, K)), 'collapsed': np.zeros((256, K)),
         'half': 0.5 * rng.standard_normal((1024, K)), 'double': 2.0 * rng.standard_normal((1024, K))}
out['epps_pulley'] = {}
for name, Xe in cases.items():
    np.save(os.path.join(here, f'ep_{name}.npy'), Xe)
    out['epps_pulley'][name] = {'n': Xe.shape[0], 'statistic': ep(Xe)}
out['epps_pulley']['weights'] = w.tolist()
out['epps_pulley']['analytic'] = {
    'gauss': float(np.sum(w * (1 - np.exp(-t ** 2)))),
    'collapsed_per_n': float(np.sum(w * (1 - phi) ** 2)),
    'half_per_n': float(np.sum(w * (np.exp(-0.125 * t ** 2) - phi) ** 2)),
    'double_per_n': float(np.sum(w * (np.exp(-2 * t ** 2) - phi) ** 2)),
}

# --- 6. numpy percentile (linear) for the bootstrap CI
p = rng.standard_normal(37)
out['percentile'] = {'x': p.tolist(), 'q2.5': float(np.percentile(p, 2.5)), 'q97.5': float(np.percentile(p, 97.5))}

json.dump(out, open(os.path.join(here, 'golden.json'), 'w'))
print('analytic', out['epps_pulley']['analytic'])
