// WebAssembly SIMD kernels for the panel factorisations that no GEMM can batch: the tridiagonalisation's panel
// (tridiagonal.ts; its matrix-vector products against the trailing matrix are 2n^3/3 flops) and Householder QR's
// panel (householder.ts). f64x2 SIMD runs them ~4x faster than V8's scalar loops. Build: engine/kernels-build.sh
// (clang >= 14 with lld; the output is embedded by kernels-wasm.ts).
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

// sqrt(a^2 + b^2) without overflow or underflow
static double hyp(double a, double b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  if (a < b) {
    double t = a;
    a = b;
    b = t;
  }
  if (a == 0) return 0;
  double r = b / a;
  return a * __builtin_sqrt(1 + r * r);
}

static double fabs_(double x) { return x < 0 ? -x : x; }

// Eigenvalues of tridiag(e, d, e) by implicit QL (EISPACK tql1, as JAMA's tql2 without the vectors), in place and
// unsorted: d: [n] -> eigenvalues; e: [n], e[i] = T[i, i+1] and e[n-1] = 0, destroyed. Accuracy ~eps ||T||.
__attribute__((export_name("tridiag_eigenvalues")))
void tridiag_eigenvalues(double* d, double* e, int n) {
  const double eps = 2.220446049250313e-16;
  double f = 0, tst1 = 0;
  for (int l = 0; l < n; l++) {
    double t = fabs_(d[l]) + fabs_(e[l]);
    if (t > tst1) tst1 = t;
    int m = l;
    while (m < n && fabs_(e[m]) > eps * tst1) m++;
    if (m > l) {
      do {
        double g = d[l];
        double p = (d[l + 1] - g) / (2 * e[l]);
        double r = hyp(p, 1);
        if (p < 0) r = -r;
        d[l] = e[l] / (p + r);
        d[l + 1] = e[l] * (p + r);
        double dl1 = d[l + 1];
        double h = g - d[l];
        for (int i = l + 2; i < n; i++) d[i] -= h;
        f += h;
        p = d[m];
        double c = 1, c2 = 1, c3 = 1, s = 0, s2 = 0;
        double el1 = e[l + 1];
        for (int i = m - 1; i >= l; i--) {
          c3 = c2;
          c2 = c;
          s2 = s;
          g = c * e[i];
          h = c * p;
          r = hyp(p, e[i]);
          e[i + 1] = s * r;
          s = e[i] / r;
          c = p / r;
          p = c * d[i] - s * g;
          d[i + 1] = h + s * (c * g + s * d[i]);
        }
        p = -s * s2 * c3 * el1 * e[l] / dl1;
        e[l] = s * p;
        d[l] = c * p;
      } while (fabs_(e[l]) > eps * tst1);
    }
    d[l] += f;
    e[l] = 0;
  }
}

// Unit eigenvectors of tridiag(e, d, e) (e: [n - 1]) for the ascending eigenvalues lam: [k] by inverse iteration
// (LAPACK dstein; see sym-eig.ts for the choices): vector j starts from start: [n] rotated by j places, gets >= 3
// solves with T - lam_j I (LU with partial pivoting, pivots below eps ||T|| raised to it) and modified Gram-Schmidt
// against earlier vectors whose eigenvalue is within ortol. zt: [k, n], row j the vector for lam[j], its largest
// entry positive. work: [6 n].
__attribute__((export_name("tridiag_eigenvectors")))
void tridiag_eigenvectors(const double* d, const double* e, int n, const double* lam, int k, const double* start,
                          double ortol, double* zt, double* work) {
  const double eps = 2.220446049250313e-16;
  double *u0 = work, *u1 = work + n, *u2 = work + 2 * n, *ml = work + 3 * n, *x = work + 4 * n, *swap = work + 5 * n;
  double onenrm = 0;  // ||T||_1
  for (int i = 0; i < n; i++) {
    double s = fabs_(d[i]) + (i > 0 ? fabs_(e[i - 1]) : 0) + (i < n - 1 ? fabs_(e[i]) : 0);
    if (s > onenrm) onenrm = s;
  }
  double tiny = eps * onenrm > 0 ? eps * onenrm : 4.9e-324;
  double stop = __builtin_sqrt(0.1 / n);  // dstein's DTPCRT
  double xprev = 0;
  int first = 0;
  for (int j = 0; j < k; j++) {
    double xj = lam[j];
    double pertol = 10 * eps * fabs_(xj);
    if (j > 0 && xj - xprev < pertol) xj = xprev + pertol;  // equal eigenvalues: distinct shifts
    xprev = xj;
    while (first < j && xj - lam[first] > ortol) first++;
    // T - xj I = P L U (LAPACK dgttrf): U = diag(u0) + super u1 + super-super u2, L multipliers ml, swap flags
    for (int i = 0; i < n; i++) {
      u0[i] = d[i] - xj;
      u1[i] = ml[i] = i < n - 1 ? e[i] : 0;
      u2[i] = swap[i] = 0;
    }
    for (int i = 0; i < n - 1; i++) {
      if (fabs_(u0[i]) >= fabs_(ml[i])) {
        if (u0[i] != 0) {
          double f = ml[i] / u0[i];
          ml[i] = f;
          u0[i + 1] -= f * u1[i];
        }
      } else {
        double f = u0[i] / ml[i];
        u0[i] = ml[i];
        ml[i] = f;
        double t = u1[i];
        u1[i] = u0[i + 1];
        u0[i + 1] = t - f * u0[i + 1];
        if (i < n - 2) {
          u2[i] = u1[i + 1];
          u1[i + 1] = -f * u1[i + 1];
        }
        swap[i] = 1;
      }
    }
    for (int i = 0; i < n; i++)
      if (fabs_(u0[i]) < tiny) u0[i] = u0[i] < 0 ? -tiny : tiny;
    for (int i = 0; i < n; i++) x[i] = start[(i + j) % n];
    int converged = 0;
    for (int its = 0; its < 5 && converged < 3; its++) {
      double mx = 0;  // scale so that a converged solve lands near 1 (dstein)
      for (int i = 0; i < n; i++) mx = fabs_(x[i]) > mx ? fabs_(x[i]) : mx;
      double scl = n * onenrm * (fabs_(u0[n - 1]) > eps ? fabs_(u0[n - 1]) : eps) / mx;
      for (int i = 0; i < n; i++) x[i] *= scl;
      for (int i = 0; i < n - 1; i++) {
        if (swap[i] != 0) {
          double t = x[i];
          x[i] = x[i + 1];
          x[i + 1] = t - ml[i] * x[i + 1];
        } else {
          x[i + 1] -= ml[i] * x[i];
        }
      }
      x[n - 1] /= u0[n - 1];
      if (n > 1) x[n - 2] = (x[n - 2] - u1[n - 2] * x[n - 1]) / u0[n - 2];
      for (int i = n - 3; i >= 0; i--) x[i] = (x[i] - u1[i] * x[i + 1] - u2[i] * x[i + 2]) / u0[i];
      for (int c = first; c < j; c++) axpy(dot(x, zt + c * n, n), zt + c * n, x, n);
      mx = 0;
      for (int i = 0; i < n; i++) mx = fabs_(x[i]) > mx ? fabs_(x[i]) : mx;
      if (mx >= stop) converged++;
    }
    int big = 0;
    for (int i = 0; i < n; i++)
      if (fabs_(x[i]) > fabs_(x[big])) big = i;
    double s = (x[big] < 0 ? -1 : 1) / __builtin_sqrt(dot(x, x, n));
    for (int i = 0; i < n; i++) zt[j * n + i] = x[i] * s;
  }
}
