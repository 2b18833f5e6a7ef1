# Golden values for the training losses and a tiny encoder, from PyTorch (float64), written to golden.json.
# Run: /usr/bin/python3 tests/train/golden.py   (Debian python3-torch; the TS tests read golden.json)
import json, math, os
import numpy as np
import torch

torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(1234)
out = {}

def sp_grid(tmax=3.0, J=17):
    t = torch.linspace(0, tmax, J)
    phi = torch.exp(-0.5 * t**2)
    dt = tmax / (J - 1)
    w = phi * dt * torch.tensor([1.0 if j in (0, J - 1) else 2.0 for j in range(J)])
    return t, phi, w

# stable-pretraining lejepa.py SIGReg (the sliced Epps-Pulley statistic), all samples pooled, N * world_size scaling
def sigreg(z, world_size=1, tmax=3.0, J=17):
    t, phi, w = sp_grid(tmax, J)
    xt = z.unsqueeze(-1) * t  # [N, M, J]
    err = (torch.cos(xt).mean(0) - phi) ** 2 + torch.sin(xt).mean(0) ** 2  # [M, J]
    return ((err @ w) * z.shape[0] * world_size).mean()

def unit_dirs(K, M):
    A = rng.standard_normal((K, M))
    return A / np.linalg.norm(A, axis=0, keepdims=True)

# 1. SIGReg on fixed inputs and directions (+ gradient), and the analytic sanity values
cases = []
for name, N, K, M, scale in [('gauss', 256, 8, 32, 1.0), ('half', 256, 8, 32, 0.5), ('double', 128, 6, 16, 2.0), ('collapsed', 200, 4, 8, 0.0)]:
    X = rng.standard_normal((N, K)) * scale
    A = unit_dirs(K, M)
    Xt = torch.tensor(X, requires_grad=True)
    v = sigreg(Xt @ torch.tensor(A))
    v.backward()
    cases.append({'name': name, 'N': N, 'K': K, 'M': M, 'X': X.ravel().tolist(), 'A': A.ravel().tolist(), 'value': v.item(), 'grad': Xt.grad.numpy().ravel().tolist()})
out['sigreg'] = cases
t, phi, w = sp_grid()
out['sigregWeights'] = w.tolist()
out['sigregGaussianExpectation'] = float((w * (1 - torch.exp(-t**2))).sum())  # E[T] under exact N(0,1): ~1.052
out['sigregCollapsedPerN'] = float((w * (1 - phi) ** 2).sum())  # T/N when every z = 0: ~0.402

# 2. Invariance: centre = mean of the first n views, mean over (v, b, k) of squared deviation
V, B, K = 8, 5, 6
P = rng.standard_normal((V, B, K))
Pt = torch.tensor(P, requires_grad=True)
inv = ((Pt[:2].mean(0, keepdim=True) - Pt) ** 2).mean()
inv.backward()
out['invariance'] = {'V': V, 'B': B, 'K': K, 'P': P.ravel().tolist(), 'value': inv.item(), 'grad': Pt.grad.numpy().ravel().tolist()}

# 3. NTP: tied-embedding cross-entropy on packed sequences, mean over positions with a next token
Vocab, d = 11, 6
lengths = [5, 3, 7, 2]
ids = [int(x) for x in rng.integers(0, Vocab, sum(lengths))]
H = rng.standard_normal((sum(lengths), d))
E = rng.standard_normal((Vocab, d)) * 0.5
Ht, Et = torch.tensor(H, requires_grad=True), torch.tensor(E, requires_grad=True)
src, tgt, o = [], [], 0
for n in lengths:
    src += list(range(o, o + n - 1)); tgt += ids[o + 1:o + n]; o += n
ce = torch.nn.functional.cross_entropy(Ht[src] @ Et.T, torch.tensor(tgt))
ce.backward()
out['ntp'] = {'vocab': Vocab, 'd': d, 'lengths': lengths, 'ids': ids, 'H': H.ravel().tolist(), 'E': E.ravel().tolist(), 'value': ce.item(), 'gradH': Ht.grad.numpy().ravel().tolist(), 'gradE': Et.grad.numpy().ravel().tolist()}

# 4. A tiny encoder (shared weights across views), full LeJEPA loss and full NTP loss, forward + backward
def gelu(x): return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
def ln(x, g, b): return torch.nn.functional.layer_norm(x, x.shape[-1:], g, b, 1e-5)

def encoder(p, cfg, seqs, causal):
    Bn, T, d, Hh = len(seqs), max(len(s) for s in seqs), cfg['d'], cfg['heads']
    dh = d // Hh
    ids = torch.zeros((Bn, T), dtype=torch.long); mask = torch.zeros((Bn, T))
    for b, s in enumerate(seqs): ids[b, :len(s)] = torch.tensor(s); mask[b, :len(s)] = 1
    x = p['tok'][ids] + p['pos'][:T]
    if cfg['norm'] == 'post': x = ln(x, p['emb.ln.g'], p['emb.ln.b'])
    hs = [x]
    bias = (1 - mask)[:, None, None, :] * -1e9
    if causal: bias = bias + torch.triu(torch.ones(T, T), 1) * -1e9
    for l in range(cfg['layers']):
        a = ln(x, p[f'h{l}.ln1.g'], p[f'h{l}.ln1.b']) if cfg['norm'] == 'pre' else x
        qkv = a @ p[f'h{l}.qkv.w'] + p[f'h{l}.qkv.b']
        q, k, v = [qkv[..., i * d:(i + 1) * d].reshape(Bn, T, Hh, dh).transpose(1, 2) for i in range(3)]
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(dh) + bias, -1)
        ctx = (att @ v).transpose(1, 2).reshape(Bn, T, d)
        x = x + ctx @ p[f'h{l}.o.w'] + p[f'h{l}.o.b']
        if cfg['norm'] == 'post': x = ln(x, p[f'h{l}.ln1.g'], p[f'h{l}.ln1.b'])
        f = ln(x, p[f'h{l}.ln2.g'], p[f'h{l}.ln2.b']) if cfg['norm'] == 'pre' else x
        x = x + gelu(f @ p[f'h{l}.fc1.w'] + p[f'h{l}.fc1.b']) @ p[f'h{l}.fc2.w'] + p[f'h{l}.fc2.b']
        if cfg['norm'] == 'post': x = ln(x, p[f'h{l}.ln2.g'], p[f'h{l}.ln2.b'])
        hs.append(ln(x, p['lnf.g'], p['lnf.b']) if cfg['norm'] == 'pre' and l == cfg['layers'] - 1 else x)
    return hs, mask

def projector(p, dims, norm, h):
    x = h
    for i in range(len(dims)):
        x = x @ p[f'proj{i}.w'] + p[f'proj{i}.b']
        if norm[i]:
            mu, var = x.mean(0), x.var(0, unbiased=False)
            x = gelu((x - mu) / torch.sqrt(var + 1e-5) * p[f'proj{i}.bn.g'] + p[f'proj{i}.bn.b'])
    return x

def params(cfg, vocab, proj):
    d, f = cfg['d'], cfg['ffn']
    shapes = {'tok': (vocab, d), 'pos': (cfg['maxLen'], d)}
    if cfg['norm'] == 'post': shapes.update({'emb.ln.g': (d,), 'emb.ln.b': (d,)})
    for l in range(cfg['layers']):
        shapes.update({f'h{l}.qkv.w': (d, 3 * d), f'h{l}.qkv.b': (3 * d,), f'h{l}.o.w': (d, d), f'h{l}.o.b': (d,), f'h{l}.ln1.g': (d,), f'h{l}.ln1.b': (d,),
                       f'h{l}.fc1.w': (d, f), f'h{l}.fc1.b': (f,), f'h{l}.fc2.w': (f, d), f'h{l}.fc2.b': (d,), f'h{l}.ln2.g': (d,), f'h{l}.ln2.b': (d,)})
    if cfg['norm'] == 'pre': shapes.update({'lnf.g': (d,), 'lnf.b': (d,)})
    fan = d
    for i, o in enumerate(proj['dims']):
        shapes.update({f'proj{i}.w': (fan, o), f'proj{i}.b': (o,)})
        if proj['norm'][i]: shapes.update({f'proj{i}.bn.g': (o,), f'proj{i}.bn.b': (o,)})
        fan = o
    vals = {}
    for k, s in shapes.items():
        base = 1.0 if k.endswith('.g') else 0.0
        vals[k] = base + rng.standard_normal(s) * (0.3 if len(s) == 2 else 0.1)
    return vals

tiny = []
for norm in ['pre', 'post']:
    cfg = {'d': 8, 'layers': 2, 'heads': 2, 'ffn': 16, 'maxLen': 10, 'norm': norm, 'init': 'torch', 'pool': 'mean',
           'projector': {'dims': [12, 5], 'norm': [True, False], 'act': 'gelu'}}
    vocab = 13
    vals = params(cfg, vocab, cfg['projector'])
    Bp, Vv = 3, 4  # 3 photos x 4 views (2 global first), sequence v*B + b
    seqs = [[int(x) for x in rng.integers(0, vocab, int(n))] for n in rng.integers(2, 10, Bp * Vv)]
    A = unit_dirs(5, 7)
    lamb = 0.3
    p = {k: torch.tensor(v, requires_grad=True) for k, v in vals.items()}
    hs, mask = encoder(p, cfg, seqs, False)
    pooled = (hs[-1] * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)
    Pz = projector(p, cfg['projector']['dims'], cfg['projector']['norm'], pooled)
    P3 = Pz.reshape(Vv, Bp, -1)
    inv = ((P3[:2].mean(0, keepdim=True) - P3) ** 2).mean()
    sg = sigreg(Pz @ torch.tensor(A))
    loss = inv + lamb * sg
    loss.backward()
    layers = [((h * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)).detach().numpy().ravel().tolist() for h in hs]
    jepa = {'loss': loss.item(), 'inv': inv.item(), 'sigreg': sg.item(), 'grads': {k: v.grad.numpy().ravel().tolist() for k, v in p.items()}, 'layers': layers}
    # NTP with the same weights: causal pass, tied head
    p2 = {k: torch.tensor(v, requires_grad=True) for k, v in vals.items()}
    hs2, _ = encoder(p2, cfg, seqs, True)
    src, tgt = [], []
    for b, s in enumerate(seqs):
        for t_ in range(len(s) - 1): src.append(hs2[-1][b, t_]); tgt.append(s[t_ + 1])
    ce = torch.nn.functional.cross_entropy(torch.stack(src) @ p2['tok'].T, torch.tensor(tgt))
    ce.backward()
    ntp = {'loss': ce.item(), 'grads': {k: v.grad.numpy().ravel().tolist() for k, v in p2.items() if v.grad is not None}}
    tiny.append({'cfg': cfg, 'vocab': vocab, 'B': Bp, 'V': Vv, 'lamb': lamb, 'seqs': seqs, 'A': A.ravel().tolist(),
                 'params': {k: {'shape': list(v.shape), 'data': v.ravel().tolist()} for k, v in vals.items()}, 'jepa': jepa, 'ntp': ntp})
out['tiny'] = tiny

# 5. InfoNCE (SimCLR's NT-Xent; with V > 2 every other view of the item is a positive, SupCon's mean over positives),
# written from the definition: view-major rows, cosine / tau, a row is not its own candidate.
infonce = []
for V_, B_, K_, tau in [(2, 6, 5, 0.1), (3, 4, 6, 0.5)]:
    P = rng.standard_normal((V_ * B_, K_))
    Pt = torch.tensor(P, requires_grad=True)
    z = torch.nn.functional.normalize(Pt, dim=1)
    logits = (z @ z.T / tau).masked_fill(torch.eye(V_ * B_, dtype=torch.bool), float('-inf'))
    logp = logits.log_softmax(1)
    item = torch.arange(V_ * B_) % B_
    pos = (item[:, None] == item[None, :]) & ~torch.eye(V_ * B_, dtype=torch.bool)
    nce = -(logp.masked_fill(~pos, 0).sum()) / (V_ * B_ * (V_ - 1))
    nce.backward()
    infonce.append({'V': V_, 'B': B_, 'K': K_, 'temperature': tau, 'P': P.ravel().tolist(), 'value': nce.item(), 'grad': Pt.grad.numpy().ravel().tolist()})
out['infonce'] = infonce
out['torch'] = torch.__version__

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'golden.json'), 'w') as f:
    json.dump(out, f)
print('wrote golden.json', out['sigregGaussianExpectation'], out['sigregCollapsedPerN'], [c['value'] for c in cases])
