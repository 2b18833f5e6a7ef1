// Linear CKA (platonic-rep metrics.cka, kernel 'ip'): K = A A^T, L = B B^T, CKA = HSIC(K,L) / (sqrt(HSIC(K,K) HSIC(L,L)) + 1e-6).
// Biased HSIC = tr(K H L H); unbiased HSIC (Song et al. 2012, eq. 5) on zero-diagonal kernels, all in O(n^2) given K, L.
import { type Mat, gemm } from '../linalg';

export type Cka = { biased: number; unbiased: number | null }; // unbiased is null when n < 4 or HSIC(K,K)*HSIC(L,L) <= 0

// Double-centred kernel H K H.
function centred(k: Mat): Float64Array {
  const n = k.rows;
  const r = new Float64Array(n);
  let g = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) r[i] += k.data[i * n + j];
    g += r[i];
    r[i] /= n;
  }
  g /= n * n;
  const out = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) out[i * n + j] = k.data[i * n + j] - r[i] - r[j] + g;
  return out;
}

// tr(K H L H) = sum(HKH ∘ L) for symmetric K, L (no 1/(n-1)^2 factor, as the reference; it cancels in CKA).
function hsicBiased(kc: Float64Array, l: Mat): number {
  let s = 0;
  for (let i = 0; i < kc.length; i++) s += kc[i] * l.data[i];
  return s;
}

// [tr(K~ L~) + 1'K~1 1'L~1 / ((n-1)(n-2)) - 2 1'K~L~1 / (n-2)] / (n(n-3)), K~ = K with zero diagonal.
function hsicUnbiased(k: Mat, l: Mat): number {
  const n = k.rows;
  let tr = 0;
  let sk = 0;
  let sl = 0;
  let cross = 0;
  for (let i = 0; i < n; i++) {
    let rk = 0;
    let rl = 0;
    for (let j = 0; j < n; j++) {
      if (j === i) continue;
      const a = k.data[i * n + j];
      const b = l.data[i * n + j];
      tr += a * b; // K~ L~^T summed elementwise; both symmetric
      rk += a;
      rl += b;
    }
    sk += rk;
    sl += rl;
    cross += rk * rl; // 1' K~ L~ 1 = (K~ 1) . (L~ 1)
  }
  return (tr + (sk * sl) / ((n - 1) * (n - 2)) - (2 * cross) / (n - 2)) / (n * (n - 3));
}

// CKA from Gram matrices K: [n, n], L: [n, n].
export function ckaFromKernels(k: Mat, l: Mat): Cka {
  const kc = centred(k);
  const lc = centred(l);
  const biased = hsicBiased(kc, l) / (Math.sqrt(hsicBiased(kc, k) * hsicBiased(lc, l)) + 1e-6);
  let unbiased: number | null = null;
  if (k.rows >= 4) {
    const kk = hsicUnbiased(k, k);
    const ll = hsicUnbiased(l, l);
    if (kk * ll > 0) unbiased = hsicUnbiased(k, l) / (Math.sqrt(kk * ll) + 1e-6);
  }
  return { biased, unbiased };
}

// a: [n, da], b: [n, db] paired rows (pass L2-normalised rows to match platonic-rep's compute_score).
export async function linearCka(a: Mat, b: Mat): Promise<Cka> {
  const [k, l] = await Promise.all([gemm(a, a, false, true), gemm(b, b, false, true)]);
  return ckaFromKernels(k, l);
}
