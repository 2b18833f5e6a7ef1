// A convolutional stem in place of the ViT's patch embedding ("early convolutions", Xiao et al. 2021): k 3x3 stride-2
// convs, each followed by BatchNorm and ReLU, take [n, 3, S, S] to an (S/2^k)² grid that the patch projection then
// embeds (a 1x1 conv). Each conv is a row gather + one matmul (im2col), because tfjs's wasm backend has no
// Conv2DBackpropFilter kernel; the gather's gradient is the project's segment sum
// (engine/train/backend.ts). Names: stem{i}.w [9·Cin, Cout] rows in (ky, kx, cin) order; stem{i}.g, stem{i}.b [Cout]
// (BatchNorm's affine: the conv has no bias); stem{i}.mean, stem{i}.var [Cout], the population statistics that
// calibrateStem sets after training and the export folds into the Conv.
import * as tf from '@tensorflow/tfjs';
import type { Params } from './encoder';
import type { TrainRng } from './rng';

const BN_EPS = 1e-5; // torch BatchNorm2d's

// 'batch': normalise by the batch's own statistics (training); 'population': by stem{i}.mean/var (inference).
export type BatchNormMode = 'batch' | 'population';

// A parameter not in the map; a stem's statistics are missing until calibrateStem has run.
export const missingParam = (k: string): Error =>
  new Error(
    `ViT parameter ${k} missing${/^stem\d+\.(mean|var)$/.test(k) ? " (a conv stem's population statistics: calibrateStem sets them after training)" : ''}`,
  );

// Row indices of the 3x3 stride-2 pad-1 patches of n images [H, W] whose pixels are rows (i, y, x) of a matrix with one
// extra zero row at index n·H·W (the padding): [n·(H/2)·(W/2)·9], patch rows (i, oy, ox), taps (ky, kx). Kept per
// (n, H, W): every training step asks for the same few (~13 ms a step to rebuild for two batches of 128 at 64 px).
const tapsMemo = new Map<string, Int32Array>();
function taps(n: number, H: number, W: number): Int32Array {
  const key = `${n}x${H}x${W}`;
  let out = tapsMemo.get(key);
  if (!out) tapsMemo.set(key, (out = tapIndices(n, H, W)));
  return out;
}
function tapIndices(n: number, H: number, W: number): Int32Array {
  const h = H / 2,
    w = W / 2,
    zero = n * H * W;
  const out = new Int32Array(n * h * w * 9);
  let o = 0;
  for (let i = 0; i < n; i++)
    for (let oy = 0; oy < h; oy++)
      for (let ox = 0; ox < w; ox++)
        for (let ky = 0; ky < 3; ky++)
          for (let kx = 0; kx < 3; kx++) {
            const y = 2 * oy + ky - 1,
              x = 2 * ox + kx - 1;
            out[o++] = y < 0 || y >= H || x < 0 || x >= W ? zero : (i * H + y) * W + x;
          }
  return out;
}

// x: [n·H·W, C] rows (i, y, x) -> [n·(H/2)·(W/2), Cout]
function conv3x3s2(x: tf.Tensor2D, n: number, H: number, W: number, w: tf.Tensor2D): tf.Tensor2D {
  const C = x.shape[1];
  const padded = tf.concat([x, tf.zeros([1, C])], 0);
  const cols = tf.gather(padded, tf.tensor1d(taps(n, H, W), 'int32')).reshape([-1, 9 * C]) as tf.Tensor2D;
  return tf.matMul(cols, w);
}

// BatchNorm of z: [rows, C] by the batch's own statistics (σ² biased, as torch normalises in training), affine g, b [C],
// as one op: tf's autodiff of the textbook expression runs ~3x the kernels over z. With x̂ = (z − μ)/σ:
// dz = (g/σ)·(dy − mean(dy) − x̂·mean(dy·x̂)), dg = Σ dy·x̂, db = Σ dy.
const batchNorm = (z: tf.Tensor, g: tf.Tensor, b: tf.Tensor): tf.Tensor =>
  tf.customGrad(((z: tf.Tensor, g: tf.Tensor, b: tf.Tensor, save: tf.GradSaveFunc) => {
    const centred = tf.sub(z, tf.mean(z, 0));
    const inv = tf.rsqrt(tf.add(tf.mean(tf.square(centred), 0), BN_EPS));
    const xhat = tf.mul(centred, inv);
    save([xhat, tf.mul(g, inv)]);
    return {
      value: tf.add(tf.mul(xhat, g), b),
      gradFunc: (dy: tf.Tensor, [xhat, scale]: tf.Tensor[]) => {
        const n = dy.shape[0],
          db = tf.sum(dy, 0),
          dg = tf.sum(tf.mul(dy, xhat), 0);
        return [tf.mul(tf.sub(tf.sub(dy, tf.div(db, n)), tf.mul(xhat, tf.div(dg, n))), scale), dg, db];
      },
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0])(z, g, b);

// The stem on n images: [n·g·g, C_last] rows (i, gy, gx), g = S / 2^k. `upTo` = l stops at layer l's conv output
// before its BatchNorm (what calibrateStem measures).
export function stemForward(
  stem: number[],
  p: Params,
  pixels: Float32Array,
  n: number,
  S: number,
  bn: BatchNormMode,
  upTo = stem.length,
): tf.Tensor2D {
  const get = (k: string) => {
    const t = p.get(k);
    if (!t) throw missingParam(k);
    return t;
  };
  let h = tf.transpose(tf.tensor4d(pixels, [n, 3, S, S]), [0, 2, 3, 1]).reshape([n * S * S, 3]) as tf.Tensor2D,
    side = S; // rows (i, y, x)
  for (let l = 0; l < stem.length; l++) {
    const z = conv3x3s2(h, n, side, side, get(`stem${l}.w`) as tf.Tensor2D); // [rows, C_l]
    side /= 2;
    if (l === upTo) return z;
    const [g, b] = [get(`stem${l}.g`), get(`stem${l}.b`)];
    h = tf.relu(
      bn === 'batch'
        ? batchNorm(z, g, b)
        : tf.add(tf.mul(tf.div(tf.sub(z, get(`stem${l}.mean`)), tf.sqrt(tf.add(get(`stem${l}.var`), BN_EPS))), g), b),
    ) as tf.Tensor2D;
  }
  return h;
}

// torch Conv2d's default init U(±1/√fan_in), fan_in = 9·Cin; BatchNorm's affine 1 / 0.
export function initStem(stem: number[], rng: TrainRng, p: Params): void {
  let cin = 3;
  for (const [l, cout] of stem.entries()) {
    const bound = 1 / Math.sqrt(9 * cin);
    p.set(
      `stem${l}.w`,
      tf.variable(
        tf.tensor2d(
          Float32Array.from({ length: 9 * cin * cout }, () => (2 * rng.uniform() - 1) * bound),
          [9 * cin, cout],
        ),
        true,
      ),
    );
    p.set(`stem${l}.g`, tf.variable(tf.ones([cout]), true));
    p.set(`stem${l}.b`, tf.variable(tf.zeros([cout]), true));
    cin = cout;
  }
}

// Sets stem{l}.mean/var to the statistics over all n images (normalised, [n, 3, S, S]) of conv l's output, each
// layer seen through the layers below it already in population mode ("precise BN", Wu & Johnson 2021): exact for the
// images given, where running averages of training batches lag the weights. Mean and E[x²] summed in float64.
export async function calibrateStem(
  stem: number[],
  p: Params,
  pixels: Float32Array,
  n: number,
  S: number,
  batch = 250,
): Promise<void> {
  for (let l = 0; l < stem.length; l++) {
    const C = stem[l],
      sum = new Float64Array(C),
      sq = new Float64Array(C);
    let rows = 0;
    for (let i = 0; i < n; i += batch) {
      const m = Math.min(batch, n - i);
      const z = tf.tidy(() =>
        stemForward(stem, p, pixels.subarray(i * 3 * S * S, (i + m) * 3 * S * S), m, S, 'population', l),
      );
      const d = (await z.data()) as Float32Array;
      z.dispose();
      for (let r = 0; r < d.length; r += C)
        for (let c = 0; c < C; c++) {
          sum[c] += d[r + c];
          sq[c] += d[r + c] * d[r + c];
        }
      rows += d.length / C;
    }
    const mean = Float32Array.from(sum, (s) => s / rows);
    const variance = Float32Array.from(sq, (s, c) => Math.max(0, s / rows - (sum[c] / rows) ** 2));
    for (const [k, v] of [
      [`stem${l}.mean`, mean],
      [`stem${l}.var`, variance],
    ] as const) {
      p.get(k)?.dispose();
      p.set(k, tf.variable(tf.tensor1d(v), false));
    }
  }
}

// The stem as HF-layout Conv tensors with each BatchNorm folded in: weight [Cout, Cin, 3, 3] = w·γ/√(σ²+ε),
// bias = β − μ·γ/√(σ²+ε). data(k) reads a parameter.
export function foldStem(stem: number[], data: (k: string) => Float32Array): Record<string, Float32Array> {
  const out: Record<string, Float32Array> = {};
  let cin = 3;
  for (const [l, cout] of stem.entries()) {
    const w = data(`stem${l}.w`),
      g = data(`stem${l}.g`),
      b = data(`stem${l}.b`),
      mean = data(`stem${l}.mean`),
      v = data(`stem${l}.var`);
    const scale = Float32Array.from(g, (gi, o) => gi / Math.sqrt(v[o] + BN_EPS));
    const weight = new Float32Array(cout * cin * 9);
    for (let o = 0; o < cout; o++)
      for (let c = 0; c < cin; c++)
        for (let t = 0; t < 9; t++) weight[(o * cin + c) * 9 + t] = w[(t * cin + c) * cout + o] * scale[o]; // t = ky·3 + kx
    out[`embeddings.patch_embeddings.stem.${l}.weight`] = weight;
    out[`embeddings.patch_embeddings.stem.${l}.bias`] = Float32Array.from(b, (bo, o) => bo - mean[o] * scale[o]);
    cin = cout;
  }
  return out;
}
