/* match: which rectangle hypotheses are real cards and carpets, what they
 * are, and in which order they lie.
 *
 * Every hypothesis is sampled once (1 sample per mm, every `step`-th) from
 * the rectified table and compared with every deck face of its size, in
 * both 180-degree orientations. A face "explains" a sample when the sample
 * matches it after a per-channel gain/offset fit (uneven light, white
 * balance). Greedy from the top of the pile down: the hypothesis explaining
 * the most samples is accepted and claims its whole area; hypotheses under
 * it lose those samples and are scored again. What lies on top is complete,
 * so it wins first; what lies under it is judged only by what still shows. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cvw.h"
#include "vision_internal.h"

/* How far in from one edge of the face the rug begins: the first line
 * (rows from the top or bottom, columns from the left or right; step
 * +-1 from `from`) of which over half the pixels of its middle half
 * differ from the ground (RUG_DIFFER, RGB summed) ends the ground.
 * Returns the lines of ground, or 0 when the rug does not begin within
 * a quarter of the face (no ground: a face printed to its edge). The
 * demo deck's fringes (tools/render/deck_art.c) differ from its ground
 * by 23 and count as ground; its rugs by 255 (yellow) to 483. */
#define RUG_DIFFER 60
static int ground_lines(const tp_image *face, const int ground[3], bool rows, int from, int step) {
  int n_lines = rows ? face->height : face->width, len = rows ? face->width : face->height;
  for (int k = 0; k < n_lines / 4; k++) {
    int line = from + step * k, differ = 0;
    for (int q = len / 4; q < len - len / 4; q++) {
      const uint8_t *p = tp_image_row(face, rows ? line : q) + face->channels * (rows ? q : line);
      differ += abs(p[0] - ground[0]) + abs(p[1] - ground[1]) + abs(p[2] - ground[2]) > RUG_DIFFER;
    }
    if (2 * differ > len - 2 * (len / 4)) return k;
  }
  return 0;
}

/* The rug's insets of a carpet face (vis__template.rug_end_mm and
 * rug_side_mm): the ground's colour is the mean of the face's outermost
 * 2 % (its corner pixels are left out: a photographed face's may show
 * the table), and each inset is the mean of its two sides'
 * (ground_lines); both 0 unless all four sides show ground. */
static void rug_insets(const tp_image *face, vis__template *out) {
  if (face->channels < 3) return;
  int W = face->width, H = face->height, ring = W / 50 > 1 ? W / 50 : 1;
  double sum[3] = {0, 0, 0};
  int n = 0;
  for (int y = ring; y < H - ring; y++)
    for (int x = ring; x < W - ring; x++) {
      if (x >= 2 * ring && x < W - 2 * ring && y >= 2 * ring && y < H - 2 * ring) continue;
      const uint8_t *p = tp_image_row(face, y) + face->channels * x;
      for (int c = 0; c < 3; c++) sum[c] += p[c];
      n++;
    }
  if (n == 0) return;
  int ground[3];
  for (int c = 0; c < 3; c++) ground[c] = (int)lround(sum[c] / n);
  int top = ground_lines(face, ground, true, 0, 1), bottom = ground_lines(face, ground, true, H - 1, -1);
  int left = ground_lines(face, ground, false, 0, 1), right = ground_lines(face, ground, false, W - 1, -1);
  if (!top || !bottom || !left || !right) return;
  out->rug_end_mm = 0.5 * (top + bottom) * out->h_mm / H;
  out->rug_side_mm = 0.5 * (left + right) * out->w_mm / W;
}

tp_status vis__template_build(const tp_image *face, double w_mm, double h_mm,
                              int kind, int index, vis__template *out,
                              tp_error *err) {
  memset(out, 0, sizeof *out);
  out->kind = kind;
  out->index = index;
  out->w_mm = w_mm;
  out->h_mm = h_mm;
  out->w = (int)lround(w_mm);
  out->h = (int)lround(h_mm);
  tp_image small = {0}, lab = {0};
  tp_status st = TP_OK;
  if (tp_image_alloc(&small, out->w, out->h, 3) ||
      tp_image_alloc(&lab, out->w, out->h, 3)) {
    st = tp_error_set(err, TP_ERR_NOMEM, "out of memory for a face template");
    goto done;
  }
  if (kind == VIS__FACE_CARPET) rug_insets(face, out);
  st = cvw_resize(face, &small, err);
  if (!st) st = cvw_rgb_to_lab(&small, &lab, err);
  /* the same smoothing as the table's (vis__table.smooth): a pose off by
   * a millimetre still matches */
  if (!st) st = cvw_box_blur(&lab, 1, err);
  if (st) goto done;
  out->lab = malloc(sizeof(float) * 3 * (size_t)out->w * (size_t)out->h);
  if (!out->lab) {
    st = tp_error_set(err, TP_ERR_NOMEM, "out of memory for a face template");
    goto done;
  }
  for (int y = 0; y < out->h; y++) {
    const uint8_t *p = tp_image_row(&lab, y);
    for (int x = 0; x < 3 * out->w; x++)
      out->lab[(size_t)y * 3 * out->w + x] = p[x];
  }
done:
  tp_image_free(&small);
  tp_image_free(&lab);
  return st;
}

void vis__template_free(vis__template *t) {
  if (!t) return;
  free(t->lab);
  t->lab = NULL;
}

enum { HYP_CANDS = 4, COARSE_STRIDE = 4, RERANK_SHARE = 10 };
#define MIN_SIDE_EDGE 0.3 /* edge fraction of the weakest visible side */

/* One hypothesis, sampled. */
typedef struct {
  vis_rect r;
  int tw, th;     /* template grid it was sampled for */
  int n;          /* samples */
  int step;       /* sampled every step-th texel each way */
  bool whole;     /* every texel of that grid sampled (none off the table) */
  int *idx;       /* template index (j*tw+i) of each sample */
  int *tix, *tixf; /* its texel (j*tw+i) in a face, upright and turned */
  int *pix;       /* table pixel (y*W+x) of each sample, -1 outside */
  float *lab;     /* 3 per sample */
  bool alive;
  bool oom; /* sampling ran out of memory */
  vis__object best;
  int n_cand; /* the faces worth a full comparison */
  int cand_face[HYP_CANDS];
  bool cand_flip[HYP_CANDS];
  int cand_expl[HYP_CANDS];
  int free_n, free_object; /* samples not hidden; of those, in the object mask */
  int ranked_free; /* samples not hidden when the faces were last ranked */
  bool no_card; /* its face showed no card frame; asked again once more of it is hidden */
  bool cards_out; /* its card faces showed no card frame, so only the other faces are
                     compared (vis__match_params.carpet_if_no_card), until more of it is
                     hidden */
  bool over_card; /* its card face overlapped an accepted card, so only the carpet
                     faces are compared (cards_out; carpet_over_card) */
  bool searched; /* its pose was searched (rescue) */
  bool carpet_tried; /* as no card, its pose searched with the carpet faces (carpet_searched) */
  bool strip_only; /* ranked again when its faces were taken: asked only as a clear strip
                      (all_candidates_taken) */
  bool sliver_rescued; /* found by rescue_slivers */
  bool beside_phantom; /* a card taken back lay on it (retract_phantoms) */
  bool freed; /* lab freed of a lift (free_of_lift): may leave 0..255 */
  int hidden; /* samples on the table left out as claimed (sample_unhidden), else 0 */
  int rug_tried; /* 1 + the carpet face it was last tried for at the rug's offsets (0: none) */
  bool rug_any; /* tried at the rug's offsets for every carpet face (try_rug_any) */
  char dead; /* why it is no longer alive (the debug log): f faces, h hidden, c card overlap, a accepted */
} hyp;

/* A sample is free when nothing accepted before hides it: its claim is
 * -1 or at least self (>= 0), i.e. as uint16_t at least self. */
static inline bool claim_free(const int16_t *claim, uint16_t self, int pix) {
  return pix >= 0 && (uint16_t)claim[pix] >= self;
}

/* sample_hyp's samples of row j whose every sample lies where
 * vis__table_at reads (as pose_cost's such rows): no bounds tests, the
 * Lab written in place, x and y >= 0 rounded as (int)(v + 0.5) (as
 * vis__round does). The same samples and values as the tested loop.
 * Locals for the arrays and the count: stores through h's int arrays
 * could alias h->n, so the loop reloaded them per sample. claim (or
 * NULL): samples it claims below self are left out (sample_unhidden).
 * with_lab false: the samples' Lab is not made (place_unhidden). */
static inline __attribute__((always_inline)) void
sample_row_inside(const vis__table *t, const double *col_x, const double *col_y, double row_x,
                  double row_y, int j, int tw, int th, int step, const int16_t *claim,
                  uint16_t self, bool with_lab, hyp *h) {
  int n = h->n, hidden = h->hidden, *idx = h->idx, *tix = h->tix, *tixf = h->tixf,
      *pix = h->pix, w = t->lab.width;
  float *lab = h->lab;
  for (int i = step / 2; i < tw; i += step) {
    double x = col_x[i] + row_x, y = col_y[i] + row_y;
    int ix = (int)x, iy = (int)y;
    const uint8_t *q = tp_image_row(&t->rgb, iy) + 3 * ix;
    if (!(q[0] | q[1] | q[2])) continue;
    int p = (int)(y + 0.5) * w + (int)(x + 0.5);
    if (claim && !claim_free(claim, self, p)) {
      hidden++;
      continue;
    }
    if (with_lab) {
      const uint8_t *r0 = tp_image_row(&t->smooth, iy) + 3 * ix;
      vis__bilinear(r0, r0 + t->smooth.stride, x - ix, y - iy, lab + 3 * n);
    }
    idx[n] = tix[n] = j * tw + i;
    tixf[n] = tw * th - 1 - (j * tw + i);
    pix[n] = p;
    n++;
  }
  h->n = n;
  h->hidden = hidden;
}

/* vis__table_lab's test alone: (x, y) lies where it reads and the
 * camera saw something there. */
static inline bool table_shows(const vis__table *t, double x, double y) {
  const uint8_t *r0, *r1;
  double fx, fy;
  return vis__table_at(t, x, y, &r0, &r1, &fx, &fy);
}

/* The texels of a side n long sampled every step-th from step / 2. */
static int grid_count(int n, int step) {
  return n > step / 2 ? (n - step / 2 + step - 1) / step : 0;
}

/* sample_hyp, and with claim (not NULL) sample_unhidden (place_unhidden
 * without the Lab: with_lab false): inlined into each, so that
 * sample_hyp's loops test no claim. */
static inline __attribute__((always_inline)) bool
sample_grid(const vis__table *t, const vis_rect *r, int tw, int th, double w_mm, double h_mm,
            int step, const int16_t *claim, uint16_t self, bool with_lab, hyp *h) {
  memset(h, 0, sizeof *h);
  h->r = *r;
  h->tw = tw;
  h->th = th;
  int cap = ((tw + step - 1) / step) * ((th + step - 1) / step);
  h->idx = malloc(sizeof(int) * (size_t)cap);
  h->pix = malloc(sizeof(int) * (size_t)cap);
  h->lab = malloc(sizeof(float) * (3 * (size_t)cap + 1)); /* + the 4th lane */
  h->tix = malloc(sizeof(int) * 2 * (size_t)cap);
  if (!h->idx || !h->pix || !h->lab || !h->tix) return false;
  h->tixf = h->tix + cap;
  double ax, ay, lx, ly;
  vis__face_axes(r, t->px_per_mm, false, &ax, &ay, &lx, &ly);
  /* the across terms of every column once, as pose_cost: the same
   * products and sums, (centre + dx a) + dy l, so the same x and y */
  double stack[2 * 320], *col_x = stack, *col_y = stack + 320;
  if (tw > 320) {
    col_x = malloc(sizeof(double) * 2 * (size_t)tw);
    if (!col_x) return false;
    col_y = col_x + tw;
  }
  double lo_x = INFINITY, hi_x = -INFINITY, lo_y = INFINITY, hi_y = -INFINITY;
  for (int i = step / 2; i < tw; i += step) {
    double dx = (i + 0.5) * w_mm / tw - w_mm / 2;
    col_x[i] = r->center.x + dx * ax;
    col_y[i] = r->center.y + dx * ay;
    lo_x = col_x[i] < lo_x ? col_x[i] : lo_x, hi_x = col_x[i] > hi_x ? col_x[i] : hi_x;
    lo_y = col_y[i] < lo_y ? col_y[i] : lo_y, hi_y = col_y[i] > hi_y ? col_y[i] : hi_y;
  }
  const double x_max = t->lab.width - 1.001, y_max = t->lab.height - 1.001; /* vis__table_at's */
  for (int j = step / 2; j < th; j += step) {
    double dy = (j + 0.5) * h_mm / th - h_mm / 2;
    double row_x = dy * lx, row_y = dy * ly;
    /* a row wholly inside (most; pose_cost's bounds argument) */
    if (lo_x + row_x >= 0 && lo_y + row_y >= 0 && hi_x + row_x <= x_max && hi_y + row_y <= y_max) {
      sample_row_inside(t, col_x, col_y, row_x, row_y, j, tw, th, step, claim, self, with_lab,
                        h);
      continue;
    }
    for (int i = step / 2; i < tw; i += step) {
      double x = col_x[i] + row_x;
      double y = col_y[i] + row_y;
      float lab[3];
      if (with_lab ? !vis__table_lab(t, x, y, lab) : !table_shows(t, x, y)) continue;
      int p = vis__round(y) * t->lab.width + vis__round(x);
      if (claim && !claim_free(claim, self, p)) {
        h->hidden++;
        continue;
      }
      int k = h->n++;
      h->idx[k] = j * tw + i;
      h->tix[k] = j * tw + i;
      h->tixf[k] = tw * th - 1 - (j * tw + i);
      h->pix[k] = p;
      if (with_lab) memcpy(h->lab + 3 * k, lab, sizeof lab);
    }
  }
  if (col_x != stack) free(col_x);
  h->lab[3 * h->n] = 0; /* the spare lane of the last sample's load4 */
  h->alive = h->n > 0;
  h->step = step;
  h->whole = h->n == grid_count(tw, step) * grid_count(th, step);
  return true;
}

static bool sample_hyp(const vis__table *t, const vis_rect *r, int tw, int th,
                       double w_mm, double h_mm, int step, hyp *h) {
  return sample_grid(t, r, tw, th, w_mm, h_mm, step, NULL, 0, true, h);
}

/* sample_hyp without the samples that claim hides from self (counted in
 * h->hidden), for a pose that is scored once with every face's full
 * count (free_samples at stride 1, score_face: the same list, Lab, sums
 * and total as sample_hyp's; h->whole only where nothing is hidden, as
 * free_samples' whole list) and then dropped: at the rug's offsets
 * (try_rug_shifts) most of a pose lies under the objects that hid the
 * carpet's hypothesis. Not for a hypothesis kept: claims change. */
static bool sample_unhidden(const vis__table *t, const vis_rect *r, int tw, int th, double w_mm,
                            double h_mm, int step, const int16_t *claim, int16_t self, hyp *h) {
  return sample_grid(t, r, tw, th, w_mm, h_mm, step, claim, (uint16_t)self, true, h);
}

/* sample_unhidden's samples, the same ones (n, idx, pix, ...), without
 * their Lab (h->lab is left unset): where they lie, for a test that
 * asks no more (rug_any_worth). */
static bool place_unhidden(const vis__table *t, const vis_rect *r, int tw, int th, double w_mm,
                           double h_mm, int step, const int16_t *claim, int16_t self, hyp *h) {
  return sample_grid(t, r, tw, th, w_mm, h_mm, step, claim, (uint16_t)self, false, h);
}

static void free_hyp(hyp *h) {
  free(h->idx);
  free(h->tix);
  free(h->pix);
  free(h->lab);
}

static const float channel_weight[3] = {0.5f, 1.0f, 1.0f};

/* Four-lane float vectors (the GCC/Clang vector extension: SSE2 on x86-64,
 * NEON on the Pi): one sample's L, a, b and a spare lane. Every lane does
 * the float and double operations of the per-channel code in the same
 * order, so sums and counts are bit for bit those of the scalar loops. */
typedef float v4f __attribute__((vector_size(16)));
typedef float v2f __attribute__((vector_size(8)));
typedef double v4d __attribute__((vector_size(32))); /* two registers each */
typedef int32_t v4i __attribute__((vector_size(16)));
typedef double v2d __attribute__((vector_size(16)));

/* A double sum of lanes 0..2 kept as a pair and a scalar: GCC keeps a
 * v4d accumulator in memory across a gather loop (fit_sums' o*f sum was
 * stored and loaded for every sample, 8 of its 27 x86-64 instructions
 * per sample) and converts a v4d's upper half lane by lane; a pair and
 * a scalar stay in registers. The same double additions per lane in the
 * same order as a v4d's (lane 3, always 0, is not summed). */
typedef struct {
  v2d ab;   /* lanes 0, 1 */
  double c; /* lane 2 */
} acc3d;

/* s += x converted to double, lane by lane. (Converted as a whole
 * first: a pair shuffled out of a loaded x went through memory lane by
 * lane, GCC 12.) */
static inline void acc3d_add(acc3d *s, v4f x) {
  v4d d = __builtin_convertvector(x, v4d);
  s->ab += (v2d){d[0], d[1]};
  s->c += d[2];
}

/* Lane c of s. */
static inline double acc3d_lane(const acc3d *s, int c) {
  return c < 2 ? s->ab[c] : s->c;
}

/* p[0..3]: p[3] must be readable (the next sample's L, or padding). */
static inline v4f load4(const float *p) {
  v4f v;
  memcpy(&v, p, sizeof v);
  return v;
}
/* fabsf of every lane: the sign bit cleared, as fabsf does. */
static inline v4f abs4(v4f v) {
  const v4i m = {INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX};
  return (v4f)((v4i)v & m);
}
/* One face texel as the fit wants it: Lab as floats and, when the face's
 * Lab is all integers (8-bit, as deck faces), as integers with their
 * squares: sums of integers are exact in any order, and cheaper in int32.
 * Lane 3 is 0. */
typedef struct {
  v4f f;
  v4i i, ii;
} texel;

/* The samples a sample list holds (match_ctx's list), packed in list
 * order once per list (pack_list): each one's Lab as a vector (lane 3
 * is 0) and its texel's byte offset in a face's texels, upright (at[0])
 * and turned (at[1]). Every face's fit and count then walks the list in
 * order: without the list -> sample -> texel index -> texel address
 * steps per sample and face (8 of count4's 17 x86-64 instructions per
 * sample, session 26). wlab: the Lab times channel_weight, for the
 * counts (exact: times 0.5 and 1, so the same floats as the product per
 * count, one multiplication per sample less in every face's counts).
 * of, n: the Lab (a hypothesis's, or one freed of a lift) and the list
 * length it was packed for. */
typedef struct {
  v4f *lab, *wlab;
  int *at[2];
  const float *of;
  int n;
  int whole; /* the list is every stride-th sample of a whole grid
                (free_samples): that stride, else 0 */
} packed;

/* A face's sums of f and f*f per channel (fit_sums' s[1], s[2]) over
 * the texels of a whole sample grid (face_sums_make), at WHOLE_AT(face,
 * coarse: every COARSE_STRIDE-th sample, turned). */
typedef struct {
  double f[3], ff[3];
} face_sums;
#define WHOLE_AT(f, coarse, turned) (((f) * 2 + (coarse)) * 2 + (turned))

/* The fit's sums over the packed samples at fit[0..n-1] (list positions;
 * fit NULL: the first n) (s[0..3]: o, f, f*f, o*f per channel):
 * those of the per-channel double loop, bit for bit. o and o*f in double
 * in sample order; f and f*f, when integral, in int32 per block of
 * FIT_BLOCK samples (at most 32768 * 255^2 < 2^31), else in double.
 * with_o false: s[0] is left alone (the caller knows it); with_f false:
 * so are s[1] and s[2] (face_sums). Inline with constant flags: loops
 * without tests per sample. Integer sums are exact however they are
 * grouped, so the block bounds only int32: a card's or carpet's list
 * (at most its texels, 1 per mm) is one block. (Blocks of 64 cost about
 * 15 M instructions of a 1080p frame in their loop and their int32 to
 * double sums.) */
enum { FIT_BLOCK = 32768 };
static inline __attribute__((always_inline)) void
fit_sums(const packed *pk, const texel *tpl, bool turned, const int *fit, int n,
         bool integral, bool with_o, bool with_f, double s[4][3]) {
  const char *base = (const char *)tpl;
  const int *at = pk->at[turned];
  acc3d so = {{0, 0}, 0}, sof = so, sf = so, sff = so;
  double sfi[3] = {0, 0, 0}, sffi[3] = {0, 0, 0};
  for (int q0 = 0; q0 < n; q0 += FIT_BLOCK) {
    int q1 = q0 + FIT_BLOCK < n ? q0 + FIT_BLOCK : n;
    v4i si = {0, 0, 0, 0}, sii = {0, 0, 0, 0};
    for (int i = q0; i < q1; i++) {
      int q = fit ? fit[i] : i;
      const texel *t = (const texel *)(const void *)(base + at[q]);
      v4f o = pk->lab[q], of = o * t->f;
      if (with_o) acc3d_add(&so, o);
      acc3d_add(&sof, of);
      if (with_f && integral) {
        si += t->i, sii += t->ii;
      } else if (with_f) {
        acc3d_add(&sf, t->f);
        acc3d_add(&sff, t->f * t->f);
      }
    }
    for (int c = 0; c < 3; c++) sfi[c] += si[c], sffi[c] += sii[c];
  }
  for (int c = 0; c < 3; c++) {
    if (with_o) s[0][c] = acc3d_lane(&so, c);
    if (with_f) s[1][c] = integral ? sfi[c] : acc3d_lane(&sf, c);
    if (with_f) s[2][c] = integral ? sffi[c] : acc3d_lane(&sff, c);
    s[3][c] = acc3d_lane(&sof, c);
  }
}

/* Residual of the packed sample at list position q: per channel
 * |w o - (g f + off)| (w o: pk->wlab), lanes 0..2. base: the face's
 * texels; at: the texel byte offsets of the orientation. */
static inline v4f residual4(const packed *pk, const char *base, const int *at, int q, v4f g,
                            v4f off) {
  const texel *t = (const texel *)(const void *)(base + at[q]);
  return abs4(pk->wlab[q] - (g * t->f + off));
}

/* Counts the packed samples at list positions *q.. explained, four at a
 * time while four are left before q1 (*q moves past them): the four residual vectors turned
 * into L, a, b vectors, summed (L + a) + b per sample as the scalar
 * code. */
static int count4(const packed *pk, const char *base, const int *at, int *q, int q1, v4f g,
                  v4f off, float tau) {
  const v4f t4 = {tau, tau, tau, tau};
  v4i n = {0, 0, 0, 0};
  int k = *q;
  for (; k + 4 <= q1; k += 4) {
    v4f d0 = residual4(pk, base, at, k, g, off);
    v4f d1 = residual4(pk, base, at, k + 1, g, off);
    v4f d2 = residual4(pk, base, at, k + 2, g, off);
    v4f d3 = residual4(pk, base, at, k + 3, g, off);
    /* GCC >= 12 and Clang both know __builtin_shufflevector */
    v4f a01 = __builtin_shufflevector(d0, d1, 0, 4, 1, 5); /* L0 L1 a0 a1 */
    v4f a23 = __builtin_shufflevector(d2, d3, 0, 4, 1, 5); /* L2 L3 a2 a3 */
    v4f b01 = __builtin_shufflevector(d0, d1, 2, 6, 3, 7); /* b0 b1 .. */
    v4f b23 = __builtin_shufflevector(d2, d3, 2, 6, 3, 7);
    v4f L = __builtin_shufflevector(a01, a23, 0, 1, 4, 5);
    v4f A = __builtin_shufflevector(a01, a23, 2, 3, 6, 7);
    v4f B = __builtin_shufflevector(b01, b23, 0, 1, 4, 5);
    n -= (L + A) + B < t4; /* -1 where explained */
  }
  *q = k;
  return n[0] + n[1] + n[2] + n[3];
}

/* As count4, and the list positions of the samples explained appended
 * in order to ok[*n_ok..] (*n_ok grows by the count): the same sum per sample as
 * count4 and the one-at-a-time loop, so the same samples, four at a time
 * (the full score's first count, 0.2 G of a 720p frame one sample at a
 * time with a flag per sample and a second pass over the flags). */
static void list4(const packed *pk, const char *base, const int *at, int *q, int q1, v4f g,
                  v4f off, float tau, int *ok, int *n_ok) {
  const v4f t4 = {tau, tau, tau, tau};
  int k = *q, n = *n_ok;
  for (; k + 4 <= q1; k += 4) {
    v4f d0 = residual4(pk, base, at, k, g, off);
    v4f d1 = residual4(pk, base, at, k + 1, g, off);
    v4f d2 = residual4(pk, base, at, k + 2, g, off);
    v4f d3 = residual4(pk, base, at, k + 3, g, off);
    v4f a01 = __builtin_shufflevector(d0, d1, 0, 4, 1, 5);
    v4f a23 = __builtin_shufflevector(d2, d3, 0, 4, 1, 5);
    v4f b01 = __builtin_shufflevector(d0, d1, 2, 6, 3, 7);
    v4f b23 = __builtin_shufflevector(d2, d3, 2, 6, 3, 7);
    v4f L = __builtin_shufflevector(a01, a23, 0, 1, 4, 5);
    v4f A = __builtin_shufflevector(a01, a23, 2, 3, 6, 7);
    v4f B = __builtin_shufflevector(b01, b23, 0, 1, 4, 5);
    v4i yes = (L + A) + B < t4; /* -1 where explained */
    /* appended without branches: each slot is written, kept when explained */
    ok[n] = k, n -= yes[0];
    ok[n] = k + 1, n -= yes[1];
    ok[n] = k + 2, n -= yes[2];
    ok[n] = k + 3, n -= yes[3];
  }
  *q = k;
  *n_ok = n;
}

#define L_GAIN_MIN VIS__L_GAIN_MIN /* the lowest gain of L */
#define L_OFFSET_MAX VIS__L_OFFSET_MAX
#define WASHED_OFFSET_MAX 128.0 /* washed_card: a glare half way to white */
#define CHROMA_MIN VIS__CHROMA_MIN /* the lowest gain of a and b: light changes colour little */

enum { FIT_BOUNDED, FIT_DIM, FIT_WASHED }; /* fit_and_count's modes */

/* Fits gain/offset per channel over the packed samples at list positions
 * fit[0..n_fit-1] (fit NULL: the first n_fit), then counts the first
 * n_mask packed samples the fitted face explains and lists them in ok[]
 * (list positions, increasing): no tests per sample in the inner loops.
 * turned: the face turned (pk->at[1]); integral: the face's Lab is all
 * integers; mode FIT_DIM: a and b's gains may fall to VIS__DIM_CHROMA times L's
 * (dim_carpet), FIT_WASHED: that and L's offset up to WASHED_OFFSET_MAX
 * (washed_card); so_fit: sample_sums of the fit list, or NULL. ok NULL: count
 * only. Either way four samples at a time. give_up >= 0: stop and return
 * -1 as soon as the count can no longer exceed give_up (ok[] is then
 * incomplete). ok[0..n_mask) may be written past the count (list4
 * writes each slot before it knows whether to keep it). sums: the fit's
 * sums (fit_sums) are left there, or NULL when the caller has no use for
 * them. fs (or NULL): the face's f and f*f sums over the list's texels,
 * given with fit NULL and n_fit the whole list (fit_face). */
enum { COUNT_BLOCK = 64 };
static int fit_and_count(const packed *pk, const texel *tpl, bool integral,
                         const face_sums *fs, int mode,
                         bool turned, const int *fit, int n_fit, const double *so_fit,
                         int n_mask, double tau, double gain[3], double offset[3], int *ok,
                         int give_up, double sums[4][3]) {
  double own_sums[4][3];
  if (!sums) sums = own_sums;
  /* so_fit is given for the first fit, over the whole list (fit NULL) */
  if (fs && !fit) { /* the face's f sums known (face_sums_make) */
    if (so_fit) {
      memcpy(sums[0], so_fit, sizeof sums[0]);
      fit_sums(pk, tpl, turned, NULL, n_fit, true, false, false, sums);
    } else {
      fit_sums(pk, tpl, turned, NULL, n_fit, true, true, false, sums);
    }
    memcpy(sums[1], fs->f, sizeof sums[1]);
    memcpy(sums[2], fs->ff, sizeof sums[2]);
  } else if (so_fit && !fit) {
    memcpy(sums[0], so_fit, sizeof sums[0]);
    if (integral)
      fit_sums(pk, tpl, turned, NULL, n_fit, true, false, true, sums);
    else
      fit_sums(pk, tpl, turned, NULL, n_fit, false, false, true, sums);
  } else if (!fit) {
    if (integral)
      fit_sums(pk, tpl, turned, NULL, n_fit, true, true, true, sums);
    else
      fit_sums(pk, tpl, turned, NULL, n_fit, false, true, true, sums);
  } else if (integral) {
    fit_sums(pk, tpl, turned, fit, n_fit, true, true, true, sums);
  } else {
    fit_sums(pk, tpl, turned, fit, n_fit, false, true, true, sums);
  }
  vis__light_fit((const double(*)[3])sums, n_fit > 1 ? n_fit : 1, mode != FIT_BOUNDED,
                 mode == FIT_WASHED ? WASHED_OFFSET_MAX : L_OFFSET_MAX, gain, offset);
  /* residual = |w0 o0 - (w0 g0 f0 + w0 off0)| + |o1 - (g1 f1 + off1)| + ...
   * (w o packed: pk->wlab) */
  const v4f g = {(float)gain[0] * channel_weight[0], (float)gain[1], (float)gain[2], 0};
  const v4f off = {(float)offset[0] * channel_weight[0], (float)offset[1],
                   (float)offset[2], 0};
  const float ftau = (float)tau;
  const char *base = (const char *)tpl;
  const int *at = pk->at[turned];
  int count = 0;
  const int block = give_up >= 0 ? COUNT_BLOCK : n_mask;
  for (int q0 = 0; q0 < n_mask; q0 += block) {
    if (give_up >= 0 && count + (n_mask - q0) <= give_up) return -1;
    int q1 = q0 + block < n_mask ? q0 + block : n_mask, q = q0;
    if (ok)
      list4(pk, base, at, &q, q1, g, off, ftau, ok, &count);
    else
      count += count4(pk, base, at, &q, q1, g, off, ftau);
    for (; q < q1; q++) {
      v4f d = residual4(pk, base, at, q, g, off);
      bool yes = d[0] + d[1] + d[2] < ftau;
      if (ok && yes) ok[count] = q;
      count += yes;
    }
  }
  return count;
}

typedef struct {
  const vis__table *t;
  const vis__template *tpl;
  int n_tpl;
  const vis__match_params *mp;
  const texel *const *tex; /* per template: its texels */
  const bool *integral;    /* per template: its Lab is all integers */
  const face_sums *whole;  /* per template, stride and turn: face_sums_make's */
  const int16_t *claim; /* per table pixel: accepted object or -1 */
  const bool *used;     /* per template: its carpet is taken */
  int *list, *ok;       /* scratch: sample indices (ok: list positions, fit_face) */
  packed *pk;           /* scratch: list's samples packed (pack_list) */
  int16_t self;         /* claims at or above self count as free (logging) */
} match_ctx;

static inline bool is_free(const match_ctx *m, int pix) {
  return claim_free(m->claim, (uint16_t)m->self, pix);
}

/* Frees h and forgets that the list was packed from its Lab: fit_face
 * packs again only when the Lab's address or the list length differ,
 * and a hypothesis sampled later may get the same address and count
 * for other samples. */
static void release_hyp(const match_ctx *m, hyp *h) {
  if (m->pk->of == h->lab) m->pk->of = NULL;
  free_hyp(h);
}

/* Packs the samples m->list[0..valid) of h (h->lab: its own Lab or one
 * freed of a lift) into m->pk, for every face's fit and count on that
 * list. so (or NULL): their Lab summed in list order, as fit_sums sums
 * o: the same double additions per lane in the same order. */
static void pack_list(const match_ctx *m, const hyp *h, int valid, double so[3]) {
  packed *pk = m->pk;
  const v4f w = {channel_weight[0], channel_weight[1], channel_weight[2], 0};
  acc3d s = {{0, 0}, 0};
  for (int q = 0; q < valid; q++) {
    int k = m->list[q];
    v4f o = load4(h->lab + 3 * k);
    o[3] = 0;
    pk->lab[q] = o;
    pk->wlab[q] = w * o;
    pk->at[0][q] = h->tix[k] * (int)sizeof(texel);
    pk->at[1][q] = h->tixf[k] * (int)sizeof(texel);
    acc3d_add(&s, o);
  }
  pk->of = h->lab;
  pk->n = valid;
  pk->whole = 0;
  if (so)
    for (int c = 0; c < 3; c++) so[c] = acc3d_lane(&s, c);
}

/* Lists in m->list the samples not claimed yet (of every stride-th one)
 * and packs them (pack_list); returns how many. so: their Lab summed,
 * for every face's fit on that list. When h was sampled whole on the
 * matcher's grid and none of them is claimed, the list's texels are
 * those face_sums_make summed (m->pk->whole). */
static int free_samples(const match_ctx *m, const hyp *h, int stride, double so[3]) {
  int valid = 0, *list = m->list;
  const int16_t *claim = m->claim; /* in locals: list's stores could alias m's fields */
  uint16_t self = (uint16_t)m->self;
  for (int k = 0; k < h->n; k += stride)
    if (claim_free(claim, self, h->pix[k])) list[valid++] = k;
  pack_list(m, h, valid, so);
  if (h->whole && h->step == m->mp->step && (stride == 1 || stride == COARSE_STRIDE) &&
      valid == (h->n + stride - 1) / stride)
    m->pk->whole = stride;
  return valid;
}

/* How many of h's samples are not claimed yet (free_samples's, all of
 * them, without listing or packing them). */
static int free_count(const match_ctx *m, const hyp *h) {
  int n_free = 0;
  const int16_t *claim = m->claim;
  uint16_t self = (uint16_t)m->self;
  for (int k = 0; k < h->n; k++) n_free += claim_free(claim, self, h->pix[k]);
  return n_free;
}

/* Face f (turned or not) fitted to the samples free_samples() listed
 * (valid of them), and the count it explains; gain and offset: its fit.
 * coarse: a single fit; else fitted again on the samples the first fit
 * explains (what lies on top is an outlier). mode: fit_and_count's.
 * The last count gives up (-1) once it can no longer exceed give_up.
 * sums: the first fit's sums, over all valid samples (fit_sums), or NULL. */
static int fit_face(const match_ctx *m, const hyp *h, int valid, const double so[3], int f,
                    bool flipped, bool coarse, int mode, int give_up, double gain[3],
                    double offset[3], double sums[4][3]) {
  const texel *tpl = m->tex[f];
  bool integral = m->integral[f];
  /* the list is packed where it is made (free_samples) or given another
   * Lab (lift_all, refit_under); h's own Lab again after a lifted one
   * (glare_reference) is packed here */
  if (m->pk->of != h->lab || m->pk->n != valid) pack_list(m, h, valid, NULL);
  const face_sums *fs = NULL;
  if (m->pk->whole && integral && m->tpl[f].w == h->tw && m->tpl[f].h == h->th)
    fs = &m->whole[WHOLE_AT(f, m->pk->whole == COARSE_STRIDE, flipped)];
  int n1 = fit_and_count(m->pk, tpl, integral, fs, mode, flipped, NULL, valid, so, valid,
                         m->mp->tau, gain, offset, coarse ? NULL : m->ok,
                         coarse ? give_up : -1, sums);
  if (n1 >= 8 && !coarse)
    n1 = fit_and_count(m->pk, tpl, integral, NULL, mode, flipped, m->ok, n1, NULL, valid,
                       m->mp->tau, gain, offset, NULL, give_up, NULL);
  return n1;
}

/* A carpet in dim light: the matcher's fit holds a and b's gains at
 * CHROMA_MIN or more (light changes colour little; card faces tell
 * palace from lamp and the adventures apart by it), but light that dims
 * or veils a carpet pales its colours with its L (Lab's a and b scale
 * with L when the light scales; the photo's cards show it, their a and b
 * gains per unit of their gain of L 0.85-0.98 when fitted without
 * bounds, d93169b). On hard scenes carpets fully visible were missed
 * with their faces at that bound: red in DEV hard 3112 and 3180 (0.64
 * of it explained at a and b 0.80, 0.98 with a 0.43 and b 0.39 at a
 * gain of L of 0.50), yellow in 3180. So a carpet's face fitted at the
 * bound with a gain of L under it is fitted again with a and b free down
 * to vis__chroma_floor (VIS__DIM_CHROMA of its gain of L, d93169b's CHROMA_LO), and
 * that fit is kept only when
 * - half of the carpet or more shows, or DIM_STRIP_MIN samples of it (a
 *   face with pale colours fits a few samples of anything; dim_shows),
 * - it explains DIM_MIN_SCORE (CLEAR_SCORE) of what shows or more, and
 *   more than the bounded fit: the dim carpets' faces 0.98-1.00 of them,
 *   faces paled onto cloth or a dim card 0.75-0.92 (3003, 3025), and
 * - the photo's colours follow the face's, dimmed: a and b's gain fitted
 *   as one (joint_chroma, unbounded) over the floor. The real dim
 *   carpets above 0.42-0.68 (floor 0.30-0.36); a face fitted onto
 *   something of other colours has its colours squashed to nothing,
 *   while its own a or b gain may stay over the floor: the yellow
 *   carpet's face on a dim desert (hard watch game 4:697, layout frame
 *   163: 0.93 explained, a 0.45, b 0.30, together 0.10) or on cards of
 *   hard 3112 (0.02-0.05).
 * Without the three (a and b's floor the gain of L, session 19) a
 * carpet's face paled onto cream cloth came before the real carpet of
 * its colour: DEV hard 3000-3099 exact 77 -> 72 %. Cards keep the bound.
 * Only a face whose fit of L sits at its own bounds (gain L_GAIN_MIN or
 * offset L_OFFSET_MAX) is refitted: light the fit of L cannot follow (a
 * lamp's glare lifts toward white, gain down and offset up, and pales a
 * and b as much; or a dark frame). The carpets it found were all so
 * (hard 3072 3112 3128 3180: offset 60, gain 0.50-0.60). A blue carpet in
 * plain light (the watch demo, frame 86: gain of L 0.72, offset 24) has a
 * at the bound only because the blue face's a hardly varies; refitted, a
 * paled to 0.53 for 5 more samples of 964 (0.97 explained at the bound),
 * and the paler face turned the stacking vote against the adventure a it
 * lies under: round 1 flight 3 was "corrected" to blue on card 8. */
#define DIM_MIN_SCORE 0.9
#define DIM_STRIP_MIN 100 /* samples (4 cm^2, as CLEAR_MIN) */

/* Enough of a carpet shows for the dim refit (dim_carpet): half of it,
 * or DIM_STRIP_MIN samples (stride: the count's, coarse or not). A strip
 * of a carpet under others in a lamp's glare is fitted at both of L's
 * bounds as a whole one is, and there its face explained 0.52-0.84 of
 * what shows at its true pose (HUNT hard 3963 3939 3894 3764: blue,
 * blue, blue, red, 20-44 % showing, 235-496 samples, glare 0.42-0.48),
 * dimmed 0.91-0.98 (a and b 0.30-0.48, joint_chroma 0.39-0.46 over
 * floors of 0.30-0.31). Two strips accepted bounded (3957's yellow, 294
 * of 299; held-out 700046's green, 425 of 447) were taken back by
 * analyze as faded (gain 0.50 under photos at 0.64 and 0.76: its
 * faded_in_photo), which a dim refit is not. The faded phantoms that
 * the half kept out are slivers of 50-70 samples (analyze.c
 * faded_sliver's); the refit's own tests (DIM_MIN_SCORE, joint_chroma)
 * hold for strips as for whole carpets. */
static bool dim_shows(int valid, int total, int stride) {
  return 2 * valid >= total || stride * valid >= DIM_STRIP_MIN;
}
static bool dim_carpet(const match_ctx *m, int f, const double gain[3], const double offset[3]) {
  bool l_at_bound = gain[0] <= L_GAIN_MIN + 0.005 || offset[0] >= L_OFFSET_MAX - 0.05;
  return m->tpl[f].kind != VIS__FACE_TYPE && gain[0] < CHROMA_MIN && l_at_bound &&
         (gain[1] <= CHROMA_MIN || gain[2] <= CHROMA_MIN);
}

/* A lamp's glare past g 0.24 (L's offset 60 is 255 g) is more than L's
 * offset bound can follow, for a carpet as for a card (washed_card). So
 * a carpet's face held at both of L's bounds (gain L_GAIN_MIN and
 * offset L_OFFSET_MAX) is refitted as a washed card is (FIT_WASHED: L's
 * offset up to WASHED_OFFSET_MAX), on the dim refit's tests (refit_light).
 * Refitted dim, the offset held at 60, a stack of three carpets under a
 * glare of 0.48 was missed whole, and the two cards under it (CHECK hard
 * 3249: the yellow carpet on top, fully visible, 0.45 of it explained at
 * its searched pose; washed 0.99 at gain 0.50 and offset 112, its red
 * and green strips 0.96-0.98); so were 3234's blue carpet, on top and
 * fully visible under a glare of 0.48 (washed 1.000 at offset 112.5),
 * and the red beneath it (0.98 of its strip). At the offset's bound
 * alone, a face fitted washed passed for another carpet's strip away
 * from any glare (DEV hard 3040: the red carpet's face, 347 of 356
 * samples of the yellow's strip). */
/* L's fit at its offset bound with a gain of gain_max or less: a glare
 * (glared_carpet at L_GAIN_MIN; washed_card's gain bound may be wider). */
static bool l_held_by_glare(const double gain[3], const double offset[3], double gain_max) {
  return gain[0] <= gain_max && offset[0] >= L_OFFSET_MAX - 0.05;
}
static bool glared_carpet(const vis__object *o) {
  return l_held_by_glare(o->gain, o->offset, L_GAIN_MIN + 0.005);
}

/* How much of face f's colours shows at h's valid free samples: one
 * gain for a and b together (least squares, each about its mean), as the
 * photo's colours are measured (card_colours). */
static double joint_chroma(const match_ctx *m, const hyp *h, int valid, int f, bool flipped) {
  const texel *tpl = m->tex[f];
  const int *tix = flipped ? h->tixf : h->tix;
  double sx[2] = {0, 0}, sy[2] = {0, 0}, sxx = 0, sxy = 0;
  for (int q = 0; q < valid; q++) {
    int k = m->list[q];
    for (int c = 0; c < 2; c++) {
      double x = tpl[tix[k]].f[1 + c], y = h->lab[3 * k + 1 + c];
      sx[c] += x, sy[c] += y, sxx += x * x, sxy += x * y;
    }
  }
  double n = valid > 0 ? valid : 1;
  for (int c = 0; c < 2; c++) sxx -= sx[c] * sx[c] / n, sxy -= sx[c] * sy[c] / n;
  return sxx > 0 ? sxy / sxx : 0;
}

/* A card washed out by a lamp's glare: its face's fit of L at both its
 * bounds (gain L_GAIN_MIN and offset L_OFFSET_MAX). A glare lifts each
 * pixel toward white by g (v -> v + g (white - v)): L's gain 1 - g and
 * offset 255 g, a and b's gain 1 - g about grey. Past g 0.25 no face fits
 * within the matcher's bounds, every face of the deck sits at them, and
 * the brightest (the bazaars, the desert, adventure e) explain most:
 * fully visible cards were refused as such faces or taken as them
 * (session 23, DEV hard 3038 3039 3044 3097: a treasure, a lamp and two
 * adventures, the card's own face 0.39-0.79 of it against a camel
 * bazaar's, desert's or adventure e's 0.70-0.83; 3163 3165 3089 palaces
 * and a lamp). So such a face is fitted again with L's offset up to
 * WASHED_OFFSET_MAX (g 0.5) and a and b's gains down with L's
 * (vis__chroma_floor), when half of the card or more shows, and kept on the
 * dim carpet's tests (refit_light): the real
 * cards then explain 0.93-1.00 at offsets 67-112 and a and b gains
 * 0.30-0.65; without those tests a camel bazaar's face fitted onto cream
 * cloth (0.65 explained, a and b squashed to the floor) was accepted
 * (hard 3009). With its freedom a wrong look-alike fits a strip: on DEV
 * normal an adventure d 18 % visible became an adventure e (3062) and a
 * carpet bazaar 21 % visible a desert (3097), both washed, so only a
 * card half or more of which shows is refitted (the dim carpet's rule). */
static bool washed_card(const match_ctx *m, int f, const double gain[3],
                        const double offset[3], double gain_max) {
  return m->tpl[f].kind == VIS__FACE_TYPE && l_held_by_glare(gain, offset, gain_max);
}

/* washed_card's gain bound: strict (STRICT_WASHED_GAIN, at L_GAIN_MIN) and,
 * where the matcher picks a hypothesis's face (rank_faces_of, score_hyp),
 * WASHED_GAIN. Held at the offset bound, a washed card's own face can fit
 * with a gain a hair over L_GAIN_MIN (held-out 1400070: a treasure under a
 * glare at 0.51) and so was never refitted washed, while a brighter
 * look-alike (a camel bazaar) won the vote where the two differ, 615 : 551.
 * The type settling keeps the strict bound: with WASHED_GAIN there too a
 * palace was taken for a lamp fitted washed (DEV hard 3073). */
#define STRICT_WASHED_GAIN (L_GAIN_MIN + 0.005)
#define WASHED_GAIN 0.55

/* o's face was fitted washed: only FIT_WASHED (washed_card's refit, and a
 * glared carpet's) lets L's offset past L_OFFSET_MAX, so an offset beyond
 * it says so. */
static bool fitted_washed(const vis__object *o) {
  return fabs(o->offset[0]) > L_OFFSET_MAX + 0.05;
}

/* joint_chroma's verdict known before the refit, from the bounded fit's
 * sums over the same valid samples (fit_face's): true when it is sure to
 * be at most vis__chroma_floor of any gain of L + 0.01, so that refit_light
 * would keep nothing whatever the refit explains. Of the dim and washed
 * refits of a 1080p frame (scripts/callgrind-bench's scene) 28 990 of
 * 29 456 were so (the face's colours squashed to nothing: a look-alike
 * under a glare, a carpet's face over a card), 466 between, none over
 * CHROMA_MIN; the refits cost 0.49 G of its 6.2 G. Exactly as
 * joint_chroma: of an integral face the sums of a, b and of their
 * squares are integers, exact in any order (fit_sums' own), the photo's
 * a and b sums are so's (the same sums in the same order); only the
 * product sum differs: fit_sums multiplies in float, each product
 * within 2^-24 of joint_chroma's exact one (8-bit face times a float),
 * all of them positive (Lab in 0..255; not so freed of a lift: h->freed
 * is left to joint_chroma), so joint_chroma's sum lies
 * within 2^-24 of it, plus the double sums' rounding: the bound below
 * (2^-20 of the terms) holds far beyond any card's samples, and what
 * is not sure is left to the refit and joint_chroma as before. */
static bool chroma_surely_pale(const match_ctx *m, const hyp *h, int f, int valid,
                               double s[4][3]) {
  if (!m->integral[f] || h->freed) return false;
  double n = valid > 0 ? valid : 1;
  double sxx = s[2][1] + s[2][2], sxy = s[3][1] + s[3][2]; /* as joint_chroma */
  double err = sxy;
  for (int c = 0; c < 2; c++) {
    double cx = s[1][1 + c] * s[1][1 + c] / n, cxy = s[1][1 + c] * s[0][1 + c] / n;
    sxx -= cx, sxy -= cxy, err += cxy;
  }
  if (sxx <= 0) return true; /* joint_chroma 0 */
  double bar = vis__chroma_floor(L_GAIN_MIN) + 0.01 - 1e-9; /* a gain of L >= L_GAIN_MIN */
  return sxy + ldexp(err, -20) < bar * sxx;
}

/* Face o->face fitted again to the valid samples in light the matcher's
 * bounds cannot follow (mode FIT_DIM: dim_carpet; FIT_WASHED:
 * washed_card): when that fit explains more than bar (the bounded fit's
 * count, or give_up) and DIM_MIN_SCORE of what shows, and the photo's a
 * and b follow the face's (joint_chroma over vis__chroma_floor), its count,
 * gain and offset go to o; else o stays as it is. bounded: the bounded
 * fit's first sums (chroma_surely_pale). */
static void refit_light(const match_ctx *m, const hyp *h, int valid, const double so[3],
                        bool coarse, int bar, int mode, double bounded[4][3], vis__object *o) {
  if (chroma_surely_pale(m, h, o->face, valid, bounded)) return;
  int need = (int)ceil(DIM_MIN_SCORE * valid) - 1;
  bar = bar > need ? bar : need;
  double gain[3], offset[3], sums[4][3];
  int n = fit_face(m, h, valid, so, o->face, o->flipped, coarse, mode, bar, gain, offset, sums);
  if (n <= bar ||
      joint_chroma(m, h, valid, o->face, o->flipped) <= vis__chroma_floor(gain[0]) + 0.01)
    return;
  o->explained = n;
  memcpy(o->gain, gain, sizeof gain);
  memcpy(o->offset, offset, sizeof offset);
}

/* Scores one face in one orientation on the samples free_samples()
 * flagged (valid of them). coarse: a single fit on every 4th sample (for
 * ranking faces; free_samples was called with that stride). The last
 * count gives up (explained -1) once it can no longer come to more than
 * give_up samples (-1: never). A carpet's face in dim light is fitted
 * again (dim_carpet). */
static void score_face_washed(const match_ctx *m, const hyp *h, int valid, const double so[3],
                              int f, bool flipped, bool coarse, int give_up,
                              double washed_gain, vis__object *o) {
  memset(o, 0, sizeof *o);
  o->r_px = h->r;
  o->face = f;
  o->flipped = flipped;
  o->valid = valid;
  int stride = coarse ? COARSE_STRIDE : 1;
  /* h->hidden: sample_unhidden's, scored at stride 1 only */
  o->total = (h->n + h->hidden + stride - 1) / stride;
  o->second_face = -1;
  if (valid < 8) return;
  double sums[4][3];
  o->explained = fit_face(m, h, valid, so, f, flipped, coarse, FIT_BOUNDED, give_up, o->gain,
                          o->offset, sums);
  int bar = give_up > o->explained ? give_up : o->explained;
  if (dim_carpet(m, f, o->gain, o->offset) && dim_shows(valid, o->total, stride))
    refit_light(m, h, valid, so, coarse, bar, glared_carpet(o) ? FIT_WASHED : FIT_DIM, sums, o);
  else if (washed_card(m, f, o->gain, o->offset, washed_gain) && 2 * valid >= o->total)
    refit_light(m, h, valid, so, coarse, bar, FIT_WASHED, sums, o);
  if (o->explained < 0) {
    o->explained = -1;
    return;
  }
  o->score = (double)o->explained / valid;
}

/* score_face_washed with washed_card's strict gain bound. */
static void score_face(const match_ctx *m, const hyp *h, int valid, const double so[3],
                       int f, bool flipped, bool coarse, int give_up, vis__object *o) {
  score_face_washed(m, h, valid, so, f, flipped, coarse, give_up, STRICT_WASHED_GAIN, o);
}

/* Ranks every face of the hypothesis's size coarsely and keeps the best
 * few (face, turn) pairs as its candidates. Once HYP_CANDS are kept, a
 * face must explain more than the last of them to get in (equal stays
 * out: earlier faces win ties), so its count stops as soon as it cannot. */
/* A hypothesis with fewer free samples than an object needs explained
 * (min_explained: a strip, asked by tiny_sliver_shows and
 * tiny_carpet_strip_shows) is ranked on all of them: a quarter of a
 * strip of 28 samples is 7, where every face's cream frame or white
 * border ties and the earlier faces (the cards') win the ties (HUNT easy
 * 3754: the green carpet's strip at its true pose, 28 of 28, had four
 * card faces as candidates, the best 19 of 28). From 100 samples down
 * (tried first), DEV easy 3095 lost its lamp, 5 % visible: a carpet
 * bazaar's face ranked on all 52 samples of a strip beside it explained
 * 47, one more than the lamp's hypothesis (46 of 46), and went first. */
static void rank_faces_of(const match_ctx *m, hyp *h, bool untaken_carpets) {
  h->n_cand = 0;
  double so[3];
  /* counted before anything is listed and packed: the list is made once,
   * on every sample or on every COARSE_STRIDE-th */
  bool coarse = free_count(m, h) >= m->mp->min_explained;
  int valid = free_samples(m, h, coarse ? COARSE_STRIDE : 1, so);
  for (int f = 0; f < m->n_tpl; f++) {
    const vis__template *tp = &m->tpl[f];
    if (tp->w != h->tw || tp->h != h->th) continue;
    if ((h->cards_out || untaken_carpets) && tp->kind == VIS__FACE_TYPE) continue;
    if (untaken_carpets && m->used[f]) continue;
    for (int fl = 0; fl < 2; fl++) {
      vis__object o;
      int give_up = h->n_cand == HYP_CANDS ? h->cand_expl[HYP_CANDS - 1] : -1;
      score_face_washed(m, h, valid, so, f, fl, coarse, give_up, WASHED_GAIN, &o);
      if (o.explained < 0) continue;
      int pos = h->n_cand < HYP_CANDS ? h->n_cand++ : HYP_CANDS;
      while (pos > 0 && h->cand_expl[pos - 1] < o.explained) {
        if (pos < HYP_CANDS) {
          h->cand_face[pos] = h->cand_face[pos - 1];
          h->cand_flip[pos] = h->cand_flip[pos - 1];
          h->cand_expl[pos] = h->cand_expl[pos - 1];
        }
        pos--;
      }
      if (pos < HYP_CANDS) {
        h->cand_face[pos] = f;
        h->cand_flip[pos] = (bool)fl;
        h->cand_expl[pos] = o.explained;
      }
    }
  }
}

static void rank_faces(const match_ctx *m, hyp *h) { rank_faces_of(m, h, false); }

/* A lamp's glare lifts each pixel toward white by a smooth, spot-shaped
 * amount g (v -> v + g (white - v)), strongest at the spot: one gain and
 * offset per face cannot follow it, and under it a brighter look-alike
 * fits better than the card's own face (tuning hard 3011, 3062, 3080: a
 * palace seen as an adventure; 3088: a desert as a camel bazaar). The
 * lift is modelled as a field of unknown shape over the card, one g >= 0
 * per cell (frame_lift), the same for every face that meets the others
 * (settle_type). */
enum { LIFT_CELLS_X = VIS__LIFT_CELLS_X, LIFT_CELLS_Y = VIS__LIFT_CELLS_Y };
enum { LIFT_CELLS = LIFT_CELLS_X * LIFT_CELLS_Y };
enum { LIFT_BINS = 64 }; /* the median's histogram: lifts -0.28 .. 1 */
#define LIFT_BIN 0.02
#define LIFT_MAX 0.9       /* a cell lifted more shows nearly nothing */
#define LIFT_MIN_ROOM 20.0 /* L of the face this far under white at least */
#define LIFT_MIN_FRAME 20  /* frame samples a cell needs for its own lift */
typedef struct {
  double g[LIFT_CELLS];
} lift_field;
static const double lift_white[3] = {255, 128, 128};

static int lift_cell(const hyp *h, int k) {
  int i = h->idx[k] % h->tw, j = h->idx[k] / h->tw;
  return (j * LIFT_CELLS_Y / h->th) * LIFT_CELLS_X + i * LIFT_CELLS_X / h->tw;
}

/* lf's lift at sample k of h (NULL: none). */
static double lift_at(const lift_field *lf, const hyp *h, int k) {
  return lf ? lf->g[lift_cell(h, k)] : 0;
}

/* The fitted face o's Lab at sample k (of h): its texel's, lifted
 * toward white by g (0: no lift). One function that every caller calls
 * once per sample: a wrapper that looked the lift up and called it cost
 * about 1 % of a photo's instructions (gcc did not inline it), and the
 * call itself did too (3.2 M calls of 36 instructions in a 720p frame),
 * so it is inlined (-std=c11 contracts no a * b + c into an FMA, so the
 * arithmetic is the same inlined or not). */
static inline __attribute__((always_inline)) void
predict(const match_ctx *m, const hyp *h, const vis__object *o, int k, double g, double p[3]) {
  int N = h->tw * h->th, i = o->flipped ? N - 1 - h->idx[k] : h->idx[k];
  const float *f = m->tpl[o->face].lab + 3 * i;
  for (int c = 0; c < 3; c++) p[c] = o->gain[c] * f[c] + o->offset[c];
  if (g == 0) return;
  for (int c = 0; c < 3; c++) p[c] += g * (lift_white[c] - p[c]);
}


/* Two faces of one family (the five adventures) share most of their
 * print: decide between them only where they differ. Returns how many of
 * those samples each explains; *n_disc the number of such samples. */
static void discriminate(const match_ctx *m, const hyp *h, const vis__object *a,
                         const vis__object *b, const lift_field *la, const lift_field *lb,
                         int *na, int *nb, int *n_disc) {
  *na = *nb = *n_disc = 0;
  for (int k = 0; k < h->n; k++) {
    if (!is_free(m, h->pix[k])) continue;
    double d = 0, ra = 0, rb = 0, pa[3], pb[3];
    predict(m, h, a, k, lift_at(la, h, k), pa);
    predict(m, h, b, k, lift_at(lb, h, k), pb);
    for (int c = 0; c < 3; c++) {
      d += channel_weight[c] * fabs(pa[c] - pb[c]);
      ra += channel_weight[c] * fabs(h->lab[3 * k + c] - pa[c]);
      rb += channel_weight[c] * fabs(h->lab[3 * k + c] - pb[c]);
    }
    if (d < 0.4 * m->mp->tau) continue; /* both faces look alike here */
    (*n_disc)++;
    *na += ra < rb;
    *nb += rb < ra;
  }
}

/* discriminate without lifts, one sample's channels as one vector of
 * doubles (v4d; lane 3 weighted 0): per lane the same double operations
 * as discriminate's loop, and its sums in its order ((0 + L) + a) + b,
 * so the same counts. */
typedef long long v4l __attribute__((vector_size(32)));
#define ABSD4(v) ((v4d)((v4l)(v) & abs_mask)) /* fabs of every lane (a macro: no v4d ABI) */
static void discriminate_plain(const match_ctx *m, const hyp *h, int valid,
                               const vis__object *a, const vis__object *b, int *na, int *nb,
                               int *n_disc) {
  *na = *nb = *n_disc = 0;
  const v4l abs_mask = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
  const v4d w = {channel_weight[0], channel_weight[1], channel_weight[2], 0};
  const v4d ga = {a->gain[0], a->gain[1], a->gain[2], 0};
  const v4d oa = {a->offset[0], a->offset[1], a->offset[2], 0};
  const v4d gb = {b->gain[0], b->gain[1], b->gain[2], 0};
  const v4d ob = {b->offset[0], b->offset[1], b->offset[2], 0};
  const texel *ta = m->tex[a->face], *tb = m->tex[b->face];
  const int *xa = a->flipped ? h->tixf : h->tix, *xb = b->flipped ? h->tixf : h->tix;
  double bar = 0.4 * m->mp->tau;
  for (int q = 0; q < valid; q++) {
    int k = m->list[q];
    v4d pa = ga * __builtin_convertvector(ta[xa[k]].f, v4d) + oa;
    v4d pb = gb * __builtin_convertvector(tb[xb[k]].f, v4d) + ob;
    v4d td = w * ABSD4(pa - pb);
    double d = (td[0] + td[1]) + td[2];
    if (d < bar) continue; /* both faces look alike here */
    v4d o = __builtin_convertvector(load4(h->lab + 3 * k), v4d);
    v4d ta4 = w * ABSD4(o - pa), tb4 = w * ABSD4(o - pb);
    double ra = (ta4[0] + ta4[1]) + ta4[2], rb = (tb4[0] + tb4[1]) + tb4[2];
    (*n_disc)++;
    *na += ra < rb;
    *nb += rb < ra;
  }
}

/* Where two look-alikes differ nowhere by much (a strip along a card's
 * edge: border, background print), the finer print still tells: each
 * face's fitted residual summed over the free samples, every sample's
 * capped at tau (something else lying there is no evidence). */
static int residual_sums(const match_ctx *m, const hyp *h, const vis__object *a,
                         const vis__object *b, const lift_field *la, const lift_field *lb,
                         double *sa, double *sb) {
  double tau = m->mp->tau;
  *sa = *sb = 0;
  int n = 0;
  for (int k = 0; k < h->n; k++) {
    if (!is_free(m, h->pix[k])) continue;
    n++;
    double ra = 0, rb = 0, pa[3], pb[3];
    predict(m, h, a, k, lift_at(la, h, k), pa);
    predict(m, h, b, k, lift_at(lb, h, k), pb);
    for (int c = 0; c < 3; c++) {
      ra += channel_weight[c] * fabs(h->lab[3 * k + c] - pa[c]);
      rb += channel_weight[c] * fabs(h->lab[3 * k + c] - pb[c]);
    }
    *sa += fmin(ra, tau);
    *sb += fmin(rb, tau);
  }
  return n;
}

/* How many of the samples free_samples listed (valid of them) lie in the
 * object mask. A mask whose rows are packed (stride = width, as
 * tp_image_alloc makes them) is read at the pixel index itself: the
 * division and remainder per sample cost about 20 M instructions of a
 * 1080p frame. */
static int count_in_object(const match_ctx *m, const hyp *h, int valid) {
  const tp_image *obj = &m->t->object;
  int W = m->t->lab.width, n = 0;
  if (obj->stride == W) {
    for (int q = 0; q < valid; q++) n += obj->data[h->pix[m->list[q]]] != 0;
    return n;
  }
  for (int q = 0; q < valid; q++) {
    int pix = h->pix[m->list[q]];
    n += tp_image_row(obj, pix / W)[pix % W] != 0;
  }
  return n;
}

/* Best candidate face (and the runner-up of another kind/index). */
static void score_hyp(const match_ctx *m, hyp *h) {
  vis__object best = {0}, runner = {0};
  best.face = -1;
  runner.face = -1;
  int second = 0, second_face = -1;
  double so[3];
  int valid = free_samples(m, h, 1, so);
  h->free_n = valid;
  h->free_object = count_in_object(m, h, valid);
  for (int c = 0; c < h->n_cand; c++) {
    int f = h->cand_face[c];
    if (m->used[f]) continue;
    /* a face that explains no more than this changes neither the best
     * nor the runner-up (strict comparisons below): its count may stop */
    int give_up = best.face < 0                                  ? -1
                  : m->tpl[best.face].index == m->tpl[f].index ? best.explained
                                                                 : second;
    vis__object o;
    score_face_washed(m, h, valid, so, f, h->cand_flip[c], false, give_up, WASHED_GAIN, &o);
    if (o.explained < 0) continue;
    if (best.face < 0 || o.explained > best.explained) {
      if (best.face >= 0 && m->tpl[best.face].index != m->tpl[f].index) {
        second = best.explained;
        second_face = best.face;
        runner = best;
      }
      best = o;
    } else if (o.explained > second && m->tpl[best.face].index != m->tpl[f].index) {
      second = o.explained;
      second_face = f;
      runner = o;
    }
  }
  best.disc_samples = -1;
  if (runner.face >= 0 && m->tpl[best.face].kind == VIS__FACE_TYPE &&
      m->tpl[runner.face].kind == VIS__FACE_TYPE &&
      runner.explained > VIS__DISC_RUNNER_SHARE * best.explained) {
    int na, nb, nd;
    discriminate_plain(m, h, valid, &best, &runner, &na, &nb, &nd);
    if (nb > na) { /* the runner-up explains the telling part better */
      vis__object t = best;
      best = runner;
      runner = t;
      int k = na;
      na = nb;
      nb = k;
    }
    second_face = runner.face;
    second = runner.explained;
    best.disc_samples = nd;
    best.disc_margin = nd ? (double)(na - nb) / nd : 0;
  }
  best.second_face = second_face;
  best.second_explained = second;
  h->best = best;
  if (best.face < 0) h->alive = false, h->dead = 'f';
}

/* Does object `id`, just accepted, hide any of the hypothesis's samples? */
static bool newly_hidden(const match_ctx *m, const hyp *h, int16_t id) {
  for (int k = 0; k < h->n; k++)
    if (h->pix[k] >= 0 && m->claim[h->pix[k]] == id) return true;
  return false;
}

/* Ranks the faces and scores one hypothesis: first, or after an accepted
 * object hid some of it (hidden_more; the faces worth comparing may change
 * too: a desert's visible strip under a carpet is no palace), or because
 * its best face was taken. The faces are ranked again when at least
 * 1/RERANK_SHARE of what showed at the last ranking is hidden now; a few
 * samples less do not change which four faces are worth a full score.
 * One with fewer free samples than an object needs explained and than
 * SLIVER_MIN_SAMPLES can never be accepted (explained <= free, and claims
 * only grow): it is dropped for good, without comparing faces. A card all
 * but a sliver of which lies under accepted carpets shows fewer samples
 * than an object needs explained (min_explained, 3 % of a card: 40), and
 * a hypothesis at its true pose died so (tuning normal 3087: a spice
 * bazaar 4 % visible, 37 samples): kept alive down to SLIVER_MIN_SAMPLES
 * free samples, it can still be asked as a sliver (tiny_sliver_shows). */
#define SLIVER_MIN_SAMPLES 20
/* Every face kept as a candidate is a carpet's taken since (score_hyp
 * left it no face). A strip of a carpet's white border fits every
 * carpet face alike, so the four kept at the first ranking can be the
 * colours of the carpets lying on it, all accepted later: the hypothesis
 * then died with its own colour never compared (HUNT normal 3947: the
 * red carpet, 2.8 % visible under yellow and green on felt, its
 * hypothesis 0.2 mm off its true pose, red 27 of 27 once ranked again;
 * HUNT easy 3754's green, 1.0 mm off, died so too, but there a card face
 * explains more once the faces are ranked again after the next carpet).
 * It is ranked again among the carpet faces not taken (no card face: its
 * candidates said carpet); with none left it dies as before. Unless one
 * of them explains CARPET_STRIP_SCORE of what shows, as a strip must, it
 * is asked only once carpet_strip_searched found it so (strip_only: DEV
 * hard 3082, a blue face, 80 of 91 there, was accepted as a phantom
 * before the camel bazaar under the real carpets; HUNT easy 3754's
 * green, 1.0 mm off, is found by that search). */
#define CARPET_STRIP_SCORE 0.95
static bool all_candidates_taken(const match_ctx *m, const hyp *h) {
  if (h->alive || h->best.face >= 0 || h->n_cand == 0) return false;
  for (int c = 0; c < h->n_cand; c++)
    if (!m->used[h->cand_face[c]]) return false;
  return true;
}

static void rescore(const match_ctx *m, hyp *h, bool first, bool hidden_more) {
  int n_free = free_count(m, h);
  if (n_free < m->mp->min_explained && n_free < SLIVER_MIN_SAMPLES) {
    h->alive = false;
    h->dead = 'h';
    return;
  }
  if (first || (hidden_more && RERANK_SHARE * (h->ranked_free - n_free) >= h->ranked_free)) {
    rank_faces(m, h);
    h->ranked_free = n_free;
  }
  score_hyp(m, h);
  if (all_candidates_taken(m, h)) {
    rank_faces_of(m, h, true);
    h->alive = true, h->dead = 0;
    score_hyp(m, h);
    h->strip_only = h->best.face >= 0 && h->best.score < CARPET_STRIP_SCORE;
  }
}

/* A real card's outline shows (vis__outline_edges, where no accepted
 * object claims the table). */
static double edge_support(const vis__table *t, const int16_t *claim, const vis_rect *r,
                           int *seen, double *weakest) {
  return vis__outline_edges(t, r, NULL, 0, claim, seen, weakest);
}

#define CLEAR_SCORE 0.9
#define CLEAR_MIN 100 /* samples explained (4 cm^2); phantoms on wood: 30-50 */
#define CLEAR_RING 0.93 /* frame explained; phantoms on wood 0.74 */

/* Half of what o's face covers shows or more. */
static bool shows_half(const vis__object *o) {
  return 2 * o->valid >= o->total;
}

/* Most of it shows, or what shows of it is mostly in the object mask. */
static bool object_shows(const hyp *h) {
  return shows_half(&h->best) || h->free_object >= 0.3 * h->free_n;
}

/* A hypothesis whose card face lay over an accepted card, compared with
 * the carpet faces only (carpet_over_card), must explain this share of
 * what shows, as the pose search asks (RESCUE_ACCEPT): a card face
 * explained more of it, and carpet faces fitted so at 0.63-0.66 across
 * cards and cloth came before real carpets (tuning hard 3085). */
#define OVER_CARD_SCORE 0.85

/* Enough of what shows explained by its best face. */
static bool explained_enough(const match_ctx *m, const hyp *h) {
  return h->alive && h->best.face >= 0 && h->best.explained >= m->mp->min_explained &&
         !(h->strip_only && h->best.score < CARPET_STRIP_SCORE) &&
         h->best.score >= (h->over_card ? OVER_CARD_SCORE : m->mp->min_ratio);
}

/* h lies at an accepted object's pose, turned alike within STRIP_TWIN_DEG
 * and shifted less than STRIP_TWIN_MM: what shows of it beside that object
 * is the object's own border (a lone carpet's white border, 1.4-3 mm off
 * and 0-1.4 degrees turned, passed for an adventure a's frame under it:
 * tuning normal 3033, 3072, with sliver_shows alone). */
#define STRIP_TWIN_MM 5.0
#define STRIP_TWIN_DEG 5.0
static bool pose_within(const match_ctx *m, const vis_rect *a, const vis_rect *r, double mm,
                        double deg) {
  double da = fmod(fabs(a->angle_deg - r->angle_deg), 180);
  return fmin(da, 180 - da) < deg &&
         hypot(a->center.x - r->center.x, a->center.y - r->center.y) < mm * m->t->px_per_mm;
}

static bool strip_twin(const match_ctx *m, const vis_rect *a, const vis_rect *r) {
  return pose_within(m, a, r, STRIP_TWIN_MM, STRIP_TWIN_DEG);
}

static bool near_accepted_pose(const match_ctx *m, const hyp *h, const vis__object *acc, int n) {
  for (int i = 0; i < n; i++)
    if (strip_twin(m, &acc[i].r_px, &h->r)) return true;
  return false;
}

/* A card nearly all hidden under what was accepted before it, of which a
 * strip shows beside the carpets on it, and its face explains that strip
 * almost wholly: too few samples for the clear score, and outside the
 * object mask (a 2-4 mm strip of the card's cream frame), it was never
 * asked, and the carpets on it went back (tuning hard 3138: a carpet
 * bazaar 6 % visible, 76 of 76 samples explained at its true pose; hard
 * 3022, 3112, normal 3038: 45-101 samples, 0.97-1.00, 4-9 % visible).
 * Fully visible phantoms on wood explain 30-50 samples of many more; not
 * at an accepted object's pose (near_accepted_pose). */
#define SLIVER_SCORE 0.95
static bool sliver_shows(const match_ctx *m, const hyp *h, const vis__object *acc, int n) {
  return m->tpl[h->best.face].kind == VIS__FACE_TYPE && h->best.score >= SLIVER_SCORE &&
         h->best.valid <= VIS__SLIVER_SHOWS * h->best.total && !near_accepted_pose(m, h, acc, n);
}

/* The card's cut edge shows along the strip that shows of h: an edge at
 * VIS__OUTLINED_EDGES of at least VIS__SLIVER_EDGE_SEEN side samples where
 * nothing accepted lies, as analyze's outlined_sliver asks of a sliver
 * kept. A strip of cloth between carpets shows no straight edge of its
 * own along it: the faces passing sliver_shows in the tuning scenes
 * (easy 3050 3063, normal 3009 3038 3087, hard 3013 3017 3110 3112 3177
 * 3179, 354 of them) showed 0.04-0.89, but for one 19 mm along an
 * accepted palace, its own end (1.00 of 40), which overlaps that card
 * (overlaps_card); the real slivers 0.98-1.00 of 36-46. */
/* A straight cut edge shows along most of h's outline where nothing
 * accepted lies, from enough samples; `what` names h in the log. */
static bool strip_edge_shows(const match_ctx *m, const hyp *h, const char *what) {
  int seen;
  double weakest;
  double e = edge_support(m->t, m->claim, &h->r, &seen, &weakest);
  if (m->mp->log)
    fprintf(m->mp->log, "%s at %.0f %.0f %.1f: face %d %d of %d, edge %.2f of %d\n", what,
            h->r.center.x, h->r.center.y, h->r.angle_deg, h->best.face, h->best.explained,
            h->best.valid, e, seen);
  return seen >= VIS__SLIVER_EDGE_SEEN && e >= VIS__OUTLINED_EDGES;
}

static bool sliver_edge_shows(const match_ctx *m, const hyp *h) {
  return strip_edge_shows(m, h, "sliver");
}

/* A sliver with fewer samples than an object needs explained
 * (min_explained), at least SLIVER_MIN_SAMPLES: its face explains it as
 * sliver_shows asks, and its edge shows (sliver_edge_shows; tuning normal
 * 3087: 37 of 37 explained, edge 1.00 of 36). */
static bool tiny_sliver_shows(const match_ctx *m, const hyp *h, const vis__object *acc,
                              int n) {
  if (!h->alive || h->best.face < 0 || h->best.explained < SLIVER_MIN_SAMPLES ||
      h->best.explained >= m->mp->min_explained || !sliver_shows(m, h, acc, n))
    return false;
  return sliver_edge_shows(m, h);
}

/* h, accepted now, was let in as a sliver: as a card nothing else but
 * sliver_shows lets a hypothesis be asked (well_explained), or it has
 * fewer samples than min_explained (tiny_sliver_shows), or the sliver
 * rescue found it. */
static bool let_in_as_sliver(const match_ctx *m, const hyp *h) {
  if (m->tpl[h->best.face].kind != VIS__FACE_TYPE ||
      h->best.valid > VIS__SLIVER_SHOWS * h->best.total)
    return false;
  if (h->sliver_rescued || h->best.explained < m->mp->min_explained) return true;
  return !object_shows(h) && !(h->best.score >= CLEAR_SCORE && h->best.explained >= CLEAR_MIN);
}

/* Of h's free samples, the share within STRIP_BAND_MM outside an
 * accepted object's outline (claim_rect claims all inside it). */
#define STRIP_BAND_MM 2.5
static double share_along_accepted(const match_ctx *m, const hyp *h, const vis__object *acc,
                                   int n) {
  int valid = free_samples(m, h, 1, NULL), along = 0, W = m->t->lab.width;
  double band = STRIP_BAND_MM * m->t->px_per_mm;
  for (int k = 0; k < valid; k++) {
    int p = h->pix[m->list[k]];
    for (int i = 0; i < n; i++) {
      vis__frame f = vis__frame_of(&acc[i].r_px);
      if (vis__frame_contains(&f, p % W, p / W, band)) {
        along++;
        break;
      }
    }
  }
  return valid > 0 ? (double)along / valid : 0;
}

/* Whether another carpet face (either way round) explains as much of
 * what shows of h as its own: only the white border all carpets share
 * shows, no colour. */
static bool colour_untold(const match_ctx *m, const hyp *h) {
  double so[3];
  int valid = free_samples(m, h, 1, so), own = 0, other = 0;
  for (int f = 0; f < m->n_tpl; f++) {
    if (m->tpl[f].kind == VIS__FACE_TYPE) continue;
    for (int fl = 0; fl < 2; fl++) {
      vis__object o;
      score_face(m, h, valid, so, f, fl, false, -1, &o);
      int *best = f == h->best.face ? &own : &other;
      if (o.explained > *best) *best = o.explained;
    }
  }
  return other >= own;
}

/* A carpet strip that is nothing but the white border of objects
 * accepted beside it, left unclaimed where their poses fall a pixel or
 * two short: STRIP_ALONG_SHARE or more of what shows lies within
 * STRIP_BAND_MM of their outlines, and no carpet colour tells it apart
 * (colour_untold). HUNT hard 3788: a blue face at the yellow carpet's
 * angle, 12 mm along it, 42 of 44 on a one-sample line along its edge
 * (44 of 44 within the band), every carpet face 42, every card face 41;
 * HUNT hard 3831: a blue face on two rows along a card's edge, 38 of 41
 * within the band, every carpet face 39. Real strips: HUNT normal 3947's
 * red (the bottom of a stack, only its border shows, every carpet face
 * 27 of 27) 16 of 27 within the band; DEV hard 3064 35 of 89 (other
 * carpet faces 69 of 88), HUNT hard 3636 15 of 45, HUNT easy 3754 12 of
 * 28. */
#define STRIP_ALONG_SHARE 0.85
static bool border_leftover(const match_ctx *m, const hyp *h, const vis__object *acc, int n) {
  double along = share_along_accepted(m, h, acc, n);
  bool leftover = along >= STRIP_ALONG_SHARE && colour_untold(m, h);
  if (m->mp->log && along >= STRIP_ALONG_SHARE)
    fprintf(m->mp->log, "  strip at %.0f %.0f: %.2f along accepted outlines%s\n", h->r.center.x,
            h->r.center.y, along, leftover ? ", no colour: their border" : "");
  return leftover;
}

/* The accepted object whose rectangle covers most of h's (-1: none). */
static int most_covering(const vis_rect *r, const vis__object *acc, int n) {
  int pick = -1;
  double best = 0;
  for (int i = 0; i < n; i++) {
    double a = vis_rect_overlap_area(r, &acc[i].r_px);
    if (a > best) best = a, pick = i;
  }
  return pick;
}

/* A strip of which only a carpet's white border shows (colour_untold)
 * is fitted to the strip alone: its light fit is free to map any plain
 * patch to that white, a strip of tan cloth too. The real border is
 * white in the light of what lies over it, so its a and b must be what
 * the fit of the object covering most of it (most_covering) makes of the
 * same texels, within UNTOLD_WHITE_AB. Watch game 2:881 (hard, 960x540)
 * frame 265 from scratch, yellow not thrown yet: a yellow strip of tan
 * cloth beside the lamp, 80 of 80 explained, edge 0.97 along the cloth's
 * green line, 16.3 apart from the white the lamp's light makes. */
#define UNTOLD_WHITE_AB 8.0
static bool off_white_border(const match_ctx *m, const hyp *h, const vis__object *acc, int n) {
  int i = most_covering(&h->r, acc, n);
  if (i < 0 || !colour_untold(m, h)) return false;
  const vis__object *s = &h->best, *o = &acc[i];
  double so[3];
  int valid = free_samples(m, h, 1, so);
  if (valid == 0) return false;
  double d2 = 0;
  for (int c = 1; c < 3; c++) {
    if (s->gain[c] <= 0) return false; /* no texels to tell (never: gains are bounded) */
    /* the texels' mean from the strip's own fit, seen in o's light */
    double seen = so[c] / valid, unlit = (seen - s->offset[c]) / s->gain[c];
    double d = seen - (o->gain[c] * unlit + o->offset[c]);
    d2 += d * d;
  }
  bool off = sqrt(d2) > UNTOLD_WHITE_AB;
  if (m->mp->log)
    fprintf(m->mp->log, "  untold strip at %.0f %.0f: its white %.1f off object %d's%s\n",
            h->r.center.x, h->r.center.y, sqrt(d2), i, off ? ": not a border" : "");
  return off;
}

/* A strip of a carpet under other carpets, on a table of its own hue:
 * the object mask (the deck's colours against the table's) misses it,
 * so what shows of it is not "mostly object", and a strip a few
 * millimetres wide has fewer samples than CLEAR_MIN; but its face
 * explains nearly all of it and its white border makes a sharp cut edge
 * along the strip, which cloth and wood do not (tuning hard 3064: a
 * green carpet on green cloth, 6.6 % visible, 85 of 86 explained at its
 * true pose, edge 1.00 of 53, object mask 17 of 86; HUNT hard 3636: a
 * red carpet on wood, 45 of 45, edge 1.00 of 30; a yellow face on a
 * strip of cloth between carpets in hard 3010: 61 of 64, edge 0.45 of
 * 76). Not at
 * an accepted object's pose (near_accepted_pose): there its own border
 * shows. Only below CLEAR_MIN: 0.95 or more of as many is clear anyway. */
static bool carpet_strip_shows(const match_ctx *m, const hyp *h, const vis__object *acc,
                               int n) {
  if (m->tpl[h->best.face].kind == VIS__FACE_TYPE || h->best.score < CARPET_STRIP_SCORE ||
      near_accepted_pose(m, h, acc, n))
    return false;
  return strip_edge_shows(m, h, "carpet strip") && !border_leftover(m, h, acc, n) &&
         !off_white_border(m, h, acc, n);
}

static bool under_carpet(const match_ctx *m, const hyp *h, const vis__object *acc, int n);

/* Whether INSIDE_CARD_SHARE or more of h's outline lies inside one
 * accepted card's: a carpet smaller than the cards fitted within a card,
 * its cream edge read as a carpet's white border (vision scene
 * carpet-size, carpets 50 x 76 mm: a phantom blue 25 of 25, edge 1.00
 * of 43, 6 and 17 px off the desert's centre, 0.98 inside it; another
 * strip there 0.86). The bottom of a carpet stack lies partly on the
 * cards beneath it: HUNT easy 3754's green strips lay 0.38-0.77 inside
 * the palace under them, and the one taken 0.71. */
#define INSIDE_CARD_SHARE 0.8
static bool inside_a_card(const match_ctx *m, const hyp *h, const vis__object *acc, int n) {
  double area = h->r.w * h->r.h;
  for (int i = 0; i < n; i++)
    if (m->tpl[acc[i].face].kind == VIS__FACE_TYPE) {
      double share = vis_rect_overlap_area(&h->r, &acc[i].r_px) / area;
      if (m->mp->log && share > 0)
        fprintf(m->mp->log, "  tiny strip at %.0f %.0f: %.3f inside object %d\n", h->r.center.x, h->r.center.y, share, i);
      if (share >= INSIDE_CARD_SHARE) return true;
    }
  return false;
}

/* A carpet strip with fewer samples than an object needs explained
 * (min_explained), at least SLIVER_MIN_SAMPLES, under an accepted carpet:
 * the bottom of a carpet stack of which only a few millimetres of white
 * border show, asked as carpet_strip_shows asks (its face explains
 * CARPET_STRIP_SCORE, its cut edge shows). HUNT normal 3947: the red
 * carpet under yellow and green on felt, 27 of 27 at 0.2 mm off its true
 * pose, edge 1.00 of 24 (all_candidates_taken kept it alive): the red
 * and the adventure c 9 % visible under it were missed, now found. */
static bool tiny_carpet_strip_shows(const match_ctx *m, const hyp *h, const vis__object *acc,
                                    int n) {
  if (!h->alive || h->best.face < 0 || m->tpl[h->best.face].kind == VIS__FACE_TYPE ||
      h->best.explained < SLIVER_MIN_SAMPLES || h->best.explained >= m->mp->min_explained ||
      !under_carpet(m, h, acc, n) || inside_a_card(m, h, acc, n))
    return false;
  return carpet_strip_shows(m, h, acc, n);
}

/* A carpet mostly hidden, outside the object mask, turned like an
 * accepted object and shifted less than TWIN_BAND_MM from it: what shows
 * of it is a band along that object, where its misfit leaves its own
 * border or face unclaimed (or cloth beside it), and every face explains
 * such a band. Its clear score is no evidence unless its cut edge shows
 * along the band (strip_edge_shows). Watch game 4:913 (hard, 960x540)
 * round 2's layout frame: a red face 6.8 mm off the adventure E and 0.7
 * degrees turned, 142 of 144 (every face 116-142), no edge seen. (Hard
 * 4:883 round 3's green band beside an adventure B fitted at 0.76, 167
 * of 171, shows an edge, 0.98 of 138, and stays.) A carpet slid under a
 * card lies at any angle. */
#define TWIN_BAND_MM 10.0
static bool unedged_twin_band(const match_ctx *m, const hyp *h, const vis__object *acc, int n) {
  if (m->tpl[h->best.face].kind == VIS__FACE_TYPE) return false;
  bool twin = false;
  for (int i = 0; i < n && !twin; i++)
    twin = pose_within(m, &acc[i].r_px, &h->r, TWIN_BAND_MM, STRIP_TWIN_DEG);
  return twin && !strip_edge_shows(m, h, "twin band");
}

/* The cheap tests first: enough of it explained (acc, n: the objects
 * accepted so far). */
static bool well_explained(const match_ctx *m, const hyp *h, const vis__object *acc, int n) {
  if (tiny_sliver_shows(m, h, acc, n) || tiny_carpet_strip_shows(m, h, acc, n)) return true;
  if (!explained_enough(m, h)) return false;
  if (sliver_shows(m, h, acc, n)) return true;
  /* mostly hidden: what shows must be an object, not slivers of table
   * beside the card on top (a few samples of table fit any face), or
   * nearly all of it explained: the object mask misses dark purple
   * palaces on wood and tan bazaars on tan cloth (a quarter or less of
   * what shows in it), while their faces explain 0.93-1.0 of what shows
   * (tuning normal 3000-3059: 10 cards 10-35 % visible were missed) */
  if (object_shows(h)) return true;
  if (h->best.score >= CLEAR_SCORE && h->best.explained >= CLEAR_MIN)
    return !unedged_twin_band(m, h, acc, n);
  return carpet_strip_shows(m, h, acc, n);
}

/* A card under a hand (or an arm, anything no face of the deck explains):
 * the hand lies outside the object mask and hides whole sides, so too few
 * side samples show an edge, though the card's face clearly explains what
 * shows of it (tuning hard 3141: a carpet bazaar under a hand, face 0.93
 * of 1305 at its true pose, edge 0.49 of 270, its short side under the
 * fingers 0 of 52). A card whose face explains it clearly (CLEAR_SCORE of
 * CLEAR_MIN or more: phantoms on wood explain 30-50 samples) has its
 * outline judged where no such thing hides it: a side sample whose inner
 * pixel its face does not explain, with no colour change across the side
 * (the hand continues beyond the outline), is hidden. At most
 * OCCLUDED_SHARE of the side samples: most of its outline must show. */
#define OCCLUDED_SHARE 0.5
static double unoccluded_edges(const match_ctx *m, const hyp *h, int *seen, double *weakest) {
  vis__face_place face = vis__face_place_of(m->t, &m->tpl[h->best.face], &h->best);
  int occluded;
  double e = vis__outline_edges_unoccluded(m->t, &h->r, NULL, 0, m->claim, &face, m->mp->tau,
                                           seen, weakest, &occluded);
  if (m->mp->log)
    fprintf(m->mp->log,
            "outline at %.0f %.0f %.1f under a non-deck thing: edge %.2f of %d, %d hidden, weakest "
            "side %.2f\n",
            h->r.center.x, h->r.center.y, h->r.angle_deg, e, *seen, occluded, *weakest);
  return occluded <= OCCLUDED_SHARE * (*seen + occluded) ? e : 0;
}

static bool clearly_explained_card(const match_ctx *m, const hyp *h) {
  return h->best.face >= 0 && m->tpl[h->best.face].kind == VIS__FACE_TYPE &&
         h->best.score >= CLEAR_SCORE && h->best.explained >= CLEAR_MIN;
}

/* The weakest side of a card outside the object mask may be the one a
 * hand hides: its outline where no such thing hides it must then show
 * nearly all round, on every side (HUNT hard 3807: a spice bazaar 81 %
 * visible on cloth, face 0.95 of 1305 at its true pose, edge 0.74 of
 * 272 but its side under the hand 0.27; unhidden 0.99 of 204, weakest
 * side 0.96; hard 3852: a camel bazaar 82 % visible on wood, 0.92 of
 * 1305, weakest side 0.21, unhidden 1.00 of 229, weakest 1.00; the
 * hypothesis 3 mm beside it, unhidden 0.79, weakest side 0.23). */
#define HAND_SIDE_EDGES 0.9
static bool hidden_side(const match_ctx *m, const hyp *h) {
  if (!clearly_explained_card(m, h)) return false;
  int seen;
  double weakest;
  double e = unoccluded_edges(m, h, &seen, &weakest);
  return seen >= 10 && e >= HAND_SIDE_EDGES && weakest >= MIN_SIDE_EDGE;
}

/* edge_support as h's best face asks it: a carpet face's outline 1.5 mm
 * either side of its sides, a card's wider in a coarse photo (the cells
 * of a printed cloth passed for carpets asked wider; evidence.c). */
static double face_edge_support(const match_ctx *m, const hyp *h, int *seen, double *weakest) {
  if (h->best.face >= 0 && m->tpl[h->best.face].kind != VIS__FACE_TYPE)
    return vis__carpet_outline_edges(m->t, &h->r, NULL, 0, m->claim, seen, weakest);
  return edge_support(m->t, m->claim, &h->r, seen, weakest);
}

/* Half of h's outline or more shows (a clearly explained card's where
 * no non-deck thing hides it: *unhidden); *weakest: its weakest side. */
static bool half_outline_shows(const match_ctx *m, const hyp *h, bool *unhidden,
                               double *weakest) {
  int seen;
  double e = face_edge_support(m, h, &seen, weakest);
  *unhidden = !(seen >= 10 && e >= 0.5) && clearly_explained_card(m, h);
  if (*unhidden) e = unoccluded_edges(m, h, &seen, weakest);
  return seen >= 10 && e >= 0.5;
}

/* hardly any object inside (fit.c's LSD corners): every side must show,
 * or the lines of a patterned cloth or wood make phantom cards;
 * hidden_side measures the unhidden outline, which `unhidden` already
 * measured (its weakest side then failed: no need to ask again) */
static bool every_side_shows(const match_ctx *m, const hyp *h, bool unhidden, double weakest) {
  return weakest >= MIN_SIDE_EDGE || vis__object_fraction(m->t, &h->r) >= 0.15 ||
         (!unhidden && hidden_side(m, h));
}

static bool outline_shows(const match_ctx *m, const hyp *h) {
  bool unhidden;
  double weakest;
  return half_outline_shows(m, h, &unhidden, &weakest) &&
         every_side_shows(m, h, unhidden, weakest);
}

/* Destination cards lie side by side, never on each other. */
static bool overlaps_card(const match_ctx *m, const hyp *h,
                          const vis__object *acc, int n) {
  if (m->tpl[h->best.face].kind != VIS__FACE_TYPE) return false;
  double area = h->r.w * h->r.h;
  for (int i = 0; i < n; i++)
    if (m->tpl[acc[i].face].kind == VIS__FACE_TYPE &&
        vis_rect_overlap_area(&h->r, &acc[i].r_px) > 0.08 * area)
      return true;
  return false;
}

/* The pixels of an accepted object's rectangle not claimed before are
 * claimed for it, in bands of CLAIM_BAND rows on the workers (each pixel's
 * test is its own: the same claims for any number of workers; 14.5 M
 * instructions of a 960x540 flight frame on the calling thread in one
 * piece). */
enum { CLAIM_BAND = 16 };
typedef struct {
  vis__frame f; /* vis_rect_contains with its cosine and sine made once (the
                 * same test bit for bit: 75 M instructions of a 720p frame
                 * were the trigonometry) */
  int x0, x1, y0, y1, W;
  int16_t id;
  int16_t *claim;
} claim_job;

static void claim_rows(void *ctx, int worker, int item) {
  (void)worker;
  const claim_job *j = ctx;
  int y_end = j->y0 + (item + 1) * CLAIM_BAND - 1 < j->y1 ? j->y0 + (item + 1) * CLAIM_BAND - 1 : j->y1;
  for (int y = j->y0 + item * CLAIM_BAND; y <= y_end; y++)
    for (int x = j->x0; x <= j->x1; x++)
      if (j->claim[y * j->W + x] < 0 && vis__frame_contains(&j->f, x, y, 0))
        j->claim[y * j->W + x] = j->id;
}

static void claim_rect(const vis__table *t, const vis_rect *r, int16_t id,
                       int16_t *claim) {
  vis_pt c[4];
  vis_rect_corners(r, c);
  double x0 = c[0].x, x1 = c[0].x, y0 = c[0].y, y1 = c[0].y;
  for (int i = 1; i < 4; i++) {
    x0 = fmin(x0, c[i].x), x1 = fmax(x1, c[i].x);
    y0 = fmin(y0, c[i].y), y1 = fmax(y1, c[i].y);
  }
  int W = t->lab.width, H = t->lab.height;
  claim_job j = {vis__frame_of(r), (int)fmax(0, floor(x0)), (int)fmin(W - 1, ceil(x1)),
                 (int)fmax(0, floor(y0)), (int)fmin(H - 1, ceil(y1)), W, id, claim};
  if (j.y1 < j.y0) return;
  vis__parallel_for(t->threads, (j.y1 - j.y0) / CLAIM_BAND + 1, claim_rows, &j);
}

/* The sum over channels of channel_weight times |table Lab - p| at the
 * table's pixel pair r0, r1 and fractions fx, fy (vis__table_at): the
 * Lab as vis__table_lab gives it (rounded to float), then in double. With
 * SSE2 L and a as a pair, in registers (session 27: pose_cost stored the
 * three floats and loaded them again); the same double operations per
 * channel in the same order (the weights of a and b are 1: x * 1 is x,
 * 0 + x is x for x >= 0), so the same value bit for bit. */
static inline double misfit(const uint8_t *r0, const uint8_t *r1, double fx, double fy,
                            const double *p) {
#if defined(__SSE2__)
  __m128d la;
  double b;
  vis__bilinear_sse2(r0, r1, fx, fy, &la, &b);
  const __m128d abs_mask = _mm_castsi128_pd(_mm_set1_epi64x(INT64_MAX));
  const __m128d w = _mm_set_pd(channel_weight[1], channel_weight[0]);
  __m128d d = _mm_sub_pd(_mm_cvtps_pd(_mm_cvtpd_ps(la)), _mm_loadu_pd(p));
  d = _mm_mul_pd(_mm_and_pd(d, abs_mask), w);
  double res = _mm_cvtsd_f64(d) + _mm_cvtsd_f64(_mm_unpackhi_pd(d, d));
  return res + channel_weight[2] * fabs((double)(float)b - p[2]);
#else
  float lab[3];
  vis__bilinear(r0, r1, fx, fy, lab);
  double res = 0;
  for (int k = 0; k < 3; k++) res += channel_weight[k] * fabs(lab[k] - p[k]);
  return res;
#endif
}

/* Robust misfit of a face at a pose: the mean of the capped residuals over
 * the samples that nothing accepted earlier (above) hides. pred: the
 * face's fitted colour per texel (fitted_face). n_shown: the samples shown
 * where the search started (0: not kept); those no longer shown count as
 * misfits at the cap. *n_seen (may be NULL): the samples shown here. */
static double pose_cost(const vis__table *t, const vis__template *tp,
                        const int16_t *claim, int16_t self, const double *pred,
                        const vis_rect *r, bool flipped, int stride, int n_shown,
                        int *n_seen) {
  double ax, ay, lx, ly, s = t->px_per_mm;
  vis__face_axes(r, s, flipped, &ax, &ay, &lx, &ly);
  /* the across terms of every column once (the same products as per
   * sample: the sums below are bit for bit those of the plain loop) */
  double stack[2 * 320], *col_x = stack, *col_y = stack + 320;
  if (tp->w > 320) { /* faces over 32 cm wide: no deck has them, but work */
    col_x = malloc(sizeof(double) * 2 * (size_t)tp->w);
    if (!col_x) return 1e9;
    col_y = col_x + tp->w;
  }
  double lo_x = INFINITY, hi_x = -INFINITY, lo_y = INFINITY, hi_y = -INFINITY;
  for (int i = stride / 2; i < tp->w; i += stride) {
    double dx = (i + 0.5) * tp->w_mm / tp->w - tp->w_mm / 2;
    col_x[i] = r->center.x + dx * ax;
    col_y[i] = r->center.y + dx * ay;
    lo_x = col_x[i] < lo_x ? col_x[i] : lo_x, hi_x = col_x[i] > hi_x ? col_x[i] : hi_x;
    lo_y = col_y[i] < lo_y ? col_y[i] : lo_y, hi_y = col_y[i] > hi_y ? col_y[i] : hi_y;
  }
  double sum = 0;
  int n = 0;
  const double cap = 40;
  const double x_max = t->lab.width - 1.001, y_max = t->lab.height - 1.001; /* vis__table_at's */
  for (int j = stride / 2; j < tp->h; j += stride) {
    double dy = (j + 0.5) * tp->h_mm / tp->h - tp->h_mm / 2;
    double row_x = dy * lx, row_y = dy * ly;
    const double *prow = pred + 3 * (size_t)j * tp->w;
    /* A row whose every sample lies where vis__table_at reads (most
     * rows: 0 <= x <= x_max, and so 0 <= ix < width) skips the bounds
     * tests. Rounding is monotonic, so its samples' x = col_x[i] + row_x
     * lie within lo_x + row_x .. hi_x + row_x as computed: the same
     * samples, sums and n as the tested loop below. */
    if (lo_x + row_x >= 0 && lo_y + row_y >= 0 && hi_x + row_x <= x_max && hi_y + row_y <= y_max) {
      for (int i = stride / 2; i < tp->w; i += stride) {
        double x = col_x[i] + row_x, y = col_y[i] + row_y;
        /* vis__round, x, y >= 0 */
        if (!claim_free(claim, (uint16_t)self, (int)(y + 0.5) * t->lab.width + (int)(x + 0.5)))
          continue;
        int ix = (int)x, iy = (int)y;
        const uint8_t *q = tp_image_row(&t->rgb, iy) + 3 * ix;
        if (!(q[0] | q[1] | q[2])) continue;
        const uint8_t *r0 = tp_image_row(&t->smooth, iy) + 3 * ix;
        double res = misfit(r0, r0 + t->smooth.stride, x - ix, y - iy, prow + 3 * i);
        sum += res < cap ? res : cap;
        n++;
      }
      continue;
    }
    for (int i = stride / 2; i < tp->w; i += stride) {
      double x = col_x[i] + row_x, y = col_y[i] + row_y;
      int ix = vis__round(x), iy = vis__round(y);
      if (ix < 0 || iy < 0 || ix >= t->lab.width || iy >= t->lab.height) continue;
      if (!claim_free(claim, (uint16_t)self, iy * t->lab.width + ix)) continue;
      const uint8_t *r0, *r1;
      double fx, fy;
      if (!vis__table_at(t, x, y, &r0, &r1, &fx, &fy)) continue;
      double res = misfit(r0, r1, fx, fy, prow + 3 * i);
      sum += res < cap ? res : cap; /* fmin without the libm call */
      n++;
    }
  }
  if (col_x != stack) free(col_x);
  if (n_seen) *n_seen = n;
  /* the samples it no longer shows count as misfits at the cap: a strip
   * of a card under a carpet fits better the less of it shows */
  if (n_shown > n) return (sum + cap * (n_shown - n)) / n_shown;
  return n ? sum / n : 1e9;
}

/* The costs a pose search has measured, by pose and stride: coordinate
 * descent comes back to poses it measured (the reverse of its last move;
 * a round's start with the stride of the round before). pose_cost is a
 * function of the pose and stride alone during one search (the claims do
 * not change), so a remembered cost is the value it would compute. */
enum { POSE_MEMO = 16 };
typedef struct {
  double key[POSE_MEMO][4]; /* centre x, y, angle, stride */
  double cost[POSE_MEMO];
  int n, next;
  double *pred; /* the face's fitted colour per texel, for every pose */
} pose_memo;

/* The cost remembered for pose r at stride, if any (*cost). */
static bool memo_find(const pose_memo *pm, const vis_rect *r, int stride, double *cost) {
  const double key[4] = {r->center.x, r->center.y, r->angle_deg, stride};
  for (int i = 0; i < pm->n; i++)
    if (!memcmp(pm->key[i], key, sizeof key)) return *cost = pm->cost[i], true;
  return false;
}

static void memo_add(pose_memo *pm, const vis_rect *r, int stride, double cost) {
  const double key[4] = {r->center.x, r->center.y, r->angle_deg, stride};
  memcpy(pm->key[pm->next], key, sizeof key);
  pm->cost[pm->next] = cost;
  pm->next = (pm->next + 1) % POSE_MEMO;
  if (pm->n < POSE_MEMO) pm->n++;
}

/* One pose search: what every pose it measures shares. */
typedef struct {
  const vis__table *t;
  const vis__template *tp;
  const int16_t *claim;
  int16_t self;
  bool flipped;
  int threads; /* workers measuring a sweep's poses (1: one at a time) */
  pose_memo pm;
  int shown[3]; /* per stride (1, 2): samples shown at the start, or 0 */
} pose_search;

/* The poses of a sweep measured at once, one item each (parallel.c):
 * pose_cost only reads the table, the claims and the fitted face. */
enum { SWEEP_START = 6 }; /* the index of the sweep's start pose, after the six moves */
typedef struct {
  const pose_search *ps;
  int stride;
  vis_rect pose[SWEEP_START + 1];
  double cost[SWEEP_START + 1];
  int todo[SWEEP_START + 1]; /* the poses not remembered */
} pose_batch;

static void pose_cost_item(void *ctx, int worker, int item) {
  (void)worker;
  pose_batch *b = ctx;
  const pose_search *ps = b->ps;
  int k = b->todo[item];
  b->cost[k] = pose_cost(ps->t, ps->tp, ps->claim, ps->self, ps->pm.pred, &b->pose[k],
                         ps->flipped, b->stride, ps->shown[b->stride], NULL);
}

/* One sweep of the coordinate descent: the six moves in turn, each from
 * the pose reached so far, taken when it lowers the cost. Up to
 * ps->threads poses not remembered are measured at once from the same
 * pose; the first of them that lowers the cost is taken and the moves
 * after it are tried again from there, so the poses taken and their
 * costs are those of one move at a time (pose_cost is a function of the
 * pose; the memo only saves work), and with one worker no pose more is
 * measured. cost_known false: *cost is not measured yet (a round's start
 * at a new stride); the start pose is measured with the first moves, as
 * one more item of their batch (with one worker alone before them, as
 * one at a time). Returns whether a move was taken. */
static bool sweep(pose_search *ps, int stride, double step, double astep, vis_rect *best,
                  double *cost, bool cost_known) {
  const double d[6][3] = {{step, 0, 0}, {-step, 0, 0}, {0, step, 0},
                          {0, -step, 0}, {0, 0, astep}, {0, 0, -astep}};
  bool moved = false;
  for (int k0 = 0; k0 < 6;) {
    pose_batch b = {.ps = ps, .stride = stride};
    int n_todo = 0, k_end = k0;
    if (!cost_known) {
      b.pose[SWEEP_START] = *best;
      b.todo[n_todo++] = SWEEP_START;
    }
    bool lower = false; /* a remembered pose lowers it: measure none after */
    for (; k_end < 6 && n_todo < ps->threads && !lower; k_end++) {
      vis_rect r = *best;
      r.center.x += d[k_end][0];
      r.center.y += d[k_end][1];
      r.angle_deg += d[k_end][2];
      b.pose[k_end] = r;
      if (!memo_find(&ps->pm, &r, stride, &b.cost[k_end]))
        b.todo[n_todo++] = k_end;
      else
        lower = cost_known && b.cost[k_end] < *cost;
    }
    vis__parallel_for(ps->threads, n_todo, pose_cost_item, &b);
    for (int i = 0; i < n_todo; i++) memo_add(&ps->pm, &b.pose[b.todo[i]], stride, b.cost[b.todo[i]]);
    if (!cost_known) {
      *cost = b.cost[SWEEP_START];
      cost_known = true;
    }
    int taken = -1;
    for (int k = k0; k < k_end && taken < 0; k++)
      if (b.cost[k] < *cost) taken = k;
    if (taken < 0) {
      k0 = k_end;
      continue;
    }
    *best = b.pose[taken];
    *cost = b.cost[taken];
    moved = true;
    k0 = taken + 1;
  }
  return moved;
}

/* The face's colours as o's gain/offset fit predicts them, 3 per texel:
 * the same for every pose a search tries, so made once per search (the
 * same double operations as per sample: the costs are bit for bit those
 * of the per-sample products, 0.1 G fewer instructions per 720p frame).
 * NULL when out of memory. */
static double *fitted_face(const vis__template *tp, const vis__object *o) {
  size_t n = (size_t)tp->w * (size_t)tp->h;
  double *pred = malloc(sizeof(double) * (3 * n + 1));
  if (!pred) return NULL;
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) pred[3 * i + k] = o->gain[k] * tp->lab[3 * i + k] + o->offset[k];
  return pred;
}

/* Pose search: coordinate descent on the face misfit, with steps in
 * position (pixels) and angle (degrees) halved each round, from step0 and
 * astep0; the last two rounds on every sample. threads: workers for each
 * sweep's poses (the same pose for any number). Out of memory: o stays
 * where it is. */
static void refine_from(const vis__table *t, const vis__template *tp, const int16_t *claim,
                        int16_t self, vis__object *o, double step0, double astep0,
                        int rounds, int threads, bool keep_shown) {
  vis_rect best = o->r_px;
  double step = step0, astep = astep0;
  pose_search ps = {t, tp, claim, self, o->flipped, threads < 1 ? 1 : threads > 6 ? 6 : threads,
                    {.n = 0, .next = 0, .pred = fitted_face(tp, o)}, {0, 0, 0}};
  if (!ps.pm.pred) return;
  for (int stride = 1; keep_shown && stride <= 2; stride++)
    pose_cost(t, tp, claim, self, ps.pm.pred, &best, o->flipped, stride, 0, &ps.shown[stride]);
  for (int round = 0; round < rounds; round++) {
    /* the coarse steps on every 2nd sample each way: a quarter the work */
    int stride = round < rounds - 2 ? 2 : 1;
    double cost = 0;
    bool known = memo_find(&ps.pm, &best, stride, &cost);
    for (int it = 0; it < 6 && sweep(&ps, stride, step, astep, &best, &cost, known); it++)
      known = true;
    step /= 2;
    astep /= 2;
  }
  double a = vis_normalize_angle180(best.angle_deg);
  if (fabs(a - best.angle_deg) > 90) o->flipped = !o->flipped; /* turned by 180 */
  best.angle_deg = a;
  o->r_px = best;
  free(ps.pm.pred);
}

/* The face's mean capped misfit at pose r over the texels `edge` or more
 * inside its outline, with the texels spread by `scale` (pose_cost's
 * residual; nothing hides the object). 1e9 when under 100 are in the table. */
static double inner_cost(const vis__table *t, const vis__template *tp, const double *pred,
                         const vis_rect *r, bool flipped, int edge, double scale) {
  double ax, ay, lx, ly;
  vis__face_axes(r, t->px_per_mm * scale, flipped, &ax, &ay, &lx, &ly);
  double sum = 0;
  int n = 0;
  for (int j = edge; j < tp->h - edge; j++) {
    double dy = (j + 0.5) * tp->h_mm / tp->h - tp->h_mm / 2;
    for (int i = edge; i < tp->w - edge; i++) {
      double dx = (i + 0.5) * tp->w_mm / tp->w - tp->w_mm / 2;
      float lab[3];
      if (!vis__table_lab(t, r->center.x + dx * ax + dy * lx, r->center.y + dx * ay + dy * ly,
                          lab))
        continue;
      const double *p = pred + 3 * ((size_t)j * tp->w + i);
      double res = 0;
      for (int k = 0; k < 3; k++) res += channel_weight[k] * fabs(lab[k] - p[k]);
      sum += res < 40 ? res : 40;
      n++;
    }
  }
  return n >= 100 ? sum / n : 1e9;
}

double vis__apparent_scale(const vis__table *t, const vis__template *tp, const vis__object *o) {
  const double step = 0.003;
  const int max_steps = 7; /* the mapping's scale is off by 0.8 % at most seen */
  double *pred = fitted_face(tp, o);
  if (!pred) return NAN;
#define COST_AT(k) inner_cost(t, tp, pred, &o->r_px, o->flipped, VIS__SCALE_EDGE_MM, 1 + step * (k))
  int k = 0;
  double lo = COST_AT(-1), mid = COST_AT(0), hi = COST_AT(1);
  int dir = lo < mid && lo <= hi ? -1 : hi < mid ? 1 : 0;
  while (dir && abs(k + dir) < max_steps) { /* downhill until it rises */
    double next = COST_AT(k + 2 * dir);
    k += dir;
    if (dir < 0) hi = mid, mid = lo, lo = next;
    else lo = mid, mid = hi, hi = next;
    if (next >= mid) dir = 0;
  }
#undef COST_AT
  free(pred);
  double den = lo - 2 * mid + hi;
  if (mid >= 1e9 || lo < mid || hi < mid || den <= 0) return NAN; /* no minimum inside */
  return 1 + step * (k + 0.5 * (lo - hi) / den);
}

/* Sub-pixel pose of an accepted object (it starts within a pixel or two). */
static void refine(const vis__table *t, const vis__template *tp,
                   const int16_t *claim, int16_t self, vis__object *o, int threads) {
  refine_from(t, tp, claim, self, o, 1.0, 0.5, 4, threads, false);
}

/* Sample k lies on the frame all card faces share (within LIFT_RING_MM
 * of the outline): there every face predicts the same, so the lift seen
 * there does not favour one type. */
#define LIFT_RING_MM 7
static bool on_frame(const hyp *h, int k) {
  int i = h->idx[k] % h->tw, j = h->idx[k] / h->tw;
  return i < LIFT_RING_MM || j < LIFT_RING_MM || i >= h->tw - LIFT_RING_MM ||
         j >= h->th - LIFT_RING_MM;
}

/* The lift of each cell, from the frame's free samples under o's fitted
 * face: the median of (L seen - L fitted) / (white - L fitted), at least
 * 0; a cell without frame samples (the middle ones) takes the mean of
 * its neighbours'. Returns the strongest cell's; *step: the largest
 * difference between two neighbouring cells measured. Samples where the
 * face is nearly white say nothing about it. */
static double frame_lift(const match_ctx *m, const hyp *h, const vis__object *o,
                         lift_field *lf, double *step) {
  uint16_t hist[LIFT_CELLS][LIFT_BINS];
  int n[LIFT_CELLS] = {0};
  memset(hist, 0, sizeof hist);
  for (int k = 0; k < h->n; k++) {
    if (!on_frame(h, k) || !is_free(m, h->pix[k])) continue;
    double p[3];
    predict(m, h, o, k, 0, p);
    double room = lift_white[0] - p[0];
    if (room < LIFT_MIN_ROOM) continue;
    int b = (int)floor(((h->lab[3 * k] - p[0]) / room + 0.28) / LIFT_BIN);
    b = b < 0 ? 0 : b >= LIFT_BINS ? LIFT_BINS - 1 : b;
    int c = lift_cell(h, k);
    if (hist[c][b] < UINT16_MAX) hist[c][b]++, n[c]++;
  }
  for (int c = 0; c < LIFT_CELLS; c++) {
    int below = 0, b = 0;
    while (b < LIFT_BINS - 1 && 2 * (below + hist[c][b]) < n[c]) below += hist[c][b++];
    lf->g[c] = fmin(LIFT_MAX, fmax(0, (b + 0.5) * LIFT_BIN - 0.28));
  }
  double strongest = 0;
  *step = 0;
  for (int c = 0; c < LIFT_CELLS; c++) {
    int cx = c % LIFT_CELLS_X, cy = c / LIFT_CELLS_X;
    if (n[c] >= LIFT_MIN_FRAME && cx + 1 < LIFT_CELLS_X && n[c + 1] >= LIFT_MIN_FRAME)
      *step = fmax(*step, fabs(lf->g[c] - lf->g[c + 1]));
    if (n[c] >= LIFT_MIN_FRAME && cy + 1 < LIFT_CELLS_Y && n[c + LIFT_CELLS_X] >= LIFT_MIN_FRAME)
      *step = fmax(*step, fabs(lf->g[c] - lf->g[c + LIFT_CELLS_X]));
  }
  for (int c = 0; c < LIFT_CELLS; c++) {
    if (n[c] < LIFT_MIN_FRAME) {
      int cx = c % LIFT_CELLS_X, cy = c / LIFT_CELLS_X, nn = 0;
      double sum = 0;
      static const int d[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
      for (int q = 0; q < 4; q++) {
        int x = cx + d[q][0], y = cy + d[q][1], e = y * LIFT_CELLS_X + x;
        if (x < 0 || y < 0 || x >= LIFT_CELLS_X || y >= LIFT_CELLS_Y || n[e] < LIFT_MIN_FRAME)
          continue;
        sum += lf->g[e], nn++;
      }
      lf->g[c] = nn ? sum / nn : 0;
    }
    strongest = fmax(strongest, lf->g[c]);
  }
  return strongest;
}

/* The samples freed of the lift lf, (seen - g white) / (1 - g), into
 * clear (3 * h->n + 1 floats, as hyp.lab) and each sample's g into g_of. */
static void free_of_lift(const hyp *h, const lift_field *lf, float *clear, double *g_of) {
  for (int k = 0; k < h->n; k++) {
    double g = lf->g[lift_cell(h, k)];
    g_of[k] = g;
    for (int c = 0; c < 3; c++)
      clear[3 * k + c] = (float)((h->lab[3 * k + c] - g * lift_white[c]) / (1 - g));
  }
  clear[3 * h->n] = 0;
}

/* o refitted under the lift: gain and offset fitted to the samples freed
 * of it (hc: h with free_of_lift's samples, so their sums); o->explained
 * counts the free samples the lifted face explains as they are seen (each
 * sample's lift g_of, made once per card by free_of_lift). */
static void fit_lifted(const match_ctx *m, const hyp *h, const hyp *hc, int valid,
                       const double so[3], const double *g_of, vis__object *o) {
  vis__object refit;
  score_face(m, hc, valid, so, o->face, o->flipped, false, -1, &refit);
  memcpy(o->gain, refit.gain, sizeof o->gain);
  memcpy(o->offset, refit.offset, sizeof o->offset);
  int explained = 0;
  for (int q = 0; q < valid; q++) {
    int k = m->list[q];
    double p[3], r = 0;
    predict(m, h, o, k, g_of[k], p);
    for (int c = 0; c < 3; c++) r += channel_weight[c] * fabs(h->lab[3 * k + c] - p[c]);
    explained += r < m->mp->tau;
  }
  o->explained = explained;
  o->score = valid ? (double)explained / valid : 0;
}

/* When the frame under the object's own face (cand[own]) shows a lift
 * of at least LIFT_GATE in some cell, smooth (neighbouring cells at most
 * LIFT_MAX_STEP apart: a white sticker or a carpet's light border beside
 * a cell is no glare, tuning easy 3010), one lift field for the card is
 * made from the frame (the own face refitted under it once, and the
 * field measured again), every candidate is refitted under that field
 * into lifted[] and *top is the most any of them explains; false
 * (nothing changed) without glare or memory. */
#define LIFT_GATE 0.1
#define LIFT_MAX_STEP 0.2
/* The lift measured on the frame is only relative to the face's fit:
 * a lift toward white by g0 everywhere is a gain (1 - g0) and an offset,
 * and the fit takes it so (v + g0 (white - v) = (1 - g0) v + g0 white).
 * Under a strong spot the face then fits washed out at its bounds (tuning
 * hard 3041: a lamp's lifted face at gain 0.50 and offset 60, both the
 * fit's limits, lost to the brighter adventure-e). The photo tells how
 * much of the lift went into the gain: the same light falls on every card,
 * so a face refitted under the lift with a gain under the photo's (the
 * median of its cards' gains of L, normal_gain) is lifted the rest,
 * g0 = 1 - gain / normal_gain, added to every cell as a lift on the lift. */
static void lift_level(const vis__object *refit, double normal_gain, lift_field *lf) {
  if (normal_gain <= 0) return;
  double g0 = fmin(LIFT_MAX, fmax(0, 1 - refit->gain[0] / normal_gain));
  for (int c = 0; c < LIFT_CELLS; c++) lf->g[c] = fmin(LIFT_MAX, g0 + (1 - g0) * lf->g[c]);
}

/* Frees a Lab freed of a lift (lift_all, refit_under) and forgets that
 * the list was packed from it: fit_face packs again only when the Lab's
 * address or the list length differ, and a later allocation may reuse
 * the address for other samples of the same count. */
static void free_lifted_lab(const match_ctx *m, float *clear) {
  if (m->pk->of == clear) m->pk->of = NULL;
  free(clear);
}

/* o refitted under the lift lf (fit_lifted on the samples freed of it);
 * false (o unchanged) without memory. */
static bool refit_under(const match_ctx *m, const hyp *h, int valid, const lift_field *lf,
                        vis__object *o) {
  float *clear = malloc(sizeof(float) * (3 * (size_t)h->n + 1));
  double *g_of = malloc(sizeof(double) * ((size_t)h->n + 1));
  bool ok = clear && g_of;
  if (ok) {
    hyp hc = *h;
    hc.lab = clear;
    hc.freed = true;
    double so[3];
    free_of_lift(h, lf, clear, g_of);
    pack_list(m, &hc, valid, so);
    fit_lifted(m, h, &hc, valid, so, g_of, o);
  }
  free_lifted_lab(m, clear);
  free(g_of);
  return ok;
}

/* A lamp adds its light once. A face fitted washed (fitted_washed: L's
 * offset past L_OFFSET_MAX) took the glare into its fit of L as a
 * uniform lift (gain 1 - g, offset about 255 g); lift_all takes it as a
 * field measured on the frame against the face's fit, the face refitted
 * under it and the level g0 from that refit's gain (lift_level).
 * Against the washed fit the frame shows only the glare beyond the
 * uniform part, under that small lift the refit falls back to L's
 * bounds (gain 0.50, offset 60), g0 takes the uniform glare from the
 * gain and the frame measured again against the offset of 60 takes it
 * once more (the levels the bounded offset lacks, a large lift on the
 * bright frame). DEV hard 3118: a camel bazaar fully visible, washed at
 * gain 0.50 and offset 92, was lifted 0.47-0.62, under that its own face
 * needed L's gain 1.18 at offset -60 (the bound) and lost the race to a
 * spice bazaar, the colours took a desert. Measured against its bounded
 * fit the frame takes the whole glare (0.43), the refit under it comes
 * near the photo's light (gain 0.69, offset 24), g0 0.09, lift
 * 0.28-0.48, and its own face under that fits at the photo's gain (0.77
 * against 0.76): the glare counted once. So the frame's lift is measured
 * against a washed face's bounded fit (o's, fitted again to h's valid
 * free samples listed in m->list). */
static void glare_reference(const match_ctx *m, const hyp *h, int valid, vis__object *o) {
  if (!fitted_washed(o)) return;
  fit_face(m, h, valid, NULL, o->face, o->flipped, false, FIT_BOUNDED, -1, o->gain, o->offset,
           NULL);
}

/* *frame_only: the lift as the frame shows it, before lift_level (the
 * field a face chosen so keeps for the card evidence). */
static bool lift_all(const match_ctx *m, const hyp *h, int valid, const vis__object *cand,
                     int n_cand, int own, int16_t i, double normal_gain, vis__object *lifted,
                     lift_field *lf, lift_field *frame_only, int *top) {
  vis__object o = cand[own];
  glare_reference(m, h, valid, &o);
  double step, strongest = frame_lift(m, h, &o, lf, &step);
  if (m->mp->log && strongest >= LIFT_GATE)
    fprintf(m->mp->log, "object %d: frame lifted %.2f, step %.2f\n", i, strongest, step);
  if (strongest < LIFT_GATE || step > LIFT_MAX_STEP) return false;
  float *clear = malloc(sizeof(float) * (3 * (size_t)h->n + 1));
  double *g_of = malloc(sizeof(double) * ((size_t)h->n + 1));
  if (!clear || !g_of) {
    free(clear);
    free(g_of);
    return false;
  }
  hyp hc = *h;
  hc.lab = clear;
  hc.freed = true;
  double so[3];
  free_of_lift(h, lf, clear, g_of);
  pack_list(m, &hc, valid, so);
  fit_lifted(m, h, &hc, valid, so, g_of, &o);
  frame_lift(m, h, &o, lf, &step);
  *frame_only = *lf;
  lift_level(&o, normal_gain, lf);
  if (m->mp->log) {
    fprintf(m->mp->log, "object %d: refitted gain %.2f (unlifted %.2f), the photo's %.2f\n", i,
            o.gain[0], cand[own].gain[0], normal_gain);
    fprintf(m->mp->log, "object %d: lift", i);
    for (int c = 0; c < LIFT_CELLS; c++) fprintf(m->mp->log, " %.2f", lf->g[c]);
    fprintf(m->mp->log, "\n");
  }
  free_of_lift(h, lf, clear, g_of);
  pack_list(m, &hc, valid, so);
  *top = 0;
  for (int c = 0; c < n_cand; c++) {
    lifted[c] = cand[c];
    fit_lifted(m, h, &hc, valid, so, g_of, &lifted[c]);
    *top = lifted[c].explained > *top ? lifted[c].explained : *top;
    if (m->mp->log)
      fprintf(m->mp->log, "object %d: face %d%s lifted explains %d (unlifted %d)\n", i,
              cand[c].face, cand[c].flipped ? " turned" : "", lifted[c].explained,
              cand[c].explained);
  }
  free_lifted_lab(m, clear);
  free(g_of);
  return true;
}

/* A card's face, at its refined pose, must explain the card's frame or
 * picture where nothing accepted hides it (evidence.c): a face fitted
 * onto patterned cloth or wood does neither, and accepted it would hide
 * and push aside the real cards under and beside it. Carpets pass.
 * *probe gets the refined object (*refined: it was refined): the final
 * refinement of an accepted object sees the same claims above it (claims
 * are only ever added under it), so it would find the same pose. */
enum { SHOWS_NO_CARD, SHOWS_CARD, SHOWS_POOR_CARD };

/* Under a lamp's glare the frame and picture are lifted toward white
 * unevenly, and the best face's single gain and offset cannot follow: a
 * fully visible card 25-50 mm from a strong spot showed no card frame
 * and was lost (tuning hard 3031, 3038, 3039, 3044, 3097; on 3044 the
 * hypothesis at the true pose explained 0.80 and its frame less than
 * the test's 0.85). When the frame under h's face shows a smooth lift
 * (settle_type's gate: a cell lifted LIFT_GATE or more, neighbours at
 * most LIFT_MAX_STEP apart), *probe gets the face refitted to the
 * samples freed of that field and keeps the field, so that the card
 * frame test, the type settling and every residual later see it lifted;
 * false (probe unchanged) without such a lift or without memory. */
static bool lift_probe(const match_ctx *m, const hyp *h, vis__object *probe) {
  lift_field lf;
  double step, so[3];
  if (frame_lift(m, h, &h->best, &lf, &step) < LIFT_GATE || step > LIFT_MAX_STEP) return false;
  int valid = free_samples(m, h, 1, so);
  vis__object o = h->best;
  if (!refit_under(m, h, valid, &lf, &o)) return false;
  memcpy(probe->gain, o.gain, sizeof o.gain);
  memcpy(probe->offset, o.offset, sizeof o.offset);
  probe->lifted = true;
  for (int c = 0; c < LIFT_CELLS; c++)
    probe->lift[probe->flipped ? LIFT_CELLS - 1 - c : c] = (float)lf.g[c];
  return true;
}

#define FADED_GAIN 0.55 /* a gain of L this low: the fit's bound (0.5) */
/* Its outline shows all round (edge_support: VIS__OUTLINED_EDGES of at
 * least VIS__OUTLINED_SEEN samples along its sides where nothing accepted
 * lies). A face fitted onto cloth
 * where a phantom card was taken back has sides on plain cloth (tuning
 * hard 3102 3105 3198: 0.50-0.87); a real card shows its edge even when
 * its face had to be faded to fit (hard 3010: a camel bazaar a quarter
 * visible under a carpet on cream cloth, gain of L 0.50, 1.00 of 139). */
static bool outline_all_round(const match_ctx *m, const hyp *h) {
  return vis__outlined_all_round(m->t, &h->r, NULL, 0, m->claim);
}


/* The hand test (vis__occluded_card) of the probe's face at hypothesis
 * h, logged as `what` when something hides part of it. */
static bool hand_test(const match_ctx *m, const hyp *h, const vis__object *probe, int16_t n_acc,
                      const char *what, vis__occluded_fit *of) {
  bool card = vis__occluded_card(m->t, &m->tpl[probe->face], probe, NULL, 0, m->claim, n_acc,
                                 m->mp->threads, of);
  if (m->mp->log && of->hidden)
    fprintf(m->mp->log,
            "hyp at %.0f %.0f: %s %.2f hidden: face fit %.3f of %d worst %.3f ring "
            "%.3f of %d, edge %.2f of %d (%d hidden)%s\n",
            h->r.center.x, h->r.center.y, what, of->share, of->fit.score, of->fit.n,
            of->fit.worst, of->fit.ring, of->fit.ring_n, of->edges, of->seen, of->occluded,
            card ? ": a card" : "");
  return card;
}

/* A card that shows no card frame may lie under a hand: its face is
 * judged on what the hand and its shadow leave (vis__occluded_card). */
static int under_a_hand(const match_ctx *m, const hyp *h, vis__object *probe, int16_t n_acc) {
  vis__occluded_fit of;
  bool card = hand_test(m, h, probe, n_acc, "under a hand", &of);
  probe->hand_share = card ? (float)of.share : 0; /* at least OCC_MIN_SHARE */
  return card ? SHOWS_CARD : SHOWS_NO_CARD;
}

/* A card partly under a hand whose outline, where nothing accepted lies,
 * shows too little for outline_shows, though its face explains enough of
 * it (min_ratio): the hand hides a side and the fingers' shadow more, so
 * unoccluded_edges' side test (a side sample whose inner pixel the face
 * does not explain, with no colour change across the side) does not find
 * all that the hand hides (CHECK hard 3221: a palace 52 % visible,
 * session 41). Such a face is given to the hand test itself
 * (vis__occluded_card: the hand and its shadow found by flooding from
 * outside, the rest of the face, its frame and its outline judged
 * without them), which the faces fitted onto a hand fail on their
 * outline (0.19-0.27, DEV hard 3009). */
static bool outline_under_hand(const match_ctx *m, const hyp *h, int16_t n_acc) {
  if (h->best.face < 0 || m->tpl[h->best.face].kind != VIS__FACE_TYPE ||
      h->best.score < m->mp->min_ratio)
    return false;
  vis__occluded_fit of;
  return hand_test(m, h, &h->best, n_acc, "outline under a hand", &of);
}

/* A card outside the object mask whose frame, off the objects on it,
 * falls short of CLEAR_RING but not by much, and whose outline shows all
 * round where nothing accepted lies (outline_all_round: an edge at 0.95 of
 * 100 side samples or more): a card under carpets whose face explains
 * what shows, refused only by that frame (HUNT hard 3600-3999, session
 * 30: a palace 26 % visible, 3659, frame 0.866 of 529, edge 0.98 of 108;
 * an adventure d 21 % visible, 3972, 0.926 of 514, edge 1.00 of 141;
 * also 3707 and 3869, 0.912-0.928, edge 0.99). The faces this frame test
 * refused at 0.85-0.93 elsewhere (12 on DEV hard 3000-3199; a camel
 * bazaar turned by 25 degrees across HUNT 3707's card, one beside 3964's)
 * showed edges of 0.49-0.84, of 100 side samples or more 0.52-0.63; the
 * phantom the frame test was made for (a desert fitted onto orange wood)
 * has a frame of 0.74. */
#define SHADOWED_RING 0.85
static bool shadowed_frame(const match_ctx *m, const hyp *h, const vis__face_fit *fa) {
  if (fa->ring < SHADOWED_RING) return false;
  bool outlined = outline_all_round(m, h);
  if (m->mp->log && outlined)
    fprintf(m->mp->log, "hyp at %.0f %.0f: its outline shows all round: a card\n",
            h->r.center.x, h->r.center.y);
  return outlined;
}

/* A carpet in view (POOR_CARPET_SHOWN of it or more) whose face explains
 * less than POOR_CARPET_SCORE of it: something it does not explain hides
 * the rest, a hand (hand_test finds it), or it is no carpet. Watch game
 * 2:881 (hard, 960x540) round 3, flight 1: against the layout reference,
 * a yellow face fitted onto a cell of the tan cloth with its green grid
 * explained 0.61 of 1237 samples (95 % in view), and the yellow carpet
 * counted as thrown; DEV hard 3075's yellow, under a hand, explains 0.62
 * of 1305, and the hand test finds the hand. */
#define POOR_CARPET_SCORE 0.7
#define POOR_CARPET_SHOWN 0.75
static bool poor_carpet_unhidden(const match_ctx *m, const hyp *h, int16_t n_acc) {
  if (h->best.valid < POOR_CARPET_SHOWN * h->best.total || h->best.score >= POOR_CARPET_SCORE)
    return false;
  vis__occluded_fit of;
  bool hand = hand_test(m, h, &h->best, n_acc, "poorly explained carpet", &of);
  if (m->mp->log)
    fprintf(m->mp->log, "carpet at %.0f %.0f face %d: %.2f of %d in view explained%s\n",
            h->r.center.x, h->r.center.y, h->best.face, h->best.score, h->best.valid,
            hand ? ", a hand hides the rest" : ": no carpet");
  return !hand;
}

static int shows_card(const match_ctx *m, const hyp *h, const vis__object *acc, int16_t n_acc,
                      vis__object *probe, bool *refined) {
  *refined = false;
  if (m->tpl[h->best.face].kind != VIS__FACE_TYPE)
    return poor_carpet_unhidden(m, h, n_acc) ? SHOWS_NO_CARD : SHOWS_CARD;
  *probe = h->best;
  refine(m->t, &m->tpl[probe->face], m->claim, n_acc, probe, m->mp->threads);
  *refined = true;
  /* where a phantom card lay, faces fit faded (gain of L at the fit's
   * bound): the phantoms retract_phantoms took back were such, and so were
   * the new ones found in their place (tuning hard 3102, 3105, 3198: camel
   * bazaars at gain 0.50 on cloth); the real cards found there fitted at
   * 0.61-0.88; unless its outline shows all round (outline_all_round:
   * hard 3010's camel bazaar, fitted at 0.50 on cream cloth) */
  if (h->beside_phantom && probe->gain[0] < FADED_GAIN && !outline_all_round(m, h)) {
    if (m->mp->log)
      fprintf(m->mp->log, "hyp at %.0f %.0f: faded (gain %.2f) where a card was taken back\n",
              h->r.center.x, h->r.center.y, probe->gain[0]);
    return SHOWS_NO_CARD;
  }
  vis__face_fit ff;
  vis__face_fit_measure(m->t, &m->tpl[probe->face], probe, NULL, 0, m->claim, n_acc,
                        m->mp->threads, &ff);
  /* outside the object mask (well_explained's clear score) the frame
   * must show clearly: a desert fitted onto orange wood explains its
   * visible part but not the white frame (0.74). Off the outlines of the
   * objects on it by a millimetre (their claims are at the poses first
   * found): a palace 19 % visible showed 1.0 of its frame so, but less
   * than 0.93 right along the carpets on it (tuning normal 3046). */
  if (!object_shows(h)) {
    vis_rect above[64];
    int n_above = n_acc < 64 ? n_acc : 64;
    for (int k = 0; k < n_above; k++) above[k] = acc[k].r_px;
    vis__face_fit fa;
    vis__face_fit_measure(m->t, &m->tpl[probe->face], probe, above, n_above, m->claim, n_acc,
                          m->mp->threads, &fa);
    if (m->mp->log)
      fprintf(m->mp->log, "hyp at %.0f %.0f: outside the mask, ring off the objects %.3f of %d\n",
              h->r.center.x, h->r.center.y, fa.ring, fa.ring_n);
    if (fa.ring_n >= 20 && fa.ring < CLEAR_RING && !shadowed_frame(m, h, &fa))
      return SHOWS_NO_CARD;
  }
  if (m->mp->log)
    fprintf(m->mp->log, "hyp at %.0f %.0f: face fit %.3f of %d worst %.3f ring %.3f of %d\n",
            h->r.center.x, h->r.center.y, ff.score, ff.n, ff.worst, ff.ring, ff.ring_n);
  if (vis__face_fit_no_card(&ff)) { /* glare, or no card at all */
    vis__object lifted = *probe;
    if (!lift_probe(m, h, &lifted)) return under_a_hand(m, h, probe, n_acc);
    vis__face_fit_measure(m->t, &m->tpl[lifted.face], &lifted, NULL, 0, m->claim, n_acc,
                          m->mp->threads, &ff);
    if (m->mp->log)
      fprintf(m->mp->log, "hyp at %.0f %.0f: lifted face fit %.3f ring %.3f of %d\n",
              h->r.center.x, h->r.center.y, ff.score, ff.ring, ff.ring_n);
    /* lifted, it must show a card as clearly as a card in the open
     * does: with the frame test alone, faces lifted onto cloth near a
     * glare spot were taken (tuning hard 3038, 3112: phantom objects) */
    if (vis__face_fit_no_card(&ff) || vis__face_fit_poor(&ff) || ff.ring < CLEAR_RING)
      return under_a_hand(m, h, probe, n_acc);
    *probe = lifted;
  }
  if (!vis__face_fit_poor(&ff)) return SHOWS_CARD;
  /* next to no object mask inside (fit.c's outlined LSD rectangles): it
   * must show a card cleanly. A cloth's grid lines outline card-sized
   * cells, whose best faces (camel bazaars) left a cell under 0.65
   * explained and were accepted as poor cards with no rival (tuning hard
   * 3182: five phantoms); the camel bazaars found so explained 1.000 of
   * every cell (hard 3003 3123 3150). */
  return vis__object_fraction_above(m->t, &h->r, VIS__EDGE_MIN_OBJECT) ? SHOWS_POOR_CARD
                                                                      : SHOWS_NO_CARD;
}

/* Residual of sample k of hypothesis h under its best face's fit. */
static double sample_residual(const match_ctx *m, const hyp *h, int k) {
  const vis__object *o = &h->best;
  const float *f = m->tpl[o->face].lab + 3 * (o->flipped ? h->tixf[k] : h->tix[k]);
  double r = 0;
  for (int c = 0; c < 3; c++)
    r += channel_weight[c] * fabs(h->lab[3 * k + c] - (o->gain[c] * f[c] + o->offset[c]));
  return r;
}

/* Where hypotheses a and b overlap (b's samples that nothing accepted
 * hides and that lie inside a), how many each one's face explains. */
static void overlap_votes(const match_ctx *m, const hyp *a, const hyp *b, int *na, int *nb) {
  vis__frame fa = vis__frame_of(&a->r);
  vis__face_place pa = vis__face_place_of(m->t, &m->tpl[a->best.face], &a->best);
  const double margin = -1.5 * m->t->px_per_mm; /* off a's outline: pose error */
  int W = m->t->lab.width;
  *na = *nb = 0;
  for (int k = 0; k < b->n; k++) {
    int pix = b->pix[k];
    if (!is_free(m, pix)) continue;
    double x = pix % W, y = pix / W;
    if (!vis__frame_contains(&fa, x, y, margin)) continue;
    double ra = vis__place_residual(m->t, &pa, x, y);
    double rb = sample_residual(m, b, k);
    if (ra < 0) continue;
    *na += ra < m->mp->tau && ra + 4 < rb;
    *nb += rb < m->mp->tau && rb + 4 < ra;
  }
}

/* Top of the pile first is decided by samples explained, and an object
 * can explain more than the one lying on it: a card 70 % visible under a
 * carpet of which a strip shows (tuning easy 3018: the blue carpet under
 * the yellow one, on a palace). Accepted first, the card would claim the
 * strip and the carpet would be lost. So before hypothesis bi is accepted,
 * a well-explained hypothesis overlapping it whose face clearly explains
 * more of their common visible part lies on it and goes first (if it can
 * be accepted: outline and card frame). Returns the one to accept. */
enum { ON_TOP_MIN_VOTES = 40 };
#define ON_TOP_MIN_SCORE 0.85 /* a real carpet there: 0.94; a phantom 0.78 */
/* A card whose face leaves part of what shows of it unexplained (a cell
 * under 0.85: vis__face_fit_poor) is often a face fitted at a wrong pose
 * across a real card and the table beside it, which explains more samples
 * than the real card partly under a carpet (tuning normal 3226: a spice
 * bazaar 87 % visible lost to a camel bazaar turned by 90 degrees). It is
 * accepted only when no rival, a card hypothesis overlapping it as
 * overlaps_card counts, shows a card cleanly; a real card that no face
 * explains wholly (glare, a type missing from the deck) has none. */
static bool rivals(const match_ctx *m, const hyp *h, const hyp *poor) {
  return m->tpl[h->best.face].kind == VIS__FACE_TYPE &&
         vis_rect_overlap_area(&h->r, &poor->r) > 0.08 * poor->r.w * poor->r.h;
}

/* The rival shows a card cleanly and its face explains clearly more of
 * their common part (as topmost asks of what lies on top): a real card
 * under a carpet not accepted yet is poor too, and a face fitted across
 * it and the carpet explains less of it than its own (tuning normal
 * 3214, 3252, 3258). A sliver (sliver_shows) has too few samples for
 * those votes: it beats the poor card when the poor card's face explains
 * none of their common part better (tuning hard 3138: a carpet bazaar 6 %
 * visible, 14 : 0, lost to a camel bazaar fitted across it, which was
 * taken back as a phantom, and then the sliver was refused as faded where
 * a card was taken back; hard 3022's adventure c, 4 %, 12 : 0, is now
 * accepted, and taken back as faded onto the table). */
#define SLIVER_MIN_VOTES 8
/* a explains clearly more of a common part than b (as topmost asks) */
static bool clearly_more(int a, int b) { return a >= ON_TOP_MIN_VOTES && a >= 3 * b; }

/* Its face explains nearly all of what shows of it, from enough samples
 * (well_explained's clear score): the card evidence of a strip of 40-60
 * samples cannot tell a card from a carpet's border (tuning hard 3070: a
 * carpet bazaar's face, 45 of 60, frame 0.81 of 43, at the yellow
 * carpet's corner, taken for a card so, and a phantom carpet followed). */
static bool clearly_shown(const hyp *h) {
  return h->best.score >= CLEAR_SCORE && h->best.explained >= CLEAR_MIN;
}

/* A poor card whose face had to be faded to the fit's bound (gain of L
 * under FADED_GAIN) is the phantom's pattern: a camel bazaar's face fitted
 * across the cloth beside a real card (every phantom card left on DEV hard
 * 3000-3099 was faded so, docs/analyze.md "Faded faces"), and a real card
 * a fifth visible beside it shares too few samples with it for the
 * rival's clear vote (HUNT hard 3776: an adventure e 21 %
 * visible, its own face 0.97 of it, worst cell 0.96, frame 0.98, lost 11 : 5
 * to a faded camel bazaar with a cell at 0.60, and two more camel bazaars
 * fitted round it hid it for good). So a rival that shows itself clearly
 * (clearly_shown) and explains more of their common part, from
 * SLIVER_MIN_VOTES samples on, beats a faded poor card. With no vote
 * (0 : 0) a clearly shown rival is no evidence: a camel bazaar's face
 * fitted clean on a carpet beside a sliver (0.94 of 231, frame 0.95) won
 * so and hid the carpet bazaar 6 % visible under it (tuning hard 3138). */
/* RIVAL_WINS_FADED: won only by the faded rule above. The scan goes in
 * order of explained samples, so such a win is taken only when no later
 * rival wins clearly: on a held-out watch game (session 26) the first
 * rival, a face 15 mm off, beat a faded poor card 25 : 8 while the card
 * really there beat it 109 : 7 next in the scan. */
enum rival_verdict { RIVAL_LOSES, RIVAL_WINS_FADED, RIVAL_WINS };
static enum rival_verdict beats_poor(const match_ctx *m, const hyp *rival, const hyp *poor,
                                     const vis__object *acc, int n) {
  int n_poor, n_rival;
  overlap_votes(m, poor, rival, &n_poor, &n_rival);
  if (m->mp->log)
    fprintf(m->mp->log, "rival of a poor card: %d : %d samples\n", n_rival, n_poor);
  if (sliver_shows(m, rival, acc, n))
    return n_rival >= SLIVER_MIN_VOTES && n_poor == 0 ? RIVAL_WINS : RIVAL_LOSES;
  if (clearly_more(n_rival, n_poor)) return RIVAL_WINS;
  if (poor->best.gain[0] < FADED_GAIN && clearly_shown(rival) &&
      n_rival >= SLIVER_MIN_VOTES && n_rival > n_poor)
    return RIVAL_WINS_FADED;
  return RIVAL_LOSES;
}

/* A poor card is accepted when no rival shows a card cleanly, but a real
 * card under a carpet not accepted yet shows none (its face cannot
 * explain the carpet: shows_card says no card, for now). Of the rivals so
 * refused, one that a well-explained carpet lies on (its face explains
 * clearly more of their common part, as topmost asks) is waiting for that
 * carpet: the carpet goes first, and the card is asked again once the
 * carpet hides its part (tuning easy 3064: a camel bazaar turned by 90
 * degrees across a carpet bazaar 78 % visible and the table beside it,
 * 0.72, was accepted before the yellow carpet on the real card, 0.93,
 * which explained fewer samples). When the poor card is faded (gain of
 * L under FADED_GAIN, the phantom's pattern: beats_poor), a rival that is
 * a poor card itself waits for that carpet too: a carpet not accepted
 * yet lying on a cell of it leaves that cell unexplained (HUNT hard 3616,
 * session 31: a spice bazaar 77 % visible, its face 0.855 of what shows
 * but a cell at 0.000 under the green carpet, lost to a camel bazaar
 * faded to 0.50 and turned by 90 degrees across it and the cloth, 0.839,
 * worst cell 0.52). Not after an unfaded poor card: that is mostly a
 * real card under a carpet with a poor twin of its own, and the carpet
 * first changed seven card and carpet poses of DEV and CHECK (no scene
 * line), card errors up by 0.03-0.06 mm. Returns the carpet, or poor. */
enum { POOR_RIVALS_MAX = 16 };
typedef struct {
  int i[POOR_RIVALS_MAX]; /* rivals that showed a poor card after a faded one */
  int n;
} poor_rivals;

static bool waiting_rival(const hyp *rival, int r, const poor_rivals *pr) {
  if (rival->no_card) return true;
  for (int k = 0; k < pr->n; k++)
    if (pr->i[k] == r) return true;
  return false;
}

static int carpet_on_rival(const match_ctx *m, const hyp *H, int n_hyps, int poor,
                           const poor_rivals *pr, const vis__object *acc, int n) {
  int best = poor, best_votes = 0;
  for (int r = 0; r < n_hyps; r++) {
    const hyp *rival = &H[r];
    if (r == poor || !rival->alive || !waiting_rival(rival, r, pr) || rival->best.face < 0 ||
        !rivals(m, rival, &H[poor]) || overlaps_card(m, rival, acc, n))
      continue;
    for (int j = 0; j < n_hyps; j++) {
      const hyp *c = &H[j];
      if (c->no_card || !explained_enough(m, c) || c->best.score < ON_TOP_MIN_SCORE ||
          m->tpl[c->best.face].kind == VIS__FACE_TYPE ||
          vis_rect_overlap_area(&c->r, &rival->r) <= 0)
        continue;
      int n_rival, n_c;
      overlap_votes(m, rival, c, &n_rival, &n_c);
      if (n_c >= ON_TOP_MIN_VOTES && n_c >= 3 * n_rival && n_c > best_votes &&
          outline_shows(m, c))
        best = j, best_votes = n_c;
    }
  }
  if (best != poor && m->mp->log)
    fprintf(m->mp->log, "hyp %d lies on a rival of poor card hyp %d (%d samples): accepted first\n",
            best, poor, best_votes);
  return best;
}

/* A carpet of which a strip shows from under another carpet has little
 * outline of its own, and its hypothesis (from corners) may lie a few
 * pixels off, where its face explains too little to be taken for what lies
 * on top: the cards under it are accepted first and hide it (tuning easy
 * 3061: the blue carpet under the red one explained 0.78 at 2 px and 1.6
 * degrees off). So a carpet that falls short only of ON_TOP_MIN_SCORE, and
 * that an accepted carpet overlaps, has its pose searched (once, as rescue
 * does) before it is judged. Only under a carpet: a carpet that slid under
 * the cards, searched so, was taken to lie on one of them (tuning watch
 * game 3:602, round 3). */
#define ON_TOP_SEARCH_MIN 0.7
static void search_pose(const match_ctx *m, hyp *h, int16_t n, bool keep_shown);
static bool under_carpet(const match_ctx *m, const hyp *h, const vis__object *acc, int n) {
  for (int i = 0; i < n; i++)
    if (m->tpl[acc[i].face].kind != VIS__FACE_TYPE && vis_rect_overlap_area(&h->r, &acc[i].r_px) > 0)
      return true;
  return false;
}
static bool on_top_score(const match_ctx *m, hyp *h, const vis__object *acc, int n) {
  if (h->best.score >= ON_TOP_MIN_SCORE) return true;
  if (h->searched || h->best.score < ON_TOP_SEARCH_MIN ||
      m->tpl[h->best.face].kind == VIS__FACE_TYPE || !under_carpet(m, h, acc, n) ||
      !outline_shows(m, h))
    return false;
  h->searched = true;
  search_pose(m, h, (int16_t)n, false);
  return explained_enough(m, h) && h->best.score >= ON_TOP_MIN_SCORE;
}

static int topmost(match_ctx *m, hyp *H, int n_hyps, int bi, const vis__object *acc, int n,
                   vis__object *refined, bool *is_refined) {
  for (int round = 0; round < 3; round++) {
    int best = -1, best_votes = 0;
    bool card = m->tpl[H[bi].best.face].kind == VIS__FACE_TYPE;
    for (int j = 0; j < n_hyps; j++) {
      hyp *h = &H[j];
      /* what it explains there lies on an object: no sliver of table */
      if (j == bi || h->no_card || !explained_enough(m, h)) continue;
      if (card && m->tpl[h->best.face].kind == VIS__FACE_TYPE) continue; /* side by side */
      if (vis_rect_overlap_area(&h->r, &H[bi].r) <= 0 || overlaps_card(m, h, acc, n)) continue;
      if (!on_top_score(m, h, acc, n)) continue;
      int n_bi, n_j;
      overlap_votes(m, &H[bi], h, &n_bi, &n_j);
      if (n_j >= ON_TOP_MIN_VOTES && n_j >= 3 * n_bi && n_j > best_votes) best = j, best_votes = n_j;
    }
    if (best < 0 || !outline_shows(m, &H[best])) return bi;
    vis__object probe;
    bool probe_refined;
    if (!shows_card(m, &H[best], acc, (int16_t)n, &probe, &probe_refined)) return bi;
    *refined = probe;
    *is_refined = probe_refined;
    if (m->mp->log)
      fprintf(m->mp->log, "hyp %d lies on hyp %d (%d samples): accepted first\n", best, bi,
              best_votes);
    bi = best;
  }
  return bi;
}

/* Debugging: every face's score on each accepted object's visible part. */
static void log_objects(match_ctx *m, const vis__object *acc, int n) {
  for (int i = 0; i < n; i++) {
    const vis__template *tp = &m->tpl[acc[i].face];
    hyp h;
    if (!sample_hyp(m->t, &acc[i].r_px, tp->w, tp->h, tp->w_mm, tp->h_mm, m->mp->step, &h)) {
      release_hyp(m, &h);
      continue;
    }
    m->self = (int16_t)i;
    double so[3];
    int valid = free_samples(m, &h, 1, so);
    fprintf(m->mp->log, "object %d face %d flip %d at %.0f %.0f:", i, acc[i].face,
            acc[i].flipped, acc[i].r_px.center.x, acc[i].r_px.center.y);
    for (int f = 0; f < m->n_tpl; f++)
      for (int fl = 0; fl < 2; fl++) {
        vis__object o;
        score_face(m, &h, valid, so, f, fl, false, -1, &o);
        fprintf(m->mp->log, " %d%c:%d/%d", f, fl ? 'f' : 'u', o.explained, o.valid);
      }
    fprintf(m->mp->log, "\n");
    release_hyp(m, &h);
  }
  m->self = INT16_MAX;
}

typedef struct {
  int i, explained;
  int missed; /* of what shows, the samples its face leaves unexplained */
} hyp_rank;

/* Most explained first; of equals, the one that leaves fewer of what
 * shows unexplained: a real lamp 5 % visible (46 of 46 samples) and an
 * adventure fitted at the fit's bounds across slivers beside a carpet
 * (46 of 52) tied, and the phantom came first by its index and hid the
 * lamp (DEV easy 3095). Then by index (qsort is not stable). */
static int by_explained(const void *pa, const void *pb) {
  const hyp_rank *a = pa, *b = pb;
  if (a->explained != b->explained) return a->explained > b->explained ? -1 : 1;
  if (a->missed != b->missed) return a->missed < b->missed ? -1 : 1;
  return (a->i > b->i) - (a->i < b->i);
}

/* Hypotheses come from corners; where an object's border meets a border
 * of the same colour (white on white: a carpet on another), the corner
 * found may be a print line a few millimetres inside it, and the face at
 * that pose explains too little to be accepted while the objects under it
 * wait for it. When nothing else can be accepted, the poses of the most
 * promising hypotheses (their outline shows, RESCUE_MIN_SCORE explained)
 * are searched (+-RESCUE_REACH_MM, +-RESCUE_REACH_DEG) with their best
 * face, once each, and each is scored again there; the first that can
 * then be accepted is taken (RESCUE_FREE, then the card faces over an
 * accepted card, RESCUE_OVER_CARD; run_rescue). */
enum { RESCUE_TRIES = 12 };
#define RESCUE_MIN_SCORE 0.4
#define RESCUE_ACCEPT 0.85
/* The hypothesis sampled again at pose r and scored there (first time). */
static void resample_at(const match_ctx *m, hyp *h, const vis_rect *r) {
  hyp fresh;
  const vis__template *tp = &m->tpl[h->best.face];
  if (!sample_hyp(m->t, r, h->tw, h->th, tp->w_mm, tp->h_mm, m->mp->step, &fresh)) {
    release_hyp(m, &fresh);
    return; /* out of memory: keep the old samples */
  }
  release_hyp(m, h);
  fresh.searched = true;
  fresh.over_card = fresh.cards_out = h->over_card; /* still over the card */
  *h = fresh;
  if (h->alive) rescore(m, h, true, true);
}

/* The pose searched with the best face and the hypothesis scored there;
 * searched again from there (with the face's fit at the new pose) while
 * that gains RESCUE_GAIN of what it explains and it explains less than
 * RESCUE_ACCEPT, at most RESCUE_SEARCHES times: a corner 12 mm off (a
 * carpet's white border on a light table shows no outline) came within
 * 3.5 mm in one search, at 0.76, and to its true pose, 0.98, in the
 * second (tuning easy 3055). */
enum { RESCUE_SEARCHES = 3 };
#define RESCUE_GAIN 0.05
static void wide_search(const match_ctx *m, hyp *h, int16_t n, bool keep_shown);
static bool wide_worth(const match_ctx *m, const hyp *h);
static void search_pose(const match_ctx *m, hyp *h, int16_t n, bool keep_shown) {
  for (int k = 0; k < RESCUE_SEARCHES; k++) {
    double before = h->best.score;
    vis__object probe = h->best;
    /* 4 px steps first: about 10 px and 5 degrees of reach */
    refine_from(m->t, &m->tpl[probe.face], m->claim, n, &probe, 4.0, 2.0, 6, m->mp->threads,
                keep_shown);
    resample_at(m, h, &probe.r_px);
    if (!h->alive || h->best.score >= RESCUE_ACCEPT || h->best.score < before + RESCUE_GAIN)
      break;
  }
  if (wide_worth(m, h)) wide_search(m, h, n, keep_shown);
}

/* A carpet's print repeats (rows of dots, nested diamonds): from a start
 * 5-10 mm off, the descent settles where the print lines up again, a few
 * millimetres from the truth, and explains too little there to be
 * accepted (normal 1800006: a red carpet under four cards, no corner in
 * view, its hypotheses 6-10 mm off searched to 5 mm off at 0.59; at its
 * true pose 0.93). So a carpet whose colour is not on the table yet and
 * that the descent left under RESCUE_ACCEPT is tried on a grid around
 * where it ended (WIDE_STEPS each way of WIDE_STEP_PX along its sides
 * and of WIDE_STEP_DEG), the misfit measured on every second sample; the
 * descent runs again from the WIDE_STARTS best grid poses, and the
 * hypothesis is scored at each end and kept at the best. */
enum { WIDE_STEPS = 2, WIDE_STARTS = 2 };
enum { WIDE_SIDE = 2 * WIDE_STEPS + 1, WIDE_POSES = WIDE_SIDE * WIDE_SIDE * WIDE_SIDE };
#define WIDE_STEP_PX 8.0
#define WIDE_STEP_DEG 2.0
#define WIDE_MIN_SCORE 0.5

static bool wide_worth(const match_ctx *m, const hyp *h) {
  return h->alive && h->best.face >= 0 && m->tpl[h->best.face].kind != VIS__FACE_TYPE &&
         !m->used[h->best.face] && h->best.valid * 4 >= h->best.total &&
         h->best.score >= WIDE_MIN_SCORE && h->best.score < RESCUE_ACCEPT;
}

typedef struct {
  const match_ctx *m;
  const vis__object *o;
  const double *pred;
  int16_t self;
  int shown;
  vis_rect pose[WIDE_POSES];
  double cost[WIDE_POSES];
} wide_grid;

static void wide_cost_item(void *ctx, int worker, int item) {
  (void)worker;
  wide_grid *g = ctx;
  g->cost[item] = pose_cost(g->m->t, &g->m->tpl[g->o->face], g->m->claim, g->self, g->pred,
                            &g->pose[item], g->o->flipped, 2, g->shown, NULL);
}

/* Grid pose k: its offsets from o's pose along o's sides and in angle. */
static vis_rect wide_pose(const vis_rect *r, int k) {
  int da = k % WIDE_SIDE - WIDE_STEPS, dv = k / WIDE_SIDE % WIDE_SIDE - WIDE_STEPS,
      du = k / (WIDE_SIDE * WIDE_SIDE) - WIDE_STEPS;
  double c = cos(r->angle_deg * VIS_PI / 180), s = sin(r->angle_deg * VIS_PI / 180);
  vis_rect q = *r;
  q.center.x += WIDE_STEP_PX * (du * c - dv * s);
  q.center.y += WIDE_STEP_PX * (du * s + dv * c);
  q.angle_deg += WIDE_STEP_DEG * da;
  return q;
}

/* The WIDE_STARTS grid poses of lowest misfit, the start itself left out
 * (the descent ended there); of equal costs the first. */
static int wide_starts(const match_ctx *m, const vis__object *o, int16_t n, vis_rect *start) {
  wide_grid *g = malloc(sizeof *g);
  double *pred = fitted_face(&m->tpl[o->face], o);
  int found = 0;
  if (g && pred) {
    *g = (wide_grid){.m = m, .o = o, .pred = pred, .self = n};
    pose_cost(m->t, &m->tpl[o->face], m->claim, n, pred, &o->r_px, o->flipped, 2, 0, &g->shown);
    for (int k = 0; k < WIDE_POSES; k++) g->pose[k] = wide_pose(&o->r_px, k);
    vis__parallel_for(m->mp->threads, WIDE_POSES, wide_cost_item, g);
    double best[WIDE_STARTS];
    for (int k = 0; k < WIDE_POSES; k++) {
      if (k == WIDE_POSES / 2 || g->cost[k] >= 1e9) continue;
      int pos = found < WIDE_STARTS ? found++ : WIDE_STARTS;
      for (; pos > 0 && best[pos - 1] > g->cost[k]; pos--)
        if (pos < WIDE_STARTS) best[pos] = best[pos - 1], start[pos] = start[pos - 1];
      if (pos < WIDE_STARTS) best[pos] = g->cost[k], start[pos] = g->pose[k];
    }
  }
  free(pred);
  free(g);
  return found;
}

static void wide_search(const match_ctx *m, hyp *h, int16_t n, bool keep_shown) {
  vis_rect start[WIDE_STARTS], kept = h->best.r_px;
  double kept_score = h->best.score;
  vis__object o = h->best;
  int n_starts = wide_starts(m, &o, n, start);
  bool last_kept = true;
  for (int k = 0; k < n_starts; k++) {
    vis__object probe = o;
    probe.r_px = start[k];
    refine_from(m->t, &m->tpl[probe.face], m->claim, n, &probe, 4.0, 2.0, 6, m->mp->threads,
                keep_shown);
    resample_at(m, h, &probe.r_px);
    last_kept = h->alive && h->best.score > kept_score;
    if (last_kept) kept = h->best.r_px, kept_score = h->best.score;
  }
  if (!last_kept) resample_at(m, h, &kept);
  if (m->mp->log)
    fprintf(m->mp->log, "wide search from %.0f %.0f %.1f: %.0f %.0f %.1f score %.2f\n",
            o.r_px.center.x, o.r_px.center.y, o.r_px.angle_deg, h->r.center.x, h->r.center.y,
            h->r.angle_deg, h->best.score);
}

/* The hypotheses rescue may search: not searched yet, a face that
 * explains RESCUE_MIN_SCORE of what shows, and, in its second pass, the
 * card faces over an accepted card (carpet_over_card) instead of the
 * others. */
static bool rescue_candidate(const match_ctx *m, const hyp *h, bool over_card) {
  return h->alive && !h->searched && !h->no_card && h->best.face >= 0 &&
         h->over_card == over_card && h->best.explained >= m->mp->min_explained &&
         h->best.score >= RESCUE_MIN_SCORE;
}
static bool free_candidate(const match_ctx *m, const hyp *h, const vis__object *acc, int n) {
  (void)acc, (void)n;
  return rescue_candidate(m, h, false);
}
static bool over_card_candidate(const match_ctx *m, const hyp *h, const vis__object *acc, int n) {
  (void)acc, (void)n;
  return rescue_candidate(m, h, true);
}

/* A carpet partly under a hand (or an arm, anything no face of the deck
 * explains) explains too little of what shows to be accepted: held-out
 * hard 1900011, the blue carpet on blue cloth, 0.60 of 1305 samples at
 * its true pose, was missed. The hand test the cards have
 * (vis__occluded_card: the hand and its shadow found by flooding from
 * outside, the rest of the face, its frame and its outline judged
 * without them) finds it: 0.51 hidden, the rest 0.986, frame 0.958,
 * outline 1.00 of 138; the other carpet faces the rescue searched there
 * hide nothing. So a carpet face whose colour is not on the table yet,
 * half of it or more in view, is accepted when that test passes, its
 * hidden share kept (*refined, as shows_card keeps a card's). */
static bool carpet_under_hand(const match_ctx *m, hyp *h, int16_t n_acc, vis__object *refined,
                              bool *is_refined) {
  if (h->best.face < 0 || m->tpl[h->best.face].kind == VIS__FACE_TYPE || m->used[h->best.face] ||
      !shows_half(&h->best))
    return false;
  vis__occluded_fit of;
  if (!hand_test(m, h, &h->best, n_acc, "carpet under a hand", &of)) return false;
  *refined = h->best;
  refine(m->t, &m->tpl[refined->face], m->claim, n_acc, refined, m->mp->threads);
  refined->hand_share = (float)of.share;
  *is_refined = true;
  return true;
}

/* At its own pose a real object explains nearly all it shows; a face
 * pushed around until it fits part of something else does not. Nor does
 * a carpet under a hand, which is asked so (carpet_under_hand). */
static bool rescue_accepts(const match_ctx *m, hyp *h, const vis_rect *start,
                           const vis__object *acc, int n, vis__object *refined, bool *is_refined) {
  (void)start;
  if (well_explained(m, h, acc, n) && h->best.score >= RESCUE_ACCEPT &&
      !overlaps_card(m, h, acc, n) && outline_shows(m, h) &&
      shows_card(m, h, acc, (int16_t)n, refined, is_refined))
    return true;
  return carpet_under_hand(m, h, (int16_t)n, refined, is_refined);
}

/* Strip rescue, when nothing else can be accepted: a card under an
 * accepted carpet whose outline shows all round (outline_all_round) but
 * whose pose, as its corners gave it, is a few millimetres off, so that its
 * face explains too little of the strip that shows. Its pose is searched
 * as rescue does, but with the samples it showed at the start kept in the
 * cost (refine_from's keep_shown: those it no longer shows count as
 * misfits, or the search slides the strip in under the carpet, where
 * fewer samples fit better), in order of the share of what shows that its
 * face explains (by_score); accepted as rescue accepts (tuning hard 3035:
 * a palace 18 % visible). Not at an accepted object's pose (within
 * STRIP_TWIN_MM and STRIP_TWIN_DEG): what shows there is that object's
 * own border. */
static bool strip_candidate(const match_ctx *m, const hyp *h, const vis__object *acc, int n) {
  return h->alive && !h->searched && h->best.face >= 0 &&
         m->tpl[h->best.face].kind == VIS__FACE_TYPE &&
         h->best.explained >= m->mp->min_explained && h->best.score >= RESCUE_MIN_SCORE &&
         under_carpet(m, h, acc, n) && !near_accepted_pose(m, h, acc, n);
}

/* The largest share of what shows explained first; of equals, by index. */
static int by_score(const void *pa, const void *pb) {
  const hyp_rank *a = pa, *b = pb;
  long long l = (long long)a->explained * (b->explained + b->missed);
  long long r = (long long)b->explained * (a->explained + a->missed);
  if (l != r) return l > r ? -1 : 1;
  return a->i - b->i;
}

static bool strip_accepts(const match_ctx *m, hyp *h, const vis_rect *start,
                          const vis__object *acc, int n, vis__object *refined, bool *is_refined) {
  (void)start;
  if (!explained_enough(m, h) || h->best.score < RESCUE_ACCEPT || overlaps_card(m, h, acc, n) ||
      !outline_shows(m, h) || shows_card(m, h, acc, (int16_t)n, refined, is_refined) != SHOWS_CARD)
    return false;
  h->no_card = false;
  return true;
}

/* Sliver rescue, when nothing else can be accepted, not even by the
 * strip rescue: a card of which at most VIS__SLIVER_SHOWS shows beside
 * the carpets on it, whose pose as its corners gave it is a millimetre
 * or two off, so that its face explains under SLIVER_SCORE of the strip
 * (tuning hard 3110: a palace 6 % visible, 45 of 54 at 2.3 mm off). The
 * strip is too short for outline_all_round; instead the card's cut edge
 * must show along it (sliver_edge_shows). Its pose is searched as the
 * strip rescue does (what it showed kept in the cost), and it is accepted
 * as a sliver is asked (sliver_shows, its edge, the card evidence), if
 * the search moved it less than SLIVER_SEARCH_MM and SLIVER_SEARCH_DEG:
 * a strip of cream frame fixes the pose across it, not along it (the
 * frame is the same cream all along), so a face slid further along the
 * strip fits as well and tells nothing of where the card lies (hard
 * 3110's palace moved 2.2 mm and 1.2 degrees to its true pose, 70 of 71;
 * without the bound a card of CHECK easy was found 6.9 mm off with a
 * wrong type). */
#define SLIVER_SEARCH_MM 3.0
#define SLIVER_SEARCH_DEG 3.0
static bool sliver_candidate(const match_ctx *m, const hyp *h, const vis__object *acc, int n) {
  return h->alive && !h->searched && h->best.face >= 0 &&
         m->tpl[h->best.face].kind == VIS__FACE_TYPE &&
         h->best.explained >= SLIVER_MIN_SAMPLES && h->best.score >= RESCUE_MIN_SCORE &&
         h->best.valid <= VIS__SLIVER_SHOWS * h->best.total && under_carpet(m, h, acc, n) &&
         !near_accepted_pose(m, h, acc, n);
}

static bool sliver_accepts(const match_ctx *m, hyp *h, const vis_rect *start,
                           const vis__object *acc, int n, vis__object *refined, bool *is_refined) {
  if (h->best.face < 0 || h->best.explained < SLIVER_MIN_SAMPLES ||
      !pose_within(m, start, &h->r, SLIVER_SEARCH_MM, SLIVER_SEARCH_DEG) ||
      !sliver_shows(m, h, acc, n) || overlaps_card(m, h, acc, n) || !sliver_edge_shows(m, h) ||
      shows_card(m, h, acc, (int16_t)n, refined, is_refined) != SHOWS_CARD)
    return false;
  h->no_card = false;
  h->sliver_rescued = true;
  return true;
}

/* One rescue pass: which hypotheses it may search (candidate), in what
 * order, which are worth a search once their turn comes (their outline,
 * all round or along a strip, shows), whether the search keeps what they
 * showed in its cost, and what it asks of one after the search. The
 * passes share one loop (run_rescue): at most RESCUE_TRIES searches,
 * each hypothesis searched once. */
typedef struct {
  const char *name; /* in the debug log */
  bool (*candidate)(const match_ctx *m, const hyp *h, const vis__object *acc, int n);
  int (*order)(const void *a, const void *b);
  bool (*worth_search)(const match_ctx *m, const hyp *h);
  bool keep_shown;
  bool (*accepts)(const match_ctx *m, hyp *h, const vis_rect *start, const vis__object *acc,
                  int n, vis__object *refined, bool *is_refined);
} rescue_pass;

static const rescue_pass RESCUE_FREE = {"rescue", free_candidate, by_explained, outline_shows,
                                        false, rescue_accepts};
static const rescue_pass RESCUE_OVER_CARD = {"rescue over card", over_card_candidate,
                                             by_explained, outline_shows, false, rescue_accepts};
static const rescue_pass RESCUE_STRIPS = {"strip", strip_candidate, by_score, outline_all_round,
                                          true, strip_accepts};
static const rescue_pass RESCUE_SLIVERS = {"sliver", sliver_candidate, by_score,
                                           sliver_edge_shows, true, sliver_accepts};

/* Unoutlined strip rescue, the last pass: the strips the strip rescue
 * left unsearched because their outline did not show all round. At a
 * pose 1-3 mm off, the outline of a card 10-40 % visible under carpets
 * does not show all round, so the hypotheses nearest the truth were
 * never searched: HUNT hard 3955's palace 38 % visible (1.0 mm and 2.6
 * degrees off, edge 0.76, 0.73 explained), 3633's palace 17 % (1.7 mm
 * off, edge 0.47, 0.83), 3676's adventure c 10 % and 3756's adventure b
 * 14 % (3.0-3.4 mm off, 0.74-0.75). A hypothesis added at the true pose
 * explained 0.94-0.99 there and each scene came out right (session 36).
 * Searched first, asked after as the strip rescue asks (strip_accepts:
 * outline_shows at the searched pose, the card evidence). Last, so that
 * every earlier pass (the slivers' with their bound on the search) has
 * had its hypotheses as before. */
static bool worth_searching(const match_ctx *m, const hyp *h) {
  (void)m, (void)h;
  return true;
}

/* As strip_accepts, and only a card face that the search moved less than
 * UNOUTLINED_SEARCH_MM and UNOUTLINED_SEARCH_DEG (the searches that
 * found the cards above moved them 1.1-3.6 mm and up to 2.7 degrees): without
 * the bound a card 7 % visible of CHECK normal was found 14.5 mm off its
 * pose, typed wrong, and without the face's kind a carpet face that the
 * search turned to was accepted on a card's strip (HUNT hard 3676, taken
 * back later). And only a face not faded to fit (gain of L FADED_GAIN or
 * more at the searched pose), as where a phantom was taken back: beside a
 * carpet lying on no card, the carpet's cream border and its shadow on
 * felt passed for a card's strip at gain 0.50, the fit's bound (vision
 * scene corner-contact: an adventure 4.7 mm and 0.3 degrees off the blue
 * carpet, 101 of 101 explained, kept; three beside the red one, 9.3-12.5
 * mm off, each taken back in turn); so did the two phantoms this pass
 * added on HUNT hard (3764: 72 of 78, 3913: 130 of 151). The cards it
 * found fitted at 0.60-0.86 (3955 0.60, 3633 0.63, 3756 0.66, 3676 0.71,
 * 3807 0.86). */
#define UNOUTLINED_SEARCH_MM 4.0
#define UNOUTLINED_SEARCH_DEG 4.0
/* h's face is a card's and the search moved it from start less than
 * UNOUTLINED_SEARCH_MM and UNOUTLINED_SEARCH_DEG (both unoutlined passes). */
static bool card_moved_little(const match_ctx *m, const hyp *h, const vis_rect *start) {
  return h->best.face >= 0 && m->tpl[h->best.face].kind == VIS__FACE_TYPE &&
         pose_within(m, start, &h->r, UNOUTLINED_SEARCH_MM, UNOUTLINED_SEARCH_DEG);
}

static bool unoutlined_accepts(const match_ctx *m, hyp *h, const vis_rect *start,
                               const vis__object *acc, int n, vis__object *refined,
                               bool *is_refined) {
  return card_moved_little(m, h, start) && h->best.gain[0] >= FADED_GAIN &&
         strip_accepts(m, h, start, acc, n, refined, is_refined);
}
static const rescue_pass RESCUE_UNOUTLINED_STRIPS = {"unoutlined strip", strip_candidate, by_score,
                                                     worth_searching, true, unoutlined_accepts};

/* Unoutlined card rescue, after every other pass: a card lying free, half
 * of it or more in view, whose face explains it clearly
 * (clearly_explained_card) but whose outline at the corners' pose, a few
 * millimetres off, does not show on every side, so that no earlier pass
 * searched it. Watch game 3:862 (hard, 1080p), round 2's layout, frame
 * 139, rendered and analysed in the Debian 13 root: a carpet bazaar in
 * dim light, its best hypothesis 3 mm off explaining 0.92 of 1305
 * samples, its weakest side 0.26; searched, it explains 1305 of 1305,
 * 0.2 mm from the truth. The Debian 12 build finds it only because a
 * camel bazaar's face fitted across it is accepted first as a poor card
 * whose rivals are then searched (searched_rival); in the Debian 13 root
 * no such card was accepted and the carpet bazaar was lost. Accepted as
 * rescue accepts (its outline must show at the searched pose, and the
 * card evidence), and only a card face that the search moved less than
 * UNOUTLINED_SEARCH_MM and UNOUTLINED_SEARCH_DEG, as the unoutlined
 * strips. Half in view: without that bound the pass searched six
 * adventure faces on a red carpet's print (CHECK normal 3251: 134-303
 * samples of 1305 in view, 0.90-0.96 explained), one passed at its
 * searched pose and took a hidden card's place in the claims. */
static bool clear_free_candidate(const match_ctx *m, const hyp *h, const vis__object *acc,
                                 int n) {
  return free_candidate(m, h, acc, n) && clearly_explained_card(m, h) &&
         shows_half(&h->best);
}

static bool unoutlined_card_accepts(const match_ctx *m, hyp *h, const vis_rect *start,
                                    const vis__object *acc, int n, vis__object *refined,
                                    bool *is_refined) {
  return card_moved_little(m, h, start) &&
         rescue_accepts(m, h, start, acc, n, refined, is_refined);
}
static const rescue_pass RESCUE_UNOUTLINED_CARDS = {"unoutlined card", clear_free_candidate,
                                                    by_explained, worth_searching, false,
                                                    unoutlined_card_accepts};

/* The candidates of pass p in its order (order[], caller-sized n_hyps). */
static int ranked_candidates(const match_ctx *m, const hyp *H, int n_hyps, const vis__object *acc,
                             int n, const rescue_pass *p, hyp_rank *order) {
  int n_ok = 0;
  for (int i = 0; i < n_hyps; i++)
    if (p->candidate(m, &H[i], acc, n))
      order[n_ok++] = (hyp_rank){i, H[i].best.explained, H[i].best.valid - H[i].best.explained};
  qsort(order, (size_t)n_ok, sizeof *order, p->order);
  return n_ok;
}

static void log_rescue(const match_ctx *m, const char *name, int i, const char *what, const hyp *h) {
  if (!m->mp->log) return;
  fprintf(m->mp->log, "%s hyp %d %s %.0f %.0f %.1f: alive %d face %d expl %d valid %d score %.2f\n",
          name, i, what, h->r.center.x, h->r.center.y, h->r.angle_deg, h->alive, h->best.face,
          h->best.explained, h->best.valid, h->best.score);
}

/* Pass p run: the index of the first hypothesis it accepts, -1 if none. */
static int run_rescue(const match_ctx *m, hyp *H, int n_hyps, const vis__object *acc, int n,
                      const rescue_pass *p, hyp_rank *order, vis__object *refined,
                      bool *is_refined) {
  int n_ok = ranked_candidates(m, H, n_hyps, acc, n, p, order);
  for (int k = 0, tries = 0; k < n_ok && tries < RESCUE_TRIES; k++) {
    hyp *h = &H[order[k].i];
    if (!h->alive || h->searched || overlaps_card(m, h, acc, n) || !p->worth_search(m, h))
      continue;
    h->searched = true;
    tries++;
    vis_rect start = h->r;
    log_rescue(m, p->name, order[k].i, "at", h);
    search_pose(m, h, (int16_t)n, p->keep_shown);
    log_rescue(m, p->name, order[k].i, "searched to", h);
    if (h->alive && p->accepts(m, h, &start, acc, n, refined, is_refined)) return order[k].i;
  }
  return -1;
}

/* Where a card's strip shows from under a carpet, a carpet's face can
 * explain it better than the card's own face at the poses the corners
 * gave, a few millimetres off: accepted there, the phantom carpet hides
 * the card, which is lost (tuning normal 3005: the treasure 29 % visible
 * under the yellow carpet; its hypotheses 1.5-3.5 mm off explained
 * 0.62-0.77 of it, the red carpet's face, not on the table, 0.74 at the
 * treasure's place). A carpet of which less than half shows and that
 * explains less than ON_TOP_MIN_SCORE of it is not at its own pose, or
 * not there at all: before it is accepted, its pose and the poses of the
 * card hypotheses lying where it lies (over STRIP_SAME_PLACE of it) are
 * searched, once each, as rescue does, and the choice is made again
 * (search_strip_rivals: true when any was searched). */
#define STRIP_SAME_PLACE 0.5
static bool poor_carpet_strip(const match_ctx *m, const hyp *c) {
  return m->tpl[c->best.face].kind != VIS__FACE_TYPE && c->best.score < ON_TOP_MIN_SCORE &&
         !shows_half(&c->best);
}

/* A card hypothesis not searched yet, worth searching as rescue's are,
 * that lies over STRIP_SAME_PLACE of carpet hypothesis c. */
static bool strip_rival(const match_ctx *m, const hyp *h, const hyp *c, const vis__object *acc,
                        int n) {
  return h->alive && !h->searched && !h->no_card && h->best.face >= 0 &&
         m->tpl[h->best.face].kind == VIS__FACE_TYPE && h->best.score >= RESCUE_MIN_SCORE &&
         h->best.explained >= m->mp->min_explained &&
         vis_rect_overlap_area(&h->r, &c->r) >= STRIP_SAME_PLACE * c->r.w * c->r.h &&
         !overlaps_card(m, h, acc, n) && outline_shows(m, h);
}

static bool search_strip_rivals(const match_ctx *m, hyp *H, int n_hyps, int bi,
                                const vis__object *acc, int n) {
  hyp *c = &H[bi];
  if (!poor_carpet_strip(m, c)) return false;
  bool any = false;
  for (int i = 0; i < n_hyps; i++) {
    hyp *h = &H[i];
    if (i == bi || !strip_rival(m, h, c, acc, n)) continue;
    h->searched = true;
    search_pose(m, h, (int16_t)n, false);
    any = true;
    if (m->mp->log)
      fprintf(m->mp->log, "strip rival of poor carpet hyp %d: hyp %d face %d searched, %d of %d\n",
              bi, i, h->best.face, h->best.explained, h->best.valid);
  }
  if (any && !c->searched) {
    c->searched = true;
    search_pose(m, c, (int16_t)n, false);
    if (m->mp->log)
      fprintf(m->mp->log, "poor carpet hyp %d face %d searched, %d of %d\n", bi, c->best.face,
              c->best.explained, c->best.valid);
  }
  return any;
}

/* The template grid of the hypothesis's size, -1 if none. */
static int template_grid(const vis__table *t, const vis__template *tpl, int n_tpl,
                         const vis_rect *r) {
  double s = t->px_per_mm;
  for (int f = 0; f < n_tpl; f++)
    if (fabs(tpl[f].w_mm * s - r->w) <= 1 && fabs(tpl[f].h_mm * s - r->h) <= 1) return f;
  return -1;
}

/* q and r lie at the same place: the same size, centres within `near`
 * (pixels) and axes within 4 degrees. One `near` or more away along x or
 * y is passed over first: hypot is at least either difference, so its
 * test would fail too, and most rectangles asked about lie elsewhere on
 * the table (callgrind-bench's 1080p frame: keep_outlined, twice a
 * frame, 49 -> 20 M). */
static bool same_place(const vis_rect *q, const vis_rect *r, double near) {
  if (fabs(q->center.x - r->center.x) >= near || fabs(q->center.y - r->center.y) >= near)
    return false;
  double da = fabs(q->angle_deg - r->angle_deg);
  if (da >= 180) da = fmod(da, 180); /* below 180 fmod returns da: no libm call */
  if (da > 90) da = 180 - da;
  return fabs(q->w - r->w) < 0.5 && fabs(q->h - r->h) < 0.5 && da < 4 &&
         hypot(q->center.x - r->center.x, q->center.y - r->center.y) < near;
}

/* r lies within NMS_MM of a kept one (same_place). */
#define NMS_MM 2.0
static bool near_duplicate(const vis__table *t, const vis_rect *hyps, const int *kept,
                           int n_kept, const vis_rect *r) {
  for (int k = 0; k < n_kept; k++)
    if (same_place(&hyps[kept[k]], r, NMS_MM * t->px_per_mm)) return true;
  return false;
}

/* Rectangles ordered by their centre's x, for "does one lie at the same
 * place as r" (same_place) without asking every one: only those whose
 * x lies within `near` of r's can (same_place's first test), and
 * q.x - r.x, rounded, never falls as q.x grows, so they are a run of
 * the order, found by bisection. The answer is the scan's: the same
 * same_place on every rectangle it could be true for, and a yes from
 * any of them is a yes (the scan's order does not matter). A centre
 * whose x is not a finite number never lies at the same place as
 * anything (its differences are NaN or infinite, so same_place's hypot
 * test fails): such rectangles are left out, and such an r has none.
 * (keep_outlined, twice a frame, and listed_near asked 1.5 M rectangles
 * each per 1080p frame of scripts/callgrind-bench.) */
typedef struct {
  vis_rect *by_x; /* NULL: out of memory, ask all[0..n_all) in turn */
  int n;
  const vis_rect *all;
  int n_all;
} place_index;

static int by_centre_x(const void *pa, const void *pb) {
  double a = ((const vis_rect *)pa)->center.x, b = ((const vis_rect *)pb)->center.x;
  return (a > b) - (a < b);
}

/* The index of r[0..n), with room for `room` more (place_index_add). */
static void place_index_make(place_index *pi, const vis_rect *r, int n, int room) {
  *pi = (place_index){malloc(sizeof(vis_rect) * ((size_t)n + (size_t)room + 1)), 0, r, n};
  for (int k = 0; pi->by_x && k < n; k++)
    if (isfinite(r[k].center.x)) pi->by_x[pi->n++] = r[k];
  if (pi->by_x) qsort(pi->by_x, (size_t)pi->n, sizeof *pi->by_x, by_centre_x);
}

/* r added in its place (within the room place_index_make left). */
static void place_index_add(place_index *pi, const vis_rect *r) {
  if (pi->by_x) vis__by_x_insert(pi->by_x, &pi->n, r);
}

/* One of the index's rectangles lies at the same place as r (same_place,
 * centres within `near`). */
static bool place_index_near(const place_index *pi, const vis_rect *r, double near) {
  if (!pi->by_x) {
    for (int j = 0; j < pi->n_all; j++)
      if (same_place(&pi->all[j], r, near)) return true;
    return false;
  }
  if (!isfinite(r->center.x)) return false;
  for (int k = vis__by_x_first_within(pi->by_x, pi->n, r->center.x, near); k < pi->n && pi->by_x[k].center.x - r->center.x < near; k++)
    if (same_place(&pi->by_x[k], r, near)) return true;
  return false;
}

/* The first looks taken ahead (vis__match_ahead_make). */
struct vis__match_ahead {
  int n;
  vis_rect *r; /* per look: its hypothesis */
  hyp *h;      /* per look: sampled and scored; vis__match takes it over */
  int n_ranked;     /* the hypotheses whose outline was ranked ahead */
  vis_rect *rank_r; /* per ranked hypothesis: its rectangle */
  int *rank_e;      /* and its outline's support (x1000, edge_rank_item's) */
};

/* The photo's colours: how its cards' faces map to a and b of Lab,
 * measured on its fully visible cards not seen under a glare (known
 * with PHOTO_GAIN_CARDS such cards or more). One face's own gain and
 * offset follow any print's colours: a lamp's blue face fitted onto a
 * palace's purple shifts a by 5-10 more than the photo's other cards
 * (tuning hard 3012, 3079), and where the two faces' print tells too
 * little, that shift still shows. a and b are predicted as
 * neutral + chroma * gain of L * (face - 128): light that dims a card
 * (a carpet's shadow, the lighting's falloff) dims its colours as much
 * as its L (Lab's a and b scale with L when the light scales), and the
 * photo's cards show it: a and b gains of 0.53-0.80 beside gains of L
 * of 0.62-0.84, unbounded (DEV hard 3142, normal 3067). The matcher's
 * fits stop at 0.8, so their median said 0.8 whatever the light: a
 * palace a sixth visible in a carpet's shadow (gain of L 0.56, its a
 * gain 0.45) was predicted too purple, misfit as much as the lamp's face
 * and stayed a lamp (DEV normal 3067; hard 3012 3048 3142 3171 3183
 * 3193 alike). */
typedef struct {
  double chroma;     /* a and b's gain per unit of a card's gain of L */
  double neutral[2]; /* a and b where the face is grey (128) */
  bool known;
} photo_colour;

/* ---- the work shared by the workers: per hypothesis or object,
 * each item writes only its own hyp / object (see parallel.c) ---- */

typedef struct {
  match_ctx *w; /* per worker: its own scratch */
  hyp *H;
  const vis_rect *hyps;
  const int *items;    /* hypothesis (or object) of each item */
  const bool *rerank;  /* per item: an accepted object hid some of it */
  vis__object *acc;    /* accepted objects (refine) */
  const vis__object *refined; /* per object: as shows_card refined it */
  const bool *is_refined;
  hyp_rank *edge_rank; /* per hypothesis: its outline's support (x1000) */
  double normal_gain;  /* the photo's gain of L (photo_gain), for settle_type */
  photo_colour colour; /* the photo's colours (photo_colour_of), for settle_type */
  int settle_phase;    /* settle_item: 0 the cards a fifth visible and more, 1 the rest */
  bool glare_seen;     /* a card of phase 0 showed a lift (settle_item) */
  bool *frame_lifted;  /* per object: its frame showed a lift in settle_type */
  vis__match_ahead *ahead; /* first looks taken ahead, or NULL */
  const int *look;         /* per hypothesis: its look in ahead, or -1 (NULL: none) */
  int n_hyps;              /* of hyps */
  place_index listed;      /* hyps by x (listed_near) */
} shared_work;

/* How well a hypothesis's outline shows, before anything is accepted. */
static void edge_rank_item(void *ctx, int worker, int item) {
  shared_work *sw = ctx;
  const match_ctx *m = &sw->w[worker];
  int seen;
  double weakest;
  double e = edge_support(m->t, m->claim, &sw->hyps[item], &seen, &weakest);
  sw->edge_rank[item] = (hyp_rank){item, (int)lround(1000 * e), 0};
}

/* edge_rank_item for the hypothesis sw->items[item]. */
static void listed_edge_rank_item(void *ctx, int worker, int item) {
  shared_work *sw = ctx;
  edge_rank_item(ctx, worker, sw->items[item]);
}

/* Every hypothesis's outline rank into sw->edge_rank: taken over from the
 * looks ahead where they ranked the very rectangle (walked in order, as
 * match_looks; a rank depends on the table and the rectangle alone while
 * nothing is claimed), the others measured (todo: sw->items, scratch). */
static bool same_rect(const vis_rect *a, const vis_rect *b);
static void rank_outlines(int threads, const vis__match_ahead *a, shared_work *sw, int n_hyps,
                          int *todo) {
  int n_todo = 0, from = 0;
  for (int i = 0; i < n_hyps; i++) {
    int known = -1;
    for (int k = from; a && k < a->n_ranked && known < 0; k++)
      if (same_rect(&a->rank_r[k], &sw->hyps[i])) known = k, from = k + 1;
    if (known >= 0)
      sw->edge_rank[i] = (hyp_rank){i, a->rank_e[known], 0};
    else
      todo[n_todo++] = i;
  }
  vis__parallel_for(threads, n_todo, listed_edge_rank_item, sw);
}

/* ---- carpets whose hypotheses came from their rug's edges ---- */

/* A carpet of the demo deck is a rug printed on a plain ground, inset
 * 7 mm from its short ends and 4 mm from its long sides (measured on the
 * deck's face: vis__template.rug_end_mm and rug_side_mm). Where a carpet
 * lies on another's ground or on a card's frame, the rug's edges are the
 * straight edges the line detector finds, and a hypothesis made from
 * them lies the end inset along the carpet and 0 or the side inset
 * across it (14 px and 0 or 8 px at 1080p): beyond the pose search's
 * reach (about 10 px), and there its own face explains little of what
 * shows (HUNT hard 3674: the green carpet, 14.5 % of it showing, 14.7 px
 * along and 6.5 across: 62 of 141, 0.44; at the rug's offsets 135 of
 * 137). Every line corner giving the rug's rectangles as hypotheses too
 * found such carpets but added 60 % more hypotheses and lost 10 DEV
 * scenes (session 28). So only a hypothesis whose best face explains
 * under RUG_LOW_SCORE of what shows when it is scored again after an
 * accepted object hid part of it (rescore_item), and whose best face is
 * a carpet's or whose candidates hold a carpet face nearly as good
 * (rug_face), is tried at the rug's offsets, once per face: the eight
 * poses of rug_shifted in its own frame, scored with that face. It
 * moves to the first whose face explains RUG_ACCEPT of what shows there
 * and more samples than it did (a later one replaces it only with a
 * share RUG_GAIN higher), or where a pose search from the best shift
 * ends (rug_search), and is scored there afresh. Not to a pose where
 * a hypothesis of the list lies already (listed_near): the carpet had
 * its chance there, and a moved one at the same place won instead, was
 * refined a little otherwise and changed a type and a contact (DEV hard
 * 3117, 3194).
 * Tried at the first scoring too, the shifts moved hypotheses of
 * carpets wholly shown, which others find anyway, changed which of them
 * won, and 3674's green was lost again. */
#define RUG_LOW_SCORE 0.85 /* RESCUE_ACCEPT */
#define RUG_ACCEPT 0.95    /* SLIVER_SCORE */
#define RUG_GAIN 0.1
#define RUG_RUNNER_SHARE 0.85
#define RUG_SEARCH_FROM 0.85 /* RESCUE_ACCEPT */
#define RUG_ANY_OBJECT 0.5
#define RUG_ANY_OWN 0.3
enum { RUG_SHIFTS = 8 };

/* A carpet face not taken yet whose rug's insets were measured. */
static bool has_rug(const match_ctx *m, int f) {
  const vis__template *tp = &m->tpl[f];
  return tp->kind == VIS__FACE_CARPET && tp->rug_end_mm > 0 && !m->used[f];
}

/* h is tried at the rug's offsets at all: alive, its best face explains
 * under RUG_LOW_SCORE, and under half of it shows (as carpet_over_card
 * asks): the carpets so missed showed 11-49 % of
 * themselves, and of the 376 hypotheses tried in the normal scene of
 * scripts/callgrind-bench (4588 -> 5347 M instructions per 1080p frame)
 * the 225 of which half or more showed cost 486 M. */
static bool rug_candidate(const hyp *h) {
  return h->alive && h->best.face >= 0 && h->best.score < RUG_LOW_SCORE &&
         !shows_half(&h->best);
}

/* The carpet face a candidate h is tried for at the rug's offsets
 * (*flipped: its turn), or -1: its best face when that is a carpet's,
 * else the first carpet face of its candidates whose coarse count is
 * RUG_RUNNER_SHARE of the first candidate's. A carpet on cards
 * and under another carpet (DEV hard 3105: the yellow, 49 % showing)
 * shows the cards' frames
 * where its rug's ground was expected, and a card face won its
 * hypothesis 14 px along it (441 of 549, 0.80) with the yellow face
 * third (coarse 103 of the first's 114, 0.90); at the rug's offset the
 * yellow face explains 640 of 640. */
static int rug_face(const match_ctx *m, const hyp *h, bool *flipped) {
  if (m->tpl[h->best.face].kind == VIS__FACE_CARPET) {
    *flipped = h->best.flipped;
    return has_rug(m, h->best.face) ? h->best.face : -1;
  }
  for (int c = 0; c < h->n_cand; c++)
    if (has_rug(m, h->cand_face[c]) && h->cand_expl[c] >= RUG_RUNNER_SHARE * h->cand_expl[0]) {
      *flipped = h->cand_flip[c];
      return h->cand_face[c];
    }
  return -1;
}

static bool rug_pose_better(const vis__object *o, const vis__object *b) {
  return o->explained > b->explained && o->score >= b->score + RUG_GAIN && o->score >= RUG_ACCEPT;
}

/* h's rectangle moved by shift k of the rug's offsets (tp's): along by
 * +-rug_end_mm and across by 0 or +-rug_side_mm (k < 6), or across by
 * +-rug_side_mm alone (a corner of the carpet's own end and its rug's
 * side). */
static vis_rect rug_shifted(const match_ctx *m, const vis__template *tp, const hyp *h, int k) {
  double s = m->t->px_per_mm, a = h->r.angle_deg * VIS_PI / 180.0;
  const double across[4] = {0, tp->rug_side_mm, -tp->rug_side_mm, tp->rug_side_mm};
  double along = k >= 6 ? 0 : (k & 1 ? -1 : 1) * tp->rug_end_mm;
  double ac = k >= 6 ? (k & 1 ? -1 : 1) * across[3] : across[k / 2];
  vis_rect r = h->r;
  r.center.x += s * (along * cos(a) + ac * sin(a));
  r.center.y += s * (along * sin(a) - ac * cos(a));
  return r;
}

/* h takes over the sampling at its new pose (c), keeps what was decided
 * of it, and is scored there as at first. */
static void move_to(const match_ctx *m, hyp *h, hyp *c) {
  hyp old = *h;
  *h = *c;
  h->no_card = old.no_card, h->cards_out = old.cards_out, h->over_card = old.over_card;
  h->searched = old.searched, h->beside_phantom = old.beside_phantom;
  h->rug_tried = old.rug_tried, h->rug_any = old.rug_any;
  release_hyp(m, &old);
  if (h->alive) rescore(m, h, true, true);
}

/* A hypothesis as the corners gave it (listed: all of them, by x) lies
 * within NMS_MM and 4 degrees of r (near_duplicate's test). */
static bool listed_near(const match_ctx *m, const place_index *listed, const vis_rect *r) {
  return place_index_near(listed, r, NMS_MM * m->t->px_per_mm);
}

/* Face f (turned or not) scored at pose r (*o), on h's sampling grid;
 * false when r is listed already (listed_near) or out of memory. Only
 * the samples that nothing accepted hides are sampled (sample_unhidden:
 * the same score), and the pose moved to is sampled whole (rug_move). */
static bool rug_pose_try(const match_ctx *m, const hyp *h, const place_index *listed,
                         const vis_rect *r, int f, bool flipped, vis__object *o) {
  const vis__template *tp = &m->tpl[f];
  if (listed_near(m, listed, r)) return false;
  hyp c;
  /* out of memory (not sampled): that pose is not tried */
  bool sampled = sample_unhidden(m->t, r, h->tw, h->th, tp->w_mm, tp->h_mm, m->mp->step,
                                 m->claim, m->self, &c);
  if (sampled) {
    double so[3];
    int valid = free_samples(m, &c, 1, so);
    score_face(m, &c, valid, so, f, flipped, false, -1, o);
  }
  release_hyp(m, &c);
  return sampled;
}

/* h moved to pose r (rug_pose_try's), sampled there whole; out of
 * memory: h stays. */
static void rug_move(const match_ctx *m, hyp *h, const vis_rect *r, int f) {
  const vis__template *tp = &m->tpl[f];
  hyp c;
  if (!sample_hyp(m->t, r, h->tw, h->th, tp->w_mm, tp->h_mm, m->mp->step, &c)) {
    release_hyp(m, &c);
    return;
  }
  move_to(m, h, &c);
}

/* The pose searched from the best shift (start) when no shift did: a
 * hypothesis from a corner of the rug's side and of something else along
 * the carpet lies a few mm from any shift (DEV hard 3147: the red, 37 %
 * showing, under the blue; 303 of 434 at its hypothesis, 401 of 451 at
 * the best shift, 2.2 mm along from the truth, and 468 of 475 where the
 * pose search from there ends, as search_pose searches). True when h
 * should move to *to. */
static bool rug_search(const match_ctx *m, const hyp *h, const place_index *listed,
                       const vis__object *start, vis_rect *to) {
  vis__object probe = *start, o;
  refine_from(m->t, &m->tpl[probe.face], m->claim, m->self, &probe, 4.0, 2.0, 6, 1, false);
  if (!rug_pose_try(m, h, listed, &probe.r_px, probe.face, probe.flipped, &o))
    return false;
  *to = probe.r_px;
  return rug_pose_better(&o, &h->best);
}

/* Face tp has h's size and the rug insets of a (so the same shifted
 * poses and the same samples serve both). */
static bool same_rug(const vis__template *tp, const vis__template *a, const hyp *h) {
  return tp->w == h->tw && tp->h == h->th && tp->rug_end_mm == a->rug_end_mm &&
         tp->rug_side_mm == a->rug_side_mm;
}

/* What the shifted poses of one try gave: the best that moves h
 * (best_o at best_r, when have) and the best score of any (top, when
 * shifted). */
typedef struct {
  vis_rect best_r;
  vis__object best_o, top;
  bool have, shifted;
} rug_pick;

/* Face score o at shifted pose r offered to p: it moves h at the first
 * shift whose face explains RUG_ACCEPT and more samples than h's, and a
 * later one replaces it only with RUG_GAIN more (rug_pose_better). */
static void rug_offer(rug_pick *p, const vis_rect *r, const vis__object *o) {
  if (!p->shifted || o->score > p->top.score) p->top = *o, p->shifted = true;
  if (rug_pose_better(o, &p->best_o)) p->best_r = *r, p->best_o = *o, p->have = true;
}

/* h moved where p says, else to where the pose search from the best
 * shift ends when that shift explains RUG_SEARCH_FROM (rug_search);
 * true when it moved (sampled there as face f). */
static bool rug_finish(const match_ctx *m, hyp *h, const place_index *listed, rug_pick *p,
                       int f) {
  if (!p->have && p->shifted && p->top.score >= RUG_SEARCH_FROM)
    p->have = rug_search(m, h, listed, &p->top, &p->best_r);
  if (p->have) rug_move(m, h, &p->best_r, f);
  return p->have;
}

/* Every face of faces[] in both turns scored on c (sampled at pose r).
 * Only a pose mostly in the object mask (RUG_ANY_OBJECT of what shows)
 * and where one carpet face alone explains RUG_SEARCH_FROM of it. What
 * shows of a carpet strip is in the mask (the carpets so found: 0.88 -
 * 1.00 of 123-313 samples), while the faces' cream ground fits a cream
 * cloth or a card's frame beside the strip (DEV hard 3174: a
 * hypothesis 12 px off a desert on cream cloth, shifted onto the cloth:
 * every carpet face 123 of 129, none of it in the mask; such poses in
 * HUNT easy 3638 and 3707, 0.00-0.03 in the mask, explained 0.94-1.00).
 * Two faces there tell no carpet either (a real strip tells its colour:
 * 3707's green 123 of 123, the blue 77). */
static int pix_in_object(const match_ctx *m, const hyp *h);
static void score_rug_faces(const match_ctx *m, const hyp *c, const vis_rect *r,
                            const int *faces, int n_faces, rug_pick *p) {
  double so[3];
  int valid = free_samples(m, c, 1, so);
  if (count_in_object(m, c, valid) < RUG_ANY_OBJECT * valid) return;
  int give_up = (int)ceil(RUG_SEARCH_FROM * valid) - 1;
  vis__object best = {.face = -1};
  for (int i = 0; i < 2 * n_faces; i++) {
    vis__object o;
    score_face(m, c, valid, so, faces[i / 2], i & 1, false, give_up, &o);
    if (o.explained <= 0) continue;
    if (best.face >= 0 && best.face != o.face) return; /* two colours */
    if (best.face < 0 || o.score > best.score) best = o;
  }
  if (best.face >= 0) rug_offer(p, r, &best);
}

/* Of h's samples (all of them), how many lie in the object mask. */
static int pix_in_object(const match_ctx *m, const hyp *h) {
  const tp_image *obj = &m->t->object;
  int W = m->t->lab.width, n = 0;
  for (int k = 0; k < h->n; k++) {
    int pix = h->pix[k];
    n += tp_image_row(obj, pix / W)[pix % W] != 0;
  }
  return n;
}

/* Pose r may pass score_rug_faces' object test (false: it surely
 * fails). That test asks only where the samples lie: sampled there
 * unhidden (sample_unhidden), every sample is free, so score_rug_faces'
 * list is all of them, and it returns before any face is scored unless
 * RUG_ANY_OBJECT of them lie in the mask. So they are placed first
 * without their Lab (place_unhidden, the same samples), and a pose that
 * fails is neither sampled nor listed (nothing after the test reads the
 * worker's list or packed samples it would have left: every face's fit
 * lists and packs its own first). On the bench frame (scene 500001,
 * 1080p) try_rug_any sampled 806 poses, 71 M instructions. Out of
 * memory: true (sampled as before). */
static bool rug_any_worth(const match_ctx *m, const hyp *h, const vis__template *tp,
                          const vis_rect *r) {
  hyp c;
  bool placed = place_unhidden(m->t, r, h->tw, h->th, tp->w_mm, tp->h_mm, m->mp->step,
                               m->claim, m->self, &c);
  bool worth = !placed || !(pix_in_object(m, &c) < RUG_ANY_OBJECT * c.n);
  release_hyp(m, &c);
  return worth;
}

/* A hypothesis from the rug's corner whose carpet face is not among its
 * candidates: the carpet shows a strip of itself beside the card it lies
 * on (HUNT easy 3638: the green, 22 % showing under the red and the blue
 * beside an adventure d; 3707: the green, 12 % under the red), its rug's
 * corner meets the card's frame, and at the hypothesis 7 mm along the
 * carpet the strip's rug lies 7 mm off the face's: card faces explain
 * as little (coarse counts of 14-24) and fill the four candidates, so
 * rug_face finds no carpet face to try. At the rug's offset the green
 * explains 282 of 288 (3638) and 123 of 123 (3707). So a candidate
 * (rug_candidate) that rug_face gives no face is tried once at the rug's
 * offsets for every carpet face not taken yet, in both turns, each pose
 * sampled once for all of them (same_rug), and moves as try_rug_shifts moves it. A face's
 * count gives up where it cannot reach RUG_SEARCH_FROM: below that a
 * shift neither moves it nor starts a search. */
static void try_rug_any(const match_ctx *m, hyp *h, const place_index *listed) {
  if (h->rug_any) return;
  /* Speed: a hypothesis mostly off the object mask seldom shifts onto
   * it. On the bench frame (scene 500001, 1080p) those under
   * RUG_ANY_OWN sampled 2577 of the 3248 shifted poses and 5 of them
   * passed RUG_ANY_OBJECT; the hypotheses that moved onto real strips
   * (HUNT easy 3638, 3707, 3890) lay 0.90-1.00 in the mask. */
  if (h->free_object < RUG_ANY_OWN * h->free_n) return;
  h->rug_any = true;
  int faces[VIS_MAX_CARPETS], n_faces = 0;
  for (int f = 0; f < m->n_tpl && n_faces < VIS_MAX_CARPETS; f++)
    if (has_rug(m, f) && same_rug(&m->tpl[f], n_faces ? &m->tpl[faces[0]] : &m->tpl[f], h))
      faces[n_faces++] = f;
  if (n_faces == 0) return;
  const vis__template *tp = &m->tpl[faces[0]];
  rug_pick p = {.best_o = h->best};
  for (int k = 0; k < RUG_SHIFTS; k++) {
    vis_rect r = rug_shifted(m, tp, h, k);
    if (listed_near(m, listed, &r) || !rug_any_worth(m, h, tp, &r)) continue;
    hyp c;
    /* out of memory (not sampled): that pose is not tried */
    if (sample_unhidden(m->t, &r, h->tw, h->th, tp->w_mm, tp->h_mm, m->mp->step, m->claim,
                        m->self, &c))
      score_rug_faces(m, &c, &r, faces, n_faces, &p);
    release_hyp(m, &c);
  }
  vis_rect was = h->r;
  if (!rug_finish(m, h, listed, &p, p.top.face)) return;
  if (m->mp->log)
    fprintf(m->mp->log,
            "rug any: hyp at %.0f %.0f %.1f to %.0f %.0f %.1f: alive %d face %d %d of %d, object %d of %d\n",
            was.center.x, was.center.y, was.angle_deg, h->r.center.x, h->r.center.y,
            h->r.angle_deg, h->alive, h->best.face, h->best.explained, h->best.valid,
            h->free_object, h->free_n);
}

/* A candidate h (rug_candidate) tried at the rug's offsets for the face
 * rug_face gives, once per face, or for every carpet face when it gives
 * none (try_rug_any); moved as rug_offer and rug_finish say. */
static void try_rug_shifts(const match_ctx *m, hyp *h, const place_index *listed) {
  if (!rug_candidate(h)) return;
  bool flipped = false;
  int f = rug_face(m, h, &flipped);
  if (f < 0) {
    try_rug_any(m, h, listed);
    return;
  }
  if (h->rug_tried == f + 1) return;
  h->rug_tried = f + 1;
  rug_pick p = {.best_o = h->best};
  for (int k = 0; k < RUG_SHIFTS; k++) {
    vis_rect r = rug_shifted(m, &m->tpl[f], h, k);
    vis__object o;
    if (rug_pose_try(m, h, listed, &r, f, flipped, &o)) rug_offer(&p, &r, &o);
  }
  rug_finish(m, h, listed, &p, f);
}

/* Samples a new hypothesis and scores it, or takes over the look taken
 * ahead at it (the same: a first look depends on the hypothesis alone;
 * each item takes its own look, match_looks gives each look to one). */
static void first_score_item(void *ctx, int worker, int item) {
  shared_work *sw = ctx;
  const match_ctx *m = &sw->w[worker];
  int i = sw->items[item], f = template_grid(m->t, m->tpl, m->n_tpl, &sw->hyps[i]);
  const vis__template *tp = &m->tpl[f];
  hyp *h = &sw->H[i];
  if (sw->look && sw->look[i] >= 0) {
    hyp *seen = &sw->ahead->h[sw->look[i]];
    *h = *seen;
    memset(seen, 0, sizeof *seen); /* taken over: freed with H */
    return;
  }
  if (!sample_hyp(m->t, &sw->hyps[i], tp->w, tp->h, tp->w_mm, tp->h_mm, m->mp->step, h)) {
    h->alive = false;
    h->oom = true;
    return;
  }
  if (h->alive) rescore(m, h, true, true);
}

static void rescore_item(void *ctx, int worker, int item) {
  shared_work *sw = ctx;
  hyp *h = &sw->H[sw->items[item]];
  /* compared with the other faces only (carpet_instead) and one of them
   * taken: the card faces again, and no card for now, as before */
  if (h->cards_out && !sw->rerank[item]) {
    h->cards_out = h->over_card = false;
    h->no_card = true;
    rescore(&sw->w[worker], h, true, false);
    try_rug_shifts(&sw->w[worker], h, &sw->listed);
    return;
  }
  /* a carpet accepted on it now hides what its face failed to explain
   * (and the card faces are compared again) */
  bool cards_back = sw->rerank[item] && h->cards_out;
  if (sw->rerank[item]) h->no_card = h->cards_out = h->over_card = false;
  rescore(&sw->w[worker], h, cards_back, sw->rerank[item]);
  try_rug_shifts(&sw->w[worker], h, &sw->listed);
}

static void refine_item(void *ctx, int worker, int item) {
  shared_work *sw = ctx;
  const match_ctx *m = &sw->w[worker];
  if (sw->is_refined[item])
    sw->acc[item] = sw->refined[item]; /* shows_card refined it already */
  else
    refine(m->t, &m->tpl[sw->acc[item].face], m->claim, (int16_t)item, &sw->acc[item], 1);
}

/* The type of accepted card i settled at its refined pose, among every
 * type face of its size in both turns, not only the four candidates its
 * hypothesis kept: the candidates were ranked coarsely (every 4th sample)
 * where look-alikes tie, and a card mostly covered kept adventure a, b and
 * d while it was c (tuning normal 3011). Faces explaining at least
 * SETTLE_SHARE of the best's samples meet in turn; of two, the one that
 * explains more of the samples where they differ (discriminate) stays.
 * The runner-up is the last face the winner met that came closest. */
#define SETTLE_SHARE 0.8
/* tuning easy and normal 3000-3059: right changes won 24:0, 26:2,
 * 31:13, 53:40 and 45:36 of the samples (1 per mm) where they differ */
#define SETTLE_MIN_DISC 10
#define SETTLE_MIN_MARGIN 0.1
/* Look-alikes that differ in fewer than SETTLE_MIN_DISC samples by much
 * (a strip of a mostly covered adventure: border and background print),
 * or whose telling samples split nearly evenly (within SETTLE_MIN_MARGIN:
 * adventure a and b 6 : 6 of 12 on a third of an a whose corner letters
 * and waves show, tuning easy 3092), are told apart by their residual
 * sums (residual_sums) when one is SETTLE_FINE_MARGIN below the other:
 * +1 b's, -1 a's; 0 no verdict. Not an even split under a glare lift
 * (lf): the lifted faces' sums carry the error of the lift field (tuning
 * normal 3125: a palace a fifth visible under glare, 23 : 24 of 47
 * against the lamp, its sums 14 % above the lamp's). */
#define SETTLE_FINE_MARGIN 0.02
/* samples (1 per mm) that must show: on 172 of a card's frame alone the
 * sums of all twelve types were 1320-1480 (tuning easy 3215); the
 * adventures told apart so showed 430 and more (tuning easy 3230, normal
 * 3210, 3231, 3257) */
#define SETTLE_FINE_MIN 400
/* and a type that tells itself apart where the faces differ but fits
 * the whole visible part worse than the matcher's (a lamp face pushed to
 * the fit's saturation bound to pass for a palace: 17 % worse, tuning
 * normal 3245) does not replace it */
#define SETTLE_MAX_WORSE 0.05
static bool telling_unclear(int na, int nb, int nd, const lift_field *lf) {
  return nd < SETTLE_MIN_DISC || (!lf && abs(na - nb) < SETTLE_MIN_MARGIN * nd);
}

static int fine_verdict(const match_ctx *m, const hyp *h, const vis__object *a,
                        const vis__object *b, const lift_field *la, const lift_field *lb,
                        int na, int nb, int nd, int16_t i) {
  if (!telling_unclear(na, nb, nd, la)) return 0;
  double sa, sb;
  if (residual_sums(m, h, a, b, la, lb, &sa, &sb) < SETTLE_FINE_MIN) return 0;
  if (m->mp->log)
    fprintf(m->mp->log, "object %d: types %d and %d, %d : %d where %d samples differ; residual sums %.0f, %.0f\n",
            i, m->tpl[a->face].index, m->tpl[b->face].index, na, nb, nd, sa, sb);
  if (sb < (1 - SETTLE_FINE_MARGIN) * sa) return 1;
  if (sa < (1 - SETTLE_FINE_MARGIN) * sb) return -1;
  return 0;
}

/* settle_type's race of the candidate faces: the winner, the runner-up
 * closest to it and their counts in the samples that tell them apart
 * (run_na the winner's, run_nb the runner-up's, of run_nd). */
typedef struct {
  int win, runner;
  int run_na, run_nb, run_nd;
} type_race;

/* Each candidate that explains enough samples (SETTLE_SHARE of the best,
 * top) meets the winner so far where their faces differ; of two turns of
 * one type the better stays. */
static type_race race_types(const match_ctx *m, const hyp *h, const vis__object *dec, int n_cand,
                            int top, const lift_field *lf, int16_t i) {
  type_race r = {.win = -1, .runner = -1, .run_nd = -1};
  int na = 0, nb = 0, nd = 0;
  for (int c = 0; c < n_cand; c++) {
    if (dec[c].explained < 8 || dec[c].explained < SETTLE_SHARE * top) continue;
    if (r.win < 0) {
      r.win = c;
      continue;
    }
    if (m->tpl[dec[c].face].index == m->tpl[dec[r.win].face].index) {
      if (dec[c].explained > dec[r.win].explained) r.win = c; /* the better turn */
      continue;
    }
    discriminate(m, h, &dec[r.win], &dec[c], lf, lf, &na, &nb, &nd);
    int fine = fine_verdict(m, h, &dec[r.win], &dec[c], lf, lf, na, nb, nd, i);
    if (fine ? fine > 0 : nb > na || (nb == na && dec[c].explained > dec[r.win].explained)) {
      int k = na;
      na = nb, nb = k;
      r.runner = r.win, r.win = c;
    } else if (r.runner < 0 || na - nb < r.run_na - r.run_nb) {
      r.runner = c;
    } else {
      continue;
    }
    r.run_na = na, r.run_nb = nb, r.run_nd = nd;
  }
  return r;
}

/* Whether the matcher's own face (dec[own]) stands against the race's
 * winner of another type: the winner must tell itself apart from it
 * directly too, by a margin of the samples that differ or, for
 * look-alikes that differ in few, by the residual sums. *na, *nb, *nd:
 * the winner's and the own face's samples of those that differ. */
static bool own_stands(const match_ctx *m, const hyp *h, const vis__object *dec, int win, int own,
                       const lift_field *lf, int16_t i, int *na, int *nb, int *nd) {
  discriminate(m, h, &dec[win], &dec[own], lf, lf, na, nb, nd);
  if (m->mp->log)
    fprintf(m->mp->log, "object %d: type %d (%d) against %d (%d): %d : %d of %d\n", i,
            m->tpl[dec[win].face].index, dec[win].explained, m->tpl[dec[own].face].index,
            dec[own].explained, *na, *nb, *nd);
  double s_win, s_own;
  int n_fine = residual_sums(m, h, &dec[win], &dec[own], lf, lf, &s_win, &s_own);
  if (m->mp->log)
    fprintf(m->mp->log, "object %d: residual sums %.0f against %.0f of %d\n", i, s_win, s_own,
            n_fine);
  return telling_unclear(*na, *nb, *nd, lf)
             ? n_fine < SETTLE_FINE_MIN || s_win >= (1 - SETTLE_FINE_MARGIN) * s_own
             : *na - *nb < SETTLE_MIN_MARGIN * *nd || s_win > (1 + SETTLE_MAX_WORSE) * s_own;
}

/* A card's colours may stray from the photo's (pc) by a factor: the
 * photo's fully visible cards' a and b gains lie within 0.8-1.2 of
 * their median per gain of L (DEV hard 3142), and a strip of a card
 * beside carpets shows its print's colours paler still (palaces a sixth
 * to a third visible: a at 0.62-0.72 of the photo's, DEV hard 3012 3171
 * 3183 3193). So each face fits its own gains of a and b, but only
 * within CHROMA_LO..CHROMA_HI of the photo's for the card's light: a
 * lamp's face that passes for a palace needs a gain of a of twice the
 * photo's or more (the matcher's fit of such a card: 1.17-1.25, the
 * photo's cards 0.53-0.80) and stops at the upper bound; at 1.2 such
 * lamps misfit 0.80-0.83 of the palace's, on COLOUR_MARGIN's bar (DEV
 * hard 3012 3144), at 1.1 0.79-0.82: the bound is tuned there. */
#define CHROMA_LO 0.6
#define CHROMA_HI 1.1

/* Face f's (turned or not) gains of a and b at h's free samples, each
 * fitted (least squares around the photo's grey, on samples it misfits
 * under tau at the photo's gain g: something else lies on the others)
 * and kept within CHROMA_LO..CHROMA_HI of g; lf: the lift (NULL: none). */
static void chroma_gains(const match_ctx *m, const hyp *h, int f, bool flipped,
                         const photo_colour *pc, double g, const lift_field *lf, double out[2]) {
  int N = h->tw * h->th;
  double sxy[2] = {0, 0}, sxx[2] = {0, 0};
  for (int k = 0; k < h->n; k++) {
    if (!is_free(m, h->pix[k])) continue;
    const float *t = m->tpl[f].lab + 3 * (flipped ? N - 1 - h->idx[k] : h->idx[k]);
    double l = lift_at(lf, h, k), r = 0, x[2], y[2];
    for (int c = 0; c < 2; c++) {
      x[c] = (1 - l) * (t[1 + c] - 128);
      y[c] = h->lab[3 * k + 1 + c] - l * lift_white[1 + c] - (1 - l) * pc->neutral[c];
      r += fabs(y[c] - g * x[c]);
    }
    if (r >= m->mp->tau) continue;
    for (int c = 0; c < 2; c++) sxy[c] += x[c] * y[c], sxx[c] += x[c] * x[c];
  }
  for (int c = 0; c < 2; c++)
    out[c] = sxx[c] > 0 ? fmin(CHROMA_HI * g, fmax(CHROMA_LO * g, sxy[c] / sxx[c])) : g;
}

/* Face f (turned or not) in the photo's colours pc with a and b gains g. */
static void photo_face(const photo_colour *pc, int f, bool flipped, const double g[2],
                       vis__object *w) {
  *w = (vis__object){.face = f,
                     .flipped = flipped,
                     .gain = {1, g[0], g[1]},
                     .offset = {0, pc->neutral[0] - 128 * g[0], pc->neutral[1] - 128 * g[1]}};
}

/* Face f (turned or not) at h's free samples in the photo's colours pc
 * for a card of gain of L gl (chroma_gains), lifted by lf (NULL: none):
 * the residuals in a and b summed, each sample's capped at tau
 * (something else lying there is no evidence). */
static double colour_misfit(const match_ctx *m, const hyp *h, int f, bool flipped,
                            const photo_colour *pc, double gl, const lift_field *lf) {
  double g[2];
  chroma_gains(m, h, f, flipped, pc, pc->chroma * gl, lf, g);
  vis__object w;
  photo_face(pc, f, flipped, g, &w);
  double sum = 0;
  for (int k = 0; k < h->n; k++) {
    if (!is_free(m, h->pix[k])) continue;
    double p[3];
    predict(m, h, &w, k, lift_at(lf, h, k), p);
    sum += fmin(fabs(h->lab[3 * k + 1] - p[1]) + fabs(h->lab[3 * k + 2] - p[2]), m->mp->tau);
  }
  return sum;
}

/* Two faces' colours compared only where they differ. The two type
 * faces a colour check weighs share much of their print (a palace's and
 * a lamp's layout, border and picture frame); where both predict the
 * same colour the photo's residuals say nothing about which it is, and
 * summed over every free sample they pulled the two misfits together:
 * a palace seen as a lamp misfit 0.68-0.84 of the lamp's, on
 * COLOUR_MARGIN's bar (DEV hard 3012 3019 3048 3144 3171 3183 3193),
 * where the two differ 0.56-0.75; a right type's other face misfit 1.22
 * times its own or more there (0.82 at worst: an adventure a fifth
 * visible; DEV hard 3000-3066 and 11 more, every colour check and every
 * card's race runner-up). A sample counts where the two faces'
 * predictions in the photo's colours (each face with its own gains,
 * chroma_gains) differ in a and b by COLOUR_DIFFER or more: the photo's
 * colour noise, what a card's own face misfits per sample (4-6 of a + b
 * on the fully visible cards of DEV hard 3000-3049). */
#define COLOUR_DIFFER 5.0
typedef struct {
  double a, b; /* the two faces' misfits, each sample's capped at tau */
  int n;       /* the samples where they differ */
} colour_pair;

/* Faces a and b (candidates, turned or not) at h's free samples where
 * they differ, in the photo's colours pc for a card of gain of L gl,
 * lifted by lf (NULL: none). */
static colour_pair colour_misfits(const match_ctx *m, const hyp *h, const vis__object *a,
                                  const vis__object *b, const photo_colour *pc, double gl,
                                  const lift_field *lf) {
  double ga[2], gb[2];
  chroma_gains(m, h, a->face, a->flipped, pc, pc->chroma * gl, lf, ga);
  chroma_gains(m, h, b->face, b->flipped, pc, pc->chroma * gl, lf, gb);
  vis__object wa, wb;
  photo_face(pc, a->face, a->flipped, ga, &wa);
  photo_face(pc, b->face, b->flipped, gb, &wb);
  colour_pair r = {0, 0, 0};
  for (int k = 0; k < h->n; k++) {
    if (!is_free(m, h->pix[k])) continue;
    double pa[3], pb[3], l = lift_at(lf, h, k);
    predict(m, h, &wa, k, l, pa);
    predict(m, h, &wb, k, l, pb);
    if (fabs(pa[1] - pb[1]) + fabs(pa[2] - pb[2]) < COLOUR_DIFFER) continue;
    const float *y = &h->lab[3 * k];
    r.a += fmin(fabs(y[1] - pa[1]) + fabs(y[2] - pa[2]), m->mp->tau);
    r.b += fmin(fabs(y[1] - pb[1]) + fabs(y[2] - pb[2]), m->mp->tau);
    r.n++;
  }
  return r;
}

/* What settle_type saw of a card: every type face fitted at its pose
 * (cand, n_cand, on valid free samples), as the race saw them (dec:
 * lifted under a glare), the lift (lf, NULL: no glare) and the lift its
 * frame shows (frame_only, before lift_level). */
typedef struct {
  const vis__object *cand, *dec;
  int n_cand, valid;
  const lift_field *lf, *frame_only;
  int race_runner; /* race_runner_of, -1: none */
  bool race_narrow; /* the race kept o's type under type_min_margin */
  bool may_lift;    /* settle_type's: its frame may be taken as lifted */
} settle_view;

/* o, now another face at the same place, keeps keep's counts on the
 * matcher's grid: what shows of the card does not change with its face. */
static void keep_counts(vis__object *o, const vis__object *keep) {
  o->r_px = keep->r_px;
  o->total = keep->total;
  o->valid = keep->valid;
  o->explained = (int)lround(o->score * keep->valid);
}

/* o takes face c of sv at its place, keeping its counts on the
 * matcher's grid. The evidence sees the face lifted as its frame shows:
 * the level (lift_level) decides between types only; with it a face
 * fitted onto weakly lit cloth explained enough to stay (tuning hard
 * 3007). */
static void take_face(const match_ctx *m, const hyp *h, const settle_view *sv, vis__object *o,
                      int c) {
  vis__object keep = *o;
  *o = sv->dec[c];
  const lift_field *kept_lift = sv->lf;
  if (sv->lf) {
    vis__object w = sv->cand[c];
    if (refit_under(m, h, sv->valid, sv->frame_only, &w)) *o = w, kept_lift = sv->frame_only;
  }
  keep_counts(o, &keep);
  if (kept_lift) {
    o->lifted = true;
    for (int k = 0; k < LIFT_CELLS; k++)
      o->lift[o->flipped ? LIFT_CELLS - 1 - k : k] = (float)kept_lift->g[k];
  }
}

/* The print's vote and the fit can disagree: under a lamp's glare a
 * lamp's dark blue face fits the lifted card only at the fit's bounds of
 * L (gain 0.50-0.59, offset 60), the brighter adventure-e's at a normal
 * gain, so where the two differ the adventure comes closer in L on most
 * samples (2768 : 871 .. 2803 : 1802) although the lamp explains more of
 * them and more of the card (5355 against 5173, DEV hard 3096; 3089,
 * 3169, 3190 alike). Such a card is in doubt: the face of another type
 * than o's that explains FIT_DOUBT more of what shows than o's own face
 * (dec[*own]), both as the race saw them (dec, lifted under a glare);
 * -1: none. Ties of look-alikes are within 1-2 % (DEV hard 3000..3199),
 * the lamps 3.1-7.3 %. */
#define FIT_DOUBT 0.02
static int fits_more(const match_ctx *m, const vis__object *o, const vis__object *dec,
                     int n_cand, int *own) {
  int more = -1;
  *own = -1;
  for (int c = 0; c < n_cand; c++) {
    if (dec[c].face == o->face && dec[c].flipped == o->flipped)
      *own = c;
    else if (m->tpl[dec[c].face].index != m->tpl[o->face].index &&
             (more < 0 || dec[c].explained > dec[more].explained))
      more = c;
  }
  if (*own < 0 || more < 0 || dec[more].explained <= (1 + FIT_DOUBT) * dec[*own].explained)
    return -1;
  return more;
}

/* o in doubt against dec[other] (fits_more): its runner-up, compared on
 * the samples where the two differ with no margin (vis__type_in_doubt),
 * since those and what shows voted either way. */
static void doubt_against(const match_ctx *m, const hyp *h, vis__object *o, const vis__object *dec,
                          int own, int other, const lift_field *glare) {
  int na, nb, nd;
  discriminate(m, h, &dec[own], &dec[other], glare, glare, &na, &nb, &nd);
  o->second_face = dec[other].face;
  o->second_explained = (int)lround(dec[other].score * o->valid);
  o->disc_samples = nd / (m->mp->step * m->mp->step); /* on the matcher's grid */
  o->disc_margin = 0;
}

/* The candidate (of cand, n_cand) of o's runner-up's face when o's type
 * is in doubt against it (vis__type_in_doubt); -1: not in doubt. */
static int runner_up_of(const match_ctx *m, const vis__object *o, const vis__object *cand,
                        int n_cand) {
  if (!vis__type_in_doubt(o, m->mp->type_min_margin) ||
      m->tpl[o->second_face].kind != VIS__FACE_TYPE)
    return -1;
  int other = -1;
  for (int c = 0; c < n_cand; c++)
    if (cand[c].face == o->second_face && (other < 0 || cand[c].explained > cand[other].explained))
      other = c;
  return other;
}

/* The five adventures (types adventure-a..e, deck.c) share their print
 * and differ mostly in colour: the runner-up of an adventure in doubt is
 * often another wrong adventure, and the right one was never compared
 * (DEV normal 3082, hard 3004: adventure-d seen as c). So an adventure
 * in doubt meets every adventure face still in the running
 * (SETTLE_SHARE of the best's samples, as the race saw them) in the
 * photo's colours; the best takes the card when it misfits
 * ADVENTURE_COLOUR_MARGIN less than the card's face, and the photo's
 * colours fit it at all (ADVENTURE_COLOUR_FIT per free sample, of the
 * cap tau = 35): the adventures taken so misfit 3.6-5.7 (DEV normal
 * 3014, 3082, hard 3004); a dim card 19 % visible misfit 10.1 with the
 * wrong one and 11.3 with its own (DEV hard 3011). Where the two faces
 * differ it must misfit less too (differ_agree). Else the runner-up
 * alone is asked, as for any type. */
#define ADVENTURE_COLOUR_MARGIN 0.03
#define ADVENTURE_COLOUR_FIT 8.0
static bool is_adventure(const match_ctx *m, int face) {
  int t = m->tpl[face].index;
  return m->tpl[face].kind == VIS__FACE_TYPE && t >= VIS__ADVENTURE_FIRST &&
         t <= VIS__ADVENTURE_LAST;
}

/* The candidate (of sv's) of a type other than o's whose face in the
 * photo's colours pc (lifted by pl) misfits least, among those in the
 * running (SETTLE_SHARE of the best's samples, as the race saw them) and
 * `other` (-1: none such); only adventures when adventures_only; -1:
 * none. *misfit: its misfit. */
static int least_misfit_other(const match_ctx *m, const hyp *h, const settle_view *sv,
                              const vis__object *o, bool adventures_only, int other,
                              const photo_colour *pc, const lift_field *pl, double *misfit) {
  int top = 0, best = -1;
  for (int c = 0; c < sv->n_cand; c++)
    if (sv->dec[c].explained > top) top = sv->dec[c].explained;
  for (int c = 0; c < sv->n_cand; c++) {
    const vis__object *a = &sv->cand[c];
    if (adventures_only && !is_adventure(m, a->face)) continue;
    if (m->tpl[a->face].index == m->tpl[o->face].index) continue;
    if (c != other && sv->dec[c].explained < SETTLE_SHARE * top) continue;
    double mf = colour_misfit(m, h, a->face, a->flipped, pc, o->gain[0], pl);
    if (best < 0 || mf < *misfit) best = c, *misfit = mf;
  }
  return best;
}

/* A face the colours chose where the race saw no glare (settle_type's
 * lift is measured against the matcher's face only) is fitted under the
 * lift its own frame shows, as lift_probe fits a hypothesis' face, when
 * that lift passes settle_type's gate and the refit explains
 * LIFT_CHOICE_GAIN more of what shows (refit_own_light's REFIT_GAIN). A
 * glare washes a dark face more than a pale one: HUNT hard 3970's palace
 * 73 % visible under a lamp's light was accepted as an adventure e
 * (0.89, its frame 0.98, no lift) and its colours took
 * the palace (misfit 19687 against 91924), fitted at L's bounds (gain
 * 0.53, offset 60) to 3155 of 3904 samples; the card evidence found no
 * card frame there (0.79) and took it back. Its own frame shows a lift
 * of 0.41 (cells at most 0.08 apart), under which the palace explains
 * 3896 of 3904 (gain 0.73, offset 34). Returns whether o was lifted so. */
#define LIFT_CHOICE_GAIN 0.02
static bool lift_colour_choice(const match_ctx *m, const hyp *h, const settle_view *sv,
                               vis__object *o) {
  lift_field fl;
  double step;
  if (!sv->may_lift || frame_lift(m, h, o, &fl, &step) < LIFT_GATE || step > LIFT_MAX_STEP)
    return false;
  vis__object w = *o;
  if (!refit_under(m, h, sv->valid, &fl, &w) || sv->valid <= 0 ||
      w.explained < o->explained + LIFT_CHOICE_GAIN * sv->valid)
    return false;
  memcpy(o->gain, w.gain, sizeof o->gain);
  memcpy(o->offset, w.offset, sizeof o->offset);
  o->lifted = true;
  for (int k = 0; k < LIFT_CELLS; k++)
    o->lift[o->flipped ? LIFT_CELLS - 1 - k : k] = (float)fl.g[k];
  if (m->mp->log)
    fprintf(m->mp->log, "  the face taken lifted by its frame: explains %d of %d (unlifted %d)\n",
            w.explained, sv->valid, o->explained);
  return true;
}

/* o takes candidate c of sv for its colours and stays in doubt against
 * its former face; lf: the lift o kept. refit: c explains more of the
 * card (fits_more). */
static void take_by_colour(const match_ctx *m, const hyp *h, const settle_view *sv,
                           vis__object *o, int c, bool refit, const lift_field *lf) {
  vis__object keep = *o;
  if (sv->lf) {
    /* refitted under its frame's lift, as a face the race chose: fitted
     * unlifted under a strong glare a palace chosen so failed the card
     * evidence and was lost (DEV hard 3147, 3198) */
    take_face(m, h, sv, o, c);
  } else {
    *o = sv->cand[c];
    bool lifted = !keep.lifted && lift_colour_choice(m, h, sv, o);
    keep_counts(o, &keep);
    if (!lifted) {
      o->lifted = keep.lifted;
      for (int k = 0; k < LIFT_CELLS; k++)
        o->lift[o->flipped ? LIFT_CELLS - 1 - k : k] = (float)lf->g[k];
    }
  }
  o->second_face = keep.face;
  o->second_explained = keep.explained;
  o->disc_samples = keep.disc_samples;
  /* The print's vote went to the former face, by keep.disc_margin; the
   * colours chose this one against it, so it won by no margin: it stays
   * in doubt (vis__type_in_doubt). With the former margin kept, a camel
   * bazaar a quarter visible, lifted 0.13-0.30 and won by 0.83 of 35
   * samples, taken for a desert by its colours (7261 : 10215), was
   * reported sure (held-out normal 600008). */
  o->disc_margin = 0;
}

/* A card whose type is in doubt against its runner-up's
 * (vis__type_in_doubt: too little of their print differs, or it splits
 * nearly evenly) takes the runner-up's type when that face in the photo's
 * colours misfits COLOUR_MARGIN less where the two differ
 * (colour_misfits; under SETTLE_MIN_DISC such samples the colours cannot
 * tell); it stays in doubt.
 * A face of another type that explains more of the card (fits_more) is
 * asked first: the card is in doubt against it unless the colours side
 * with the print (its own face misfits COLOUR_MARGIN less), and without
 * the photo's colours it stays in doubt (DEV hard 3089: one card fully
 * visible). cand: every type face fitted at its pose (n_cand), dec: as
 * the race saw them; glare: the lift its frame shows (settle_type's,
 * NULL: none), else the one it keeps: a glare washes a desert's orange
 * toward a spice bazaar's tan (DEV hard 3123). An adventure in doubt
 * meets every adventure in the running first (least_misfit_other). A card
 * the matcher was sure of meets the runner-up of settle_type's race
 * (sv->race_runner) as a runner-up does; when the race was narrow and
 * the colours lean its way without the margin, it is in doubt. */
#define COLOUR_MARGIN 0.2

/* Where SETTLE_MIN_DISC samples or more tell faces a and b apart, b
 * misfits COLOUR_MARGIN less than a there (fewer cannot tell). */
static bool colours_side_with_b(colour_pair cp) {
  return cp.n >= SETTLE_MIN_DISC && cp.b < (1 - COLOUR_MARGIN) * cp.a;
}

/* The best adventure's whole-card colour sum (least_misfit_other) weighs
 * the print it shares with o's face too, where only the two faces'
 * fitted gains of a and b differ: there a sibling took cards whose
 * colours tie where the two faces differ (held-out hard 700070 and
 * 700081: an adventure c taken for d, the whole sums 0.95 and 0.94 of
 * c's, 0.98 and 1.02 where they differ, 107 and 149 samples; 700085 an
 * a taken for b, 0.94 and 0.97 of 238; HUNT normal 3812 an a for b,
 * 0.91 and 1.58 of 14). So where SETTLE_MIN_DISC samples or more tell
 * the two apart (colour_misfits) it must misfit COLOUR_MARGIN less
 * there too, as any runner-up must; fewer leave the whole sums to
 * decide (DEV hard 3004: an adventure d 5 % visible, none such,
 * taken back from c by its whole sum). */
static bool differ_agree(const match_ctx *m, const hyp *h, const vis__object *o,
                         const vis__object *a, const photo_colour *pc, const lift_field *pl) {
  colour_pair cp = colour_misfits(m, h, o, a, pc, o->gain[0], pl);
  if (m->mp->log)
    fprintf(m->mp->log, "  where the two differ: %.0f against %.0f of %d samples\n", cp.a, cp.b,
            cp.n);
  return cp.n < SETTLE_MIN_DISC || colours_side_with_b(cp);
}

/* A card's colours can name a type its print never put against it: the
 * race and the matcher's runner-up weigh the print, and where a card
 * shows a strip of its border and background the adventures' print fits
 * a lamp's as well (HUNT hard 3610: a lamp 23 % visible under a carpet,
 * accepted as an adventure b and settled as e, the lamp explaining 0.92
 * of e's samples; 3943: a lamp 64 % visible, accepted as an adventure e,
 * 0.98), so the lamp was never asked, and the card's dark blue, which the
 * fit's free offsets of a and b had made teal, was reported as sure. In
 * the photo's colours the lamp misfits 0.69 and 0.58 of the adventure's
 * face, 0.61 and 0.54 where the two differ. A right card's faces of
 * other types misfit 1.10 times its own or more over its whole face
 * (HUNT hard 3610 and 3943, every fully visible card), so the best
 * face of another type in the running (least_misfit_other) takes the card
 * when it misfits OUTSIDER_MARGIN less over the card and where the two
 * differ; it stays in doubt (take_by_colour). Not under a glare (the
 * caller asks only an unlifted card): a
 * spice bazaar lifted 0.11-0.37 misfits its photo's colours more than a
 * desert does, by 0.66-0.68 (DEV hard 3011 3062, fully visible). And
 * the photo's colours must fit the face taken, OUTSIDER_FIT per free
 * sample (of the cap tau = 35): the lamps taken fit 7.5 and 8.4; a fully
 * visible spice bazaar at the fit's bounds (gain of L 0.50, offset 60),
 * a glare the lift did not model, misfit 20.2 with its own face and 14.0
 * with a desert's (HUNT hard 3705). Only a card seen as an adventure
 * asks: the adventures share their print and fit any card's border and
 * background; a bazaar's print tells it from a desert, and its tan read
 * as a desert's orange in its photo's colours (0.72 of its own:
 * held-out normal 1000008's spice bazaar and 1000039's camel bazaar,
 * both right by their print, taken for deserts). */
#define OUTSIDER_MARGIN 0.25
#define OUTSIDER_FIT 10.0
static bool colour_outsider(match_ctx *m, const hyp *h, const settle_view *sv, vis__object *o,
                            const photo_colour *pc, const lift_field *lf, int16_t i) {
  if (!is_adventure(m, o->face)) return false;
  double own_all = colour_misfit(m, h, o->face, o->flipped, pc, o->gain[0], NULL), best_mf = 0;
  int best = least_misfit_other(m, h, sv, o, false, -1, pc, NULL, &best_mf);
  if (best < 0 || best_mf >= (1 - OUTSIDER_MARGIN) * own_all ||
      best_mf >= OUTSIDER_FIT * sv->valid)
    return false;
  colour_pair cp = colour_misfits(m, h, o, &sv->cand[best], pc, o->gain[0], NULL);
  if (m->mp->log)
    fprintf(m->mp->log,
            "object %d: of the other types %d misfits least, %.0f against %.0f; where they differ %.0f against %.0f of %d\n",
            i, m->tpl[sv->cand[best].face].index, best_mf, own_all, cp.b, cp.a, cp.n);
  if (cp.n < SETTLE_MIN_DISC || cp.b >= (1 - OUTSIDER_MARGIN) * cp.a) return false;
  take_by_colour(m, h, sv, o, best, false, lf);
  return true;
}

static void colour_check(match_ctx *m, const hyp *h, const settle_view *sv, vis__object *o,
                         const photo_colour *pc, int16_t i) {
  const vis__object *cand = sv->cand, *dec = sv->dec;
  const lift_field *glare = sv->lf;
  int n_cand = sv->n_cand, own_c, more = fits_more(m, o, dec, n_cand, &own_c);
  if (!pc->known) {
    if (more >= 0) doubt_against(m, h, o, dec, own_c, more, glare);
    return;
  }
  lift_field lf;
  for (int c = 0; c < LIFT_CELLS; c++) lf.g[c] = o->lift[o->flipped ? LIFT_CELLS - 1 - c : c];
  const lift_field *pl = glare ? glare : o->lifted ? &lf : NULL;
  if (!pl && colour_outsider(m, h, sv, o, pc, &lf, i)) return;
  int other = more >= 0 ? more : runner_up_of(m, o, cand, n_cand);
  bool raced = other < 0 && sv->race_runner >= 0;
  if (raced) other = sv->race_runner;
  if (other < 0) return;
  colour_pair cp = colour_misfits(m, h, o, &cand[other], pc, o->gain[0], pl);
  if (m->mp->log)
    fprintf(m->mp->log,
            "object %d: in the photo's colours type %d misfits %.0f, type %d %.0f where %d samples differ%s\n",
            i, m->tpl[o->face].index, cp.a, m->tpl[cand[other].face].index, cp.b, cp.n,
            more >= 0 ? " (it explains more)" : "");
  if (more >= 0) {
    colour_pair swapped = {.a = cp.b, .b = cp.a, .n = cp.n};
    if (colours_side_with_b(swapped)) return; /* the colours side with the print */
    doubt_against(m, h, o, dec, own_c, more, glare);
  } else if (!raced && is_adventure(m, o->face)) {
    double best_mf = 0, own_all = colour_misfit(m, h, o->face, o->flipped, pc, o->gain[0], pl);
    int best = least_misfit_other(m, h, sv, o, true, other, pc, pl, &best_mf);
    if (m->mp->log && best >= 0)
      fprintf(m->mp->log, "object %d: of the adventures type %d misfits least, %.0f against %.0f\n",
              i, m->tpl[cand[best].face].index, best_mf, own_all);
    if (best >= 0 && best_mf < (1 - ADVENTURE_COLOUR_MARGIN) * own_all &&
        best_mf < ADVENTURE_COLOUR_FIT * sv->valid && differ_agree(m, h, o, &cand[best], pc, pl)) {
      take_by_colour(m, h, sv, o, best, false, &lf);
      return;
    }
  }
  if (!colours_side_with_b(cp)) {
    /* a narrow race the colours lean the other way too: the type is in
     * doubt (a palace a sixth visible whose colours misfit 0.82 of the
     * lamp's it was seen as, DEV hard 3183 3193) */
    if (raced && sv->race_narrow && cp.n >= SETTLE_MIN_DISC && cp.b < cp.a && own_c >= 0)
      doubt_against(m, h, o, dec, own_c, other, glare);
    return;
  }
  take_by_colour(m, h, sv, o, other, more >= 0, &lf);
}

/* The race's runner-up (a candidate of cand) when the race at 1 mm kept
 * the matcher's type (type); -1: none. *narrow: it kept it under
 * type_min_margin of the samples where the two differ (as
 * vis__type_in_doubt asks of the matcher's runner-up). The matcher's
 * look at 2 mm, whose margin the card keeps, can tell the two far more
 * clearly than the print does: a palace a quarter visible in a carpet's
 * shadow seen as a lamp by 0.26-0.74 on the matcher's grid lost or won
 * by 0.03-0.39 at 1 mm (64 : 60 of 124 for the palace, DEV hard 3012;
 * 0.26 of 92 samples 3048, 0.39 of 104 3019; 3171), and its colours
 * were never asked. So every card's colours meet its race's runner-up:
 * where the two faces differ their colours tell them apart far more
 * clearly than any margin of the print's vote (colour_misfits). */
static int race_runner_of(const match_ctx *m, const type_race *r, const vis__object *cand,
                          int type, bool *narrow) {
  *narrow = false;
  if (r->win < 0 || r->runner < 0 || r->run_nd <= 0 || m->tpl[cand[r->win].face].index != type)
    return -1;
  *narrow = (double)(r->run_na - r->run_nb) / r->run_nd < m->mp->type_min_margin;
  return r->runner;
}

/* Accepted carpet i (*o) fitted again at its refined pose. A carpet is
 * accepted at its hypothesis's pose, from corners of an outline partly
 * hidden a few pixels and degrees off, and its face's fit (gain, offset,
 * what it explains) was made there: off the pose the face's print lies
 * beside the photo's, and the fit squashes the face's contrast to the
 * bounds of L to explain what it can. Refinement then moves the pose
 * (coordinate descent on the misfit) but the fit stayed, and the checks
 * after the matcher read a faded, poorly fitting carpet (faded_in_photo,
 * faded_poor_strip, the stacking votes' residuals). Tuning easy 3036: a
 * real yellow carpet 60 % visible under two cards, accepted 4 degrees
 * off its pose at 547 of 777 (0.70, gain of L 0.55, offset 60), refined
 * to 0.16 mm of its true pose, where its face fits at gain 0.87, offset 9
 * as the photo's cards do (hard 3128: a fully visible yellow, a dim
 * refit at 0.94, fits 1.00 in plain light at its refined pose, and its
 * stacking on the lamp comes out right). The new fit is kept when it explains
 * REFIT_GAIN more of what shows: a fit that explained as much at the
 * accepted pose was not misled by it. Slivers (at most
 * VIS__SLIVER_SHOWS of the carpet shows) keep theirs: on a hundred
 * samples or fewer the fit of L is loose, and a refit only moves it
 * along what it cannot tell (tuning normal 3009: a real green strip of
 * 43 samples, all explained at both poses, went from gain 0.67, offset
 * 42 to the bounds 0.50 and 60 and was dropped as a faded sliver; hard
 * 3057: a phantom blue strip of 101 samples went from 0.50 and 60, a
 * faded sliver, to 1.00 and -55, and was kept). */
#define REFIT_GAIN 0.02
static bool may_refit(const vis__object *o) {
  return !o->lifted && o->valid > VIS__SLIVER_SHOWS * o->total;
}

/* fresh (o's face scored again at o's refined pose) gives o its light
 * when it may (may_refit) and explains REFIT_GAIN more of what shows. */
static bool take_refit_light(const vis__object *fresh, vis__object *o) {
  if (!may_refit(o) || fresh->explained < 0 || fresh->valid <= 0 ||
      fresh->score < o->score + REFIT_GAIN)
    return false;
  o->score = fresh->score;
  memcpy(o->gain, fresh->gain, sizeof o->gain);
  memcpy(o->offset, fresh->offset, sizeof o->offset);
  return true;
}

/* The refit itself: carpet i's face scored again where refinement put it. */
static void settle_carpet(match_ctx *m, vis__object *o, int16_t i) {
  const vis__template *tp = &m->tpl[o->face];
  if (!may_refit(o)) return;
  hyp h;
  if (!sample_hyp(m->t, &o->r_px, tp->w, tp->h, tp->w_mm, tp->h_mm, m->mp->step, &h) ||
      !h.alive) {
    release_hyp(m, &h);
    return; /* out of memory or off the table: keep the matcher's */
  }
  m->self = i;
  double so[3];
  int valid = free_samples(m, &h, 1, so);
  vis__object fresh;
  score_face(m, &h, valid, so, o->face, o->flipped, false, -1, &fresh);
  if (m->mp->log)
    fprintf(m->mp->log, "carpet %d at its refined pose %.1f %.1f %.1f: %d of %d (was %d of %d),"
                        " gain %.2f offset %.1f (was %.2f %.1f)\n",
            i, o->r_px.center.x, o->r_px.center.y, o->r_px.angle_deg, fresh.explained, valid,
            o->explained, o->valid, fresh.gain[0], fresh.offset[0], o->gain[0], o->offset[0]);
  if (take_refit_light(&fresh, o)) {
    o->explained = fresh.explained;
    o->valid = fresh.valid;
    o->total = fresh.total;
  }
  m->self = INT16_MAX;
  release_hyp(m, &h);
}

/* A card accepted under a hand: the samples the hand and its shadow
 * hide (vis__occluder_find for its face) are left out of the type's
 * settling, as what an object accepted on it hides: without it the hand's
 * skin decided between the types (tuning hard 3009: a lamp under a hand
 * settled as a palace, which then showed no card). */
static void hide_hand(const match_ctx *m, const vis__object *o, hyp *h) {
  vis__occluder oc;
  if (!vis__occluder_find(m->t, &m->tpl[o->face], o, NULL, 0, m->claim, m->self, m->mp->tau, &oc))
    return;
  const int W = m->t->lab.width;
  for (int k = 0; k < h->n; k++)
    if (h->pix[k] >= 0 && vis__occluded(&oc, h->pix[k] % W, h->pix[k] / W)) h->pix[k] = -1;
  vis__occluder_free(&oc);
}

/* settle_type: every card face of tp's size scored at h, upright and
 * turned, into cand; *top: the most any explained. Returns how many. */
static int score_card_faces(match_ctx *m, hyp *h, int valid, const double so[3],
                            const vis__template *tp, vis__object *cand, int *top) {
  int n_cand = 0;
  for (int f = 0; f < m->n_tpl && n_cand < 2 * VIS_TYPE_COUNT; f++) {
    if (m->tpl[f].kind != VIS__FACE_TYPE || m->tpl[f].w != tp->w || m->tpl[f].h != tp->h)
      continue;
    for (int fl = 0; fl < 2; fl++) {
      score_face(m, h, valid, so, f, fl, false, -1, &cand[n_cand]);
      *top = cand[n_cand].explained > *top ? cand[n_cand].explained : *top;
      n_cand++;
    }
  }
  return n_cand;
}

/* settle_type took another type than the matcher's: its runner-up and
 * margin are the race's (valid: the samples the race counted). */
static void take_race_runner(const match_ctx *m, const type_race *r, const vis__object *cand,
                             int valid, vis__object *o) {
  o->second_face = cand[r->runner].face;
  o->second_explained =
      valid ? (int)lround((double)cand[r->runner].explained * o->valid / valid) : 0;
  o->disc_samples = r->run_nd / (m->mp->step * m->mp->step); /* on the matcher's grid */
  o->disc_margin = r->run_nd > 0 ? (double)(r->run_na - r->run_nb) / r->run_nd : 0;
}

/* A card keeps the light the matcher fitted at the pose it accepted, a
 * few millimetres off where the refinement put it; a carpet's is fitted
 * again there (settle_carpet), a card's only when settle_type gives it
 * another face. Under a lamp's glare a card's fit at a pose 3 mm off
 * sits at L's bounds and explains little: held-out hard 700017's desert,
 * fully visible, was accepted 3 mm off at 0.72 (gain 0.50, offset 60);
 * at its refined pose its own face explains 5368 of 5369 (gain 0.58),
 * but the card evidence measured the old fit there (0.75), took the card
 * back as showing no card frame, and a phantom carpet took its place. So
 * when the race keeps the matcher's own face (cand[own]: fitted at the
 * refined pose on every face texel), its fit replaces the matcher's when
 * it explains REFIT_GAIN more of what shows, on settle_carpet's terms
 * (take_refit_light). */
static void refit_own_light(const vis__object *fresh, vis__object *o) {
  vis__object keep = *o;
  if (take_refit_light(fresh, o)) keep_counts(o, &keep);
}

/* The type of accepted card i (*o) settled; normal_gain: the photo's
 * gain of L (photo_gain; 0: unknown), pc its colours (photo_colour_of),
 * may_lift: its frame may be taken as lifted by a glare (narrow);
 * *frame_lifted: it was. A carpet's face is only fitted again at its
 * refined pose (settle_carpet). */
static void settle_type(match_ctx *m, vis__object *o, int16_t i, double normal_gain,
                        const photo_colour *pc, bool may_lift, bool *frame_lifted) {
  const vis__template *tp = &m->tpl[o->face];
  if (tp->kind != VIS__FACE_TYPE) {
    settle_carpet(m, o, i);
    return;
  }
  hyp h;
  /* every face texel (1 mm), not every step-th: the telling print of
   * look-alikes (corner letters, the picture's details) is small */
  if (!sample_hyp(m->t, &o->r_px, tp->w, tp->h, tp->w_mm, tp->h_mm, 1, &h) ||
      !h.alive) {
    release_hyp(m, &h);
    return; /* out of memory or off the table: keep the matcher's */
  }
  m->self = i;
  if (o->hand_share > 0) hide_hand(m, o, &h);
  double so[3];
  int valid = free_samples(m, &h, 1, so);
  vis__object cand[2 * VIS_TYPE_COUNT];
  int top = 0, n_cand = score_card_faces(m, &h, valid, so, tp, cand, &top);
  int own = -1;
  for (int c = 0; c < n_cand; c++)
    if (cand[c].face == o->face && cand[c].flipped == o->flipped) own = c;
  /* under a lamp's glare every face meets the others lifted as it fits
   * best; another face chosen so keeps its fit to the samples freed of
   * the lift (its card colours) */
  vis__object lifted[2 * VIS_TYPE_COUNT];
  lift_field lift, frame_only;
  const vis__object *dec = cand;
  const lift_field *lf = NULL;
  if (own >= 0 && may_lift &&
      lift_all(m, &h, valid, cand, n_cand, own, i, normal_gain, lifted, &lift, &frame_only, &top))
    dec = lifted, lf = &lift, *frame_lifted = true;
  type_race r = race_types(m, &h, dec, n_cand, top, lf, i);
  settle_view sv = {cand, dec, n_cand, valid, lf, &frame_only, -1, false, may_lift};
  /* another type than the matcher's only when it tells itself apart
   * from it directly too */
  int na = 0, nb = 0, nd = 0;
  if (r.win >= 0 && own >= 0 && m->tpl[cand[r.win].face].index != tp->index &&
      own_stands(m, &h, dec, r.win, own, lf, i, &na, &nb, &nd))
    r = (type_race){.win = own, .runner = r.win, .run_na = nb, .run_nb = na, .run_nd = nd};
  if (own >= 0 && r.win == own) {
    double was = o->score;
    refit_own_light(&cand[own], o);
    if (m->mp->log && o->score != was)
      fprintf(m->mp->log, "object %d: own face refitted at its refined pose %.3f (was %.3f)\n", i,
              o->score, was);
  }
  if (r.win >= 0 && m->tpl[cand[r.win].face].index != tp->index) {
    if (m->mp->log)
      fprintf(m->mp->log, "object %d: type %d settled as %d\n", i, tp->index,
              m->tpl[cand[r.win].face].index);
    float hand_share = o->hand_share;
    take_face(m, &h, &sv, o, r.win);
    o->hand_share = hand_share;
  }
  /* the same type: the matcher's runner-up and margin stand (its four
   * candidates were the closest faces at its pose) */
  if (r.win >= 0 && r.runner >= 0 && m->tpl[cand[r.win].face].index != tp->index)
    take_race_runner(m, &r, cand, valid, o);
  sv.race_runner = race_runner_of(m, &r, cand, tp->index, &sv.race_narrow);
  colour_check(m, &h, &sv, o, pc, i);
  m->self = INT16_MAX;
  release_hyp(m, &h);
}

/* A card of which less than NARROW_SHOWS shows cannot tell a lamp's
 * glare from a carpet's shadow over part of it: on so narrow a strip the
 * face's gain and offset fit loosely, a shadow darkening the strip's
 * inner edge leaves its outer frame brighter than the fit (a lift of
 * 0.11-0.31, as a glare shows) and a gain under the photo's, which
 * lift_level takes for a glare on the whole card. Lifted, an orange
 * desert's face pales to a bazaar's tan, an adventure's to another's
 * (held-out easy 300034: a carpet bazaar 15 % visible beside a red
 * carpet, settled as a desert under a lift of 0.22-0.40; 300047: an
 * adventure a 7 % visible seen as b; easy has no glare at all). A glare
 * falls on the cards around it too, so a narrow card is lifted only in
 * a photo where a card showing more shows a lift as well (DEV hard 3187:
 * an adventure d 9 % visible under a real lamp, lifted 0.11, settled
 * right only so; two whole cards of that photo lifted 0.19). The guard
 * is coarse: on DEV easy 3000-3039, which has no glare, eleven cards
 * passed the lift's gate, four narrow (0.13-0.15, each alone in its
 * photo, now not lifted) and seven wider (0.11-0.33, still lifted, and
 * a narrow card beside one of them would be too). */
#define NARROW_SHOWS 0.2
static bool narrow(const vis__object *o) { return o->valid < NARROW_SHOWS * o->total; }

/* Each accepted card's type settled (settle_type: it reads only the
 * final claims and writes only its own object): in phase 0 the cards
 * that are not narrow and the carpets, in phase 1 the narrow cards,
 * lifted only where phase 0 saw a glare. */
static void settle_item(void *ctx, int worker, int item) {
  shared_work *sw = ctx;
  vis__object *o = &sw->acc[item];
  bool late = sw->w[worker].tpl[o->face].kind == VIS__FACE_TYPE && narrow(o);
  if (late != (sw->settle_phase == 1)) return;
  settle_type(&sw->w[worker], o, (int16_t)item, sw->normal_gain, &sw->colour,
              !late || sw->glare_seen, &sw->frame_lifted[item]);
}

/* Every accepted object's type settled (settle_item), objs[n]. */
static void settle_all(shared_work *sw, int threads, vis__object *objs, int n) {
  bool frame_lifted[64] = {false};
  sw->acc = objs;
  sw->frame_lifted = frame_lifted;
  sw->glare_seen = false;
  for (sw->settle_phase = 0; sw->settle_phase < 2; sw->settle_phase++) {
    vis__parallel_for(threads, n, settle_item, sw);
    for (int i = 0; i < n && i < 64; i++) sw->glare_seen |= frame_lifted[i];
  }
  sw->frame_lifted = NULL;
}

/* The photo's gain of L: the median of its cards' (n objects), as the
 * matcher fitted their faces; 0 with fewer than PHOTO_GAIN_CARDS cards. */
#define PHOTO_GAIN_CARDS 3
static double photo_gain(const match_ctx *m, const vis__object *objs, int n) {
  double g[64];
  int k = 0;
  for (int i = 0; i < n && i < 64; i++)
    if (m->tpl[objs[i].face].kind == VIS__FACE_TYPE) g[k++] = objs[i].gain[0];
  return k < PHOTO_GAIN_CARDS ? 0 : vis__median(g, k);
}

/* Card o's colours as the photo shows them (fully visible): one gain
 * for a and b (its face's colours spread in both; the lamp's a hardly
 * varies) and where grey lies, fitted without the matcher's bounds;
 * false when its face is nearly grey or out of memory. */
#define CHROMA_MIN_VAR 16.0 /* of a and b together, over the face */
static bool card_colours(const match_ctx *m, const vis__object *o, double *chroma,
                         double neutral[2]) {
  const vis__template *tp = &m->tpl[o->face];
  hyp h;
  bool ok = sample_hyp(m->t, &o->r_px, tp->w, tp->h, tp->w_mm, tp->h_mm, m->mp->step, &h) &&
            h.n > 0;
  double n = h.n, sf[2] = {0, 0}, so[2] = {0, 0}, sff = 0, sfo = 0;
  int N = h.tw * h.th;
  for (int k = 0; ok && k < h.n; k++) {
    const float *f = tp->lab + 3 * (o->flipped ? N - 1 - h.idx[k] : h.idx[k]);
    for (int c = 0; c < 2; c++) {
      double x = f[1 + c] - 128, y = h.lab[3 * k + 1 + c];
      sf[c] += x, so[c] += y, sff += x * x, sfo += x * y;
    }
  }
  release_hyp(m, &h);
  if (!ok) return false;
  double var = sff / n, cov = sfo / n;
  for (int c = 0; c < 2; c++) var -= (sf[c] / n) * (sf[c] / n), cov -= (sf[c] / n) * (so[c] / n);
  if (var < CHROMA_MIN_VAR) return false;
  *chroma = cov / var;
  for (int c = 0; c < 2; c++) neutral[c] = so[c] / n - *chroma * sf[c] / n;
  return true;
}

/* With PHOTO_GAIN_CARDS such cards or more the median stands against one
 * card whose face is wrong (HUNT hard 3790: a palace under a glare seen
 * as an adventure b, its chroma 0.37 of the photo's). Two cards have no
 * median, but a photo with only two such cards left its type checks to
 * the print alone: palaces 13-28 % visible beside carpets were seen as
 * lamps (HUNT hard 3832, 3882, 3953; their faces' a gains at the fit's
 * bound 1.25), which its two cards' colours tell (the lamp misfits 1.8-2.2
 * times the palace's where the two differ). So two cards do when they
 * agree: chroma within PAIR_CHROMA of each other and grey within
 * PAIR_GREY in a and b. The two-card photos of HUNT hard 3600-3999 agreed
 * within 1.09 and 6.5; a photo's cards spread 0.88-1.23 of chroma and 7
 * of grey (HUNT hard 3610, 11 cards). */
#define PAIR_CHROMA 1.25
#define PAIR_GREY 8.0
static bool pair_agrees(double v[3][64]) {
  double r = v[0][0] / v[0][1];
  return r <= PAIR_CHROMA && r >= 1 / PAIR_CHROMA && fabs(v[1][0] - v[1][1]) <= PAIR_GREY &&
         fabs(v[2][0] - v[2][1]) <= PAIR_GREY;
}

static photo_colour photo_colour_of(const match_ctx *m, const vis__object *objs, int n) {
  double v[3][64];
  int k = 0;
  for (int i = 0; i < n && k < 64; i++) {
    const vis__object *o = &objs[i];
    if (m->tpl[o->face].kind != VIS__FACE_TYPE || o->valid < o->total || o->lifted) continue;
    double chroma, neutral[2];
    if (!card_colours(m, o, &chroma, neutral)) continue;
    v[0][k] = chroma / o->gain[0], v[1][k] = neutral[0], v[2][k] = neutral[1];
    if (m->mp->log)
      fprintf(m->mp->log, "photo colour card %d type %d: chroma %.3f grey %.1f %.1f\n", i,
              m->tpl[o->face].index, v[0][k], v[1][k], v[2][k]);
    k++;
  }
  photo_colour pc = {.known = k >= PHOTO_GAIN_CARDS || (k == 2 && pair_agrees(v))};
  if (pc.known)
    pc.chroma = vis__median(v[0], k), pc.neutral[0] = vis__median(v[1], k),
    pc.neutral[1] = vis__median(v[2], k);
  if (m->mp->log && pc.known)
    fprintf(m->mp->log, "the photo's colours: chroma %.2f of the gain of L, grey at a %.1f b %.1f (%d cards)\n",
            pc.chroma, pc.neutral[0], pc.neutral[1], k);
  return pc;
}

/* The photo's gain of L and colours, from its cards (n objects), for
 * settle_type. */
static void measure_photo(shared_work *sw, const match_ctx *m, const vis__object *objs, int n) {
  sw->normal_gain = photo_gain(m, objs, n);
  sw->colour = photo_colour_of(m, objs, n);
}

/* Cards taken back: the checks made after matching (mp->phantom_cards, at
 * the refined poses) drop faces fitted where no card lies, but while
 * accepted such a face had hidden the real cards it overlaps, and these
 * were no card again (overlaps_card). A camel bazaar's face fitted onto
 * beige cloth explains more samples than a card of which a fifth shows
 * between carpets, so it came first and the real card was lost (tuning
 * hard 3029, 3056, 3083, 3084, 3086, 3093, 3098, 3010: eight of the
 * eleven cards 8-60 % visible missed on 3000..3099 hard). So when nothing
 * more can be accepted, the objects are refined and checked here; the
 * phantom cards among them are taken back (the claims made again without
 * them), the hypotheses they hid or pushed out come back and are scored
 * again, and matching goes on. A hypothesis lying where a card was taken
 * back (half its area) stays out: the same face would be accepted there
 * again. Phantom carpets are taken back too, and give their colour back
 * (each carpet lies once on the table): a carpet's face fitted a few
 * millimetres off another carpet explains the strip of a third carpet
 * of its colour that shows beside it, is accepted as lying on that
 * carpet's own hypothesis, and only after matching is it dropped as a
 * hidden twin, with the real carpet's colour taken (tuning hard 3040:
 * the yellow face at the green carpet's pose, 84 of 90 samples, before
 * the yellow carpet at its true pose). At most RETRACT_ROUNDS times;
 * true when some were taken back, else fin[] holds the n objects
 * refined, their types settled. */
enum { RETRACT_ROUNDS = 3 };
typedef struct {
  int rounds;
  int n_gone;
  vis_rect gone[RETRACT_ROUNDS * 64]; /* where objects were taken back */
  bool gone_card[RETRACT_ROUNDS * 64]; /* a card (else a carpet) */
} retraction;

/* Share of r lies where a card was taken back, or where a carpet was if
 * r is a carpet (carpet: its best face is one): a card under a phantom
 * carpet comes back (tuning hard 3086: a desert 24 % visible under the
 * blue carpet and a green phantom beside it). A card only near the pose
 * taken back (turned alike, within TAKEN_BACK_DEG, and shifted by less
 * than TAKEN_BACK_SHIFT of its width), where the same face would fit again:
 * the phantoms taken back are often faces turned by 90 degrees, or
 * shifted along their length, across a real card partly under a carpet
 * and the table beside it, and the real card's own hypothesis, half under
 * the phantom, stayed out with it (tuning hard 3010, 3098: a camel bazaar
 * 25 % and a carpet bazaar 12 % visible, 0.96 and 0.99 explained at their
 * true poses, phantoms turned by 94 and 90 degrees; hard 3093: an
 * adventure b 11 % visible, 0.99, a camel bazaar 37 mm along it). A
 * carpet stays out at any pose: the cut by pose was measured on cards
 * alone, and a carpet's face fitted a few millimetres off another's
 * explains the strip beside it (hard 3040, above). */
#define TAKEN_BACK_DEG 10.0
#define TAKEN_BACK_SHIFT 0.25 /* of the rectangle's width */
static bool near_pose(const vis_rect *r, const vis_rect *q) {
  double da = fmod(fabs(r->angle_deg - q->angle_deg), 180);
  return fmin(da, 180 - da) < TAKEN_BACK_DEG &&
         hypot(r->center.x - q->center.x, r->center.y - q->center.y) < TAKEN_BACK_SHIFT * r->w;
}

static bool where_taken_back(const retraction *rt, const vis_rect *r, double share, bool carpet) {
  for (int g = 0; g < rt->n_gone; g++) {
    const vis_rect *q = &rt->gone[g];
    if ((carpet || (rt->gone_card[g] && near_pose(r, q))) &&
        vis_rect_overlap_area(r, q) > share * r->w * r->h)
      return true;
  }
  return false;
}

typedef struct { /* vis__match's per-object and per-hypothesis arrays */
  vis__object *refined; /* as shows_card refined it */
  bool *is_refined;
  bool *sliver; /* per object: let in as a sliver (let_in_as_sliver) */
  int *items;  /* hypotheses to score again */
  bool *rerank;
  int16_t *claim; /* the claims (m->claim, writable) */
  bool *used;     /* per template: its carpet is taken (m->used, writable) */
} retract_arrays;

/* The carpets of the n objects kept are taken, no other: a phantom
 * carpet taken back gives its colour back. Returns whether any face was
 * given back. */
static bool mark_used(const match_ctx *m, const vis__object *acc, int n, bool *used) {
  bool freed = false;
  for (int f = 0; f < m->n_tpl; f++) {
    bool u = false;
    for (int k = 0; k < n && !u && m->tpl[f].kind != VIS__FACE_TYPE; k++)
      u = m->tpl[acc[k].face].kind != VIS__FACE_TYPE && m->tpl[acc[k].face].index == m->tpl[f].index;
    freed = freed || (used[f] && !u);
    used[f] = u;
  }
  return freed;
}

/* One of the hypothesis's candidate faces was given back (mark_used). */
static bool may_take_freed(const hyp *h, const bool *was_used, const bool *used) {
  for (int c = 0; c < h->n_cand; c++)
    if (was_used[h->cand_face[c]] && !used[h->cand_face[c]]) return true;
  return false;
}

/* Object i (of n) kept as object k, its refinement by shows_card only
 * while no card taken back lay above it (first_gone: the first). */
static void keep_refined(const retract_arrays *a, int i, int k, int first_gone) {
  a->refined[k] = a->refined[i];
  a->is_refined[k] = a->is_refined[i] && i < first_gone;
  a->sliver[k] = a->sliver[i];
}

/* The slivers let in (sliver[i]) that lie, at their refined poses, at
 * another object's refined pose (strip_twin) are phantoms: what shows of
 * them is that object's own border. near_accepted_pose asks this before
 * a sliver is accepted, but of the poses the objects were accepted at,
 * before their refinement: an adventure c 4 % visible whose refined pose
 * lay 3.0 mm and 0.0 degrees from the yellow carpet on it (a carpet with
 * nothing under it) passed (session 22, a held-out hard scene). Only
 * those let in as slivers: a real card 7 % visible lies 4.0 mm and 1.7
 * degrees from the carpet on it (tuning easy 3077: found 3.4 mm and 1.7
 * degrees off, let in by the object mask). Returns whether any. */
static bool sliver_twins(const match_ctx *m, const vis__object *fin, int n, const bool *sliver,
                         bool *phantom) {
  bool any = false;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n && sliver[i] && !phantom[i]; j++)
      if (j != i && strip_twin(m, &fin[j].r_px, &fin[i].r_px)) {
        phantom[i] = any = true;
        if (m->mp->log)
          fprintf(m->mp->log, "object %d, a sliver, lies at object %d's refined pose: taken back\n",
                  i, j);
      }
  }
  return any;
}

static bool retract_phantoms(match_ctx *m, shared_work *sw, int threads, hyp *H, int n_hyps,
                             vis__object *acc, int *n_acc, const retract_arrays *a,
                             vis__object *fin, retraction *rt) {
  int n = *n_acc;
  memcpy(fin, acc, sizeof *fin * (size_t)n);
  sw->acc = fin;
  vis__parallel_for(threads, n, refine_item, sw);
  /* checked with the types they will have (a carpet bazaar 81 % visible
   * failed the card frame test with its matcher's face, a camel bazaar:
   * tuning hard 3072) */
  measure_photo(sw, m, fin, n);
  settle_all(sw, m->mp->log ? 1 : threads, fin, n);
  bool phantom[64] = {false};
  if (rt->rounds >= RETRACT_ROUNDS) return false;
  bool any = m->mp->phantom_cards &&
             m->mp->phantom_cards(m->mp->phantom_ctx, m->t, fin, n, phantom);
  if (!sliver_twins(m, fin, n, a->sliver, phantom) && !any) return false;
  for (int i = 0; m->mp->log && i < n; i++)
    if (phantom[i])
      fprintf(m->mp->log, "taken back: object %d face %d expl %d valid %d at %.0f %.0f %.1f\n", i,
              fin[i].face, fin[i].explained, fin[i].valid, fin[i].r_px.center.x,
              fin[i].r_px.center.y, fin[i].r_px.angle_deg);
  rt->rounds++;
  int kept = 0, first_gone = n, n_new = rt->n_gone;
  for (int i = 0; i < n; i++) {
    if (phantom[i]) {
      rt->gone_card[rt->n_gone] = m->tpl[acc[i].face].kind == VIS__FACE_TYPE;
      rt->gone[rt->n_gone++] = acc[i].r_px;
      if (first_gone == n) first_gone = i;
      continue;
    }
    keep_refined(a, i, kept, first_gone);
    acc[kept++] = acc[i];
  }
  for (int i = kept; i <= n && i < 64; i++) a->is_refined[i] = false;
  size_t npx = (size_t)m->t->lab.width * (size_t)m->t->lab.height;
  for (size_t p = 0; p < npx; p++) a->claim[p] = -1;
  for (int k = 0; k < kept; k++) claim_rect(m->t, &acc[k].r_px, (int16_t)k, a->claim);
  bool *was_used = malloc(sizeof *was_used * (size_t)m->n_tpl + 1);
  if (was_used) memcpy(was_used, a->used, sizeof *was_used * (size_t)m->n_tpl);
  bool freed = mark_used(m, acc, kept, a->used) && was_used;
  int n_items = 0;
  for (int i = 0; i < n_hyps; i++) {
    hyp *h = &H[i];
    bool touched = false, by_card = false;
    for (int g = n_new; g < rt->n_gone && !by_card; g++)
      if (vis_rect_overlap_area(&h->r, &rt->gone[g]) > 0)
        touched = true, by_card = rt->gone_card[g];
    if (!touched && freed && h->alive && may_take_freed(h, was_used, a->used)) {
      a->items[n_items] = i; /* its best face may be the carpet given back */
      a->rerank[n_items++] = false;
      continue;
    }
    if (!touched || !(h->alive || h->dead == 'c' || h->dead == 'h')) continue;
    bool carpet = h->best.face >= 0 && m->tpl[h->best.face].kind != VIS__FACE_TYPE;
    if (!h->alive && where_taken_back(rt, &h->r, 0.5, carpet)) {
      if (m->mp->log)
        fprintf(m->mp->log, "hyp %d at %.0f %.0f %.1f stays out: where an object was taken back\n",
                i, h->r.center.x, h->r.center.y, h->r.angle_deg);
      continue;
    }
    h->alive = true;
    h->dead = 0;
    h->beside_phantom = h->beside_phantom || by_card; /* a card lay on it */
    a->items[n_items] = i;
    a->rerank[n_items++] = true;
  }
  free(was_used);
  sw->acc = acc;
  vis__parallel_for(threads, n_items, rescore_item, sw);
  *n_acc = kept;
  return true;
}

/* Every template's texels in fit_and_count's layout, in one malloc'd
 * block (NULL: out of memory); tex[f] and integral[f] per template. */
static texel *build_texels(const vis__template *tpl, int n_tpl, const texel **tex,
                           bool *integral) {
  size_t total = 0;
  for (int f = 0; f < n_tpl; f++) total += (size_t)tpl[f].w * (size_t)tpl[f].h;
  texel *all = malloc(sizeof *all * (total + 1));
  if (!all) return NULL;
  texel *t = all;
  for (int f = 0; f < n_tpl; f++) {
    tex[f] = t;
    integral[f] = true;
    for (int k = 0; k < tpl[f].w * tpl[f].h; k++, t++) {
      const float *p = tpl[f].lab + 3 * k;
      *t = (texel){{p[0], p[1], p[2], 0}, {0, 0, 0, 0}, {0, 0, 0, 0}};
      for (int c = 0; c < 3; c++) {
        bool whole = p[c] >= 0 && p[c] <= 255 && (float)(int)p[c] == p[c];
        int v = whole ? (int)p[c] : 0;
        integral[f] = integral[f] && whole;
        t->i[c] = v;
        t->ii[c] = v * v;
      }
    }
  }
  return all;
}

/* The first fit of a face to a list of samples sums the face's f and
 * f*f over the list's texels (fit_sums). Where the list is every sample
 * (or every COARSE_STRIDE-th) of a hypothesis sampled whole (no texel of
 * its grid off the table) and none of them hidden, as at every first
 * look, those texels are the same for every hypothesis of the face's
 * size: summed once per face here. Only for integral faces, whose sums
 * are integers, exact in any order: the same doubles as fit_sums'. The
 * grid is sample_hyp's (rows j, then columns i, from step / 2 by step),
 * the turned texel N - 1 - (j tw + i). out: 4 per template (WHOLE_AT). */
static void face_sums_make(const vis__template *tpl, int n_tpl, const texel *const *tex,
                           const bool *integral, int step, face_sums *out) {
  for (int f = 0; f < n_tpl; f++) {
    int tw = tpl[f].w, th = tpl[f].h, N = tw * th, k = 0;
    int64_t s[2][2][2][3] = {{{{0}}}}; /* coarse, turned, f / ff, channel */
    for (int j = step / 2; integral[f] && j < th; j += step)
      for (int i = step / 2; i < tw; i += step, k++)
        for (int coarse = 0; coarse < 2; coarse++) {
          if (coarse && k % COARSE_STRIDE) continue;
          for (int turned = 0; turned < 2; turned++) {
            const texel *t = &tex[f][turned ? N - 1 - (j * tw + i) : j * tw + i];
            for (int c = 0; c < 3; c++)
              s[coarse][turned][0][c] += t->i[c], s[coarse][turned][1][c] += t->ii[c];
          }
        }
    for (int coarse = 0; coarse < 2; coarse++)
      for (int turned = 0; turned < 2; turned++)
        for (int c = 0; c < 3; c++) {
          out[WHOLE_AT(f, coarse, turned)].f[c] = (double)s[coarse][turned][0][c];
          out[WHOLE_AT(f, coarse, turned)].ff[c] = (double)s[coarse][turned][1][c];
        }
  }
}

/* What the workers' contexts share (the texels, the claims: none yet,
 * the carpets taken: none yet) and each one's scratch. */
typedef struct {
  int16_t *claim;
  bool *used;
  uint8_t *scratch;
  const texel **tex;
  bool *integral;
  texel *texels;
  packed *packs; /* per worker */
  face_sums *whole; /* per template, stride and turn (face_sums_make) */
} match_tables;

static void tables_free(match_tables *mt) {
  free(mt->whole);
  free(mt->claim);
  free(mt->used);
  free(mt->scratch);
  free(mt->packs);
  free(mt->tex);
  free(mt->integral);
  free(mt->texels);
}

/* The tables and workers[0..threads) over them; false: out of memory. */
static bool tables_make(const vis__table *t, const vis__template *tpl, int n_tpl,
                        const vis__match_params *mp, int threads, match_tables *mt,
                        match_ctx *workers) {
  size_t npx = (size_t)t->lab.width * (size_t)t->lab.height;
  int max_samples = 0;
  for (int f = 0; f < n_tpl; f++) max_samples = (int)fmax(max_samples, tpl[f].w * tpl[f].h);
  /* per worker: the packed Lab and weighted Lab (16-byte vectors first:
   * the scratch and per_worker are multiples of 16), two sample lists,
   * two texel offset lists */
  size_t cap = (size_t)max_samples + 1;
  size_t per_worker = (2 * sizeof(v4f) * cap + 4 * sizeof(int) * cap + 15) / 16 * 16;
  *mt = (match_tables){malloc(sizeof(int16_t) * npx), calloc((size_t)n_tpl + 1, sizeof(bool)),
                       aligned_alloc(16, (size_t)threads * per_worker),
                       malloc(sizeof(texel *) * ((size_t)n_tpl + 1)),
                       malloc(sizeof(bool) * ((size_t)n_tpl + 1)), NULL,
                       malloc(sizeof(packed) * (size_t)threads),
                       malloc(sizeof(face_sums) * (4 * (size_t)n_tpl + 1))};
  if (mt->tex && mt->integral) mt->texels = build_texels(tpl, n_tpl, mt->tex, mt->integral);
  if (!mt->claim || !mt->used || !mt->scratch || !mt->texels || !mt->packs || !mt->whole) {
    tables_free(mt);
    return false;
  }
  face_sums_make(tpl, n_tpl, mt->tex, mt->integral, mp->step, mt->whole);
  for (size_t i = 0; i < npx; i++) mt->claim[i] = -1;
  for (int w = 0; w < threads; w++) {
    uint8_t *mine = mt->scratch + (size_t)w * per_worker;
    v4f *lab = (v4f *)(void *)mine;
    int *list = (int *)(void *)(lab + 2 * cap);
    packed *pk = &mt->packs[w];
    *pk = (packed){lab, lab + cap, {list + 2 * cap, list + 3 * cap}, NULL, -1, 0};
    workers[w] = (match_ctx){t, tpl, n_tpl, mp, mt->tex, mt->integral, mt->whole, mt->claim,
                             mt->used, list, list + cap, pk, INT16_MAX};
  }
  return true;
}

/* The hypotheses vis__match looks at first, into kept (*n_kept): by their
 * outline's support (order: per hypothesis, filled by edge_rank_item),
 * those with enough of it and a template of their size that are no
 * near-duplicate of one kept before them. */
static void keep_outlined(const vis__table *t, const vis__template *tpl, int n_tpl,
                          const vis_rect *hyps, int n_hyps, hyp_rank *order, int *kept,
                          int *n_kept) {
  qsort(order, (size_t)n_hyps, sizeof *order, by_explained);
  *n_kept = 0;
  place_index near; /* the kept ones; out of memory: near_duplicate */
  place_index_make(&near, NULL, 0, n_hyps);
  for (int k = 0; k < n_hyps && order[k].explained >= 250; k++) {
    int i = order[k].i, f = template_grid(t, tpl, n_tpl, &hyps[i]);
    if (f < 0) continue;
    if (near.by_x ? place_index_near(&near, &hyps[i], NMS_MM * t->px_per_mm)
                  : near_duplicate(t, hyps, kept, *n_kept, &hyps[i]))
      continue;
    kept[(*n_kept)++] = i;
    place_index_add(&near, &hyps[i]);
  }
  free(near.by_x);
}

/* ---- the first looks taken ahead ---- */

void vis__match_ahead_free(vis__match_ahead *a) {
  if (!a) return;
  for (int k = 0; k < a->n; k++) free_hyp(&a->h[k]);
  free(a->r);
  free(a->h);
  free(a->rank_r);
  free(a->rank_e);
  free(a);
}

static int by_index(const void *pa, const void *pb) {
  int a = *(const int *)pa, b = *(const int *)pb;
  return (a > b) - (a < b);
}

/* The looks of hyps[kept[0..n_kept)] (sorted), those sampled, into a. */
static bool ahead_keep(vis__match_ahead *a, const vis_rect *hyps, hyp *H, const int *kept,
                       int n_kept) {
  a->r = malloc(sizeof *a->r * ((size_t)n_kept + 1));
  a->h = malloc(sizeof *a->h * ((size_t)n_kept + 1));
  if (!a->r || !a->h) return false;
  for (int k = 0; k < n_kept; k++) {
    hyp *h = &H[kept[k]];
    if (h->oom) continue; /* freed by the caller; vis__match samples it */
    a->r[a->n] = hyps[kept[k]];
    a->h[a->n++] = *h;
    memset(h, 0, sizeof *h);
  }
  return true;
}

void vis__match_ahead_make(const vis__table *t, const vis__template *tpl, int n_tpl,
                           const vis_rect *hyps, int n_hyps, const vis__match_params *mp,
                           int threads, vis__match_ahead **out) {
  *out = NULL;
  threads = threads < 1 ? 1 : threads > VIS__MAX_THREADS ? VIS__MAX_THREADS : threads;
  match_ctx workers[VIS__MAX_THREADS];
  match_tables mt;
  if (!tables_make(t, tpl, n_tpl, mp, threads, &mt, workers)) return;
  hyp *H = calloc((size_t)n_hyps + 1, sizeof *H);
  hyp_rank *order = malloc(sizeof *order * ((size_t)n_hyps + 1));
  int *kept = malloc(sizeof *kept * ((size_t)n_hyps + 1));
  vis__match_ahead *a = calloc(1, sizeof *a);
  if (H && order && kept && a) {
    shared_work sw = {.w = workers, .H = H, .hyps = hyps, .items = kept, .edge_rank = order,
                      .n_hyps = n_hyps};
    vis__parallel_for(threads, n_hyps, edge_rank_item, &sw);
    a->rank_r = malloc(sizeof *a->rank_r * ((size_t)n_hyps + 1));
    a->rank_e = malloc(sizeof *a->rank_e * ((size_t)n_hyps + 1));
    /* before keep_outlined sorts order; an empty table's hyps may be NULL */
    if (a->rank_r && a->rank_e && n_hyps > 0) {
      memcpy(a->rank_r, hyps, sizeof *hyps * (size_t)n_hyps);
      for (int i = 0; i < n_hyps; i++) a->rank_e[i] = order[i].explained;
      a->n_ranked = n_hyps;
    }
    int n_kept;
    keep_outlined(t, tpl, n_tpl, hyps, n_hyps, order, kept, &n_kept);
    qsort(kept, (size_t)n_kept, sizeof *kept, by_index); /* in hyps' order */
    vis__parallel_for(threads, n_kept, first_score_item, &sw);
    if (ahead_keep(a, hyps, H, kept, n_kept)) *out = a, a = NULL;
  }
  for (int i = 0; H && i < n_hyps; i++) free_hyp(&H[i]);
  vis__match_ahead_free(a);
  free(H);
  free(order);
  free(kept);
  tables_free(&mt);
}

static bool same_rect(const vis_rect *a, const vis_rect *b) {
  return a->center.x == b->center.x && a->center.y == b->center.y && a->w == b->w &&
         a->h == b->h && a->angle_deg == b->angle_deg;
}

/* Per hypothesis: the look taken ahead at its very rectangle, or -1
 * (walked in order: each hypothesis looks on from the last one found). */
static void match_looks(const vis__match_ahead *a, const vis_rect *hyps, int n_hyps, int *look) {
  int from = 0;
  for (int i = 0; i < n_hyps; i++) {
    look[i] = -1;
    for (int k = from; a && k < a->n && look[i] < 0; k++)
      if (same_rect(&a->r[k], &hyps[i])) look[i] = k, from = k + 1;
  }
}

/* Whether the params let h's card face be accepted as a poor card where
 * h lies (a carpet face always may). */
static bool poor_card_allowed(const match_ctx *m, const hyp *h, const vis__object *acc,
                              int n) {
  if (!m->mp->poor_card_allowed || m->tpl[h->best.face].kind != VIS__FACE_TYPE) return true;
  return m->mp->poor_card_allowed(m->mp->poor_card_ctx, h->best.face, &h->best.r_px, acc, n);
}

/* A hypothesis whose card face shows no card frame is, where the params
 * say so (carpet_if_no_card), compared again with the other faces only
 * (carpets, backs): true when one of them is now its best. Else it stays
 * as it was (and is no card for now). */
static bool carpet_instead(const match_ctx *m, hyp *h) {
  if (!m->mp->carpet_if_no_card || h->cards_out) return false;
  hyp was = *h;
  h->cards_out = true;
  rank_faces(m, h);
  score_hyp(m, h);
  if (m->mp->log)
    fprintf(m->mp->log, "  the other faces: alive %d face %d expl %d valid %d\n", h->alive,
            h->best.face, h->best.explained, h->best.valid);
  if (h->alive && h->best.face >= 0) return true;
  *h = was; /* no other face of its size: the arrays are shared, not copied */
  return false;
}

/* Destination cards lie side by side, never on each other, so a
 * hypothesis whose best face is a card's and that overlaps an accepted
 * card can only be a carpet (or nothing). A real carpet's hypothesis a
 * few pixels off its pose fits its face badly where the carpet is pale
 * (the dim refit needs DIM_MIN_SCORE), and a faded card face explained
 * more of it: dropped so, the carpet was never compared nor searched as
 * one (tuning hard 3003: a red carpet fully visible on cream cloth, 0.99
 * at its true pose, 0.57-0.63 at its hypotheses 3-11 px off, where a
 * camel bazaar explained 0.69-0.78; hard 3093: a red carpet under a
 * palace, its hypotheses 13 px along it). So when half of it or more
 * shows (as dim_carpet asks: a pale face fits a few samples of
 * anything) it is compared with the carpet faces only (cards_out,
 * over_card); true when one of them explains RESCUE_MIN_SCORE of what
 * shows. It is asked at OVER_CARD_SCORE (explained_enough), else its
 * pose is searched by the second rescue pass. */
static bool carpet_over_card(const match_ctx *m, hyp *h) {
  if (h->cards_out || !shows_half(&h->best)) return false;
  hyp was = *h;
  h->cards_out = h->over_card = true;
  rank_faces(m, h);
  score_hyp(m, h);
  if (m->mp->log)
    fprintf(m->mp->log,
            "hyp at %.0f %.0f over a card: as a carpet alive %d face %d expl %d valid %d\n",
            h->r.center.x, h->r.center.y, h->alive, h->best.face, h->best.explained, h->best.valid);
  if (h->alive && h->best.face >= 0 && h->best.score >= RESCUE_MIN_SCORE) return true;
  *h = was; /* the arrays are shared, not copied */
  return false;
}

/* A strip of the bottom carpet of a stack, under the carpets accepted on
 * it, gets its hypotheses from corners that are mostly not its own: they
 * lie 1-2 mm off its pose, where a few millimetres of strip misfit its
 * face and a card's cream frame explains more (HUNT easy 3998: the red
 * carpet 4 % visible under blue and green on felt, its hypothesis 1.7 mm
 * and 1.5 degrees off, a card face 0.72 there; at its true pose the red
 * explained 43 of 45 once blue was accepted, edge 1.00 of 30, and then
 * the carpet bazaar under it, accepted at 0.79, claimed all of it). So a
 * hypothesis of which at most VIS__SLIVER_SHOWS shows, under an accepted
 * carpet and not at an accepted object's pose, whose best face explains
 * under the clear strip scores (SLIVER_SCORE for a card,
 * CARPET_STRIP_SCORE for a carpet), has its pose searched once with the
 * carpet faces not taken, on a copy (as carpet_searched does, with what
 * it showed kept in the cost, as the sliver rescue does). The copy takes
 * its place when its carpet face explains CARPET_STRIP_SCORE of what
 * shows, the strip's cut edge shows (strip_edge_shows), and the search
 * moved it less than SLIVER_SEARCH_MM and SLIVER_SEARCH_DEG (a strip
 * fixes the pose across it, not along it). And only from min_explained
 * samples on: a face searched along a strip of fewer finds a cream card
 * frame that a white border fits (DEV hard 3088: a blue face, 35 of 36,
 * edge 1.00 of 61, on a strip of an adventure a under the only carpet,
 * a phantom; HUNT easy 3754's green came to 42 of 42). */
static bool any_carpet_untaken(const match_ctx *m) {
  for (int f = 0; f < m->n_tpl; f++)
    if (m->tpl[f].kind != VIS__FACE_TYPE && !m->used[f]) return true;
  return false;
}

static bool strip_search_candidate(const match_ctx *m, const hyp *h, const vis__object *acc,
                                   int n) {
  if (!h->alive || h->searched || h->carpet_tried || h->cards_out || h->no_card ||
      h->best.face < 0 || h->best.valid < SLIVER_MIN_SAMPLES ||
      h->best.valid > VIS__SLIVER_SHOWS * h->best.total)
    return false;
  bool card = m->tpl[h->best.face].kind == VIS__FACE_TYPE;
  if (h->best.score >= (card ? SLIVER_SCORE : CARPET_STRIP_SCORE)) return false;
  return any_carpet_untaken(m) && under_carpet(m, h, acc, n) && !near_accepted_pose(m, h, acc, n);
}

/* The pose search costs about 9 M instructions (the 1080p bench frame:
 * 77 searches, 716 M of 9450 M, none taken), and few are taken (DEV,
 * CHECK and HUNT easy, session 39: 13 of 60630): so only a copy whose
 * strip shows the cut edge at STRIP_SEARCH_EDGE or more where it
 * starts is searched; the copy must show it at VIS__OUTLINED_EDGES
 * (0.95) where the search ends (strip_edge_shows), and the edge is asked
 * 1.5 mm either side of the outline, so a start that near the strip's
 * edge shows most of it. The 13 taken started at 0.74-1.00 (moved
 * 0.2-2.5 mm; HUNT easy 3742: 0.74, 2.5 mm; 3779: 0.80, 2.0 mm; 3754:
 * 1.00, 1.0 mm); 45826 (76 %) started under 0.5, none taken, so every
 * DEV, CHECK and HUNT easy line is the same. (Their face's share
 * explained at the start tells less: 3742's was 0.44.) The bench
 * frame searches 22 of its 77: 9450 -> 8988 M for the whole program. */
#define STRIP_SEARCH_EDGE 0.5
static bool strip_search_worth(const match_ctx *m, const hyp *c) {
  if (!c->alive || c->best.face < 0) return false;
  int seen;
  double weakest;
  return edge_support(m->t, m->claim, &c->r, &seen, &weakest) >= STRIP_SEARCH_EDGE;
}

static void carpet_strip_searched(const match_ctx *m, hyp *h, const vis__object *acc, int n) {
  if (!strip_search_candidate(m, h, acc, n)) return;
  h->carpet_tried = true;
  hyp c;
  const vis__template *tp = &m->tpl[h->best.face];
  if (!sample_hyp(m->t, &h->r, h->tw, h->th, tp->w_mm, tp->h_mm, m->mp->step, &c)) {
    release_hyp(m, &c);
    return; /* out of memory: as if no carpet fitted */
  }
  c.cards_out = c.over_card = true;
  if (c.alive) rescore(m, &c, true, true);
  if (!strip_search_worth(m, &c)) {
    if (m->mp->log)
      fprintf(m->mp->log,
              "  strip as a carpet: face %d expl %d valid %d score %.2f at %.0f %.0f %.1f: "
              "its edge does not show, not searched\n",
              c.best.face, c.best.explained, c.best.valid, c.best.score, c.r.center.x,
              c.r.center.y, c.r.angle_deg);
    release_hyp(m, &c);
    return;
  }
  search_pose(m, &c, (int16_t)n, true);
  bool found = c.alive && c.best.face >= 0 && m->tpl[c.best.face].kind != VIS__FACE_TYPE &&
               c.best.score >= CARPET_STRIP_SCORE && c.best.explained >= m->mp->min_explained &&
               pose_within(m, &h->r, &c.r, SLIVER_SEARCH_MM, SLIVER_SEARCH_DEG) &&
               !near_accepted_pose(m, &c, acc, n) && strip_edge_shows(m, &c, "strip searched");
  if (m->mp->log)
    fprintf(m->mp->log, "  strip as a carpet: face %d expl %d valid %d score %.2f at %.0f %.0f %.1f%s\n",
            c.best.face, c.best.explained, c.best.valid, c.best.score, c.r.center.x, c.r.center.y,
            c.r.angle_deg, found ? ": taken" : "");
  if (!found) {
    release_hyp(m, &c);
    return;
  }
  c.searched = c.carpet_tried = true;
  c.beside_phantom = h->beside_phantom;
  c.rug_tried = h->rug_tried, c.rug_any = h->rug_any;
  release_hyp(m, h);
  *h = c;
}

/* The hypotheses worth trying next, best explained first, in order[]:
 * those well explained, and of those a card's that overlaps an accepted
 * card only as a carpet (carpet_over_card). Returns how many. Their
 * outlines are tested later, in this order: that test costs more. */
static int rank_candidates(match_ctx *m, hyp *H, int n_hyps, const vis__object *acc, int n,
                           hyp_rank *order) {
  int n_ok = 0;
  for (int i = 0; i < n_hyps; i++) {
    if (H[i].no_card) continue;
    carpet_strip_searched(m, &H[i], acc, n);
    if (!well_explained(m, &H[i], acc, n)) continue;
    if (overlaps_card(m, &H[i], acc, n)) {
      if (!carpet_over_card(m, &H[i])) {
        H[i].alive = false;
        H[i].dead = 'c';
        continue;
      }
      if (!well_explained(m, &H[i], acc, n)) continue; /* left to the pose search */
    }
    order[n_ok++] = (hyp_rank){i, H[i].best.explained, H[i].best.valid - H[i].best.explained};
  }
  qsort(order, (size_t)n_ok, sizeof *order, by_explained);
  return n_ok;
}

/* Without carpet_if_no_card (analyze), a hypothesis whose card face
 * shows no card frame has its pose searched once with the carpet faces
 * only, on a copy sampled afresh at its pose (compared as
 * carpet_over_card's are: cards_out and over_card, so the search keeps
 * to the carpet faces and OVER_CARD_SCORE is asked). The copy replaces
 * it only when its carpet face explains RESCUE_ACCEPT of what shows
 * there; else it stays exactly as it was. A carpet fully visible under a
 * lamp's glare (HUNT hard 3803's red: every face at both of L's bounds)
 * had its hypothesis 0.8 mm off, where a card face explained 0.63 and
 * the red 0.53, so it waited as no card for good. Asked without the
 * search and the bar (carpet_if_no_card on), the red was found but DEV
 * easy 3064's carpet bazaar, 78 % showing under two carpets not yet
 * accepted, was taken as a carpet. Only where half of it shows, before
 * the search and after it (as carpet_over_card and dim_carpet ask): the
 * hypotheses of cards nearly hidden were searched onto carpet strips
 * beside them, 0.88-0.89 of 28-114 samples, and the card was lost (DEV
 * hard 3022: an adventure c 4 % showing; 3082: a camel bazaar 13 %). */
static bool carpet_searched(const match_ctx *m, hyp *h, int16_t n) {
  if (m->mp->carpet_if_no_card || h->cards_out || h->carpet_tried || h->searched ||
      !shows_half(&h->best))
    return false;
  h->carpet_tried = true;
  const vis__template *tp = &m->tpl[h->best.face];
  hyp c;
  if (!sample_hyp(m->t, &h->r, h->tw, h->th, tp->w_mm, tp->h_mm, m->mp->step, &c)) {
    release_hyp(m, &c);
    return false; /* out of memory: as if no carpet fitted */
  }
  c.cards_out = c.over_card = true;
  if (c.alive) rescore(m, &c, true, true);
  bool worth = c.alive && c.best.face >= 0 && c.best.score >= RESCUE_MIN_SCORE &&
               c.best.explained >= m->mp->min_explained;
  if (worth) search_pose(m, &c, n, false);
  bool found = worth && c.alive && c.best.face >= 0 && c.best.score >= RESCUE_ACCEPT &&
               c.best.explained >= m->mp->min_explained && shows_half(&c.best);
  if (m->mp->log)
    fprintf(m->mp->log,
            "  as a carpet searched: face %d expl %d valid %d score %.2f at %.0f %.0f %.1f%s\n",
            c.best.face, c.best.explained, c.best.valid, c.best.score, c.r.center.x, c.r.center.y,
            c.r.angle_deg, found ? ": taken" : "");
  if (!found) {
    release_hyp(m, &c);
    return false;
  }
  c.searched = c.carpet_tried = true;
  c.beside_phantom = h->beside_phantom;
  c.rug_tried = h->rug_tried, c.rug_any = h->rug_any;
  release_hyp(m, h);
  *h = c;
  return true;
}

/* A candidate that shows no card frame (cloth or wood, or a card under a
 * carpet not accepted yet, whose face cannot explain the carpet): not
 * now. True when it is now compared with the other faces only. */
static bool no_card_now(match_ctx *m, hyp *h, int i, int n) {
  if (m->mp->log)
    fprintf(m->mp->log, "no card now: hyp %d face %d expl %d valid %d score %.2f (%d accepted)\n",
            i, h->best.face, h->best.explained, h->best.valid, h->best.score, n);
  if (carpet_instead(m, h) || carpet_searched(m, h, (int16_t)n)) return true;
  h->no_card = true;
  return false;
}

/* A candidate that won only against a faded or poor one, and its pose
 * as shows_card refined it. */
typedef struct {
  int i; /* -1: none */
  vis__object probe;
  bool refined;
} runner_up;

enum { PICK_AGAIN = -2 }; /* pick_winner: rank the candidates again */

/* A poor card (its face fits, a cell or its frame badly) may be a
 * look-alike's face fitted across a real card whose own hypotheses,
 * from corners a few millimetres off, explain too little to be asked
 * before it (watch game 3:862 round 2's layout, hard, dim light: a
 * carpet bazaar's hypotheses 3-4 mm off under a camel bazaar's face
 * turned 90 degrees, 0.80, which was accepted, and the carpet bazaar was
 * lost). So before a poor card is accepted (and after a carpet lying
 * on one of its rivals, carpet_on_rival, which goes first: DEV hard
 * 3040's blue carpet on a carpet bazaar), the card hypotheses that
 * rival it and explain as large a share of what shows as it does (at
 * most POOR_SEARCHES, most explained first) have their pose searched, as
 * rescue does; the first that then shows a card and beats the poor one
 * is taken. -1 if none. (Rivals from RESCUE_MIN_SCORE up: six searches
 * on the bench frame, each 35-50 px off onto other cards, none taken,
 * +0.5 G instructions a 1080p frame; the 862 rival explained 0.92
 * against the poor card's 0.80.) */
enum { POOR_SEARCHES = 6 };
static bool poor_rival_candidate(const match_ctx *m, const hyp *h, const hyp *poor,
                                 const vis__object *acc, int n) {
  return h != poor && h->alive && !h->searched && !h->no_card && h->best.face >= 0 &&
         h->best.explained >= m->mp->min_explained && h->best.score >= poor->best.score &&
         rivals(m, h, poor) && !overlaps_card(m, h, acc, n);
}

/* The outline a searched rival of a poor card must show. Each side, as
 * outline_shows asks where hardly any object mask lies inside, is too much
 * to ask of a tan card on cream cloth in a coarse photo: watch game 4:893
 * (hard, 960x540) round 4's layout, a carpet bazaar in full view, its
 * rival searched to its true pose explaining 0.98 of 1305 samples, its
 * outline 0.57 of 270 but the side along the cloth's blue line 0.17;
 * refused, and a camel bazaar's face fitted 22 mm off across it and the
 * cloth (0.81, a cell at 0.36) was kept as the layout card. Where the poor
 * card already says an object lies, a rival that explains clearly more
 * (RIVAL_CLEAR_MARGIN over the poor card's score, CLEAR_SCORE of
 * CLEAR_MIN or more) needs only half of its outline to show. */
#define RIVAL_CLEAR_MARGIN 0.1
static bool rival_outline_shows(const match_ctx *m, const hyp *h, const hyp *poor) {
  bool unhidden;
  double weakest;
  if (!half_outline_shows(m, h, &unhidden, &weakest)) return false;
  return (clearly_explained_card(m, h) && h->best.score >= poor->best.score + RIVAL_CLEAR_MARGIN) ||
         every_side_shows(m, h, unhidden, weakest);
}

static int searched_rival(match_ctx *m, hyp *H, int n_hyps, int poor, const vis__object *acc,
                          int n, vis__object *refined, bool *is_refined) {
  int pick[POOR_SEARCHES], n_pick = 0;
  for (int i = 0; i < n_hyps; i++) {
    if (!poor_rival_candidate(m, &H[i], &H[poor], acc, n)) continue;
    int pos = n_pick < POOR_SEARCHES ? n_pick++ : POOR_SEARCHES;
    for (; pos > 0 && H[pick[pos - 1]].best.explained < H[i].best.explained; pos--)
      if (pos < POOR_SEARCHES) pick[pos] = pick[pos - 1];
    if (pos < POOR_SEARCHES) pick[pos] = i;
  }
  for (int k = 0; k < n_pick; k++) {
    hyp *h = &H[pick[k]];
    h->searched = true;
    log_rescue(m, "poor rival", pick[k], "at", h);
    search_pose(m, h, (int16_t)n, false);
    log_rescue(m, "poor rival", pick[k], "searched to", h);
    if (h->alive && explained_enough(m, h) && !overlaps_card(m, h, acc, n) &&
        rival_outline_shows(m, h, &H[poor]) &&
        shows_card(m, h, acc, (int16_t)n, refined, is_refined) == SHOWS_CARD &&
        beats_poor(m, h, &H[poor], acc, n) == RIVAL_WINS)
      return pick[k];
  }
  return -1;
}

/* The first of order[0..n_ok) whose outline shows and that shows a card
 * (shows_card), *refined as shows_card refined it; a poor card only
 * when no rival beats it, and one that beat only a faded card when none
 * won clearly. -1 when none, PICK_AGAIN when one is now compared with
 * the other faces only (carpet_instead) and none was found.
 * A card that shows a card only with a hand hidden (under_a_hand) waits
 * for the candidates after it that show a card or a carpet without one,
 * and for the carpet faces a switched candidate is now compared with:
 * the "hand" may be a carpet not accepted yet (a carpet outside the
 * object mask is outside the table's colours as a hand is). Accepted
 * first, such a card was taken back by the phantom check, whose hand
 * test found no occluder reaching in once a card accepted later covered
 * the carpet beyond the card's border; the carpet was found next and
 * the card never came back (session 38, looked-at hard 1100051: an
 * adventure b 84 % visible under the blue carpet). Asked after the
 * carpet, the card's face is fitted off the carpet's claims, as any card
 * under a carpet (HUNT hard 3797, no hand in the scene: an adventure c
 * 76 % visible under the blue, red and yellow carpets, accepted first
 * "under a hand" 0.33 hidden; after the three carpets its face and frame
 * explain 1.000 with no hand). A real hand is no candidate: its card is
 * taken when nothing else shows (DEV hard 3009's lamp, as before). */
static int pick_winner(match_ctx *m, hyp *H, int n_hyps, const hyp_rank *order, int n_ok,
                       const vis__object *acc, int n, vis__object *refined, bool *is_refined) {
  int bi = -1;
  runner_up poor = {.i = -1}, faded = {.i = -1}, handed = {.i = -1};
  poor_rivals pr = {.n = 0};
  bool switched = false;
  for (int k = 0; k < n_ok && bi < 0; k++) {
    hyp *h = &H[order[k].i];
    if (poor.i >= 0 && !rivals(m, h, &H[poor.i])) continue;
    if (!outline_shows(m, h) && !outline_under_hand(m, h, (int16_t)n)) continue;
    int v = shows_card(m, h, acc, (int16_t)n, refined, is_refined);
    if (v == SHOWS_POOR_CARD && !poor_card_allowed(m, h, acc, n)) v = SHOWS_NO_CARD;
    if (v == SHOWS_CARD && poor.i < 0 && *is_refined && refined->hand_share > 0) {
      if (handed.i < 0) handed = (runner_up){order[k].i, *refined, *is_refined};
    } else if (v == SHOWS_CARD) {
      enum rival_verdict r = poor.i < 0 ? RIVAL_WINS : beats_poor(m, h, &H[poor.i], acc, n);
      if (r == RIVAL_WINS)
        bi = order[k].i;
      else if (r == RIVAL_WINS_FADED && faded.i < 0)
        faded = (runner_up){order[k].i, *refined, *is_refined};
    } else if (v == SHOWS_POOR_CARD) {
      if (poor.i < 0) poor = (runner_up){order[k].i, *refined, *is_refined};
      else if (pr.n < POOR_RIVALS_MAX && H[poor.i].best.gain[0] < FADED_GAIN)
        pr.i[pr.n++] = order[k].i;
    } else if (no_card_now(m, h, order[k].i, n)) {
      switched = true;
    }
  }
  /* one now compared with the other faces only: in order again */
  if (bi < 0 && poor.i < 0 && switched) return PICK_AGAIN;
  if (bi < 0 && handed.i >= 0)
    bi = handed.i, *refined = handed.probe, *is_refined = handed.refined;
  if (bi < 0 && faded.i >= 0) /* no rival won clearly: the first that beat a faded one */
    bi = faded.i, *refined = faded.probe, *is_refined = faded.refined;
  if (bi < 0 && poor.i >= 0) {
    bi = carpet_on_rival(m, H, n_hyps, poor.i, &pr, acc, n);
    if (bi != poor.i) {
      *is_refined = false;
    } else {
      int sr = searched_rival(m, H, n_hyps, poor.i, acc, n, refined, is_refined);
      if (sr >= 0) return sr; /* *refined as shows_card refined it */
      *refined = poor.probe, *is_refined = poor.refined;
    }
  }
  return bi;
}

/* When no candidate won: the rescue passes in turn, each searching the
 * poses of the hypotheses it takes. The first found, or -1. */
static int rescue(const match_ctx *m, hyp *H, int n_hyps, const vis__object *acc, int n,
                  hyp_rank *order, vis__object *refined, bool *is_refined) {
  static const rescue_pass *const passes[] = {&RESCUE_FREE, &RESCUE_OVER_CARD, &RESCUE_STRIPS,
                                              &RESCUE_SLIVERS, &RESCUE_UNOUTLINED_STRIPS,
                                              &RESCUE_UNOUTLINED_CARDS};
  int bi = -1;
  for (size_t p = 0; bi < 0 && p < sizeof passes / sizeof *passes; p++)
    bi = run_rescue(m, H, n_hyps, acc, n, passes[p], order, refined, is_refined);
  return bi;
}

/* Accepts H[bi] as object n: it claims its pixels, and a carpet's colour
 * is taken (each carpet lies once on the table). */
static void accept_object(const match_ctx *m, hyp *H, int bi, vis__object *acc, int n,
                          const retract_arrays *arrays) {
  vis__object o = H[bi].best;
  o.hand_share = arrays->is_refined[n] ? arrays->refined[n].hand_share : 0;
  if (m->mp->log)
    fprintf(m->mp->log, "accept %d: hyp %d face %d expl %d valid %d score %.2f at %.0f %.0f %.1f\n",
            n, bi, o.face, o.explained, o.valid, o.score, o.r_px.center.x, o.r_px.center.y,
            o.r_px.angle_deg);
  acc[n] = o;
  arrays->sliver[n] = let_in_as_sliver(m, &H[bi]);
  H[bi].alive = false;
  H[bi].dead = 'a';
  claim_rect(m->t, &o.r_px, (int16_t)n, arrays->claim);
  const vis__template *won = &m->tpl[o.face];
  if (won->kind != VIS__FACE_TYPE)
    for (int f = 0; f < m->n_tpl; f++)
      if (m->tpl[f].kind != VIS__FACE_TYPE && m->tpl[f].index == won->index) arrays->used[f] = true;
}

/* Scores again the hypotheses that the object just accepted (id) hid in
 * part, and those whose best face was its carpet's; when none of a
 * hypothesis' samples is hidden, its scores stay as they are. */
static void rescore_after_accepting(const match_ctx *m, shared_work *sw, int threads, hyp *H,
                                    int n_hyps, const vis__object *o, int16_t id,
                                    const retract_arrays *arrays) {
  int n_items = 0;
  for (int i = 0; i < n_hyps; i++) {
    if (!H[i].alive) continue;
    bool hidden = vis_rect_overlap_area(&H[i].r, &o->r_px) > 0 && newly_hidden(m, &H[i], id);
    if (hidden || (H[i].best.face >= 0 && arrays->used[H[i].best.face])) {
      arrays->items[n_items] = i;
      arrays->rerank[n_items++] = hidden;
    }
  }
  vis__parallel_for(threads, n_items, rescore_item, sw);
}

/* The debugging log: every hypothesis as the matching left it. */
static void log_hyps(const match_ctx *m, const hyp *H, int n_hyps) {
  for (int i = 0; i < n_hyps; i++) {
    int seen = 0;
    double weakest;
    double e = edge_support(m->t, m->claim, &H[i].r, &seen, &weakest);
    fprintf(m->mp->log,
            "hyp %d at %.0f %.0f %.1f alive %d%c face %d expl %d valid %d score %.2f edge "
            "%.2f/%d obj %d/%d nocard %d\n",
            i, H[i].r.center.x, H[i].r.center.y, H[i].r.angle_deg, H[i].alive,
            H[i].dead ? H[i].dead : '-', H[i].best.face, H[i].best.explained, H[i].best.valid,
            H[i].best.score, e, seen, H[i].free_object, H[i].free_n, H[i].no_card);
  }
}

tp_status vis__match(const vis__table *t, const vis__template *tpl, int n_tpl,
                     const vis_rect *hyps, int n_hyps,
                     const vis__match_params *mp, vis__match_ahead *ahead,
                     vis__object **out, int *n_out, tp_error *err) {
  *out = NULL;
  *n_out = 0;
  hyp *H = calloc((size_t)n_hyps + 1, sizeof *H);
  vis__object *acc = malloc(sizeof *acc * 64);
  hyp_rank *order = malloc(sizeof *order * ((size_t)n_hyps + 1));
  int *kept = malloc(sizeof *kept * ((size_t)n_hyps + 1));
  int *look = malloc(sizeof *look * ((size_t)n_hyps + 1));
  int threads = mp->threads < 1 ? 1 : mp->threads > VIS__MAX_THREADS ? VIS__MAX_THREADS : mp->threads;
  bool *rerank = malloc(sizeof *rerank * ((size_t)n_hyps + 1));
  match_ctx workers[VIS__MAX_THREADS];
  match_tables mt = {0};
  bool have_tables = tables_make(t, tpl, n_tpl, mp, threads, &mt, workers);
  int16_t *claim = mt.claim;
  bool *used = mt.used;
  tp_status st = TP_OK;
  place_index listed; /* out of memory: listed_near asks them in turn */
  place_index_make(&listed, hyps, n_hyps, 0);
  if (!H || !acc || !order || !kept || !look || !rerank || !have_tables) {
    st = tp_error_set(err, TP_ERR_NOMEM, "out of memory while matching faces");
    goto done;
  }
  match_ctx m = workers[0];
  vis__object refined[64];
  bool is_refined[64] = {false};
  bool sliver[64] = {false};
  shared_work sw = {.w = workers, .H = H, .hyps = hyps, .items = kept, .rerank = rerank,
                    .refined = refined, .is_refined = is_refined, .edge_rank = order,
                    .ahead = ahead, .look = look, .n_hyps = n_hyps, .listed = listed};
  vis__object fin[64];
  bool refined_all = false;
  retraction rt = {0};
  const retract_arrays ra = {refined, is_refined, sliver, kept, rerank, claim, used};
  /* cheap first: a hypothesis without outline is no card (saves most
   * work); of near-duplicates only the one whose outline shows best is
   * matched (the pose refinement moves it the last millimetres) */
  rank_outlines(threads, ahead, &sw, n_hyps, kept);
  int n_kept;
  keep_outlined(t, tpl, n_tpl, hyps, n_hyps, order, kept, &n_kept);
  match_looks(ahead, hyps, n_hyps, look);
  vis__parallel_for(threads, n_kept, first_score_item, &sw);
  for (int k = 0; k < n_kept; k++)
    if (H[kept[k]].oom) {
      st = tp_error_set(err, TP_ERR_NOMEM, "out of memory while matching faces");
      goto done;
    }
  int n = 0;
  while (n < 64) {
    int n_ok = rank_candidates(&m, H, n_hyps, acc, n, order);
    int bi = pick_winner(&m, H, n_hyps, order, n_ok, acc, n, &refined[n], &is_refined[n]);
    if (bi == PICK_AGAIN) continue;
    if (bi >= 0) bi = topmost(&m, H, n_hyps, bi, acc, n, &refined[n], &is_refined[n]);
    if (bi >= 0 && search_strip_rivals(&m, H, n_hyps, bi, acc, n)) continue;
    if (bi < 0) bi = rescue(&m, H, n_hyps, acc, n, order, &refined[n], &is_refined[n]);
    if (bi < 0 && retract_phantoms(&m, &sw, threads, H, n_hyps, acc, &n, &ra, fin, &rt)) continue;
    if (bi < 0) {
      refined_all = true; /* fin[]: retract_phantoms refined them */
      break;
    }
    accept_object(&m, H, bi, acc, n, &ra);
    n++;
    rescore_after_accepting(&m, &sw, threads, H, n_hyps, &acc[n - 1], (int16_t)(n - 1), &ra);
  }
  if (mp->log) {
    log_hyps(&m, H, n_hyps);
    log_objects(&m, acc, n);
  }
  sw.acc = acc;
  if (refined_all) { /* retract_phantoms refined and settled them */
    memcpy(acc, fin, sizeof *acc * (size_t)n);
  } else {
    vis__parallel_for(threads, n, refine_item, &sw);
    /* with a debugging log, one worker: its lines in the objects' order
     * (of each of settle_all's phases) */
    measure_photo(&sw, &m, acc, n);
    settle_all(&sw, mp->log ? 1 : threads, acc, n);
  }
  *out = acc;
  *n_out = n;
  acc = NULL;
done:
  for (int i = 0; H && i < n_hyps; i++) free_hyp(&H[i]);
  free(H);
  if (have_tables) tables_free(&mt);
  free(listed.by_x);
  free(acc);
  free(rerank);
  free(order);
  free(kept);
  free(look);
  return st;
}

vis__face_place vis__face_place_of(const vis__table *t, const vis__template *tp,
                                   const vis__object *o) {
  vis__face_place p = {tp, o, 0, 0, 0, 0};
  vis__face_axes(&o->r_px, t->px_per_mm, o->flipped, &p.ax, &p.ay, &p.lx, &p.ly);
  return p;
}

/* Table pixel (x, y) -> p's face texel (*i, *j), the inverse of
 * sample_hyp's mapping, and the pixel's Lab; false off the face or the
 * table. */
static bool place_texel(const vis__table *t, const vis__face_place *p, double x, double y,
                        int *i, int *j, float lab[3]) {
  const vis__template *tp = p->tp;
  const vis__object *o = p->o;
  double s = t->px_per_mm;
  double dx = x - o->r_px.center.x, dy = y - o->r_px.center.y;
  double fx = (dx * p->ax + dy * p->ay) / (s * s) + tp->w_mm / 2;
  double fy = (dx * p->lx + dy * p->ly) / (s * s) + tp->h_mm / 2;
  *i = (int)floor(fx * tp->w / tp->w_mm), *j = (int)floor(fy * tp->h / tp->h_mm);
  if (*i < 0 || *j < 0 || *i >= tp->w || *j >= tp->h) return false;
  return vis__table_lab(t, x, y, lab);
}

/* p's face at texel (i, j) against the photo's Lab there: the residual,
 * and in *l_excess (unless NULL) the photo's L minus the face's. Inline,
 * so vis__place_residual (the face fits' hot path) does not pay for the
 * excess. */
static inline double texel_residual(const vis__face_place *p, int i, int j, const float lab[3],
                                    double *l_excess) {
  const vis__template *tp = p->tp;
  const vis__object *o = p->o;
  const float *f = tp->lab + 3 * ((size_t)j * tp->w + i);
  double g = 0; /* the lift's share of white */
  if (o->lifted)
    g = o->lift[(j * LIFT_CELLS_Y / tp->h) * LIFT_CELLS_X + i * LIFT_CELLS_X / tp->w];
  double r = 0, l_face = 0;
  for (int c = 0; c < 3; c++) {
    double pc = o->gain[c] * f[c] + o->offset[c];
    if (o->lifted) pc += g * (lift_white[c] - pc);
    r += channel_weight[c] * fabs(lab[c] - pc);
    if (c == 0) l_face = pc;
  }
  if (l_excess) *l_excess = lab[0] - l_face;
  return r;
}

double vis__place_residual(const vis__table *t, const vis__face_place *p, double x, double y) {
  int i, j;
  float lab[3];
  if (!place_texel(t, p, x, y, &i, &j, lab)) return -1;
  return texel_residual(p, i, j, lab, NULL);
}

bool vis__place_pair(const vis__table *t, const vis__face_place *p, double x, double y,
                     float face[3], float photo[3]) {
  int i, j;
  if (!place_texel(t, p, x, y, &i, &j, photo)) return false;
  memcpy(face, p->tp->lab + 3 * ((size_t)j * p->tp->w + i), 3 * sizeof(float));
  return true;
}

double vis__place_residual_excess(const vis__table *t, const vis__face_place *p, double x,
                                  double y, double *l_excess) {
  int i, j;
  float lab[3];
  if (!place_texel(t, p, x, y, &i, &j, lab)) return -1;
  return texel_residual(p, i, j, lab, l_excess);
}

double vis__object_residual(const vis__table *t, const vis__template *tp,
                            const vis__object *o, double x, double y) {
  vis__face_place p = vis__face_place_of(t, tp, o);
  return vis__place_residual(t, &p, x, y);
}
