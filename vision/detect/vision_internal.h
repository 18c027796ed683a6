/* Internals of the vision library shared between its files (vis__). */
#ifndef TEPPICH_VISION_INTERNAL_H
#define TEPPICH_VISION_INTERNAL_H

#include <math.h>
#include <stdio.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "vision.h"

typedef struct {
  char colour[VIS_COLOUR_MAX];
  tp_image face;
  tp_image back; /* data NULL when the deck has no back image */
} vis__carpet_face;

struct vis_deck {
  double card_mm[2];   /* width (short), height (long) */
  double carpet_mm[2];
  double corner_mm; /* radius of the rounded corners (cards and carpets) */
  tp_image types[VIS_TYPE_COUNT]; /* data NULL when the type is absent */
  vis__carpet_face carpets[VIS_MAX_CARPETS];
  int n_carpets;
};

/* Reads an image file as owned RGB (through vision/cvw). */
tp_status vis__read_rgb(const char *path, tp_image *out, tp_error *err);
tp_status vis__deck_check(const vis_deck *deck, const char *dir,
                          tp_error *err);


/* ---- analysis internals ---- */

#define VIS_PI 3.14159265358979323846

/* lround(x) for |x| < 2^31, inline: libm's lround is a call per sample
 * in the matcher's inner loops (3 % of an analysis's instructions). */
static inline int vis__round(double x) {
  return x >= 0 ? (int)(x + 0.5) : (int)(x - 0.5);
}

/* Colour histogram bins over OpenCV 8-bit Lab: L/32, a/8, b/8. */
enum { VIS__LBINS = 8, VIS__ABINS = 32, VIS__NBINS = 8 * 32 * 32 };
static inline int vis__bin(const uint8_t *lab) {
  return (lab[0] >> 5) * 1024 + (lab[1] >> 3) * 32 + (lab[2] >> 3);
}

/* What depends on a table's frame alone, computed at its first use and
 * kept for the frame's analysis (evidence.c: the table's colours that
 * vis__occluder_find asks for every hypothesis it judges). */
typedef struct vis__table_memo vis__table_memo;

/* The rectified table: RGB and Lab images at px_per_mm, its origin in
 * table mm, and an object mask (255: a card or carpet, 0: table). */
typedef struct {
  tp_image rgb, lab, object;
  tp_image smooth; /* lab blurred to the matching scale (about 1 mm) */
  double px_per_mm;
  double x0_mm, y0_mm; /* table mm of pixel (0,0) */
  int threads;         /* workers for its per-pixel stages (0 counts as 1) */
  /* owned (rectify): the width in mm of the photo's pixel at every
   * VIS__CAMERA_GRID-th table pixel each way (camera_w per row); NULL (the
   * tests' tables), or 0 where the table does not map: unknown */
  float *camera_mm;
  int camera_w, camera_h;
  /* owned (rectify); NULL: computed again at every use (the tests'
   * tables). Its first use must come after the object mask is final:
   * only the matcher and what follows it ask. */
  vis__table_memo *memo;
} vis__table;

/* An empty memo (NULL: out of memory); its answers are filled in by
 * whichever thread asks first, under its own lock, and are the same for
 * any number of threads. */
vis__table_memo *vis__table_memo_new(void);
void vis__table_memo_free(vis__table_memo *memo);

static inline vis_pt vis__mm_to_px(const vis__table *t, vis_pt mm) {
  vis_pt p = {(mm.x - t->x0_mm) * t->px_per_mm, (mm.y - t->y0_mm) * t->px_per_mm};
  return p;
}
/* A face's axes in table pixels per face mm (s pixels per mm): across
 * (+x of the face) and along (+y); flipped for a face turned by 180 deg. */
static inline void vis__face_axes(const vis_rect *r, double s, bool flipped, double *ax,
                                  double *ay, double *lx, double *ly) {
  double a = r->angle_deg * VIS_PI / 180.0, sg = flipped ? -1 : 1;
  *lx = sg * s * cos(a);
  *ly = sg * s * sin(a);
  *ax = sg * s * sin(a);
  *ay = -sg * s * cos(a);
}

#if defined(__SSE2__)
/* The bytes p[0..3] and q[0..3] as 16-bit lanes 0..7. */
static inline __m128i vis__u8x8(const uint8_t *p, const uint8_t *q) {
  int a, b;
  memcpy(&a, p, 4);
  memcpy(&b, q, 4);
  return _mm_unpacklo_epi8(_mm_unpacklo_epi32(_mm_cvtsi32_si128(a), _mm_cvtsi32_si128(b)),
                           _mm_setzero_si128());
}

/* vis__bilinear's L and a (*la) and b (*b) in double, before they are
 * rounded to float. L and a go as a pair and b for both rows as a pair,
 * the bytes widened four at a time (the scalar loop converted each of
 * the 12 bytes alone, 36 of its about 75 x86-64 instructions, in the
 * matcher's innermost sample; session 27). Every lane does the scalar
 * loop's double operations in the same order: the same values bit for
 * bit. Reads r0[0..5] and r1[0..5] only. */
static inline void vis__bilinear_sse2(const uint8_t *r0, const uint8_t *r1, double fx,
                                      double fy, __m128d *la, double *b) {
  const __m128i z = _mm_setzero_si128();
  __m128i w0 = vis__u8x8(r0, r1), w2 = vis__u8x8(r0 + 2, r1 + 2);
  __m128i a0 = _mm_unpacklo_epi16(w0, z), b0 = _mm_unpackhi_epi16(w0, z); /* r0[0..3], r1[0..3] */
  __m128i a2 = _mm_unpacklo_epi16(w2, z), b2 = _mm_unpackhi_epi16(w2, z); /* r0[2..5], r1[2..5] */
  __m128d left0 = _mm_cvtepi32_pd(a0), left1 = _mm_cvtepi32_pd(b0); /* L, a */
  __m128d right0 = _mm_cvtepi32_pd(_mm_srli_si128(a2, 4));
  __m128d right1 = _mm_cvtepi32_pd(_mm_srli_si128(b2, 4));
  __m128d bl = _mm_cvtepi32_pd(_mm_unpacklo_epi32(a2, b2)); /* b left: row 0, row 1 */
  __m128d br = _mm_cvtepi32_pd(_mm_srli_si128(_mm_unpackhi_epi32(a2, b2), 8));
  __m128d gx = _mm_set1_pd(1 - fx), vx = _mm_set1_pd(fx);
  double gy = 1 - fy;
  __m128d row0 = _mm_add_pd(_mm_mul_pd(gx, left0), _mm_mul_pd(vx, right0));
  __m128d row1 = _mm_add_pd(_mm_mul_pd(gx, left1), _mm_mul_pd(vx, right1));
  *la = _mm_add_pd(_mm_mul_pd(_mm_set1_pd(gy), row0), _mm_mul_pd(_mm_set1_pd(fy), row1));
  __m128d bb = _mm_add_pd(_mm_mul_pd(gx, bl), _mm_mul_pd(vx, br));
  *b = gy * _mm_cvtsd_f64(bb) + fy * _mm_cvtsd_f64(_mm_unpackhi_pd(bb, bb));
}
#endif

/* out[k] = (1 - fy) ((1 - fx) r0[k] + fx r0[3 + k])
 *          + fy ((1 - fx) r1[k] + fx r1[3 + k]), k = 0..2: the pixel pair
 * of two rows mixed in double and rounded to float. */
static inline void vis__bilinear(const uint8_t *r0, const uint8_t *r1, double fx, double fy,
                                 float out[3]) {
#if defined(__SSE2__)
  __m128d la;
  double b;
  vis__bilinear_sse2(r0, r1, fx, fy, &la, &b);
  _mm_storel_pi((__m64 *)(void *)out, _mm_cvtpd_ps(la));
  out[2] = (float)b;
#else
  for (int k = 0; k < 3; k++)
    out[k] = (float)((1 - fy) * ((1 - fx) * r0[k] + fx * r0[3 + k]) +
                     fy * ((1 - fx) * r1[k] + fx * r1[3 + k]));
#endif
}

/* Where the smoothed Lab at table pixel (x, y) is read: the pixel pair
 * of row floor(y) at *r0 and of the row below at *r1, the fractions *fx
 * and *fy (vis__bilinear); false outside the table image or where the
 * camera saw nothing (black rgb). */
static inline bool vis__table_at(const vis__table *t, double x, double y, const uint8_t **r0,
                                 const uint8_t **r1, double *fx, double *fy) {
  if (x < 0 || y < 0 || x > t->lab.width - 1.001 || y > t->lab.height - 1.001)
    return false;
  int ix = (int)x, iy = (int)y;
  *fx = x - ix;
  *fy = y - iy;
  *r0 = tp_image_row(&t->smooth, iy) + 3 * ix;
  *r1 = tp_image_row(&t->smooth, iy + 1) + 3 * ix;
  const uint8_t *c = tp_image_row(&t->rgb, iy) + 3 * ix;
  return c[0] | c[1] | c[2];
}

/* Bilinear smoothed Lab at table pixel (x, y); false outside the table
 * image or where the camera saw nothing (black rgb). Inline: it is the
 * matcher's innermost sample. */
static inline bool vis__table_lab(const vis__table *t, double x, double y, float out[3]) {
  const uint8_t *r0, *r1;
  double fx, fy;
  if (!vis__table_at(t, x, y, &r0, &r1, &fx, &fy)) return false;
  vis__bilinear(r0, r1, fx, fy, out);
  return true;
}

static inline vis_pt vis__px_to_mm(const vis__table *t, vis_pt px) {
  vis_pt p = {px.x / t->px_per_mm + t->x0_mm, px.y / t->px_per_mm + t->y0_mm};
  return p;
}
/* A rectangle (centre, size, angle) from table pixels to table mm and
 * back: analyze.c reports in mm, reference.c keeps its reference in mm. */
static inline vis_rect vis__rect_px_to_mm(const vis__table *t, const vis_rect *r) {
  vis_rect m = *r;
  m.center = vis__px_to_mm(t, r->center);
  m.w = r->w / t->px_per_mm;
  m.h = r->h / t->px_per_mm;
  return m;
}
static inline vis_rect vis__rect_mm_to_px(const vis__table *t, const vis_rect *r) {
  vis_rect p = *r;
  p.center = vis__mm_to_px(t, r->center);
  p.w = r->w * t->px_per_mm;
  p.h = r->h * t->px_per_mm;
  return p;
}

/* Fills t->rgb and t->lab (allocated, with px_per_mm and the origin set)
 * from the photo through the table mapping, and t->camera_mm (rectify.c). */
tp_status vis__rectify(const tp_image *rgb, const vis_table_map *map, int threads,
                       vis__table *t, tp_error *err);
enum { VIS__CAMERA_GRID = 8 }; /* table pixels between camera_mm's nodes */
/* The width in mm of the photo's pixel at table pixel (x, y); 0: unknown. */
double vis__camera_mm(const vis__table *t, double x, double y);
/* cvw_box_blur_rows (OpenCV's box filter of rows y0..y1-1, byte for byte)
 * computed here in plain C for windows of up to 256 pixels (radius <= 7),
 * about a sixth of the instructions (rectify.c). */
tp_status vis__box_blur_rows(const tp_image *src, tp_image *dst, int radius, int y0, int y1,
                             tp_error *err);

/* Work on the outline corners' hypotheses that may go on while LSD's
 * segments are found (vis__hypotheses): fn(ctx, hyps, n, threads) is
 * called once, on the calling thread, with the list's first n entries
 * (the outline corners; LSD's corners are only appended after them, and
 * nothing before them changes) and the number of workers it may use. */
typedef struct {
  void (*fn)(void *ctx, const vis_rect *hyps, int n, int threads);
  void *ctx;
} vis__outline_hook;

/* Rectangle hypotheses (table pixels) from the object mask's outline:
 * every perpendicular pair of outline edges gives a corner, and with a
 * known size (sizes_px: n_sizes pairs of w, h) a whole rectangle. *out is
 * malloc'd. Near-duplicates are merged. places[0..n_places-1] (table
 * pixels; NULL, 0 for none): where cards are known to lie, looked at for
 * straight edges even where the mask shows nothing. hook: NULL, or called
 * once the outline corners are listed (above). */
tp_status vis__hypotheses(const vis__table *t, const double (*sizes_px)[2], int n_sizes,
                          const vis_rect *places, int n_places,
                          const vis__outline_hook *hook, vis_rect **out, int *n_out,
                          tp_error *err);

/* A carpet's depth into a card within the pose error of the rules' contact
 * depth (geom.c), and the reason told then ("it barely touches the lamp
 * (card 3; 0.7 mm into it, ...): taken as not on it" / "... as lying on
 * it"); type -1: unknown. */
/* Carpet cp's depth into a card (its index and type) is within the pose
 * error of the rules' contact depth: cp says so, with the reason, unless
 * it already doubts something. The one rule analyze and the layout
 * reference both follow. */
void vis__note_contact_doubt(const vis_settings *s, double depth_mm, int card, int type,
                             vis_carpet *cp);

/* The table's scale where the outlines meet. The markers' 40 mm squares set
 * the table mapping's scale, which at 960x540 is off by 0.37 % (sd, up to
 * 0.8 %) and differs across the table; an outline of deck size then
 * misses the picture's by that share, and a carpet's depth into a card by
 * that share of their centres' distance (sd 0.4 mm at 960x540, tuning easy
 * 3000..3149: docs/analyze.md, session 12). A card's or carpet's art
 * shows the scale where it lies: vis__apparent_scale (below) measures it. */

/* vis_rect_contact_depth_at (vision.h) is the depth at such a scale. */
/* Within this of any card (by the deck-sized outlines), a carpet's
 * apparent scale is measured: the mapping's scale error moves a depth by
 * under 0.8 % of 100 mm. */
#define VIS__SCALE_REACH_MM 2.0
/* One accepted object's outline, for vis__scale_measurable. */
typedef struct {
  vis_rect rect;  /* table mm, deck-sized */
  bool card;      /* a card: a carpet near one has its scale measured */
  bool may_cover; /* listed before a carpet, it may lie on top of it */
} vis__outline;
/* Whether carpet i's apparent scale (vis__apparent_scale) is measured: it
 * lies within VIS__SCALE_REACH_MM of a card and nothing that may cover it
 * and is listed before it reaches VIS__SCALE_EDGE_MM into it (where the
 * scale is read). An object in neither role (card false, may_cover false)
 * is not looked at. The one rule analyze and the layout reference follow;
 * corner_mm: the deck's corner radius. */
bool vis__scale_measurable(const vis__outline *o, int n, int i, double corner_mm);
/* The scale for carpet i's contacts: its own apparent scale (scale[i]),
 * else the mean of the other measured ones (NaN: not measured), else 1. */
double vis__local_scale(const double *scale, int n, int i);

/* Fraction of the rectangle's pixels in the object mask. */
double vis__object_fraction(const vis__table *t, const vis_rect *r_px);
/* vis__object_fraction(t, r_px) > min, stopping once the answer is certain. */
bool vis__object_fraction_above(const vis__table *t, const vis_rect *r_px, double min);
/* The object mask a corner of two straight image edges (LSD) needs inside
 * its rectangle (fit.c); one with less is a hypothesis only when all four
 * of its sides are such edges, and then must show a card cleanly. */
#define VIS__EDGE_MIN_OBJECT 0.02

/* Deck colours pooled into one histogram (VIS__NBINS floats). */
tp_status vis__object_model_build(const vis_deck *deck, float *hist,
                                  tp_error *err);
/* Fills t->object from t->lab, t->rgb and the deck histogram. */
tp_status vis__object_mask(vis__table *t, const float *obj_hist,
                           tp_error *err);

/* A rectangle prepared for many point tests (no trigonometry per point). */
typedef struct {
  double cx, cy, c, s, hw, hh;
} vis__frame;
static inline vis__frame vis__frame_of(const vis_rect *r) {
  double t = r->angle_deg * 3.14159265358979323846 / 180.0;
  vis__frame f = {r->center.x, r->center.y, cos(t), sin(t), r->w / 2, r->h / 2};
  return f;
}
/* Inside the rectangle grown by `grow` on every side (as vis_rect_contains). */
static inline bool vis__frame_contains(const vis__frame *f, double x, double y, double grow) {
  double dx = x - f->cx, dy = y - f->cy;
  double u = dx * f->c + dy * f->s, v = -dx * f->s + dy * f->c;
  return fabs(u) <= f->hh + grow + 1e-9 && fabs(v) <= f->hw + grow + 1e-9;
}

/* Inside the rectangle with its corners rounded by radius r (as cards and
 * carpets are cut): a point in a corner's cut-off is not on the object,
 * and shows what lies beneath it. */
static inline bool vis__frame_contains_rounded(const vis__frame *f, double x, double y,
                                               double r) {
  double dx = x - f->cx, dy = y - f->cy;
  double u = fabs(dx * f->c + dy * f->s), v = fabs(-dx * f->s + dy * f->c);
  if (u > f->hh + 1e-9 || v > f->hw + 1e-9) return false;
  r = fmin(r, fmin(f->hh, f->hw));
  double cu = u - (f->hh - r), cv = v - (f->hw - r);
  return cu <= 0 || cv <= 0 || cu * cu + cv * cv <= r * r + 1e-9;
}

/* The radius in px of an object's rounded corners (deck corner_mm) once
 * its outline is shrunk by margin_px on every side: the stacking samples
 * stay inside both objects' rounded outlines (vis__frame_contains_rounded). */
static inline double vis__shrunk_corner_px(double corner_mm, double px_per_mm,
                                           double margin_px) {
  return fmax(0, corner_mm * px_per_mm - margin_px);
}

/* A card of which at most this share of its samples shows is a sliver:
 * the matcher accepts such a strip on its frame alone (match.c
 * sliver_shows), and analyze does not take it back as faded print when
 * its outline shows (outlined_sliver). */
#define VIS__SLIVER_SHOWS 0.12

/* One face's colours (VIS__NBINS floats, smoothed, sum 1). */
tp_status vis__face_histogram(const tp_image *face, float *hist, tp_error *err);
/* Spreads each bin of a VIS__NBINS histogram to its neighbours (lighting
 * and print tolerance), in place. */
void vis__smooth_histogram(float *h);
/* The colours of the table where no object lies (objs: table pixels, 3 mm
 * kept clear around each), smoothed, sum 1 (0 everywhere if none shows). */
void vis__background_histogram(const vis__table *t, const vis_rect *objs, int n,
                               float *hist);

/* ---- face matching (match.c) ---- */

enum { VIS__FACE_TYPE, VIS__FACE_CARPET, VIS__FACE_BACK };
/* The type indices of the five look-alike adventures (deck.c's
 * adventure-a..adventure-e). */
enum { VIS__ADVENTURE_FIRST = 1, VIS__ADVENTURE_LAST = 5 };

/* One deck face resampled at 1 sample per mm, upright, Lab floats. */
typedef struct {
  int kind;  /* VIS__FACE_* */
  int index; /* type (0..11) or carpet index */
  double w_mm, h_mm;
  int w, h;   /* samples across and along */
  float *lab; /* w*h*3 */
  /* A carpet face printed as a rug on a plain ground (the demo deck's):
   * the rug's inset from the short ends and from the long sides, in mm,
   * measured on the face image (match.c rug_insets); 0 when none shows. */
  double rug_end_mm, rug_side_mm;
} vis__template;

tp_status vis__template_build(const tp_image *face, double w_mm, double h_mm,
                              int kind, int index, vis__template *out,
                              tp_error *err);
void vis__template_free(vis__template *t);

enum { VIS__LIFT_CELLS_X = 3, VIS__LIFT_CELLS_Y = 4 }; /* vis__object.lift */

/* A card or carpet the matcher accepted, in acceptance order: what lies on
 * top is accepted first because all of it is visible. */
typedef struct {
  vis_rect r_px;
  int face;      /* template index */
  bool flipped;  /* face turned by 180 degrees relative to r_px's axis */
  int explained; /* samples the face explains */
  int valid;     /* samples not hidden by objects accepted before */
  int total;
  double score;  /* explained / valid */
  int second_face;     /* runner-up face of the same kind, -1 if none */
  int second_explained;
  int disc_samples;    /* samples where best and runner-up differ, -1: n/a */
  double disc_margin;  /* (best - runner-up) / disc_samples there */
  double gain[3], offset[3];
  /* a lamp's glare: the face's colours lifted toward white by lift[c] in
   * cell c of VIS__LIFT_CELLS_X x VIS__LIFT_CELLS_Y over the face (its
   * own axes, row by row), when lifted; set where the type was decided
   * under a glare (match.c settle_type) */
  bool lifted;
  float lift[VIS__LIFT_CELLS_X * VIS__LIFT_CELLS_Y];
  /* a card accepted under a hand (vis__occluded_card): the share of its
   * samples the hand and its shadow hide (0.1-0.6; 0: no hand), left out
   * when its type is settled */
  float hand_share;
} vis__object;

/* The matcher's lowest gain of a and b: light changes colour little.
 * Only a carpet's face refitted in dim light goes under it (match.c
 * dim_carpet: the fit of L at its own bounds, a lamp's glare or a dark
 * frame; kept when half the carpet or more shows, 0.9 of it is explained
 * and the photo's a and b follow the face's). */
#define VIS__CHROMA_MIN 0.8

/* The matcher's bounds of a face's light (photo = gain face + offset per
 * Lab channel): light changes brightness a lot, colour (a, b around 128)
 * little. */
#define VIS__L_GAIN_MIN 0.5
#define VIS__L_GAIN_MAX 1.8
#define VIS__L_OFFSET_MAX 60.0 /* L's offset within +-this (but a washed card's) */
#define VIS__CHROMA_MAX 1.25
#define VIS__TINT_MAX 14.0   /* a and b's offset: a tint within +-this about grey */
#define VIS__DIM_CHROMA 0.6  /* dim: a and b's lowest gain per unit of L's */

/* fmax and fmin without the libm call (the matcher's light fits: 1.9 M
 * calls, about 15 M instructions of a 1080p frame). For numbers (no NaN)
 * the same value as glibc's on x86-64, which are maxsd and minsd: the
 * larger (smaller) one, and of two equal ones (+0 and -0) b. */
static inline double vis__max_of(double a, double b) { return a > b ? a : b; }
static inline double vis__min_of(double a, double b) { return a < b ? a : b; }

/* The lowest gain of a and b a dimmed carpet's face may be fitted with,
 * for its gain of L gl (match.c dim_carpet). */
static inline double vis__chroma_floor(double gl) {
  return vis__min_of(VIS__CHROMA_MIN, VIS__DIM_CHROMA * gl);
}

/* A face's light by least squares per channel, within the bounds above,
 * from the sums over n samples (n >= 1) of the photo o, the face f, f*f
 * and o*f (sums[0..3][channel]). dim: a and b's gains may fall to
 * vis__chroma_floor of L's; l_offset_max: L's offset within +-this.
 * Inline: the matcher's hot path (fit_and_count) and the hand test's
 * light refit (evidence.c) share it, so their bounds cannot part. */
static inline void vis__light_fit(const double sums[4][3], double n, bool dim,
                                  double l_offset_max, double gain[3], double offset[3]) {
  const double *so = sums[0], *sf = sums[1], *sff = sums[2], *sof = sums[3];
  for (int c = 0; c < 3; c++) {
    double mf = sf[c] / n, mo = so[c] / n;
    double var = sff[c] / n - mf * mf, cov = sof[c] / n - mf * mo;
    double g = var > 4 ? cov / var : 1;
    double lo = c == 0 ? VIS__L_GAIN_MIN : dim ? vis__chroma_floor(gain[0]) : VIS__CHROMA_MIN;
    double hi = c == 0 ? VIS__L_GAIN_MAX : VIS__CHROMA_MAX;
    g = vis__min_of(hi, vis__max_of(lo, g)); /* g is a number: var > 4, or 1 */
    double off = mo - g * mf, base = c == 0 ? 0 : 128 * (1 - g);
    double lim = c == 0 ? l_offset_max : VIS__TINT_MAX;
    gain[c] = g;
    offset[c] = vis__min_of(base + lim, vis__max_of(base - lim, off));
  }
}

/* Under this many samples (on the matcher's grid) where a card's face and
 * its runner-up's differ, what shows cannot tell them apart. */
enum { VIS__TELL_MIN_SAMPLES = 15 };

/* How clearly card o's type beat the runner-up's: by the samples where
 * their faces differ, or (not compared there) by the samples explained. */
static inline double vis__type_margin(const vis__object *o) {
  if (o->disc_samples >= 0) return o->disc_margin;
  return o->explained ? (double)(o->explained - o->second_explained) / o->explained : 0;
}

/* Whether too little of card o's print shows where its face and its
 * runner-up's differ to tell them apart. */
static inline bool vis__type_tells_too_little(const vis__object *o) {
  return o->second_face >= 0 && o->disc_samples >= 0 && o->disc_samples < VIS__TELL_MIN_SAMPLES;
}

/* The matcher compares a runner-up with the winner where their faces
 * differ (disc_samples, disc_margin) only when it explains more than this
 * share of what the winner explains; under it the win was clear. */
#define VIS__DISC_RUNNER_SHARE 0.8

/* Whether card o's type won clearly in the matcher: its runner-up explained
 * VIS__DISC_RUNNER_SHARE of its samples or less, so the two were never
 * compared where they differ. The margin of what they explain is then no
 * measure of doubt: vis__type_margin's fallback tested against
 * type_min_margin (0.25) put a fully visible desert in doubt against a
 * camel bazaar that explained 962 of its 1270 (0.24; HUNT easy 3898). */
static inline bool vis__type_won_clearly(const vis__object *o) {
  return o->second_face >= 0 && o->disc_samples < 0 &&
         o->second_explained <= VIS__DISC_RUNNER_SHARE * o->explained;
}

/* Whether card o's type is in doubt against its runner-up (min_margin:
 * vis_settings.type_min_margin): too little tells, or it won narrowly. */
static inline bool vis__type_in_doubt(const vis__object *o, double min_margin) {
  if (o->second_face < 0) return false;
  return vis__type_tells_too_little(o) || vis__type_margin(o) < min_margin;
}

/* How large object o looks in the picture relative to its deck size (a
 * scale of the table mapping, 1: as the mapping says): the face's misfit
 * over its texels VIS__SCALE_EDGE_MM or more inside the outline (the
 * rounded corners and a shadow along the outline would shrink it), with
 * the texels spread by 1 + 0.3 % k, walking downhill from k = 0 (at most
 * 1.8 % either way), and a parabola through the lowest and its neighbours
 * (tuning easy 3000..3011 at 960x540: within 0.09 % sd of the mapping's
 * true scale error for cards and carpets nothing hides). Only for an
 * object nothing accepted reaches VIS__SCALE_EDGE_MM into. NaN when no
 * minimum lies inside or too little of it is in the table. */
#define VIS__SCALE_EDGE_MM 5
double vis__apparent_scale(const vis__table *t, const vis__template *tp, const vis__object *o);

typedef struct {
  double tau;        /* residual below which a sample is explained */
  double min_ratio;  /* explained / valid needed to accept */
  int min_explained; /* explained samples needed */
  int step;          /* sample every step-th mm while matching */
  int threads;       /* workers scoring hypotheses (1..16; 0 counts as 1);
                        the result is the same for any number */
  FILE *log;         /* debugging: every hypothesis's fate, or NULL */
  double type_min_margin; /* vis_settings.type_min_margin (vis__type_in_doubt) */
  /* A hypothesis whose card face shows no card frame is compared again
   * with the carpet faces only (the layout reference's matcher, where
   * every card is known and its own rectangle is a hypothesis), instead
   * of waiting as no card until more of it is hidden. */
  bool carpet_if_no_card;
  /* The checks made after matching (vis_analyze's colour and card frame
   * checks): sets phantom[i] for each of the n accepted objects (refined
   * poses) that is a face fitted where no card or carpet lies; true if
   * any is one. NULL: no check (the layout reference's matcher). */
  bool (*phantom_cards)(void *ctx, const vis__table *t, const vis__object *obj, int n,
                        bool *phantom);
  void *phantom_ctx;
  /* Whether a card face that shows a card only poorly (part of it
   * unexplained) may be accepted at r_px (table pixels) with the n objects
   * accepted so far (the layout reference's matcher: a card's patch
   * stands for layout cards, which lie near their places); false: the
   * hypothesis is taken as one whose face shows no card frame. NULL:
   * every one may be. */
  bool (*poor_card_allowed)(void *ctx, int face, const vis_rect *r_px, const vis__object *acc,
                            int n);
  void *poor_card_ctx;
} vis__match_params;

/* The matcher's first look (sampled and scored against every face, with
 * nothing accepted yet) at some hypotheses, taken ahead of vis__match: it
 * depends on the hypothesis alone, so it can be made while the rest of
 * the list is still being found (the layout reference: the outline
 * corners' while LSD runs). */
typedef struct vis__match_ahead vis__match_ahead;

/* Looks ahead at those of hyps[0..n_hyps) that vis__match would look at
 * (a template of their size, enough outline, not a near-duplicate of a
 * better outlined one among them), on `threads` workers. *out is NULL
 * when memory ran out (vis__match then looks at them itself). */
void vis__match_ahead_make(const vis__table *t, const vis__template *tpl, int n_tpl,
                           const vis_rect *hyps, int n_hyps, const vis__match_params *mp,
                           int threads, vis__match_ahead **out);
void vis__match_ahead_free(vis__match_ahead *a);

/* Chooses, greedily from the top of the pile down, the hypotheses that the
 * deck faces explain. *out malloc'd, in acceptance order. ahead: NULL, or
 * the first looks at some of the hypotheses, made with the same table,
 * templates and parameters (hyps[i] takes over the look at the rectangle
 * equal to it; the list of the looks must be in hyps' order). */
tp_status vis__match(const vis__table *t, const vis__template *tpl, int n_tpl,
                     const vis_rect *hyps, int n_hyps,
                     const vis__match_params *mp, vis__match_ahead *ahead,
                     vis__object **out, int *n_out, tp_error *err);

/* Residual of the object's face at table pixel (x, y); < 0 when outside. */
double vis__object_residual(const vis__table *t, const vis__template *tpl,
                            const vis__object *o, double x, double y);
/* The same for many pixels of one object: its face axes (a cosine and a
 * sine) made once (vis__face_place_of), the residuals bit for bit
 * vis__object_residual's. */
typedef struct {
  const vis__template *tp;
  const vis__object *o;
  double ax, ay, lx, ly;
} vis__face_place;
vis__face_place vis__face_place_of(const vis__table *t, const vis__template *tpl,
                                   const vis__object *o);
double vis__place_residual(const vis__table *t, const vis__face_place *p, double x, double y);
/* The face's texel Lab (before the object's gain and offset) and the
 * photo's Lab at table pixel (x, y); false off the face or the table. */
bool vis__place_pair(const vis__table *t, const vis__face_place *p, double x, double y,
                     float face[3], float photo[3]);
/* vis__place_residual's residual (< 0 outside the face), and in
 * *l_excess the pixel's lightness (Lab L) minus what the placed face
 * predicts there: negative in a shadow. One texel lookup for both. */
double vis__place_residual_excess(const vis__table *t, const vis__face_place *p, double x,
                                  double y, double *l_excess);


/* ---- the shadow at a contact (penumbra.c) ---- */

/* The mean lightness excess (pixel minus face, Lab L) in bands beside a
 * carpet's and a card's outlines: on_card 0.3-1.3 mm outside the carpet
 * on the card (the carpet's shadow: it lies on top), on_carpet 0.3-1.3 mm
 * outside the card on the carpet (the card's shadow: the card lies on
 * top); *_far the same 3-5 mm out; n_*: the pixels of each. */
typedef struct {
  int n_card, n_card_far, n_carpet, n_carpet_far;
  double on_card, on_card_far, on_carpet, on_carpet_far;
} vis__penumbra;
/* others: the frames of every other object; a pixel within 2 mm of one
 * is left out (it, or its shadow, lies there). */
vis__penumbra vis__penumbra_reading(const vis__table *t, double corner_mm,
                                    const vis__face_place *carpet, const vis__face_place *card,
                                    const vis__frame *others, int n_others);
/* The card's shadow falls on the carpet and the carpet's not on the card:
 * the card lies on top. */
bool vis__card_shadow_on_carpet(const vis__penumbra *p);

/* ---- who lies on top: the votes of an overlap's samples (votes.c) ---- */

/* What the samples of one overlap of a carpet with another object show,
 * each given to the object whose face explains it clearly best. */
typedef struct {
  int n;      /* samples looked at */
  int on_top; /* the carpet's face shows */
  int under;  /* the other's face shows */
  int hidden; /* a third object's face shows */
} vis__evidence;

/* The pixels decide when enough of them tell one story: at least this
 * many decided, three to one. */
enum { VIS__EVIDENCE_MIN_DECIDED = 8 };
bool vis__evidence_clear(int on_top, int under);
/* Whether a card's own overlap decides for itself (own: its deciding
 * evidence; own_mm: its millimetre samples, which sum_on and sum_under,
 * the carpet's pooled card overlaps, count). */
bool vis__decides_alone(const vis__evidence *own, const vis__evidence *own_mm, int sum_on,
                        int sum_under);

/* How a carpet's overlap with one of its cards is decided, and the votes
 * that decide it: its own (vis__decides_alone); the carpet's other cards
 * (the pool without it), when they overrule its clear own votes; the
 * whole pool, when its own votes are not clear; nothing (decided false)
 * when the pool is not clear either (on and under are the pool's then). */
typedef struct {
  bool own, overruled, decided;
  int on, under;
} vis__overlap_votes;
vis__overlap_votes vis__overlap_decision(const vis__evidence *own, const vis__evidence *own_mm,
                                         int sum_on, int sum_under);

/* ---- analyze.c's stages, shared with reference.c ---- */

/* The analyzer's settings, deck, deck-colour histogram and face templates
 * (types, carpets and carpet backs, VIS__FACE_*). */
const vis_settings *vis__analyzer_settings(const vis_analyzer *an);
const vis_deck *vis__analyzer_deck(const vis_analyzer *an);
const float *vis__analyzer_object_hist(const vis_analyzer *an);
const vis__template *vis__analyzer_templates(const vis_analyzer *an, int *n);
/* The rectified table of the map's area (rgb, lab, smooth; object
 * allocated but not filled), as vis_analyze makes it. */
tp_status vis__analyzer_rectify(const vis_analyzer *an, const tp_image *rgb,
                                const vis_table_map *map, vis__table *t,
                                tp_error *err);
void vis__table_free(vis__table *t);
/* The matcher's parameters for this analyzer: residual cut-off tau, and a
 * card's worth of samples times the settings' card_min_visible. */
vis__match_params vis__analyzer_match_params(const vis_analyzer *an,
                                             double tau);
/* Milliseconds on the monotonic clock, for vis_profile. */
double vis__now_ms(void);
/* Ends an analysis: total_ms since t0 and, when st is an error, an empty
 * result that still carries the stage times. Returns st. */
tp_status vis__finish_result(vis_result *res, double t0, tp_status st);

/* The k-th smallest of v[0..n) (k < n, counted from 0), as v[k] would be
 * after sorting v; v is reordered (reference.c: the change mask's medians). */
float vis__kth_smallest(float *v, size_t n, size_t k);

/* ---- card evidence (evidence.c) ---- */

/* The median of v[0..k) (k >= 1; the mean of the middle two for even k),
 * v sorted in place: the photo's light from its objects' gains of L
 * (match.c's photo colours, analyze.c's fade test). */
double vis__median(double *v, int k);

/* Rectangles ordered by their centre's x (geom.c): r inserted in its
 * place (left out when its x is not finite; by_x has room for one more),
 * and the index of the first whose x lies over x - reach (the run of
 * those within reach of x starts there). */
void vis__by_x_insert(vis_rect *by_x, int *n, const vis_rect *r);
int vis__by_x_first_within(const vis_rect *by_x, int n, double x, double reach);

/* How well an object's face explains a card where it lies alone (one
 * sample per mm, 1.5 mm inside the outline), whole, per cell of 3 x 4 and
 * on the 7 mm frame along the outline. */
typedef struct {
  int n;        /* samples looked at */
  double score; /* of those, the fraction the face explains */
  double worst; /* lowest explained fraction of a well-seen cell; 1 if none */
  int cells;    /* cells seen well enough to judge (a third of their samples) */
  int ring_n;   /* samples on the frame */
  double ring;  /* of those, the fraction the face explains; 1 if none */
  int good;     /* samples the face explains */
} vis__face_fit;

/* Samples are left out where one of `others` (grown by 1 mm) lies, or,
 * with a claim map (per table pixel: accepted object or -1), where an
 * object accepted before `self` lies. threads: workers counting bands of
 * the rows (the same counts for any number). */
void vis__face_fit_measure(const vis__table *t, const vis__template *tp, const vis__object *o,
                           const vis_rect *others, int n_others, const int16_t *claim,
                           int16_t self, int threads, vis__face_fit *ff);
/* A hand or an arm over a card: the cells of a 1 mm lattice around it
 * (hid[k * nx + i] == 2 at (gx0 + i step, gy0 + k step)) that no deck
 * face and not the table explains, reached from VIS__OCC_REACH_MM beyond
 * the card's outline. */
typedef struct {
  double gx0, gy0, step;
  int nx, ny;
  uint8_t *hid;
} vis__occluder;
#define VIS__OCC_REACH_MM 20.0
#define VIS__OCC_TABLE_SHARE 0.1
#define VIS__OCC_THIN_MM 2
#define VIS__OCC_SHADOW_MM 4
/* Finds it for object o's face (others, and what the claim map holds of
 * objects other than self: not the occluder; tau: the residual that
 * explains); returns how many cells inside
 * the card it hides (0 and nothing to free on failure). */
int vis__occluder_find(const vis__table *t, const vis__template *tp, const vis__object *o,
                       const vis_rect *others, int n_others, const int16_t *claim, int16_t self,
                       double tau, vis__occluder *oc);
bool vis__occluded(const vis__occluder *oc, double x, double y);
void vis__occluder_free(vis__occluder *oc);
/* A card under a hand: an occluder (vis__occluder_find) hides a tenth to
 * three fifths of its samples, and the rest shows a card clearly (its
 * face explains 0.9 of it and 0.93 of the frame, no poor cell) with its
 * outline where the occluder does not hide it (an edge at 0.75 of 100
 * side samples or more). of: the numbers, for the log. */
typedef struct {
  int hidden;          /* lattice cells inside the card the occluder hides */
  double share;        /* of the samples that show without it, those it hides */
  vis__face_fit fit;   /* on the rest */
  double edges, weakest;
  int seen, occluded;  /* side samples asked, and hidden by the occluder */
} vis__occluded_fit;
bool vis__occluded_card(const vis__table *t, const vis__template *tp, const vis__object *o,
                        const vis_rect *others, int n_others, const int16_t *claim, int16_t self,
                        int threads, vis__occluded_fit *of);
/* vis__face_fit_measure with the occluder's cells hidden too (occ NULL: none). */
void vis__face_fit_measure_occluded(const vis__table *t, const vis__template *tp,
                                    const vis__object *o, const vis_rect *others, int n_others,
                                    const int16_t *claim, int16_t self, const vis__occluder *occ,
                                    int threads, vis__face_fit *ff);
/* Part of the card is not what the face shows: a type missing from the
 * deck (or glare). Report it uncertain. */
bool vis__face_fit_poor(const vis__face_fit *ff);
/* No card frame and no card picture: a face fitted onto the table. */
bool vis__face_fit_no_card(const vis__face_fit *ff);
/* The same where the card's visible part shows the table's colours rather
 * than its face's (colour_share: analyze.c's colour support): a stricter
 * bar, as a face fitted onto a cloth of card colours explains more. */
bool vis__face_fit_no_card_on_table(const vis__face_fit *ff, double colour_share);
/* Where it shows the table's colours, a frame short of that bar and part
 * of the card that no face explains (vis__face_fit_poor): for a face
 * faded to the fit's bound, no card (analyze.c's faded_phantom). */
bool vis__face_fit_poor_on_table(const vis__face_fit *ff, double colour_share);

/* A real card's outline shows: where its sides are not hidden, the colour
 * changes across them. A face fitted onto bare table (a tan bazaar on
 * wood) has no such outline. Fraction of the visible side samples with an
 * edge; *seen how many were visible; *weakest the lowest fraction of a
 * side of which at least 8 samples are visible (1 if none): a phantom
 * fitted to a plank's line and a plank's end lacks the other two sides.
 * A side sample is hidden where a claim map (NULL: none) holds any
 * object, or inside one of `others`. */
double vis__outline_edges(const vis__table *t, const vis_rect *r, const vis_rect *others,
                          int n_others, const int16_t *claim, int *seen, double *weakest);
/* vis__outline_edges of a carpet: always 1.5 mm either side of its sides,
 * where a card's is asked wider in a coarse photo (evidence.c,
 * outline_offset_mm: a printed cloth's cells are card-sized, and their
 * lines passed for a carpet's outline). */
double vis__carpet_outline_edges(const vis__table *t, const vis_rect *r, const vis_rect *others,
                                 int n_others, const int16_t *claim, int *seen,
                                 double *weakest);
/* vis__outline_edges, where a side sample that a thing no deck face
 * explains hides (face: the card's placed face, tau: its residual
 * cut-off; the inner pixel unexplained by it and no colour change across
 * the side) counts as hidden too, in *occluded (face NULL: none). */
double vis__outline_edges_unoccluded(const vis__table *t, const vis_rect *r,
                                     const vis_rect *others, int n_others, const int16_t *claim,
                                     const vis__face_place *face, double tau, int *seen,
                                     double *weakest, int *occluded);
/* The outline shows all round: an edge at VIS__OUTLINED_EDGES of at least
 * VIS__OUTLINED_SEEN visible side samples (analyze.c's faded cards,
 * match.c's faded card where a phantom was taken back). */
#define VIS__OUTLINED_EDGES 0.95
#define VIS__OUTLINED_SEEN 100
/* A sliver's cut edge shows along its strip: an edge at
 * VIS__OUTLINED_EDGES of at least this many side samples where nothing
 * else lies (match.c sliver_edge_shows before a sliver is accepted,
 * analyze.c outlined_sliver before one is kept; tuning normal 3087 and
 * hard 3022: real slivers 32-46 samples). */
#define VIS__SLIVER_EDGE_SEEN 20
bool vis__outlined_all_round(const vis__table *t, const vis_rect *r, const vis_rect *others,
                             int n_others, const int16_t *claim);

/* ---- worker threads (parallel.c) ---- */

enum { VIS__MAX_THREADS = 16 }; /* as vis_settings.threads */

/* fn(ctx, worker, item) for every item 0..n-1, on up to `threads` workers
 * (worker 0 is the calling thread; worker < threads, for per-worker
 * scratch). Items must be independent: each writes only its own results. */
typedef void (*vis__item_fn)(void *ctx, int worker, int item);
void vis__parallel_for(int threads, int n, vis__item_fn fn, void *ctx);

/* ---- 3x3 helpers (mat3.c) ---- */
void vis__mat3_mul(const double a[9], const double b[9], double out[9]);
bool vis__mat3_inv(const double m[9], double out[9]);
vis_pt vis__apply_h(const double h[9], double x, double y);

#endif
