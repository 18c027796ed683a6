/* rectify: the photo resampled into a top-down image of the table.
 *
 * The table mapping (markers, lens) is smooth, so it is evaluated only on
 * a coarse grid (every RECT_GRID-th table pixel) and interpolated
 * bilinearly in between: the interpolation error over 4 mm is far below a
 * hundredth of a pixel, and the mapping's calls drop from one per pixel to
 * one per 64 pixels (the grid's rows on the workers, parallel.c). The
 * image is made in strips of rows: each strip's pixel maps, its remap and
 * its Lab conversion stay in the cache, and strips are independent, so
 * `threads` workers (pthreads, no shared mutable state but disjoint rows)
 * share them. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "cvw.h"
#include "vision_internal.h"

enum { RECT_GRID = VIS__CAMERA_GRID, RECT_STRIP = 16, RECT_MAX_THREADS = 16 };

typedef struct {
  const tp_image *rgb;
  vis__table *t;
  const float *gx, *gy; /* image position of every RECT_GRID-th table pixel */
  int gw;               /* grid nodes per row */
  int first, step;      /* strips first, first + step, ... */
  tp_status st;
  tp_error err;
} strip_job;

/* The table pixel -> image position maps of rows y0..y0+n-1, by bilinear
 * interpolation of the grid: per grid cell, the two row-interpolated ends
 * and a linear run between them. */
static void strip_maps(const strip_job *j, int y0, int n, float *mx, float *my) {
  const int g = RECT_GRID, w = j->t->rgb.width, gw = j->gw;
  for (int r = 0; r < n; r++) {
    int y = y0 + r, gj = y / g;
    float fy = (float)(y - gj * g) / g;
    const float *ax = j->gx + (size_t)gj * gw, *ay = j->gy + (size_t)gj * gw;
    float *ox = mx + (size_t)r * w, *oy = my + (size_t)r * w;
    for (int gi = 0; gi * g < w; gi++) {
      float lx = ax[gi] + fy * (ax[gi + gw] - ax[gi]);
      float rx = ax[gi + 1] + fy * (ax[gi + 1 + gw] - ax[gi + 1]);
      float ly = ay[gi] + fy * (ay[gi + gw] - ay[gi]);
      float ry = ay[gi + 1] + fy * (ay[gi + 1 + gw] - ay[gi + 1]);
      float dx = (rx - lx) / g, dy = (ry - ly) / g;
      int end = gi * g + g < w ? gi * g + g : w;
      for (int x = gi * g, k = 0; x < end; x++, k++) {
        ox[x] = lx + k * dx;
        oy[x] = ly + k * dy;
      }
    }
  }
}

/* A view of rows y0..y0+n-1 of img. */
static tp_image rows(const tp_image *img, int y0, int n) {
  tp_image v = *img;
  v.data = img->data + (size_t)y0 * (size_t)img->stride;
  v.height = n;
  return v;
}

static void *run_strips(void *arg) {
  strip_job *j = arg;
  vis__table *t = j->t;
  int w = t->rgb.width, h = t->rgb.height;
  float *mx = malloc(sizeof(float) * (size_t)w * RECT_STRIP);
  float *my = malloc(sizeof(float) * (size_t)w * RECT_STRIP);
  if (!mx || !my) {
    j->st = tp_error_set(&j->err, TP_ERR_NOMEM, "out of memory for the table image");
    goto done;
  }
  for (int y0 = j->first * RECT_STRIP; y0 < h; y0 += j->step * RECT_STRIP) {
    int n = y0 + RECT_STRIP <= h ? RECT_STRIP : h - y0;
    strip_maps(j, y0, n, mx, my);
    tp_image rgb = rows(&t->rgb, y0, n), lab = rows(&t->lab, y0, n);
    j->st = cvw_remap(j->rgb, mx, my, &rgb, &j->err);
    if (!j->st) j->st = cvw_rgb_to_lab(&rgb, &lab, &j->err);
    if (j->st) break;
  }
done:
  free(mx);
  free(my);
  return NULL;
}

/* Image positions of the grid nodes; -1e6 where the table does not map.
 * One item per grid row on the workers (the map may be called from
 * several threads at once: vision.h; each node depends on itself alone,
 * so the grid is the same for any number of workers). */
typedef struct {
  const vis_table_map *map;
  const vis__table *t;
  int gw;
  float *gx, *gy;
} grid_job;

static void grid_row(void *ctx, int worker, int j) {
  (void)worker;
  const grid_job *g = ctx;
  for (int i = 0; i < g->gw; i++) {
    vis_pt mm = vis__px_to_mm(g->t, (vis_pt){(double)i * RECT_GRID, (double)j * RECT_GRID});
    double in[2] = {mm.x, mm.y}, px[2];
    bool ok = g->map->table_to_image(g->map->user, in, px);
    g->gx[(size_t)j * g->gw + i] = ok ? (float)px[0] : -1e6f;
    g->gy[(size_t)j * g->gw + i] = ok ? (float)px[1] : -1e6f;
  }
}

/* The photo's pixel in table mm at every grid node: the table pixel's
 * steps to the next node each way, as photo pixels, give the photo's
 * pixels per table pixel along either axis; their geometric mean is the
 * scale (a tilted camera squeezes one axis more than the other). 0 where
 * a node or its neighbours do not map. */
static void camera_scale(const vis__table *t, const float *gx, const float *gy, int gw, int gh,
                         float *out) {
  if (gw < 2 || gh < 2) { /* no neighbours to step to */
    memset(out, 0, sizeof(float) * (size_t)gw * (size_t)gh);
    return;
  }
  for (int j = 0; j < gh; j++)
    for (int i = 0; i < gw; i++) {
      size_t k = (size_t)j * gw + i, kx = i + 1 < gw ? k + 1 : k - 1,
             ky = j + 1 < gh ? k + (size_t)gw : k - (size_t)gw;
      out[k] = 0;
      if (gx[k] < -1e5f || gx[kx] < -1e5f || gx[ky] < -1e5f) continue;
      double ax = hypot(gx[kx] - gx[k], gy[kx] - gy[k]) / RECT_GRID;
      double ay = hypot(gx[ky] - gx[k], gy[ky] - gy[k]) / RECT_GRID;
      if (ax > 0 && ay > 0) out[k] = (float)(1 / (sqrt(ax * ay) * t->px_per_mm));
    }
}

double vis__camera_mm(const vis__table *t, double x, double y) {
  if (!t->camera_mm) return 0;
  int i = (int)lround(x / RECT_GRID), j = (int)lround(y / RECT_GRID);
  if (i < 0 || j < 0 || i >= t->camera_w || j >= t->camera_h) return 0;
  return t->camera_mm[(size_t)j * t->camera_w + i];
}

tp_status vis__rectify(const tp_image *rgb, const vis_table_map *map, int threads,
                       vis__table *t, tp_error *err) {
  int w = t->rgb.width, h = t->rgb.height;
  int gw = (w + RECT_GRID - 1) / RECT_GRID + 1, gh = (h + RECT_GRID - 1) / RECT_GRID + 1;
  float *gx = malloc(sizeof(float) * (size_t)gw * (size_t)gh);
  float *gy = malloc(sizeof(float) * (size_t)gw * (size_t)gh);
  if (!gx || !gy) {
    free(gx);
    free(gy);
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory for the table image");
  }
  grid_job gj = {map, t, gw, gx, gy};
  vis__parallel_for(threads, gh, grid_row, &gj);
  free(t->camera_mm);
  t->camera_mm = malloc(sizeof(float) * (size_t)gw * (size_t)gh);
  if (t->camera_mm) {
    t->camera_w = gw, t->camera_h = gh;
    camera_scale(t, gx, gy, gw, gh, t->camera_mm);
  } /* else unknown: the outline is looked for as in a sharp photo */
  int n = threads < 1 ? 1 : threads > RECT_MAX_THREADS ? RECT_MAX_THREADS : threads;
  strip_job jobs[RECT_MAX_THREADS];
  pthread_t tid[RECT_MAX_THREADS];
  bool started[RECT_MAX_THREADS] = {false};
  for (int k = 0; k < n; k++) {
    jobs[k] = (strip_job){rgb, t, gx, gy, gw, k, n, TP_OK, {{0}}};
    if (k > 0) started[k] = pthread_create(&tid[k], NULL, run_strips, &jobs[k]) == 0;
  }
  run_strips(&jobs[0]);
  for (int k = 1; k < n; k++) {
    if (started[k])
      pthread_join(tid[k], NULL);
    else
      run_strips(&jobs[k]); /* no thread to be had: do its strips here */
  }
  free(gx);
  free(gy);
  for (int k = 0; k < n; k++)
    if (jobs[k].st) {
      *err = jobs[k].err;
      return jobs[k].st;
    }
  return TP_OK;
}

/* ------------------------------------------------------ smoothing */

/* The box filter of the table's Lab in plain C: OpenCV's cv::blur of an
 * 8-bit image costs 46 instructions per pixel of a 2 px/mm table (0.11 G
 * of a 1280x720 frame), this about 21 (uint16 column sums moved down row
 * by row, eight lanes at a time). The result is OpenCV's byte for byte:
 * for windows of at most 256 pixels OpenCV sums in uint16 and divides by
 * a fixed-point reciprocal, ((s + delta) * scale) >> 23, copied here;
 * larger windows go to OpenCV (test_blur_equals_opencv). */
enum { BLUR_MAX_AREA = 256, BLUR_SHIFT = 23 };

/* OpenCV's ColumnSum<ushort, uchar> reciprocal of the window area d. */
static void blur_divisor(int d, unsigned *scale, unsigned *delta) {
  if (d == 1) { /* OpenCV copies */
    *scale = 1u << BLUR_SHIFT;
    *delta = 0;
    return;
  }
  double scalef = (double)(1 << BLUR_SHIFT) / d;
  *scale = (unsigned)floor(scalef);
  scalef -= *scale;
  *delta = (unsigned)(d / 2);
  if (scalef < 0.5)
    (*delta)++;
  else
    (*scale)++;
}

/* Eight lanes at a time (GCC's vector extension; -O2 does not vectorise
 * loops of unknown length itself). Widening bytes and narrowing to bytes
 * are SSE2's unpack and pack on x86-64, where GCC 12 makes
 * __builtin_convertvector of these sizes element by element; elsewhere
 * (arm64: NEON's uxtl, xtn) convertvector. */
typedef uint8_t v8u8 __attribute__((vector_size(8)));
typedef uint16_t v8u16 __attribute__((vector_size(16)));
typedef int32_t v4i32 __attribute__((vector_size(16)));
typedef float v4f __attribute__((vector_size(16)));

static inline v8u16 load8(const uint16_t *p) {
  v8u16 v;
  memcpy(&v, p, sizeof v);
  return v;
}

static inline v8u16 load8_bytes(const uint8_t *p) {
#ifdef __SSE2__
  return (v8u16)_mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(const void *)p),
                                  _mm_setzero_si128());
#else
  v8u8 v;
  memcpy(&v, p, sizeof v);
  return __builtin_convertvector(v, v8u16);
#endif
}

/* Eight window sums -> their means: round(s / d) as s * (1/d) + 0.5 in
 * float, truncated, which is OpenCV's fixed-point quotient for every sum
 * of every window up to 15x15 (test_blur_equals_opencv tries them all). */
static inline void store_means8(v8u16 s, v4f inv, uint8_t *out) {
  const v4f half = {0.5f, 0.5f, 0.5f, 0.5f};
#ifdef __SSE2__
  __m128i z = _mm_setzero_si128();
  v4i32 s0 = (v4i32)_mm_unpacklo_epi16((__m128i)s, z);
  v4i32 s1 = (v4i32)_mm_unpackhi_epi16((__m128i)s, z);
#else
  v4i32 s0 = __builtin_convertvector(__builtin_shufflevector(s, s, 0, 1, 2, 3), v4i32);
  v4i32 s1 = __builtin_convertvector(__builtin_shufflevector(s, s, 4, 5, 6, 7), v4i32);
#endif
  v4i32 q0 = __builtin_convertvector(__builtin_convertvector(s0, v4f) * inv + half, v4i32);
  v4i32 q1 = __builtin_convertvector(__builtin_convertvector(s1, v4f) * inv + half, v4i32);
#ifdef __SSE2__
  __m128i q = _mm_packs_epi32((__m128i)q0, (__m128i)q1);
  _mm_storel_epi64((__m128i *)(void *)out, _mm_packus_epi16(q, q));
#else
  v8u8 o = __builtin_convertvector(
      __builtin_shufflevector(q0, q1, 0, 1, 2, 3, 4, 5, 6, 7), v8u8); /* every mean < 256 */
  memcpy(out, &o, sizeof o);
#endif
}

/* The column sums moved down a row: `in` enters the window, `out` (NULL
 * while the window fills) leaves it: uint16, as OpenCV's (a window of at
 * most 256 pixels sums to less than 65536). */
static void column_step(uint16_t *sum, const uint8_t *in, const uint8_t *out, int n) {
  int i = 0;
  if (out)
    for (; i + 8 <= n; i += 8) {
      v8u16 v = load8(sum + i) + load8_bytes(in + i) - load8_bytes(out + i);
      memcpy(sum + i, &v, sizeof v);
    }
  for (; i < n; i++) sum[i] = (uint16_t)(sum[i] + in[i] - (out ? out[i] : 0));
}

/* One output row: `pad` holds the column sums with r pixels replicated at
 * each end, out gets each window's mean. */
static void row_means(const uint16_t *pad, int n, int cn, int r, unsigned scale,
                      unsigned delta, uint8_t *out) {
  const float fi = 1.0f / (float)((2 * r + 1) * (2 * r + 1));
  const v4f inv = {fi, fi, fi, fi};
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    const uint16_t *p = pad + i;
    v8u16 s = load8(p);
#pragma GCC unroll 4
    for (int k = 1; k <= 2 * r; k++) s += load8(p + k * cn);
    store_means8(s, inv, out + i);
  }
  for (; i < n; i++) {
    unsigned s = 0;
    for (int k = 0; k <= 2 * r; k++) s += pad[i + k * cn];
    out[i] = (uint8_t)(((s + delta) * scale) >> BLUR_SHIFT);
  }
}

static const uint8_t *clamped_row(const tp_image *img, int y) {
  return tp_image_row(img, y < 0 ? 0 : y >= img->height ? img->height - 1 : y);
}

tp_status vis__box_blur_rows(const tp_image *src, tp_image *dst, int radius, int y0, int y1,
                             tp_error *err) {
  int d = (2 * radius + 1) * (2 * radius + 1);
  if (radius < 0 || d > BLUR_MAX_AREA || src->data == dst->data || y0 < 0 ||
      y1 > src->height || y0 >= y1 || src->width != dst->width ||
      src->height != dst->height || src->channels != dst->channels)
    return cvw_box_blur_rows(src, dst, radius, y0, y1, err); /* checks, or big windows */
  int cn = src->channels, n = src->width * cn, r = radius;
  uint16_t *pad = calloc((size_t)(n + 2 * r * cn), sizeof *pad);
  if (!pad)
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory for the table's smoothing");
  unsigned scale, delta;
  blur_divisor(d, &scale, &delta);
  uint16_t *sum = pad + r * cn;
  for (int y = y0 - r; y <= y0 + r; y++) column_step(sum, clamped_row(src, y), NULL, n);
  for (int y = y0;; y++) {
    for (int k = 0; k < r; k++) /* replicate the first and last pixel */
      for (int c = 0; c < cn; c++) {
        pad[k * cn + c] = sum[c];
        sum[n + k * cn + c] = sum[n - cn + c];
      }
    row_means(pad, n, cn, r, scale, delta, tp_image_row(dst, y));
    if (y + 1 == y1) break;
    column_step(sum, clamped_row(src, y + r + 1), clamped_row(src, y - r), n);
  }
  free(pad);
  return TP_OK;
}
