# Golden for the image JEPA's training step (engine/train/image-jepa.ts with the object InfoNCE term): three AdamW steps
# of a tiny conv-stem ViT + projector, written with torch's own modules and optimiser (nn.Conv2d, nn.BatchNorm2d in
# train mode, nn.MultiheadAttention, nn.LayerNorm, torch.optim.AdamW, clip_grad_norm_), float64, from torch's own init.
# The initial weights go out in the workbench's layout (tests/train/jepa-step.test.ts loads them), with the pixels of
# each step, and the loss, gradient norm and every parameter after the last step come back to compare.
# Run: /usr/bin/python3 tests/train/jepa_step_golden.py   (Debian python3-torch) -> jepa-step-golden.json
import json, math, os
import torch, torch.nn as nn, torch.nn.functional as F

torch.set_default_dtype(torch.float64)
torch.manual_seed(37)
S, STEM, D, HEADS, MLP, PROJ = 8, [4, 8], 8, 2, 32, [16, 8]
B, V, STEPS, LR, WARMUP, MIN_LR, WD, CLIP, TAU = 6, 2, 3, 1e-2, 1, 0.05, 0.05, 1.0, 0.1

class Block(nn.Module):  # pre-LN: x + attn(ln1 x), then x + mlp(ln2 x), tanh GELU
    def __init__(s):
        super().__init__()
        s.ln1, s.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
        s.attn = nn.MultiheadAttention(D, HEADS, batch_first=True)
        s.mlp = nn.Sequential(nn.Linear(D, MLP), nn.GELU(approximate='tanh'), nn.Linear(MLP, D))
    def forward(s, x):
        h = s.ln1(x)
        x = x + s.attn(h, h, h, need_weights=False)[0]
        return x + s.mlp(s.ln2(x))

class ViT(nn.Module):  # 3x3 stride-2 convs (no bias) + BatchNorm + ReLU, a 1x1 patch projection, CLS + positions N(0, 1)
    def __init__(s):
        super().__init__()
        layers, c = [], 3
        for w in STEM:
            layers += [nn.Conv2d(c, w, 3, 2, 1, bias=False), nn.BatchNorm2d(w), nn.ReLU()]
            c = w
        s.stem = nn.Sequential(*layers)
        s.patch = nn.Conv2d(c, D, 1)
        g = S // 2 ** len(STEM)
        s.cls = nn.Parameter(0.02 * torch.randn(1, 1, D))
        s.pos = nn.Parameter(torch.randn(1, 1 + g * g, D))
        s.blocks = nn.ModuleList([Block()])
        s.lnf = nn.LayerNorm(D)
    def forward(s, x):
        t = s.patch(s.stem(x)).flatten(2).transpose(1, 2)
        t = torch.cat([s.cls.expand(t.shape[0], -1, -1), t], 1) + s.pos
        for b in s.blocks: t = b(t)
        return s.lnf(t)[:, 0]  # the CLS row

vit = ViT()
proj = nn.Sequential(nn.Linear(D, PROJ[0]), nn.BatchNorm1d(PROJ[0]), nn.GELU(approximate='tanh'), nn.Linear(PROJ[0], PROJ[1]))
f32 = lambda t: t.float().double()  # values float32 holds exactly: the workbench starts from the very same numbers
with torch.no_grad():
    for p in list(vit.parameters()) + list(proj.parameters()): p.copy_(f32(p))
num = lambda v: float('%.9g' % v)  # 9 significant digits round-trip a float32

def workbench_layout():  # engine/models names and layouts: Linear weights [in, out], conv taps rows (ky, kx, cin)
    out = {}
    for l, w in enumerate(STEM):
        out[f'stem{l}.w'] = vit.stem[3 * l].weight.permute(2, 3, 1, 0).reshape(-1, w)
        out[f'stem{l}.g'], out[f'stem{l}.b'] = vit.stem[3 * l + 1].weight, vit.stem[3 * l + 1].bias
    out['patch.w'], out['patch.b'] = vit.patch.weight[:, :, 0, 0].T, vit.patch.bias
    out['cls'], out['pos'] = vit.cls[0], vit.pos[0]
    b = vit.blocks[0]
    out['h0.qkv.w'], out['h0.qkv.b'] = b.attn.in_proj_weight.T, b.attn.in_proj_bias
    out['h0.o.w'], out['h0.o.b'] = b.attn.out_proj.weight.T, b.attn.out_proj.bias
    out['h0.ln1.g'], out['h0.ln1.b'], out['h0.ln2.g'], out['h0.ln2.b'] = b.ln1.weight, b.ln1.bias, b.ln2.weight, b.ln2.bias
    out['h0.fc1.w'], out['h0.fc1.b'], out['h0.fc2.w'], out['h0.fc2.b'] = b.mlp[0].weight.T, b.mlp[0].bias, b.mlp[2].weight.T, b.mlp[2].bias
    out['lnf.g'], out['lnf.b'] = vit.lnf.weight, vit.lnf.bias
    out['proj0.w'], out['proj0.b'], out['proj0.bn.g'], out['proj0.bn.b'] = proj[0].weight.T, proj[0].bias, proj[1].weight, proj[1].bias
    out['proj1.w'], out['proj1.b'] = proj[3].weight.T, proj[3].bias
    return {k: {'shape': list(t.shape), 'data': [num(v) for v in t.detach().reshape(-1).tolist()]} for k, t in out.items()}

def lr_at(s):  # engine/train/optimizer.ts lrAt with warmupStart .01
    if s < WARMUP: return LR * (0.01 + 0.99 * s / WARMUP)
    p = min(1, (s - WARMUP) / max(1, STEPS - WARMUP))
    return LR * MIN_LR + (LR - LR * MIN_LR) * 0.5 * (1 + math.cos(math.pi * p))

def infonce(z):  # rows v·B + b; each row's positive is the other view of its item
    z = F.normalize(z, dim=1)
    sim = z @ z.T / TAU
    sim.fill_diagonal_(-1e9)
    return F.cross_entropy(sim, torch.cat([torch.arange(B, 2 * B), torch.arange(0, B)]))

init = workbench_layout()
params = list(vit.parameters()) + list(proj.parameters())
opt = torch.optim.AdamW([{'params': [p for p in params if p.ndim >= 2], 'weight_decay': WD}, {'params': [p for p in params if p.ndim < 2], 'weight_decay': 0.0}], lr=LR)
steps = []
for s in range(STEPS):
    x = f32(torch.randn(V * B, 3, S, S))  # view-major, already "normalised" pixels
    for g in opt.param_groups: g['lr'] = lr_at(s)
    loss = infonce(proj(vit(x)))
    opt.zero_grad(); loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(params, CLIP)
    opt.step()
    steps.append({'pixels': [num(v) for v in x.reshape(-1).tolist()], 'lr': lr_at(s), 'loss': loss.item(), 'gradNorm': norm.item()})

golden = {
    'config': {'imageSize': S, 'stem': STEM, 'hidden': D, 'heads': HEADS, 'mlp': MLP, 'projector': PROJ, 'objects': B, 'views': V,
               'lr': LR, 'warmupSteps': WARMUP, 'minLr': MIN_LR, 'weightDecay': WD, 'clip': CLIP, 'temperature': TAU},
    'init': init, 'steps': steps, 'final': workbench_layout(), 'torch': torch.__version__,
}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'jepa-step-golden.json'), 'w') as f:
    json.dump(golden, f)
print('losses', [round(s['loss'], 6) for s in steps], 'grad norms', [round(s['gradNorm'], 4) for s in steps])
