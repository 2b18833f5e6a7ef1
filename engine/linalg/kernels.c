// WebAssembly SIMD kernels for the panel factorisations that no GEMM can batch: the tridiagonalisation's panel
// (tridiagonal.ts; its matrix-vector products against the trailing matrix are 2n^3/3 flops) and Householder QR's
// panel (householder.ts). f64x2 SIMD runs them ~4x faster than V8's scalar loops. Build (clang >= 14 with lld;
// the output is embedded by kernels-wasm.ts):
//   clang --target=wasm32 -O3 -msimd128 -nostdlib -Wl,--no-entry -Wl,--import-memory -o kernels.wasm kernels.c
// Same arithmetic as LAPACK's dlatrd (lower), on a full symmetric row-major A.
#include <wasm_simd128.h>

// y[t] = sum_c A[s+t, s+c] x[c] over the trailing block A[s:, s:] of A: [n, n] (len = n - s).
static void symv_block(const double* A, int n, int s, const double* x, double* y) {
  int len = n - s;
  int t = 0;
  for (; t + 1 < len; t += 2) {  // two rows at a time, two f64x2 accumulators each
    const double* r0 = A + (s + t) * n + s;
    const double* r1 = r0 + n;
    v128_t a0 = wasm_f64x2_splat(0), a1 = wasm_f64x2_splat(0), b0 = wasm_f64x2_splat(0), b1 = wasm_f64x2_splat(0);
    int c = 0;
    for (; c + 3 < len; c += 4) {
      v128_t x0 = wasm_v128_load(x + c), x1 = wasm_v128_load(x + c + 2);
      a0 = wasm_f64x2_add(a0, wasm_f64x2_mul(wasm_v128_load(r0 + c), x0));
      a1 = wasm_f64x2_add(a1, wasm_f64x2_mul(wasm_v128_load(r0 + c + 2), x1));
      b0 = wasm_f64x2_add(b0, wasm_f64x2_mul(wasm_v128_load(r1 + c), x0));
      b1 = wasm_f64x2_add(b1, wasm_f64x2_mul(wasm_v128_load(r1 + c + 2), x1));
    }
    v128_t a = wasm_f64x2_add(a0, a1), b = wasm_f64x2_add(b0, b1);
    double sa = wasm_f64x2_extract_lane(a, 0) + wasm_f64x2_extract_lane(a, 1);
    double sb = wasm_f64x2_extract_lane(b, 0) + wasm_f64x2_extract_lane(b, 1);
    for (; c < len; c++) {
      sa += r0[c] * x[c];
      sb += r1[c] * x[c];
    }
    y[t] = sa;
    y[t + 1] = sb;
  }
  if (t < len) {
    const double* r0 = A + (s + t) * n + s;
    double sa = 0;
    for (int c = 0; c < len; c++) sa += r0[c] * x[c];
    y[t] = sa;
  }
}

// Reduce columns j0..j0+jb-1 of A: [n, n] in place (only those columns are final afterwards): d, e, tau for them,
// the reflector vectors V (1 at row i of column i, zero above) and W = tau A v - (tau^2/2)(v^T A v) v, both
// [h, nr] row-major, row t = global row j0+1+t (h = n - j0 - 1, nr reflectors). Scratch: y, v: [h], p: [2 nr].
__attribute__((export_name("reduce_panel")))
void reduce_panel(double* A, int n, int j0, int jb, int nr, double* V, double* W, double* tau, double* d, double* e,
                  double* y, double* v, double* p) {
  double* p1 = p;       // W^T v: [i]
  double* p2 = p + nr;  // V^T v: [i]
  for (int i = 0; i < jb; i++) {
    int g = j0 + i;
    // column g, rows g.., brought up to date with this panel's earlier reflectors: a -= V W[g]^T + W V[g]^T
    if (i > 0) {
      const double* vg = V + (g - j0 - 1) * nr;
      const double* wg = W + (g - j0 - 1) * nr;
      for (int row = g; row < n; row++) {
        const double* vr = V + (row - j0 - 1) * nr;
        const double* wr = W + (row - j0 - 1) * nr;
        double s = 0;
        for (int k = 0; k < i; k++) s += vr[k] * wg[k] + wr[k] * vg[k];
        A[row * n + g] -= s;
      }
    }
    d[g] = A[g * n + g];
    if (i >= nr) break;
    // reflector H_g = I - tau v v^T with H_g A[g+1:, g] = (beta, 0, ...), v[g+1] = 1 (dlarfg)
    double alpha = A[(g + 1) * n + g];
    double xnorm2 = 0;
    for (int row = g + 2; row < n; row++) xnorm2 += A[row * n + g] * A[row * n + g];
    V[i * nr + i] = 1;
    if (xnorm2 == 0) {  // already reduced: tau = 0, w = 0
      e[g] = alpha;
      continue;
    }
    double norm = __builtin_sqrt(alpha * alpha + xnorm2);
    double beta = alpha >= 0 ? -norm : norm;
    double ti = (beta - alpha) / beta;
    tau[i] = ti;
    e[g] = beta;
    double scale = 1 / (alpha - beta);
    for (int row = g + 2; row < n; row++) V[(row - j0 - 1) * nr + i] = A[row * n + g] * scale;
    // w = tau A_cur v - (tau^2/2)(v^T A_cur v) v over rows g+1.., A_cur = A22 - V W^T - W V^T (earlier columns)
    int len = n - g - 1;  // v = V[i.., i]
    for (int t = 0; t < len; t++) v[t] = V[(i + t) * nr + i];
    symv_block(A, n, g + 1, v, y);
    if (i > 0) {
      for (int k = 0; k < i; k++) p1[k] = p2[k] = 0;
      for (int t = 0; t < len; t++) {
        const double* vr = V + (i + t) * nr;
        const double* wr = W + (i + t) * nr;
        double x = v[t];
        for (int k = 0; k < i; k++) {
          p1[k] += wr[k] * x;
          p2[k] += vr[k] * x;
        }
      }
      for (int t = 0; t < len; t++) {
        const double* vr = V + (i + t) * nr;
        const double* wr = W + (i + t) * nr;
        double s = 0;
        for (int k = 0; k < i; k++) s += vr[k] * p1[k] + wr[k] * p2[k];
        y[t] -= s;
      }
    }
    double yv = 0;
    for (int t = 0; t < len; t++) yv += y[t] * v[t];
    double c = -0.5 * ti * ti * yv;
    for (int t = 0; t < len; t++) W[(i + t) * nr + i] = ti * y[t] + c * v[t];
  }
}

// sum_i a[i] b[i] over [0, len)
static double dot(const double* a, const double* b, int len) {
  v128_t s0 = wasm_f64x2_splat(0), s1 = wasm_f64x2_splat(0);
  int i = 0;
  for (; i + 3 < len; i += 4) {
    s0 = wasm_f64x2_add(s0, wasm_f64x2_mul(wasm_v128_load(a + i), wasm_v128_load(b + i)));
    s1 = wasm_f64x2_add(s1, wasm_f64x2_mul(wasm_v128_load(a + i + 2), wasm_v128_load(b + i + 2)));
  }
  v128_t s = wasm_f64x2_add(s0, s1);
  double r = wasm_f64x2_extract_lane(s, 0) + wasm_f64x2_extract_lane(s, 1);
  for (; i < len; i++) r += a[i] * b[i];
  return r;
}

// y[i] -= c x[i] over [0, len)
static void axpy(double c, const double* x, double* y, int len) {
  v128_t cc = wasm_f64x2_splat(c);
  int i = 0;
  for (; i + 1 < len; i += 2) wasm_v128_store(y + i, wasm_f64x2_sub(wasm_v128_load(y + i), wasm_f64x2_mul(cc, wasm_v128_load(x + i))));
  for (; i < len; i++) y[i] -= c * x[i];
}

// Unblocked Householder QR of a COLUMN-major panel P: [h, b] in place (LAPACK dgeqr2, sign rule of householder.ts:
// beta = -sign(x0) |x|, +|x| when x0 = 0): R on and above the diagonal, the reflector vectors (unit first entry
// implied) below it, their scalings in tau: [b] (0 for a zero column).
__attribute__((export_name("qr_panel")))
void qr_panel(double* P, int h, int b, double* tau) {
  for (int j = 0; j < b; j++) {
    double* pj = P + j * h;
    double norm2 = dot(pj + j, pj + j, h - j);
    tau[j] = 0;
    if (norm2 == 0) continue;
    double x0 = pj[j];
    double beta = x0 > 0 ? -__builtin_sqrt(norm2) : __builtin_sqrt(norm2);
    double t = (beta - x0) / beta;
    tau[j] = t;
    double scale = 1 / (x0 - beta);
    for (int i = j + 1; i < h; i++) pj[i] *= scale;
    pj[j] = beta;
    // columns right of j: P[j:, c] -= tau v (v^T P[j:, c]), v = (1, P[j+1:, j])
    for (int c = j + 1; c < b; c++) {
      double* pc = P + c * h;
      double s = t * (pc[j] + dot(pj + j + 1, pc + j + 1, h - j - 1));
      pc[j] -= s;
      axpy(s, pj + j + 1, pc + j + 1, h - j - 1);
    }
  }
}
