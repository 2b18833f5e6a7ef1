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

// Attention over packed sequences (engine/models/attention.ts): sequence b is rows off[b] .. off[b] + len[b] - 1, head
// h its columns h dh .. h dh + dh - 1 of each operand; the (b, h) blocks of [n, n] values (scores, weights) lie one
// after another in b, then h order (n_b^2 each), row i at i n. Row i sees terms j < (causal ? i + 1 : n).
// Operands are float32 matrices with a row stride and a column offset (q|k|v side by side: stride 3d, offsets 0, d,
// 2d); sums are float64 as in the JS loops.

// out[i n + j] = sum_c x_ic y_jc (c in order) for every block, i, and j that row i sees. y's block is first copied
// transposed into scratch (dh n_max float64) so that a lane pair holds two keys; four pairs run as independent chains.
__attribute__((export_name("block_dots")))
void block_dots(const float* x, int xs, int xo, const float* y, int ys, int yo, int dh, int H, const int* off,
                const int* len, int B, int causal, double* out, double* scratch) {
  long p0 = 0;
  for (int b = 0; b < B; b++) {
    const int n = len[b];
    for (int h = 0; h < H; h++, p0 += (long)n * n) {
      const float* xb = x + (long)off[b] * xs + xo + h * dh;
      const float* yb = y + (long)off[b] * ys + yo + h * dh;
      double* yt = scratch;  // [dh, n]
      for (int j = 0; j < n; j++)
        for (int c = 0; c < dh; c++) yt[c * n + j] = yb[(long)j * ys + c];
      for (int i = 0; i < n; i++) {
        const float* xi = xb + (long)i * xs;
        double* o = out + p0 + (long)i * n;
        const int kmax = causal ? i + 1 : n;
        int j = 0;
        for (; j + 8 <= kmax; j += 8) {
          v128_t a0 = wasm_f64x2_splat(0), a1 = a0, a2 = a0, a3 = a0;
          for (int c = 0; c < dh; c++) {
            const v128_t xc = wasm_f64x2_splat(xi[c]);
            const double* t = yt + c * n + j;
            a0 = wasm_f64x2_add(a0, wasm_f64x2_mul(xc, wasm_v128_load(t)));
            a1 = wasm_f64x2_add(a1, wasm_f64x2_mul(xc, wasm_v128_load(t + 2)));
            a2 = wasm_f64x2_add(a2, wasm_f64x2_mul(xc, wasm_v128_load(t + 4)));
            a3 = wasm_f64x2_add(a3, wasm_f64x2_mul(xc, wasm_v128_load(t + 6)));
          }
          wasm_v128_store(o + j, a0);
          wasm_v128_store(o + j + 2, a1);
          wasm_v128_store(o + j + 4, a2);
          wasm_v128_store(o + j + 6, a3);
        }
        for (; j + 2 <= kmax; j += 2) {
          v128_t a = wasm_f64x2_splat(0);
          for (int c = 0; c < dh; c++) a = wasm_f64x2_add(a, wasm_f64x2_mul(wasm_f64x2_splat(xi[c]), wasm_v128_load(yt + c * n + j)));
          wasm_v128_store(o + j, a);
        }
        for (; j < kmax; j++) {
          double a = 0;
          for (int c = 0; c < dh; c++) a += (double)xi[c] * yt[c * n + j];
          o[j] = a;
        }
      }
    }
  }
}

// o[r, c] = sum over the terms t of w * z[t, c], in t order, each add rounded to float32 (a float32 accumulator), for
// c < dh of every block's rows r. Rows r = i over terms j < kmax(i), weights w[i n + j] (transposed = 0), or rows
// r = j over terms i that see j, weights w[i n + j] (transposed = 1: the gradient's columns of P and dS). Weights are
// float64 (wd) or float32 (wf, when wd is 0). Lanes are columns c, so each column's chain keeps its order.
__attribute__((export_name("block_weighted_sums")))
void block_weighted_sums(const double* wd, const float* wf, int transposed, const float* z, int zs, int zo, float* o,
                         int os, int oo, int dh, int H, const int* off, const int* len, int B, int causal) {
  long p0 = 0;
  for (int b = 0; b < B; b++) {
    const int n = len[b];
    for (int h = 0; h < H; h++, p0 += (long)n * n) {
      const float* zb = z + (long)off[b] * zs + zo + h * dh;
      for (int r = 0; r < n; r++) {
        // terms t0 .. t1 - 1; the weight of term t at p0 + wi t + wr
        const int t0 = transposed && causal ? r : 0;
        const int t1 = transposed || !causal ? n : r + 1;
        const long wi = transposed ? n : 1, wr = transposed ? r : (long)r * n;
        float* orow = o + (long)(off[b] + r) * os + oo + h * dh;
        int c = 0;
        for (; c + 16 <= dh; c += 16) {  // eight chains: each add waits on the last one's rounding
          v128_t a[8];
          for (int l = 0; l < 8; l++) a[l] = wasm_f64x2_splat(0);
          for (int t = t0; t < t1; t++) {
            const long k = p0 + wi * t + wr;
            const v128_t w = wasm_f64x2_splat(wd ? wd[k] : wf[k]);
            const float* zt = zb + (long)t * zs + c;
            for (int l = 0; l < 4; l++) {
              const v128_t zl = wasm_v128_load(zt + 4 * l);
              a[2 * l] = wasm_f64x2_add(a[2 * l], wasm_f64x2_mul(w, wasm_f64x2_promote_low_f32x4(zl)));
              a[2 * l + 1] = wasm_f64x2_add(
                  a[2 * l + 1], wasm_f64x2_mul(w, wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(zl, zl, 2, 3, 0, 1))));
            }
            for (int l = 0; l < 8; l++) a[l] = wasm_f64x2_promote_low_f32x4(wasm_f32x4_demote_f64x2_zero(a[l]));
          }
          for (int l = 0; l < 4; l++) {
            const v128_t lo = wasm_f32x4_demote_f64x2_zero(a[2 * l]), hi = wasm_f32x4_demote_f64x2_zero(a[2 * l + 1]);
            wasm_v128_store(orow + c + 4 * l, wasm_i32x4_shuffle(lo, hi, 0, 1, 4, 5));
          }
        }
        for (; c + 8 <= dh; c += 8) {
          v128_t a0 = wasm_f64x2_splat(0), a1 = a0, a2 = a0, a3 = a0;
          for (int t = t0; t < t1; t++) {
            const long k = p0 + wi * t + wr;
            const v128_t w = wasm_f64x2_splat(wd ? wd[k] : wf[k]);
            const float* zt = zb + (long)t * zs + c;
            const v128_t z01 = wasm_v128_load(zt), z23 = wasm_v128_load(zt + 4);
            a0 = wasm_f64x2_add(a0, wasm_f64x2_mul(w, wasm_f64x2_promote_low_f32x4(z01)));
            a1 = wasm_f64x2_add(a1, wasm_f64x2_mul(w, wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(z01, z01, 2, 3, 0, 1))));
            a2 = wasm_f64x2_add(a2, wasm_f64x2_mul(w, wasm_f64x2_promote_low_f32x4(z23)));
            a3 = wasm_f64x2_add(a3, wasm_f64x2_mul(w, wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(z23, z23, 2, 3, 0, 1))));
            a0 = wasm_f64x2_promote_low_f32x4(wasm_f32x4_demote_f64x2_zero(a0));
            a1 = wasm_f64x2_promote_low_f32x4(wasm_f32x4_demote_f64x2_zero(a1));
            a2 = wasm_f64x2_promote_low_f32x4(wasm_f32x4_demote_f64x2_zero(a2));
            a3 = wasm_f64x2_promote_low_f32x4(wasm_f32x4_demote_f64x2_zero(a3));
          }
          const v128_t lo = wasm_f32x4_demote_f64x2_zero(a0), hi = wasm_f32x4_demote_f64x2_zero(a1);
          wasm_v128_store(orow + c, wasm_i32x4_shuffle(lo, hi, 0, 1, 4, 5));
          const v128_t lo2 = wasm_f32x4_demote_f64x2_zero(a2), hi2 = wasm_f32x4_demote_f64x2_zero(a3);
          wasm_v128_store(orow + c + 4, wasm_i32x4_shuffle(lo2, hi2, 0, 1, 4, 5));
        }
        for (; c < dh; c++) {
          double a = 0;
          for (int t = t0; t < t1; t++) {
            const long k = p0 + wi * t + wr;
            a = (float)(a + (wd ? wd[k] : wf[k]) * zb[(long)t * zs + c]);
          }
          orow[c] = (float)a;
        }
      }
    }
  }
}
