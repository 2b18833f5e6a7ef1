"""Golden values for engine/theory, from an independent numpy implementation (run: /usr/bin/python3 golden.py).

Builds a few worlds with numpy's RNG and stores their joints W with: the non-trivial spectrum, Prop 1 losses (summed
directly over the joint), Prop 3 r and error over rho (brute-force eigh of kron(S_W, S_N), ties at the k boundary
resolved towards world-only functions by an SVD), best-rotation errors by explicit Procrustes, and the Thm 3 floor.
"""
import json
from pathlib import Path

import numpy as np

rng = np.random.default_rng(20240601)
TIE = 1e-9


def uniform_joint(n):
    A = rng.random((n, n))
    W = (A + A.T) / 2
    return W / W.sum()


def clustered_joint(n, clusters, stickiness):
    label = np.concatenate([np.arange(clusters), rng.integers(0, clusters, n - clusters)])
    A = rng.random((n, n))
    A = (A + A.T) / 2
    inside = A * (label[:, None] == label[None, :])
    W = stickiness * inside / inside.sum() + (1 - stickiness) * A / A.sum()
    return W / W.sum()


def sparse_joint(n):
    A = rng.random((n, n)) * (rng.random((n, n)) < 0.35)
    W = A + A.T + np.diag(rng.random(n))  # the diagonal keeps every state's mass positive
    return W / W.sum()


def cycle_joint(n):
    W = np.zeros((n, n))
    for s in range(n):
        W[s, (s + 1) % n] = W[s, (s - 1) % n] = 1 / (2 * n)
    return W


def perp_basis(v):
    # complete QR of the unit vector v: columns 1.. span v-perp
    Q, _ = np.linalg.qr(v[:, None], mode="complete")
    return Q[:, 1:]


def spectrum(K, v):
    B = perp_basis(v)
    vals, vecs = np.linalg.eigh(B.T @ K @ B)
    order = np.argsort(-vals, kind="stable")
    return vals[order], B @ vecs[:, order]


def world_parts(W):
    pi = W.sum(1)
    sq = np.sqrt(pi)
    return pi, sq, W / np.outer(sq, sq)


def prop1(W, k):
    pi, sq, S = world_parts(W)
    mu, G = spectrum(S, sq)
    f = G[:, :k] / sq[:, None]
    diff = f[:, None, :] - f[None, :, :]
    loss = float((W * (diff ** 2).sum(-1)).sum())
    gap = mu[k - 1] - mu[k] if k < len(mu) else np.inf
    return {"k": k, "loss": loss, "lossFormula": float(2 * (k - mu[:k].sum())), "unique": bool(gap > TIE)}


def top_k_preferring_world(vals, vecs, k, world_basis):
    Z = vecs[:, :k].copy()
    if k < len(vals) and vals[k - 1] - vals[k] <= TIE:
        idx = np.where(np.abs(vals - vals[k - 1]) <= TIE)[0]
        C = vecs[:, idx]
        _, s, Vt = np.linalg.svd(world_basis.T @ C)  # rows of Vt: most world-like directions first
        C = C @ Vt.T
        start = idx[0]
        Z[:, start:k] = C[:, : k - start]
    return Z


def prop3(W, nu, k, rhos):
    pi, sq, S = world_parts(W)
    mu, G = spectrum(S, sq)
    m = len(nu)
    snu = np.sqrt(nu)
    target = np.kron(G[:, :k], snu[:, None])  # f* = world-only optimum on (s, u), sqrt-weighted
    world_basis = np.kron(np.eye(len(pi)), snu[:, None])
    out = []
    for rho in rhos:
        SN = rho * np.eye(m) + (1 - rho) * np.outer(snu, snu)
        vals, vecs = spectrum(np.kron(S, SN), np.kron(sq, snu))
        Z = top_k_preferring_world(vals, vecs, k, world_basis)
        frac = ((world_basis.T @ Z) ** 2).sum(0)
        err = 2 * k - 2 * np.linalg.svd(Z.T @ target, compute_uv=False).sum()
        out.append({"rho": rho, "r": int((frac < 0.5).sum()), "error": float(err), "eigenvalues": vals[: k + 2].tolist()})
    return out


def whiten(F, w):
    F = F - w @ F
    C = F.T @ (F * w[:, None])
    e, V = np.linalg.eigh(C)
    return F @ V @ np.diag(e ** -0.5) @ V.T


def procrustes_error(f, fstar, w):
    # min over orthogonal Q of sum_s w_s ||Q f(s) - f*(s)||^2, by Q = U V^T from the SVD of sum_s w_s f*(s) f(s)^T
    M = (fstar * w[:, None]).T @ f
    U, _, Vt = np.linalg.svd(M)
    Q = U @ Vt
    return float((w * ((f @ Q.T - fstar) ** 2).sum(1)).sum())


def rotation_case(W, k):
    pi, sq, S = world_parts(W)
    _, G = spectrum(S, sq)
    f = whiten(rng.normal(size=(len(pi), k)), pi)
    return {"k": k, "f": f.tolist(), "error": procrustes_error(f, G[:, :k] / sq[:, None], pi)}


def thm3_case(W, nu, k):
    pi, sq, S = world_parts(W)
    _, G = spectrum(S, sq)
    n, m = len(pi), len(nu)
    w = np.kron(pi, nu)
    f = whiten(rng.normal(size=(n * m, k)), w)
    g = (f.reshape(n, m, k) * nu[None, :, None]).sum(1)
    lam = np.clip(np.linalg.eigvalsh((g * pi[:, None]).T @ g), 0, None)
    eta = lam.sum() / k
    fstar = np.repeat(G[:, :k] / sq[:, None], m, axis=0)
    return {
        "m": m, "nu": nu.tolist(), "k": k, "f": f.tolist(),
        "error": procrustes_error(f, fstar, w),
        "bound": float(2 * k - 2 * np.sqrt(lam).sum()),
        "etaBound": float(2 * k * (1 - np.sqrt(eta))),
    }


RHOS = [0.0, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 0.9, 1.0]
worlds = []
for name, W, ks, p3, rot_k in [
    ("uniform8", uniform_joint(8), [1, 2, 3], (np.full(3, 1 / 3), 2), 2),
    ("clustered12", clustered_joint(12, 4, 0.8), [2, 3, 4], (np.array([0.1, 0.2, 0.3, 0.4]), 3), 3),
    ("sparse10", sparse_joint(10), [1, 4], (np.full(3, 1 / 3), 4), 3),  # m - 1 < k: mixed directions enter at rho = 1
    ("cycle7", cycle_joint(7), [1, 2, 3], (np.full(4, 1 / 4), 2), 2),  # mu_1 = mu_2, mu_3 = mu_4: ties at k = 1, 3
]:
    pi, sq, S = world_parts(W)
    mu, _ = spectrum(S, sq)
    nu, k3 = p3
    worlds.append({
        "name": name,
        "n": len(pi),
        "W": W.tolist(),
        "mu": mu.tolist(),
        "prop1": [prop1(W, k) for k in ks],
        "prop3": {"m": len(nu), "nu": nu.tolist(), "k": k3, "points": prop3(W, nu, k3, RHOS)},
        "rotation": rotation_case(W, rot_k),
        "thm3": thm3_case(W, nu, k3),
    })

out = {"note": "written by tests/theory/golden.py (numpy %s); do not edit by hand" % np.__version__, "tieTol": TIE, "worlds": worlds}
Path(__file__).with_name("golden.json").write_text(json.dumps(out))
print("wrote", len(worlds), "worlds")
