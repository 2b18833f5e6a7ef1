"""References for tests/image and the image bench, run with /usr/bin/python3 (numpy 1.24, torch 1.13).

  golden              writes dinov2-golden.json (a tiny HF-Dinov2 ViT: weights, input, torch outputs),
                      preprocess-golden.json (normalised CHW of a fixed 16x16 pattern image) and stem-golden.json
                      (a conv stem: Conv2d + BatchNorm2d + ReLU in train and eval mode; a tiny ViT with it, folded)
  bench DIR B ITERS   times torch eager on the ViT whose weights DIR/weights.f32 + DIR/index.json hold,
                      on the batch DIR/input.f32 [B,3,S,S]; prints one JSON line
  stem-bench N S W ITERS  times one training step's forward + backward of a conv stem of widths W (e.g. 16,32,64:
                      Conv2d + BatchNorm2d in train mode + ReLU) on N SxS images, one thread; prints one JSON line
  attention-bench B T D H ITERS  times multi-head attention's forward + backward (q·kᵀ/√dh, softmax, ·v; the
                      workbench ViT's math) on B sequences of T tokens, width D, H heads, one thread; one JSON line
"""
import json
import math
import os
import resource
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def dinov2_forward(torch, w, cfg, x):
    """Hugging Face Dinov2Model.forward (eval, no interpolation: the position table matches the input grid),
    transcribed from modeling_dinov2.py. Returns (last_hidden_state, pooler_output, hidden state after block 0)."""
    F = torch.nn.functional
    D, H, p, eps = cfg["hidden"], cfg["heads"], cfg["patchSize"], cfg["layerNormEps"]
    dh = D // H
    N = x.shape[0]
    for i in range(len(cfg.get("stem", []))):  # the project's conv stem (BatchNorm folded into each Conv), then a 1x1 projection
        x = F.relu(F.conv2d(x, w[f"embeddings.patch_embeddings.stem.{i}.weight"], w[f"embeddings.patch_embeddings.stem.{i}.bias"], stride=2, padding=1))
    e = F.conv2d(x, w["embeddings.patch_embeddings.projection.weight"], w["embeddings.patch_embeddings.projection.bias"], stride=1 if cfg.get("stem") else p)
    e = e.flatten(2).transpose(1, 2)
    h = torch.cat([w["embeddings.cls_token"].expand(N, -1, -1), e], dim=1) + w["embeddings.position_embeddings"]
    S = h.shape[1]
    block0 = None
    for i in range(cfg["depth"]):
        l = f"encoder.layer.{i}"
        x1 = F.layer_norm(h, (D,), w[f"{l}.norm1.weight"], w[f"{l}.norm1.bias"], eps)

        def heads(n):
            return F.linear(x1, w[f"{l}.attention.attention.{n}.weight"], w[f"{l}.attention.attention.{n}.bias"]).view(N, S, H, dh).transpose(1, 2)

        q, k, v = heads("query"), heads("key"), heads("value")
        a = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(dh), dim=-1)
        ctx = (a @ v).transpose(1, 2).reshape(N, S, D)
        h = h + F.linear(ctx, w[f"{l}.attention.output.dense.weight"], w[f"{l}.attention.output.dense.bias"]) * w[f"{l}.layer_scale1.lambda1"]
        x2 = F.layer_norm(h, (D,), w[f"{l}.norm2.weight"], w[f"{l}.norm2.bias"], eps)
        approx = "tanh" if cfg.get("gelu") == "tanh" else "none"
        f = F.linear(F.gelu(F.linear(x2, w[f"{l}.mlp.fc1.weight"], w[f"{l}.mlp.fc1.bias"]), approximate=approx), w[f"{l}.mlp.fc2.weight"], w[f"{l}.mlp.fc2.bias"])
        h = h + f * w[f"{l}.layer_scale2.lambda1"]
        if i == 0:
            block0 = h
    last = F.layer_norm(h, (D,), w["layernorm.weight"], w["layernorm.bias"], eps)
    if "pooler.weight" in w:  # the project's embedding head in place of the CLS (engine/models/onnx/dinov2-vit.ts PoolerHead)
        return last, (last.transpose(1, 2) @ w["pooler.pool"]).reshape(N, -1) @ w["pooler.weight"] + w["pooler.bias"], block0
    return last, last[:, 0, :], block0


def shapes(cfg):
    D, M, p = cfg["hidden"], cfg["mlp"], cfg["patchSize"]
    P = (cfg["imageSize"] // p) ** 2
    stem = cfg.get("stem", [])
    s = {
        "embeddings.cls_token": [1, 1, D],
        "embeddings.position_embeddings": [1, 1 + P, D],
    }
    for i, c in enumerate(stem):
        s[f"embeddings.patch_embeddings.stem.{i}.weight"] = [c, stem[i - 1] if i else 3, 3, 3]
        s[f"embeddings.patch_embeddings.stem.{i}.bias"] = [c]
    s["embeddings.patch_embeddings.projection.weight"] = [D, stem[-1], 1, 1] if stem else [D, 3, p, p]
    s["embeddings.patch_embeddings.projection.bias"] = [D]
    for i in range(cfg["depth"]):
        l = f"encoder.layer.{i}"
        for n in ("norm1", "norm2"):
            s[f"{l}.{n}.weight"] = [D]
            s[f"{l}.{n}.bias"] = [D]
        for n in ("query", "key", "value"):
            s[f"{l}.attention.attention.{n}.weight"] = [D, D]
            s[f"{l}.attention.attention.{n}.bias"] = [D]
        s[f"{l}.attention.output.dense.weight"] = [D, D]
        s[f"{l}.attention.output.dense.bias"] = [D]
        s[f"{l}.layer_scale1.lambda1"] = [D]
        s[f"{l}.mlp.fc1.weight"] = [M, D]
        s[f"{l}.mlp.fc1.bias"] = [M]
        s[f"{l}.mlp.fc2.weight"] = [D, M]
        s[f"{l}.mlp.fc2.bias"] = [D]
        s[f"{l}.layer_scale2.lambda1"] = [D]
    s["layernorm.weight"] = [D]
    s["layernorm.bias"] = [D]
    return s


def golden():
    import torch

    cfg = {"imageSize": 8, "patchSize": 4, "hidden": 8, "depth": 2, "heads": 2, "mlp": 16, "layerNormEps": 1e-6}
    rng = np.random.default_rng(7)
    w = {}
    for name, shape in shapes(cfg).items():
        around = 1.0 if name.endswith(("norm1.weight", "norm2.weight", "layernorm.weight", "lambda1")) else 0.0
        w[name] = (around + 0.3 * rng.standard_normal(shape)).astype(np.float32)
    x = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)
    with torch.no_grad():
        last, pooled, block0 = dinov2_forward(torch, {k: torch.from_numpy(v) for k, v in w.items()}, cfg, torch.from_numpy(x))
        tanh = dinov2_forward(torch, {k: torch.from_numpy(v) for k, v in w.items()}, {**cfg, "gelu": "tanh"}, torch.from_numpy(x))[1]
    out = {
        "config": cfg,
        "pooler_output_tanh_gelu": tanh.numpy().ravel().tolist(),
        "weights": {k: v.ravel().tolist() for k, v in w.items()},
        "input": x.ravel().tolist(),
        "last_hidden_state": last.numpy().ravel().tolist(),
        "pooler_output": pooled.numpy().ravel().tolist(),
        "block0": block0.numpy().ravel().tolist(),
    }
    with open(os.path.join(HERE, "dinov2-golden.json"), "w") as f:
        json.dump(out, f)

    # A 16x16 pattern that every channel spans widely; fed at its own size the resize is the identity.
    yy, xx = np.mgrid[0:16, 0:16]
    rgb = np.stack([(7 * xx + 3 * yy) % 256, (5 * xx + 11 * yy + 40) % 256, (13 * xx + yy * yy) % 256], axis=-1).astype(np.float32)
    imagenet = (rgb / 255.0 - np.array([0.485, 0.456, 0.406], np.float32)) / np.array([0.229, 0.224, 0.225], np.float32)
    caffe = rgb[..., ::-1] - np.array([103.939, 116.779, 123.68], np.float32)  # BGR, 0-255, mean only
    pre = {
        "pixels": rgb.astype(np.uint8).ravel().tolist(),  # HWC RGB
        "imagenet_rgb_01": imagenet.transpose(2, 0, 1).ravel().tolist(),
        "caffe_bgr_0255": caffe.transpose(2, 0, 1).ravel().tolist(),
    }
    with open(os.path.join(HERE, "preprocess-golden.json"), "w") as f:
        json.dump(pre, f)
    stem_golden(torch)


def stem_golden(torch):
    """A 2-layer conv stem [4, 6] on 3 images of 8x8: torch Conv2d (no bias) + BatchNorm2d + ReLU per layer, in train mode
    (batch statistics, biased variance in the normalisation) and in eval mode (given statistics); and a tiny ViT
    (patch 4) whose HF-layout stem weights are those layers with each BatchNorm folded in (numpy), run by
    dinov2_forward."""
    F = torch.nn.functional
    rng = np.random.default_rng(11)
    widths, eps = [4, 6], 1e-5
    layers = []
    cin = 3
    for c in widths:
        layers.append({
            "weight": (0.4 * rng.standard_normal((c, cin, 3, 3))).astype(np.float32),
            "gamma": (1 + 0.3 * rng.standard_normal(c)).astype(np.float32),
            "beta": (0.3 * rng.standard_normal(c)).astype(np.float32),
            "mean": (0.3 * rng.standard_normal(c)).astype(np.float32),
            "var": (0.5 + rng.random(c)).astype(np.float32),
        })
        cin = c
    x = rng.standard_normal((3, 3, 8, 8)).astype(np.float32)

    def run(training):
        h = torch.from_numpy(x)
        for L in layers:
            t = {k: torch.from_numpy(v) for k, v in L.items()}
            h = F.relu(F.batch_norm(F.conv2d(h, t["weight"], None, stride=2, padding=1), t["mean"].clone(), t["var"].clone(), t["gamma"], t["beta"], training=training, eps=eps))
        return h

    cfg = {"imageSize": 8, "patchSize": 4, "hidden": 8, "depth": 1, "heads": 2, "mlp": 16, "layerNormEps": 1e-5, "gelu": "tanh", "stem": widths}
    w = {}
    for name, shape in shapes(cfg).items():
        around = 1.0 if name.endswith(("norm1.weight", "norm2.weight", "layernorm.weight", "lambda1")) else 0.0
        w[name] = (around + 0.3 * rng.standard_normal(shape)).astype(np.float32)
    for i, L in enumerate(layers):
        scale = L["gamma"] / np.sqrt(L["var"] + eps)
        w[f"embeddings.patch_embeddings.stem.{i}.weight"] = (L["weight"] * scale[:, None, None, None]).astype(np.float32)
        w[f"embeddings.patch_embeddings.stem.{i}.bias"] = (L["beta"] - L["mean"] * scale).astype(np.float32)
    with torch.no_grad():
        train, evaluated = run(True), run(False)
        last, pooled, _ = dinov2_forward(torch, {k: torch.from_numpy(v) for k, v in w.items()}, cfg, torch.from_numpy(x))
    # Gradients of sum(R * train-mode output) for the conv weights and BatchNorm affines, through the batch statistics.
    R = torch.from_numpy(rng.standard_normal(tuple(train.shape)).astype(np.float32))
    params = [{k: torch.from_numpy(L[k]).requires_grad_() for k in ("weight", "gamma", "beta")} for L in layers]
    h = torch.from_numpy(x)
    for L, t in zip(layers, params):
        h = F.relu(F.batch_norm(F.conv2d(h, t["weight"], None, stride=2, padding=1), None, None, t["gamma"], t["beta"], training=True, eps=eps))
    (h * R).sum().backward()
    out = {
        "widths": widths,
        "layers": [{k: v.ravel().tolist() for k, v in L.items()} for L in layers],
        "input": x.ravel().tolist(),
        "train": train.numpy().ravel().tolist(),  # [3, 6, 2, 2]
        "eval": evaluated.numpy().ravel().tolist(),
        "config": cfg,
        "weights": {k: v.ravel().tolist() for k, v in w.items()},
        "last_hidden_state": last.numpy().ravel().tolist(),
        "pooler_output": pooled.numpy().ravel().tolist(),
        "outputWeights": R.numpy().ravel().tolist(),  # R: [3, 6, 2, 2]
        "grads": [{k: t[k].grad.numpy().ravel().tolist() for k in t} for t in params],
    }
    with open(os.path.join(HERE, "stem-golden.json"), "w") as f:
        json.dump(out, f)


def bench(folder, batch, iters):
    import torch

    torch.set_num_threads(int(os.environ.get("TORCH_THREADS", "2")))
    with open(os.path.join(folder, "index.json")) as f:
        index = json.load(f)
    cfg = index["config"]
    flat = np.fromfile(os.path.join(folder, "weights.f32"), dtype=np.float32)
    w = {t["name"]: torch.from_numpy(flat[t["offset"] : t["offset"] + int(np.prod(t["shape"]))].reshape(t["shape"]).copy()) for t in index["tensors"]}
    S = cfg["imageSize"]
    x = torch.from_numpy(np.fromfile(os.path.join(folder, "input.f32"), dtype=np.float32).reshape(batch, 3, S, S))
    times = []
    with torch.no_grad():
        pooled = dinov2_forward(torch, w, cfg, x)[1]  # warm-up
        for _ in range(iters):
            t0 = time.perf_counter()
            dinov2_forward(torch, w, cfg, x)
            times.append(time.perf_counter() - t0)
    med = float(np.median(times))
    print(json.dumps({
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "msPerBatch": med * 1000,
        "imagesPerSecond": batch / med,
        "peakRssMB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "pooled": pooled.numpy().ravel()[:64].tolist(),
    }))


def stem_bench(n, side, widths, iters):
    import torch

    torch.set_num_threads(1)
    layers, cin = [], 3
    for c in widths:
        layers += [torch.nn.Conv2d(cin, c, 3, stride=2, padding=1, bias=False), torch.nn.BatchNorm2d(c), torch.nn.ReLU()]
        cin = c
    stem = torch.nn.Sequential(*layers).train()
    x = (torch.sin(torch.arange(n * 3 * side * side, dtype=torch.float32) * 0.37) * 1.5).reshape(n, 3, side, side)
    times = []
    for i in range(iters + 1):  # the first is a warm-up
        stem.zero_grad()
        t0 = time.perf_counter()
        stem(x).square().sum().backward()
        if i:
            times.append(time.perf_counter() - t0)
    print(json.dumps({"torch": torch.__version__, "threads": torch.get_num_threads(), "msPerStep": float(np.median(times)) * 1000}))


def attention_bench(b, t, d, h, iters):
    import torch

    torch.set_num_threads(1)
    g = torch.Generator().manual_seed(0)
    qkv = (torch.randn(b, t, 3, h, d // h, generator=g) * 0.5).requires_grad_()
    w = torch.randn(b, t, d, generator=g)
    times = []
    for i in range(iters + 1):  # the first is a warm-up
        qkv.grad = None
        t0 = time.perf_counter()
        q, k, v = qkv.permute(2, 0, 3, 1, 4)  # each [B, H, T, dh]
        ctx = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d // h), -1) @ v
        (ctx.transpose(1, 2).reshape(b, t, d) * w).sum().backward()
        if i:
            times.append(time.perf_counter() - t0)
    print(json.dumps({"torch": torch.__version__, "threads": torch.get_num_threads(), "msPerStep": float(np.median(times)) * 1000}))


if __name__ == "__main__":
    if sys.argv[1] == "golden":
        golden()
    elif sys.argv[1] == "bench":
        bench(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif sys.argv[1] == "stem-bench":
        stem_bench(int(sys.argv[2]), int(sys.argv[3]), [int(w) for w in sys.argv[4].split(",")], int(sys.argv[5]))
    elif sys.argv[1] == "attention-bench":
        attention_bench(*(int(a) for a in sys.argv[2:7]))
