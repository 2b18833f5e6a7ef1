// Alignment speed vs numpy in the same run (docs/reference.md#evaluation): Procrustes 1014 pairs 768 vs 384 (and 200 pairs, fewer than
// the width), R@1 + mutual 10-NN on 1000 test pairs, a 2000-resample paired bootstrap, a 7-point x 5-repeat pair
// sweep, one arm's whole evaluation. The machine is shared: the load average is recorded before and after.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { EigenvalueDecomposition, Matrix, SingularValueDecomposition } from 'ml-matrix';
import { evaluate, procrustes, sweepPairs } from '../../engine/align';
import { writeNpy } from '../../engine/embeddings';
import { colMeans, gaussianMatrix, gemm, rngFrom, subRow, symEig, takeRows } from '../../engine/linalg';
import { cosineSimilarity, mutualKnn, pairedBootstrap, retrievalRanks } from '../../engine/metrics';
import type { BenchSuite } from './run';

const N = 2014;
const FIT = 1014;
const COUNTS = [25, 50, 100, 200, 400, 800, 1014];

async function timeIt(reps: number, fn: () => unknown): Promise<{ medianMs: number; runsMs: number[] }> {
  const runs: number[] = [];
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    await fn();
    runs.push(+(performance.now() - t0).toFixed(1));
  }
  const s = [...runs].sort((a, b) => a - b);
  return { medianMs: s[Math.floor(s.length / 2)], runsMs: runs };
}

const NUMPY = String.raw`
import json, sys, time
import numpy as np
X = np.load(sys.argv[1]); Y = np.load(sys.argv[2]); FIT = int(sys.argv[3]); counts = json.loads(sys.argv[4])
def med(f, r):
    ts = []
    for _ in range(r):
        t = time.perf_counter(); f(); ts.append((time.perf_counter() - t) * 1e3)
    return round(float(np.median(ts)), 1)
def procrustes(x, y):
    u, s, vt = np.linalg.svd(x.T @ y, full_matrices=False); return u @ vt
Xf, Yf = X[:FIT] - X[:FIT].mean(0), Y[:FIT] - Y[:FIT].mean(0)
Xt, Yt = X[FIT:] - X[:FIT].mean(0), Y[FIT:] - Y[:FIT].mean(0)
W = procrustes(Xf, Yf)
X2, Y2 = X[:200] - X[:200].mean(0), Y[:200] - Y[:200].mean(0)
def unit(a): return a / np.linalg.norm(a, axis=1, keepdims=True)
def r1(a, b):
    s = unit(a) @ unit(b).T; d = np.diag(s)
    return ((s >= d[:, None]).sum(1) - 1, (s >= d[None, :]).sum(0) - 1)
def knn(f, k):
    f = unit(f); s = f @ f.T; np.fill_diagonal(s, -1e8); return np.argsort(-s, axis=1)[:, :k]
def mknn(a, b, k=10):
    na, nb = knn(a, k), knn(b, k); n = len(a)
    ma = np.zeros((n, n)); mb = np.zeros((n, n)); r = np.arange(n)[:, None]
    ma[r, na] = 1; mb[r, nb] = 1; return ((ma * mb).sum(1) / k).mean()
def r1_mknn():
    r1(Xt @ W, Yt); mknn(X[FIT:], Y[FIT:])
rng = np.random.default_rng(0)
h = (rng.random((7 * 2, 1000)) < 0.3).astype(float)
def boot():
    idx = rng.integers(0, 1000, (2000, 1000))
    m = np.stack([hh[idx].mean(1) for hh in h])
    for a in range(0, 14, 2): np.percentile(m[a] - m[a + 1], [2.5, 97.5])
    np.percentile(m, [2.5, 97.5], axis=1)
def sweep():
    for n in counts:
        for rep in range(5):
            rows = rng.permutation(FIT)[:n]
            mx, my = X[rows].mean(0), Y[rows].mean(0)
            w = procrustes(X[rows] - mx, Y[rows] - my)
            r1((X[FIT:] - mx) @ w, Y[FIT:] - my); r1((X[rows] - mx) @ w, Y[rows] - my)
def evaluate():
    mx, my = X[:FIT].mean(0), Y[:FIT].mean(0)
    w = procrustes(X[:FIT] - mx, Y[:FIT] - my); r1((X[FIT:] - mx) @ w, Y[FIT:] - my); mknn(X[FIT:], Y[FIT:])
print(json.dumps({
    'numpy': np.__version__,
    'procrustesMs': med(lambda: procrustes(Xf, Yf), 7),
    'procrustes200Ms': med(lambda: procrustes(X2, Y2), 7),
    'xtyMs': med(lambda: Xf.T @ Yf, 7),
    'svdMs': med(lambda: np.linalg.svd(Xf.T @ Yf, full_matrices=False), 7),
    'r1MknnMs': med(r1_mknn, 5),
    'bootstrapMs': med(boot, 5),
    'sweepMs': med(sweep, 1),
    'evaluateMs': med(evaluate, 3),
}))
`;
import { referenceBlas, referenceEnv } from './reference-env';

// threads: the BLAS threads numpy may use (all cores by default; 1 for a per-core comparison with our 1-thread GEMM).
function numpySide(dir: string, threads?: number): Record<string, unknown> {
  try {
    execFileSync('/usr/bin/python3', ['-c', 'import numpy'], { stdio: 'ignore' });
  } catch {
    return { skipped: '/usr/bin/python3 with numpy not found' };
  }
  const env = referenceEnv(threads ? { OPENBLAS_NUM_THREADS: String(threads), OMP_NUM_THREADS: String(threads) } : {});
  const out = execFileSync(
    '/usr/bin/python3',
    ['-c', NUMPY, join(dir, 'x.npy'), join(dir, 'y.npy'), String(FIT), JSON.stringify(COUNTS)],
    { env },
  );
  return JSON.parse(out.toString());
}

export default {
  name: 'align',
  run: async () => {
    // paired synthetic features with a shared 64-d latent (noisy enough that R@1 is far from 0 and 1)
    const loadBefore = loadavg().map((l) => +l.toFixed(2));
    const rng = rngFrom(0);
    const z = gaussianMatrix(rng, N, 64);
    const x = await gemm(z, gaussianMatrix(rng, 64, 768));
    const y = await gemm(z, gaussianMatrix(rng, 64, 384));
    const nx = gaussianMatrix(rng, N, 768);
    const ny = gaussianMatrix(rng, N, 384);
    x.data.forEach((v, i) => (x.data[i] = v + 12 * nx.data[i]));
    y.data.forEach((v, i) => (y.data[i] = v + 12 * ny.data[i]));
    const image = { rows: N, dim: 768, data: x.data };
    const text = { rows: N, dim: 384, data: y.data };
    const fitRows = Int32Array.from({ length: FIT }, (_, i) => i);
    const testRows = Int32Array.from({ length: N - FIT }, (_, i) => FIT + i);
    const xf0 = takeRows(image, fitRows);
    const yf0 = takeRows(text, fitRows);
    const xf = subRow(xf0, colMeans(xf0));
    const yf = subRow(yf0, colMeans(yf0));
    const xt = subRow(takeRows(image, testRows), colMeans(xf0));
    const yt = subRow(takeRows(text, testRows), colMeans(yf0));

    const map = await procrustes(xf, yf);
    const first200 = Int32Array.from({ length: 200 }, (_, i) => i);
    const [x200, y200] = [takeRows(image, first200), takeRows(text, first200)];
    const [xf200, yf200] = [subRow(x200, colMeans(x200)), subRow(y200, colMeans(y200))];
    const m = await gemm(xf, yf, true);
    const g = await gemm(m, m, true);
    const gm = new Matrix(384, 384);
    for (let i = 0; i < 384; i++) for (let j = 0; j < 384; j++) gm.set(i, j, g.data[i * 384 + j]);
    const mm = new Matrix(768, 384);
    for (let i = 0; i < 768; i++) for (let j = 0; j < 384; j++) mm.set(i, j, m.data[i * 384 + j]);
    const h = Array.from({ length: 14 }, (_, a) =>
      Array.from({ length: 1000 }, (_, i) => ((i * 7919 + a * 104729) % 10 < 3 ? 1 : 0)),
    );

    const ours = {
      procrustes: await timeIt(7, () => procrustes(xf, yf)),
      procrustes200: await timeIt(7, () => procrustes(xf200, yf200)),
      procrustesParts: {
        xty: await timeIt(7, () => gemm(xf, yf, true)),
        gram: await timeIt(7, () => gemm(m, m, true)),
        symEig384: await timeIt(7, () => symEig(g)),
      },
      alternatives: {
        mlMatrixEvd384: await timeIt(3, () => new EigenvalueDecomposition(gm, { assumeSymmetric: true })),
        mlMatrixSvd768x384: await timeIt(1, () => new SingularValueDecomposition(mm, { autoTranspose: true })),
      },
      r1Mknn: await timeIt(5, async () => {
        retrievalRanks(await cosineSimilarity(await gemm(xt, map.w), yt));
        await mutualKnn(takeRows(image, testRows), takeRows(text, testRows), 10);
      }),
      bootstrap: await timeIt(5, () =>
        pairedBootstrap(Object.fromEntries(h.map((v, i) => [`arm${i % 2}.m${i >> 1}`, v])), {
          resamples: 2000,
          pairs: Array.from({ length: 7 }, (_, mi): [string, string] => [`arm0.m${mi}`, `arm1.m${mi}`]),
        }),
      ),
      sweep: await timeIt(1, () =>
        sweepPairs({
          image,
          text,
          fit: { start: 0, end: FIT },
          test: { start: FIT, end: N },
          counts: COUNTS,
          repeats: 5,
        }),
      ),
      evaluate: await timeIt(3, () =>
        evaluate({ image, text, fit: { start: 0, end: FIT }, test: { start: FIT, end: N } }),
      ),
    };
    const e = await evaluate({ image, text, fit: { start: 0, end: FIT }, test: { start: FIT, end: N } });

    const dir = mkdtempSync(join(tmpdir(), 'prh-bench-'));
    writeNpy(join(dir, 'x.npy'), image);
    writeNpy(join(dir, 'y.npy'), text);
    const np = numpySide(dir);
    const np1 = numpySide(dir, 1);
    rmSync(dir, { recursive: true, force: true });
    const ratioTo = (ref: Record<string, unknown>) => (ms: number, key: string) =>
      typeof ref[key] === 'number' ? +(ms / (ref[key] as number)).toFixed(2) : null;
    const ratios = (ratio: (ms: number, key: string) => number | null) => ({
      procrustes: ratio(ours.procrustes.medianMs, 'procrustesMs'),
      procrustes200: ratio(ours.procrustes200.medianMs, 'procrustes200Ms'),
      r1Mknn: ratio(ours.r1Mknn.medianMs, 'r1MknnMs'),
      bootstrap: ratio(ours.bootstrap.medianMs, 'bootstrapMs'),
      sweep: ratio(ours.sweep.medianMs, 'sweepMs'),
      evaluate: ratio(ours.evaluate.medianMs, 'evaluateMs'),
    });
    return {
      loadAverage: { before: loadBefore, after: loadavg().map((l) => +l.toFixed(2)) }, // 1, 5, 15 min; 2 cores
      data: { pairs: N, fit: FIT, dims: [768, 384], r1: e.imageToText.r1, mknn: e.mknn.score },
      ours,
      numpy: np,
      numpyOneThread: np1,
      reference: {
        threads: referenceBlas(),
        oneThread: referenceBlas({ OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1' }),
      },
      ratioToNumpy: ratios(ratioTo(np)),
      ratioToNumpyOneThread: ratios(ratioTo(np1)), // per core: our GEMM runs on 1 thread
      targets: { withinNumpy: 2, evaluateMs: 2000 },
    };
  },
} satisfies BenchSuite;
