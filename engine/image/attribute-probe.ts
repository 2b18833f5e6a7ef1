// Linear probes of the procedural world's attributes from frozen image features: how much of shape, colour, size,
// position and background an embedding carries, next to the same probe on raw pixels. Ridge regression onto
// one-hot targets (closed form, lambda picked on val), accuracy on test. Hand-written because no JS library fits a
// regularised multi-output linear model. One eigendecomposition of the Gram matrix serves every lambda (a Cholesky
// solve per lambda took 0.26 s each on the 768-d pixel features, 30 of them a probe table).
import { skia } from '../skia';
import type { DatasetImage, Split } from '../../shared/dataset';
import type { Embeddings } from '../embeddings';
import { InputError } from '../errors';
import { gemm, symEig, type Mat } from '../linalg';
import { decodeImage } from './preprocess';

export const PROBE_TASKS = ['shape', 'colour', 'size', 'position', 'background'] as const;
export type ProbeTask = (typeof PROBE_TASKS)[number];

export type ProbeResult = {
  task: ProbeTask;
  classes: number;
  train: number; // rows the probe was fit on
  test: number;
  accuracy: number; // on test
  chance: number; // the most frequent train class's share of test
  lambda: number; // ridge strength picked on val, relative to the number of train rows
};

const LAMBDAS = [1e-4, 1e-3, 1e-2, 1e-1, 1, 10];

// A scene's label for a task, or null where it has none: object attributes (incl. position = grid cell) are read
// from single-object scenes only, where the label is unambiguous; background from every scene.
export function attributeLabel(im: DatasetImage, task: ProbeTask): string | null {
  if (!im.state) return null;
  if (task === 'background') return im.state.background;
  if (im.state.objects.length !== 1) return null;
  const o = im.state.objects[0];
  return task === 'position' ? String(o.cell) : o[task];
}

// Features standardised with train statistics (constant columns left at 0). X: [n, d] -> Float64Array [n, d].
function standardise(X: Embeddings, rows: number[], fitRows: number[]): Float64Array {
  const { dim } = X;
  const mean = new Float64Array(dim);
  const sq = new Float64Array(dim);
  for (const r of fitRows) for (let j = 0; j < dim; j++) mean[j] += X.data[r * dim + j];
  for (let j = 0; j < dim; j++) mean[j] /= fitRows.length;
  for (const r of fitRows) for (let j = 0; j < dim; j++) sq[j] += (X.data[r * dim + j] - mean[j]) ** 2;
  const inv = Float64Array.from(sq, (s) => (s > 1e-12 ? 1 / Math.sqrt(s / fitRows.length) : 0));
  const out = new Float64Array(rows.length * dim);
  rows.forEach((r, i) => {
    for (let j = 0; j < dim; j++) out[i * dim + j] = (X.data[r * dim + j] - mean[j]) * inv[j];
  });
  return out;
}

// Ridge solutions W_λ = (ZᵀZ + λn I)^-1 ZᵀY for each λ: Z [n, d], Y [n, K] -> one [d, K] row-major per λ. With
// ZᵀZ = V diag(w) Vᵀ, W_λ = V diag(1 / (w + λn)) VᵀZᵀY: one decomposition for all λ.
export async function ridgeSolutions(Z: Mat, Y: Mat, lambdas: number[]): Promise<Float64Array[]> {
  const [n, d, K] = [Z.rows, Z.cols, Y.cols];
  const { w, v } = await symEig(await gemm(Z, Z, true)); // w ascending; v's columns largest first
  const P = await gemm(v, await gemm(Z, Y, true), true); // VᵀZᵀY: [d, K]
  const out: Float64Array[] = [];
  for (const lambda of lambdas) {
    const S = new Float64Array(d * K);
    for (let j = 0; j < d; j++) {
      const f = 1 / (Math.max(w[d - 1 - j], 0) + lambda * n); // ZᵀZ is PSD: a rounding's negative eigenvalue is 0
      for (let c = 0; c < K; c++) S[j * K + c] = P.data[j * K + c] * f;
    }
    out.push((await gemm(v, { rows: d, cols: K, data: S })).data);
  }
  return out;
}

// One task: fit on train rows, pick lambda on val rows, score test rows.
async function probeTask(
  X: Embeddings,
  labels: (string | null)[],
  split: Split[],
  task: ProbeTask,
): Promise<ProbeResult> {
  const rowsOf = (s: Split) => labels.flatMap((l, i) => (l !== null && split[i] === s ? [i] : []));
  const [tr, va, te] = [rowsOf('train'), rowsOf('val'), rowsOf('test')];
  if (tr.length < 2 || !va.length || !te.length)
    throw new InputError(
      `probe '${task}': needs labelled train, val and test images (have ${tr.length}/${va.length}/${te.length})`,
    );
  const classes = [...new Set(tr.map((r) => labels[r]!))].sort();
  const cls = new Map(classes.map((c, k) => [c, k]));
  const d = X.dim;
  const K = classes.length;
  const n = tr.length;
  const Z = standardise(X, [...tr, ...va, ...te], tr); // rows: train, then val, then test
  // Targets one-hot centred by the class frequencies: Y [n, K].
  const freq = new Float64Array(K);
  for (const r of tr) freq[cls.get(labels[r]!)!] += 1 / n;
  const Y = new Float64Array(n * K);
  for (let i = 0; i < n; i++) {
    const k = cls.get(labels[tr[i]]!)!;
    for (let c = 0; c < K; c++) Y[i * K + c] = (c === k ? 1 : 0) - freq[c];
  }
  const Ws = await ridgeSolutions(
    { rows: n, cols: d, data: Z.slice(0, n * d) },
    { rows: n, cols: K, data: Y },
    LAMBDAS,
  );
  // W: [d, K] row-major
  const predict = (W: Float64Array, from: number, count: number): number[] =>
    Array.from({ length: count }, (_, i) => {
      const z = Z.subarray((from + i) * d, (from + i + 1) * d);
      let best = 0;
      let bestScore = -Infinity;
      for (let c = 0; c < K; c++) {
        let s = freq[c];
        for (let a = 0; a < d; a++) s += z[a] * W[a * K + c];
        if (s > bestScore) [best, bestScore] = [c, s];
      }
      return best;
    });
  const accuracy = (pred: number[], rows: number[]) =>
    pred.filter((p, i) => classes[p] === labels[rows[i]]).length / rows.length;
  let best = { lambda: LAMBDAS[0], W: Ws[0], val: -1 };
  for (const [i, lambda] of LAMBDAS.entries()) {
    const val = accuracy(predict(Ws[i], n, va.length), va);
    if (val > best.val) best = { lambda, W: Ws[i], val };
  }
  const majority = classes[freq.indexOf(Math.max(...freq))];
  return {
    task,
    classes: K,
    train: n,
    test: te.length,
    accuracy: accuracy(predict(best.W, n + va.length, te.length), te),
    chance: te.filter((r) => labels[r] === majority).length / te.length,
    lambda: best.lambda,
  };
}

// Every task, for features X whose row i is image ids[i] of `images`.
export async function probeAttributes(X: Embeddings, ids: string[], images: DatasetImage[]): Promise<ProbeResult[]> {
  const byId = new Map(images.map((im) => [im.id, im]));
  const rows = ids.map((id) => {
    const im = byId.get(id);
    if (!im) throw new InputError(`probe: embedding row '${id}' is not an image of the dataset`);
    return im;
  });
  if (!rows.some((im) => im.state))
    throw new InputError('probe: the dataset has no world states (only generated worlds can be probed)');
  const split = rows.map((im) => im.split);
  const out: ProbeResult[] = [];
  for (const task of PROBE_TASKS)
    out.push(
      await probeTask(
        X,
        rows.map((im) => attributeLabel(im, task)),
        split,
        task,
      ),
    );
  return out;
}

// The raw-pixel baseline: each whole image drawn at side x side (Skia's smoothing averages the pixels it drops),
// RGB in [0, 1]: [n, 3*side^2]. A small side keeps the d x d ridge solve quick in JS (16 px: d = 768).
export async function pixelFeatures(files: string[], side = 16): Promise<Embeddings> {
  const canvas = skia().createCanvas(side, side);
  const ctx = canvas.getContext('2d');
  ctx.imageSmoothingQuality = 'high';
  const dim = 3 * side * side;
  const data = new Float32Array(files.length * dim);
  for (const [i, f] of files.entries()) {
    ctx.drawImage(await decodeImage(f), 0, 0, side, side);
    const px = ctx.getImageData(0, 0, side, side).data;
    for (let p = 0; p < side * side; p++)
      for (let c = 0; c < 3; c++) data[i * dim + c * side * side + p] = px[4 * p + c] / 255;
  }
  return { rows: files.length, dim, data };
}
