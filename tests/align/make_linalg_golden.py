# Golden references for tests/align/linalg.test.ts: numpy (LAPACK dsyevd) eigendecompositions of symmetric matrices
# of the kinds the Procrustes fit meets. Run: /usr/bin/python3 tests/align/make_linalg_golden.py
# (writes golden/eig_<case>_{a,v}.npy and the eigenvalues in golden/linalg.json)
import json, os
import numpy as np

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'golden')
rng = np.random.default_rng(20250101)
out = {}

def case(name, a):
    w, v = np.linalg.eigh(a)
    np.save(os.path.join(here, f'eig_{name}_a.npy'), a)
    np.save(os.path.join(here, f'eig_{name}_v.npy'), v)  # columns, ascending with w
    out[name] = w.tolist()

# dense symmetric with both signs, n not a multiple of the 32-column panel
b = rng.standard_normal((45, 45))
case('symmetric45', (b + b.T) / 2)
# the Gram of a cross-covariance with a planted 8-d shared latent: a few large eigenvalues over a dense bulk
z = rng.standard_normal((300, 8))
x = z @ rng.standard_normal((8, 96)) + 3 * rng.standard_normal((300, 96))
y = z @ rng.standard_normal((8, 48)) + 3 * rng.standard_normal((300, 48))
m = (x - x.mean(0)).T @ (y - y.mean(0))
case('spikedGram48', m.T @ m)
# rank 12 of 40 (fewer pairs than the width): 28 eigenvalues at rounding level
f = rng.standard_normal((40, 12))
case('rankDeficient40', f @ f.T)
# repeated eigenvalues (1 x5, 2 x5, 3 x5, ...): eigenvectors not unique, eigenvalues are
q, _ = np.linalg.qr(rng.standard_normal((20, 20)))
case('repeated20', q @ np.diag(np.repeat([1.0, 2.0, 3.0, 4.0], 5)) @ q.T)

json.dump(out, open(os.path.join(here, 'linalg.json'), 'w'))
