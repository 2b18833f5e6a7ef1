// WebAssembly SIMD kernels that run on tfjs-backend-wasm's own memory (heap-kernels-wasm.ts instantiates this module
// with it), so they read and write tensors where they lie. Leaf functions with no static data and no stack: nothing
// of tfjs's memory is written but the arrays passed in. Build: engine/kernels-build.sh.
#include <wasm_simd128.h>

// out[c] = sum_r x[r C + c] for c < C (x: [R, C] row-major), each column summed in r order with float32 adds. A lane
// of f32x4 is one column, so the sums have the bits of the plain loop over rows.
__attribute__((export_name("column_sums")))
void column_sums(const float* x, int R, int C, float* out) {
  int c = 0;
  for (; c + 16 <= C; c += 16) {
    v128_t a0 = wasm_f32x4_splat(0), a1 = a0, a2 = a0, a3 = a0;
    for (const float* row = x + c; row < x + R * C; row += C) {
      a0 = wasm_f32x4_add(a0, wasm_v128_load(row));
      a1 = wasm_f32x4_add(a1, wasm_v128_load(row + 4));
      a2 = wasm_f32x4_add(a2, wasm_v128_load(row + 8));
      a3 = wasm_f32x4_add(a3, wasm_v128_load(row + 12));
    }
    wasm_v128_store(out + c, a0);
    wasm_v128_store(out + c + 4, a1);
    wasm_v128_store(out + c + 8, a2);
    wasm_v128_store(out + c + 12, a3);
  }
  for (; c + 4 <= C; c += 4) {
    v128_t a = wasm_f32x4_splat(0);
    for (const float* row = x + c; row < x + R * C; row += C) a = wasm_f32x4_add(a, wasm_v128_load(row));
    wasm_v128_store(out + c, a);
  }
  for (; c < C; c++) {
    float a = 0;
    for (int r = 0; r < R; r++) a += x[r * C + c];
    out[c] = a;
  }
}

// e^x for x <= 0 in float32: x = k ln2 + r with |r| <= ln2/2, e^r by its Taylor series to r^7 (the remainder is below
// 6e-9 relative, under float32's 6e-8 rounding), times 2^k set in the exponent bits; 0 for x < -87, where e^x falls
// below float32's normal range. ln2 is split so that k ln2_hi is exact (ln2_hi has 16 trailing zero bits).
static v128_t exp_nonpositive(v128_t x) {
  const v128_t k = wasm_f32x4_nearest(wasm_f32x4_mul(x, wasm_f32x4_splat(1.44269504088896341f)));
  v128_t r = wasm_f32x4_sub(x, wasm_f32x4_mul(k, wasm_f32x4_splat(0.693145751953125f)));
  r = wasm_f32x4_sub(r, wasm_f32x4_mul(k, wasm_f32x4_splat(1.42860682030941723212e-6f)));
  v128_t p = wasm_f32x4_splat(1.f / 5040);
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(1.f / 720));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(1.f / 120));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(1.f / 24));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(1.f / 6));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(0.5f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(1.f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(1.f));
  const v128_t two_k = wasm_i32x4_shl(wasm_i32x4_add(wasm_i32x4_trunc_sat_f32x4(k), wasm_i32x4_splat(127)), 23);
  const v128_t e = wasm_f32x4_mul(p, two_k);
  return wasm_v128_andnot(e, wasm_f32x4_lt(x, wasm_f32x4_splat(-87.f)));
}

static float exp_nonpositive1(float x) { return wasm_f32x4_extract_lane(exp_nonpositive(wasm_f32x4_splat(x)), 0); }

// p[i, :] = softmax(x[i, :]) for i < n (x, p: [n, V] row-major; p may be x). stats[2i] = the row's max m,
// stats[2i + 1] = sum_j e^(x_ij - m) (float64 sum of the float32 exponentials), so log-sum-exp = m + log(sum).
__attribute__((export_name("softmax_rows")))
void softmax_rows(const float* x, int n, int V, float* p, double* stats) {
  for (int i = 0; i < n; i++) {
    const float* xi = x + i * V;
    float* pi = p + i * V;
    int j = 0;
    float m = -__builtin_inff();
    if (V >= 4) {
      v128_t mv = wasm_v128_load(xi);
      for (j = 4; j + 4 <= V; j += 4) mv = wasm_f32x4_pmax(mv, wasm_v128_load(xi + j));
      for (int l = 0; l < 4; l++) {
        const float v = wasm_f32x4_extract_lane(mv, 0);
        if (v > m) m = v;
        mv = wasm_i32x4_shuffle(mv, mv, 1, 2, 3, 0);
      }
    }
    for (; j < V; j++)
      if (xi[j] > m) m = xi[j];
    const v128_t mv = wasm_f32x4_splat(m);
    v128_t s0 = wasm_f64x2_splat(0), s1 = s0;
    for (j = 0; j + 4 <= V; j += 4) {
      const v128_t e = exp_nonpositive(wasm_f32x4_sub(wasm_v128_load(xi + j), mv));
      wasm_v128_store(pi + j, e);
      s0 = wasm_f64x2_add(s0, wasm_f64x2_promote_low_f32x4(e));
      s1 = wasm_f64x2_add(s1, wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(e, e, 2, 3, 0, 1)));
    }
    const v128_t s = wasm_f64x2_add(s0, s1);
    double sum = wasm_f64x2_extract_lane(s, 0) + wasm_f64x2_extract_lane(s, 1);
    for (; j < V; j++) sum += pi[j] = exp_nonpositive1(xi[j] - m);
    const float inv = (float)(1 / sum);
    const v128_t iv = wasm_f32x4_splat(inv);
    for (j = 0; j + 4 <= V; j += 4) wasm_v128_store(pi + j, wasm_f32x4_mul(wasm_v128_load(pi + j), iv));
    for (; j < V; j++) pi[j] *= inv;
    stats[2 * i] = m;
    stats[2 * i + 1] = sum;
  }
}

// g = (p - onehot(y)) k: the gradient of k times the summed cross-entropy of softmax rows p [n, V] against targets y [n].
__attribute__((export_name("xent_grad")))
void xent_grad(const float* p, int n, int V, const int* y, float k, float* g) {
  const v128_t kv = wasm_f32x4_splat(k);
  int j = 0;
  for (; j + 4 <= n * V; j += 4) wasm_v128_store(g + j, wasm_f32x4_mul(wasm_v128_load(p + j), kv));
  for (; j < n * V; j++) g[j] = p[j] * k;
  for (int i = 0; i < n; i++) g[i * V + y[i]] = (p[i * V + y[i]] - 1) * k;
}

// SIGReg's angle-addition recurrences (engine/metrics/epps-pulley.ts, engine/train/sigreg.ts), eight slices m at a time
// in four f64x2 chains (one chain waits on each product's latency), then the rest one at a time. Every lane does the JS
// loops' operations in their order (wasm has no fused multiply-add), so the sums and the gradient have their bits.
// cos1, sin1: [N, M] float64, cos and sin of th = dt z (V8's Math.cos and Math.sin, computed by the caller).

// C, S: [M, J] sums over n of cos(j th_nm) and sin(j th_nm) for j = 1..J-1 (column 0 is not written).
// scratch: 16 (J - 1) doubles, this block's sums.
__attribute__((export_name("sigreg_sums")))
void sigreg_sums(const double* cos1, const double* sin1, int N, int M, int J, double* C, double* S, double* scratch) {
  int m = 0;
  for (; m + 8 <= M; m += 8) {
    v128_t* acc = (v128_t*)scratch;  // [J - 1][8]: C's four chains, then S's
    for (int i = 0; i < 8 * (J - 1); i++) acc[i] = wasm_f64x2_splat(0);
    for (int n = 0; n < N; n++) {
      const double* cr = cos1 + n * M + m;
      const double* sr = sin1 + n * M + m;
      v128_t c1[4], s1[4], c[4], s[4];
      for (int l = 0; l < 4; l++) {
        c[l] = c1[l] = wasm_v128_load(cr + 2 * l);
        s[l] = s1[l] = wasm_v128_load(sr + 2 * l);
      }
      for (int j = 0; j < J - 1; j++) {
        v128_t* a = acc + 8 * j;
        for (int l = 0; l < 4; l++) {
          a[l] = wasm_f64x2_add(a[l], c[l]);
          a[4 + l] = wasm_f64x2_add(a[4 + l], s[l]);
          const v128_t cn = wasm_f64x2_sub(wasm_f64x2_mul(c[l], c1[l]), wasm_f64x2_mul(s[l], s1[l]));
          s[l] = wasm_f64x2_add(wasm_f64x2_mul(s[l], c1[l]), wasm_f64x2_mul(c[l], s1[l]));
          c[l] = cn;
        }
      }
    }
    for (int j = 0; j < J - 1; j++)
      for (int l = 0; l < 4; l++) {
        const v128_t* a = acc + 8 * j;
        C[(m + 2 * l) * J + j + 1] = wasm_f64x2_extract_lane(a[l], 0);
        C[(m + 2 * l + 1) * J + j + 1] = wasm_f64x2_extract_lane(a[l], 1);
        S[(m + 2 * l) * J + j + 1] = wasm_f64x2_extract_lane(a[4 + l], 0);
        S[(m + 2 * l + 1) * J + j + 1] = wasm_f64x2_extract_lane(a[4 + l], 1);
      }
  }
  for (; m < M; m++) {
    for (int j = 1; j < J; j++) C[m * J + j] = S[m * J + j] = 0;
    for (int n = 0; n < N; n++) {
      const double c1 = cos1[n * M + m], s1 = sin1[n * M + m];
      double c = c1, s = s1;
      for (int j = 1; j < J; j++) {
        C[m * J + j] += c;
        S[m * J + j] += s;
        const double cn = c * c1 - s * s1;
        s = s * c1 + c * s1;
        c = cn;
      }
    }
  }
}

// grad[n, m] = k sum_{j=1}^{J-1} (a[m, j] sin(j th_nm) + b[m, j] cos(j th_nm)), rounded to float32 (a, b: [M, J]).
// scratch: 16 (J - 1) doubles, this block's a and b by j.
__attribute__((export_name("sigreg_gradient")))
void sigreg_gradient(const double* cos1, const double* sin1, int N, int M, int J, const double* a, const double* b,
                     double k, float* grad, double* scratch) {
  const v128_t kv = wasm_f64x2_splat(k);
  int m = 0;
  for (; m + 8 <= M; m += 8) {
    double* ab = scratch;  // [J - 1][16]: a of the eight slices, then b
    for (int j = 0; j < J - 1; j++)
      for (int l = 0; l < 8; l++) {
        ab[16 * j + l] = a[(m + l) * J + j + 1];
        ab[16 * j + 8 + l] = b[(m + l) * J + j + 1];
      }
    for (int n = 0; n < N; n++) {
      const double* cr = cos1 + n * M + m;
      const double* sr = sin1 + n * M + m;
      v128_t c1[4], s1[4], c[4], s[4], acc[4];
      for (int l = 0; l < 4; l++) {
        c[l] = c1[l] = wasm_v128_load(cr + 2 * l);
        s[l] = s1[l] = wasm_v128_load(sr + 2 * l);
        acc[l] = wasm_f64x2_splat(0);
      }
      for (int j = 0; j < J - 1; j++) {
        const double* abj = ab + 16 * j;
        for (int l = 0; l < 4; l++) {
          const v128_t t = wasm_f64x2_add(wasm_f64x2_mul(wasm_v128_load(abj + 2 * l), s[l]),
                                          wasm_f64x2_mul(wasm_v128_load(abj + 8 + 2 * l), c[l]));
          acc[l] = wasm_f64x2_add(acc[l], t);
          const v128_t cn = wasm_f64x2_sub(wasm_f64x2_mul(c[l], c1[l]), wasm_f64x2_mul(s[l], s1[l]));
          s[l] = wasm_f64x2_add(wasm_f64x2_mul(s[l], c1[l]), wasm_f64x2_mul(c[l], s1[l]));
          c[l] = cn;
        }
      }
      float* g = grad + n * M + m;
      for (int l = 0; l < 4; l += 2) {
        const v128_t lo = wasm_f32x4_demote_f64x2_zero(wasm_f64x2_mul(kv, acc[l]));
        const v128_t hi = wasm_f32x4_demote_f64x2_zero(wasm_f64x2_mul(kv, acc[l + 1]));
        wasm_v128_store(g + 2 * l, wasm_i32x4_shuffle(lo, hi, 0, 1, 4, 5));
      }
    }
  }
  for (; m < M; m++)
    for (int n = 0; n < N; n++) {
      const double c1 = cos1[n * M + m], s1 = sin1[n * M + m];
      double c = c1, s = s1, acc = 0;
      for (int j = 1; j < J; j++) {
        acc += a[m * J + j] * s + b[m * J + j] * c;
        const double cn = c * c1 - s * s1;
        s = s * c1 + c * s1;
        c = cn;
      }
      grad[n * M + m] = (float)(k * acc);
    }
}
