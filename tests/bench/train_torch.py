# PyTorch twin of one training step of engine/train (encoder, LeJEPA / NTP loss, AdamW), timed on the batches,
# initial weights and SIGReg directions that tests/bench/train.bench.ts wrote, at 1 and then 2 threads.
# Run by the bench: /usr/bin/python3 tests/bench/train_torch.py <dir> <steps>  (OPENBLAS_NUM_THREADS=1 in the env:
# OpenBLAS threads on top of torch's oversubscribe 2 cores, docs/reference.md#engines). Prints one JSON line.
# Batches are padded the way torch naturally runs them: [rows, longest] with an additive -1e9 key mask (and causal
# mask for NTP), masked mean pool; the NTP head only sees positions with a next token (like ours).
# Not golden.py's model: that script writes golden.json when imported and is float64 reference code (x**3 GELU);
# this one uses the fused torch ops a PyTorch user would time (addmm, F.gelu tanh, F.layer_norm, F.batch_norm).
import json, math, os, resource, sys, time
import numpy as np
import torch
import torch.nn.functional as F

d_ir, steps = sys.argv[1], int(sys.argv[2])
spec = json.load(open(os.path.join(d_ir, 'batches.json')))
cfg, arm = spec['encoder'], spec['arm']
jepa = arm in ('good', 'bad')
flat = np.fromfile(os.path.join(d_ir, 'weights.f32'), dtype=np.float32)
init, o = {}, 0
for name, shape in zip(spec['names'], spec['shapes']):
    n = int(np.prod(shape)); init[name] = flat[o:o + n].reshape(shape); o += n
K = cfg['projector']['dims'][-1]
A_all = np.fromfile(os.path.join(d_ir, 'directions.f32'), dtype=np.float32).reshape(-1, K, spec['slices']) if jepa else None

# SIGReg grid (stable-pretraining lejepa.py): trapezoid weights on [0, tMax] doubled for ±t, windowed by the Gaussian
J, TMAX = 17, 3.0
t = torch.linspace(0, TMAX, J)
phi = torch.exp(-0.5 * t ** 2)
wts = phi * (TMAX / (J - 1)) * torch.tensor([1.0 if j in (0, J - 1) else 2.0 for j in range(J)])

def sigreg(z):  # z: [N, M] -> mean over slices of N·Σ_j w_j[(mean cos − φ)² + mean sin²]
    xt = z.unsqueeze(-1) * t
    err = (torch.cos(xt).mean(0) - phi) ** 2 + torch.sin(xt).mean(0) ** 2
    return ((err @ wts) * z.shape[0]).mean()

def ln(x, p, name): return F.layer_norm(x, x.shape[-1:], p[name + '.g'], p[name + '.b'], 1e-5)
def lin(x, p, name): return torch.addmm(p[name + '.b'], x, p[name + '.w'])  # x: [n, in], w: [in, out] as ours

def encode(p, ids, mask, causal):  # ids, mask: [R, T] -> last hidden state [R·T, d]
    R, T = ids.shape
    d, H = cfg['d'], cfg['heads']
    dh = d // H
    x = (F.embedding(ids, p['tok']) + p['pos'][:T]).reshape(R * T, d)
    if cfg['norm'] == 'post': x = ln(x, p, 'emb.ln')
    bias = (~mask)[:, None, None, :] * -1e9  # [R, 1, 1, T]
    if causal: bias = bias + torch.triu(torch.full((T, T), -1e9), 1)
    for l in range(cfg['layers']):
        a = ln(x, p, f'h{l}.ln1') if cfg['norm'] == 'pre' else x
        q, k, v = lin(a, p, f'h{l}.qkv').view(R, T, 3, H, dh).permute(2, 0, 3, 1, 4)
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(dh) + bias, -1)
        x = x + lin((att @ v).transpose(1, 2).reshape(R * T, d), p, f'h{l}.o')
        if cfg['norm'] == 'post': x = ln(x, p, f'h{l}.ln1')
        f = ln(x, p, f'h{l}.ln2') if cfg['norm'] == 'pre' else x
        x = x + lin(F.gelu(lin(f, p, f'h{l}.fc1'), approximate='tanh'), p, f'h{l}.fc2')
        if cfg['norm'] == 'post': x = ln(x, p, f'h{l}.ln2')
    return ln(x, p, 'lnf') if cfg['norm'] == 'pre' else x

def project(p, h):
    pc = cfg['projector']
    for i, has_bn in enumerate(pc['norm']):
        h = lin(h, p, f'proj{i}')
        if has_bn:
            h = F.batch_norm(h, None, None, p[f'proj{i}.bn.g'], p[f'proj{i}.bn.b'], training=True, eps=1e-5)
            h = F.gelu(h, approximate='tanh') if pc['act'] == 'gelu' else F.relu(h)
    return h

def collate(seqs):  # -> ids, mask: [R, longest]
    T = max(len(s) for s in seqs)
    ids = torch.zeros((len(seqs), T), dtype=torch.long)
    mask = torch.zeros((len(seqs), T), dtype=torch.bool)
    for b, s in enumerate(seqs):
        ids[b, :len(s)] = torch.tensor(s)
        mask[b, :len(s)] = True
    return ids, mask

def loss_of(p, batch, step):
    ids, mask = collate(batch['sequences'])
    R, T = ids.shape
    h = encode(p, ids, mask, not jepa).view(R, T, -1)
    if not jepa:  # NTP, tied head over positions that have a next token
        has = mask[:, 1:]
        logits = h[:, :-1][has] @ p['tok'].T
        return F.cross_entropy(logits, ids[:, 1:][has]), None, None
    m = mask.unsqueeze(-1).to(h.dtype)
    P = project(p, (h * m).sum(1) / m.sum(1))  # [V·B, K]
    P3 = P.view(batch['V'], batch['B'], -1)
    inv = ((P3[:spec['nGlobal']].mean(0, keepdim=True) - P3) ** 2).mean()
    sg = sigreg(P @ torch.from_numpy(A_all[step]))
    return inv + spec['lamb'] * sg, inv, sg

def run(threads):
    torch.set_num_threads(threads)
    p = {k: torch.tensor(v, requires_grad=True) for k, v in init.items()}
    groups = [{'params': [v for v in p.values() if v.dim() >= 2], 'weight_decay': spec['weightDecay']},
              {'params': [v for v in p.values() if v.dim() < 2], 'weight_decay': 0.0}]
    opt = torch.optim.AdamW(groups, lr=spec['lr'], betas=(0.9, 0.999), eps=1e-8)
    times, losses, norms = [], [], []
    for step in range(steps):
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss, inv, sg = loss_of(p, spec['batches'][step], step)
        parts = [loss.item()] + ([inv.item(), sg.item()] if jepa else [])
        loss.backward()
        norm = torch.norm(torch.stack([v.grad.norm() for v in p.values() if v.grad is not None])).item()
        opt.step()
        times.append((time.perf_counter() - t0) * 1e3)
        losses.append(parts[0]); norms.append(norm)
    med = float(np.median(times[1:]))
    B = spec['batches'][0]['B']
    padded = [len(b['sequences']) * max(len(x) for x in b['sequences']) for b in spec['batches'][1:steps]]
    return {'threads': threads, 'paddedTokensPerStep': float(np.median(padded)), 'medianStepMs': round(med, 2), 'firstStepMs': round(times[0], 1), 'photosPerSec': round(B * 1e3 / med, 2),
            'stepsMs': [round(x, 1) for x in times], 'losses': losses, 'gradNorms': norms}

torch.manual_seed(0)
out = {'torch': torch.__version__, 'blas': 'OPENBLAS_NUM_THREADS=' + os.environ.get('OPENBLAS_NUM_THREADS', '(unset)'),
       'padding': 'padded [rows, longest] per step, additive -1e9 key mask', 't1': run(1), 't2': run(2)}
out['peakRssMB'] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
print(json.dumps(out))
