/* fit: rectangle hypotheses of known size from the object mask.
 *
 * The cards and carpets on the table form blobs in the object mask; their
 * outlines (polygons) are made of straight pieces of real card edges. Every
 * pair of perpendicular outline edges meets in a corner; with the known
 * card size, a corner and its two directions give the whole rectangle, even
 * when a corner and an edge are all that shows of a card. Hypotheses whose
 * inside is not (almost) all object are dropped; deciding which of the
 * rest are real is the face matcher's job (match.c). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cvw.h"
#include "vision_internal.h"

enum { OUTSIDE = 255 };

static bool object_at(const vis__table *t, double x, double y) {
  int ix = vis__round(x), iy = vis__round(y);
  if (ix < 0 || iy < 0 || ix >= t->object.width || iy >= t->object.height)
    return false;
  return tp_image_row(&t->object, iy)[ix] != 0;
}

/* The sample grid of vis__object_fraction: every 3 px, 3 px inside. */
#define FRACTION_STEP 3.0
#define FRACTION_MARGIN 3.0

double vis__object_fraction(const vis__table *t, const vis_rect *r) {
  double a = r->angle_deg * VIS_PI / 180.0;
  double ux = cos(a), uy = sin(a), vx = -uy, vy = ux;
  int hit = 0, all = 0;
  const double step = FRACTION_STEP, m = FRACTION_MARGIN; /* off the blurred border */
  for (double p = -r->h / 2 + m; p <= r->h / 2 - m; p += step)
    for (double q = -r->w / 2 + m; q <= r->w / 2 - m; q += step) {
      all++;
      hit += object_at(t, r->center.x + p * ux + q * vx,
                       r->center.y + p * uy + q * vy);
    }
  return all ? (double)hit / all : 0;
}

/* vis__object_fraction(t, r) > min, on the same samples, stopping as soon
 * as the answer is certain (the hits so far already pass, or the samples
 * left cannot make them pass). */
bool vis__object_fraction_above(const vis__table *t, const vis_rect *r, double min) {
  double a = r->angle_deg * VIS_PI / 180.0;
  double ux = cos(a), uy = sin(a), vx = -uy, vy = ux;
  const double step = FRACTION_STEP, m = FRACTION_MARGIN;
  int rows = 0, cols = 0; /* the loops' counts, as vis__object_fraction runs them */
  for (double p = -r->h / 2 + m; p <= r->h / 2 - m; p += step) rows++;
  for (double q = -r->w / 2 + m; q <= r->w / 2 - m; q += step) cols++;
  int all = rows * cols, hit = 0, left = all;
  if (!all) return 0 > min;
  /* need: the fewest hits with (double)hits / all > min, as the fraction
   * is compared (hits only grow: the comparison is monotone in them) */
  int need = (int)fmax(0, fmin(all + 1, floor(min * all)));
  while (need <= all && !((double)need / all > min)) need++;
  while (need > 0 && (double)(need - 1) / all > min) need--;
  for (double p = -r->h / 2 + m; p <= r->h / 2 - m; p += step)
    for (double q = -r->w / 2 + m; q <= r->w / 2 - m; q += step) {
      left--;
      hit += object_at(t, r->center.x + p * ux + q * vx,
                       r->center.y + p * uy + q * vy);
      if (hit >= need) return true;
      if (hit + left < need) return false;
    }
  return hit >= need;
}

typedef struct {
  double ax, ay, bx, by; /* end points */
  double len, angle;     /* angle in radians */
} seg;

/* Builds the rectangle with corner p whose sides run along d1 (length l1)
 * and d2 (length l2), d1 and d2 unit and perpendicular. */
static vis_rect rect_from_corner(double px, double py, double d1x, double d1y,
                                 double l1, double d2x, double d2y, double l2) {
  vis_rect r;
  r.center.x = px + d1x * l1 / 2 + d2x * l2 / 2;
  r.center.y = py + d1y * l1 / 2 + d2y * l2 / 2;
  bool first_long = l1 >= l2;
  r.h = first_long ? l1 : l2;
  r.w = first_long ? l2 : l1;
  double ang = first_long ? atan2(d1y, d1x) : atan2(d2y, d2x);
  r.angle_deg = vis_normalize_angle180(ang * 180.0 / VIS_PI);
  return r;
}

/* Extent of segment s along unit direction d from p: both ends must lie
 * within [-tol, len + tol]. */
static bool seg_fits(const seg *s, double px, double py, double dx, double dy,
                     double len, double tol) {
  double e1 = (s->ax - px) * dx + (s->ay - py) * dy;
  double e2 = (s->bx - px) * dx + (s->by - py) * dy;
  return fmin(e1, e2) >= -tol && fmax(e1, e2) <= len + tol;
}

/* by_x (the hypotheses' list only, with `indexed`): its rectangles
 * again, those whose centre's x is a finite number, ordered by that x
 * (is_duplicate). */
typedef struct {
  vis_rect *v;
  int n, cap;
  bool indexed;
  vis_rect *by_x;
  int n_by_x;
} rect_list;

static void push_rect(rect_list *l, const vis_rect *r) {
  if (l->n == l->cap) {
    int cap = l->cap ? l->cap * 2 : 64;
    vis_rect *v = realloc(l->v, sizeof *v * (size_t)cap);
    if (!v) return; /* keep what we have */
    l->v = v;
    if (l->indexed) {
      vis_rect *b = realloc(l->by_x, sizeof *b * (size_t)cap);
      if (!b) { /* out of memory: is_duplicate asks them all */
        free(l->by_x);
        l->indexed = false;
      }
      l->by_x = l->indexed ? b : NULL;
    }
    l->cap = cap;
  }
  l->v[l->n++] = *r;
  if (l->indexed) vis__by_x_insert(l->by_x, &l->n_by_x, r);
}

/* q is a duplicate of r: same size (within half a pixel), centre within
 * 3 px and angle within 3 degrees. The centre's two distances along the
 * axes are asked first: most kept rectangles lie far off, and hypot is
 * never below either (so the answers are those of the distance alone). */
static bool duplicate_of(const vis_rect *q, const vis_rect *r) {
  double dx = q->center.x - r->center.x, dy = q->center.y - r->center.y;
  if (!(fabs(dx) < 3 && fabs(dy) < 3)) return false;
  double da = fabs(q->angle_deg - r->angle_deg);
  if (da > 90) da = 180 - da;
  return fabs(q->h - r->h) < 0.5 && fabs(q->w - r->w) < 0.5 && da < 3 && hypot(dx, dy) < 3;
}

/* r is a duplicate of one of l's (duplicate_of). With l's index, only
 * those whose x lies within 3 px of r's are asked: q.x - r.x, rounded,
 * never falls as q.x grows, so they are a run of by_x, found by
 * bisection, and the others fail duplicate_of's first test; a centre
 * whose x is not finite is nobody's duplicate (fabs(dx) < 3 fails),
 * so by_x leaves them out. The same answer as asking every one in
 * turn (the hypotheses' list, 1737 asks of up to 1281 rectangles per
 * 1080p frame of scripts/callgrind-bench). */
static bool is_duplicate(const rect_list *l, const vis_rect *r) {
  if (!l->indexed) {
    for (int i = 0; i < l->n; i++)
      if (duplicate_of(&l->v[i], r)) return true;
    return false;
  }
  if (!isfinite(r->center.x)) return false;
  for (int k = vis__by_x_first_within(l->by_x, l->n_by_x, r->center.x, 3); k < l->n_by_x && l->by_x[k].center.x - r->center.x < 3; k++)
    if (duplicate_of(&l->by_x[k], r)) return true;
  return false;
}

/* The rectangles of size w x h (up to two: either side along si) with
 * their corner where one perpendicular pair of segments meets, into r;
 * returns how many. */
static int corner_rects(const seg *si, const seg *sj, double w, double h, vis_rect r[2]) {
  double tix = cos(si->angle), tiy = sin(si->angle);
  double tjx = cos(sj->angle), tjy = sin(sj->angle);
  double den = tix * tjy - tiy * tjx;
  if (fabs(den) < 0.9) return 0; /* not perpendicular enough (> ~25 deg off) */
  /* intersection of the two lines */
  double dx = sj->ax - si->ax, dy = sj->ay - si->ay;
  double s = (dx * tjy - dy * tjx) / den;
  double px = si->ax + s * tix, py = si->ay + s * tiy;
  /* directions from the corner toward each segment */
  double mix = (si->ax + si->bx) / 2 - px, miy = (si->ay + si->by) / 2 - py;
  double mjx = (sj->ax + sj->bx) / 2 - px, mjy = (sj->ay + sj->by) / 2 - py;
  if (mix * tix + miy * tiy < 0) tix = -tix, tiy = -tiy;
  if (mjx * tjx + mjy * tjy < 0) tjx = -tjx, tjy = -tjy;
  /* make them exactly perpendicular, weighting by segment length */
  double ai = atan2(tiy, tix), aj = atan2(tjy, tjx);
  double cross = tix * tjy - tiy * tjx; /* +1: j is i turned by +90 */
  double aj_as_i = aj - (cross > 0 ? 1 : -1) * VIS_PI / 2;
  double diff = remainder(aj_as_i - ai, 2 * VIS_PI);
  double a = ai + diff * sj->len / (si->len + sj->len);
  double d1x = cos(a), d1y = sin(a);
  double sign = cross > 0 ? 1 : -1;
  double d2x = -sign * d1y, d2y = sign * d1x;
  /* the corner moves a little with the averaged angle; fine at this size */
  int n = 0;
  for (int k = 0; k < 2; k++) {
    double l1 = k ? h : w, l2 = k ? w : h;
    double tol = 0.05 * fmax(l1, l2) + 3;
    if (!seg_fits(si, px, py, d1x, d1y, l1, tol) ||
        !seg_fits(sj, px, py, d2x, d2y, l2, tol))
      continue;
    r[n++] = rect_from_corner(px, py, d1x, d1y, l1, d2x, d2y, l2);
  }
  return n;
}

/* Hypotheses from one perpendicular pair of outline segments. */
static void corner_hypotheses(const vis__table *t, const seg *si,
                              const seg *sj, double w, double h,
                              double min_object, rect_list *out) {
  vis_rect r[2];
  int n = corner_rects(si, sj, w, h, r);
  for (int k = 0; k < n; k++)
    if (!is_duplicate(out, &r[k]) && vis__object_fraction_above(t, &r[k], min_object))
      push_rect(out, &r[k]);
}

/* Outline segments long enough to carry a direction. */
static seg *outline_segments(const double *pts, const int *counts, int n_poly,
                             int poly, int *n_seg, double min_len) {
  int off = 0;
  for (int i = 0; i < poly; i++) off += counts[i];
  int n = counts[poly];
  seg *s = malloc(sizeof *s * (size_t)n);
  *n_seg = 0;
  if (!s) return NULL;
  for (int i = 0; i < n; i++) {
    const double *a = pts + 2 * (off + i), *b = pts + 2 * (off + (i + 1) % n);
    seg g = {a[0], a[1], b[0], b[1], hypot(b[0] - a[0], b[1] - a[1]), 0};
    if (g.len < min_len) continue;
    g.angle = atan2(b[1] - a[1], b[0] - a[0]);
    s[(*n_seg)++] = g;
  }
  (void)n_poly;
  return s;
}

static double end_gap(const seg *a, const seg *b) {
  double d1 = hypot(a->ax - b->ax, a->ay - b->ay), d2 = hypot(a->ax - b->bx, a->ay - b->by);
  double d3 = hypot(a->bx - b->ax, a->by - b->ay), d4 = hypot(a->bx - b->bx, a->by - b->by);
  return fmin(fmin(d1, d2), fmin(d3, d4));
}

/* end_gap(a, b) > max, decided without the four hypot calls (about 30 M
 * instructions of LSD's pairs in a 960x540 flight frame, in the calling
 * thread) where the squared distances leave no doubt: each lies above
 * max^2 by far more (1e-9) than the rounding of x*x + y*y (a few ulps)
 * and hypot's (under one ulp) could move it. Any other pair (near the
 * bound, or NaN) is measured with end_gap, so the answer is end_gap's. */
static bool end_gap_above(const seg *a, const seg *b, double max) {
  const double ends[4][2] = {{a->ax - b->ax, a->ay - b->ay}, {a->ax - b->bx, a->ay - b->by},
                             {a->bx - b->ax, a->by - b->ay}, {a->bx - b->bx, a->by - b->by}};
  const double clear = max * max * (1 + 1e-9);
  for (int k = 0; k < 4; k++)
    if (!(ends[k][0] * ends[k][0] + ends[k][1] * ends[k][1] > clear))
      return end_gap(a, b) > max;
  return true;
}

/* Corners where two straight image edges (LSD) meet at a right angle:
 * they find cards whose colours blend into the table (a tan bazaar on
 * wood), where the object mask has no clean outline, and often hardly any
 * object inside: a few percent of mask is enough. */
#define EDGE_MIN_OBJECT VIS__EDGE_MIN_OBJECT

/* LSD's segments inside roi, in table pixels: only where the objects are,
 * with a card's length around them (LSD costs by the pixel; a card that
 * blends into the table lies near the others). It reads only the table's
 * RGB image, so it may run beside the outline corners (lsd_job). */
typedef struct {
  const vis__table *t;
  double min_w;
  int roi[4];
  float *raw; /* malloc'd, 4 per segment; NULL if none */
  int n;
} lsd_job;

static void *lsd_segments(void *arg) {
  lsd_job *j = arg;
  const vis__table *t = j->t;
  const int *roi = j->roi;
  j->raw = NULL;
  j->n = 0;
  tp_image view = t->rgb;
  view.data = tp_image_row(&t->rgb, roi[1]) + 3 * roi[0];
  view.width = roi[2] - roi[0];
  view.height = roi[3] - roi[1];
  if (view.width < 16 || view.height < 16 ||
      cvw_line_segments(&view, fmax(8, 0.12 * j->min_w), &j->raw, &j->n, NULL)) {
    free(j->raw);
    j->raw = NULL;
    j->n = 0;
    return NULL;
  }
  for (int i = 0; i < j->n; i++)
    for (int k = 0; k < 4; k += 2)
      j->raw[4 * i + k] += (float)roi[0], j->raw[4 * i + k + 1] += (float)roi[1];
  return NULL;
}

/* The object test of every corner rectangle of LSD's pairs, one item
 * each (parallel.c): vis__object_fraction_above only reads the mask. */
typedef struct {
  const vis__table *t;
  const vis_rect *rect;
  bool *passes;
} edge_test_job;

static void edge_test_item(void *ctx, int worker, int item) {
  (void)worker;
  const edge_test_job *j = ctx;
  j->passes[item] = vis__object_fraction_above(j->t, &j->rect[item], EDGE_MIN_OBJECT);
}

/* Share of the side from (ax, ay) along unit (dx, dy), len px long, that
 * the segments s[0..n-1] run along: both their ends within `near` px of
 * the side's line, their overlaps joined. */
static double side_cover(const seg *s, int n, double ax, double ay, double dx, double dy,
                         double len, double near) {
  double lo[64], hi[64];
  int k = 0;
  for (int i = 0; i < n && k < 64; i++) {
    double d0 = (s[i].ax - ax) * -dy + (s[i].ay - ay) * dx;
    double d1 = (s[i].bx - ax) * -dy + (s[i].by - ay) * dx;
    if (fabs(d0) > near || fabs(d1) > near) continue;
    double t0 = (s[i].ax - ax) * dx + (s[i].ay - ay) * dy;
    double t1 = (s[i].bx - ax) * dx + (s[i].by - ay) * dy;
    double a = fmax(fmin(t0, t1), 0), b = fmin(fmax(t0, t1), len);
    if (b > a) lo[k] = a, hi[k++] = b;
  }
  /* join: the covered length (insertion sort by start, k small) */
  for (int i = 1; i < k; i++)
    for (int j = i; j > 0 && lo[j] < lo[j - 1]; j--) {
      double tl = lo[j], th = hi[j];
      lo[j] = lo[j - 1], hi[j] = hi[j - 1], lo[j - 1] = tl, hi[j - 1] = th;
    }
  double covered = 0, end = 0;
  for (int i = 0; i < k; i++) {
    double a = fmax(lo[i], end);
    if (hi[i] > a) covered += hi[i] - a, end = hi[i];
  }
  return len > 0 ? covered / len : 0;
}

/* A rectangle all four of whose sides are straight image edges (each
 * OUTLINED_SIDE of it along LSD segments) is a card in full view even
 * where the object mask holds next to nothing of it: a camel bazaar's
 * cream face on cream cloth or tan wood (hard 3003 3123 3150: fully
 * visible, 0.5-1.5 % object mask, so no hypothesis at all, while each of
 * their four sides lay 84-96 % along one or two LSD segments). */
#define OUTLINED_SIDE 0.5
static bool outlined(const vis__table *t, const seg *s, int n, const vis_rect *r) {
  double a = r->angle_deg * VIS_PI / 180.0;
  double ux = cos(a), uy = sin(a), vx = -uy, vy = ux;
  double near = 1.5 * t->px_per_mm;
  for (int side = 0; side < 4; side++) {
    double sg = side & 1 ? 1 : -1;
    bool along = side < 2; /* the long sides run along u */
    double off = along ? r->w / 2 : r->h / 2, len = along ? r->h : r->w;
    double nx = along ? vx : ux, ny = along ? vy : uy, dx = along ? ux : vx, dy = along ? uy : vy;
    double ax = r->center.x + sg * off * nx - dx * len / 2;
    double ay = r->center.y + sg * off * ny - dy * len / 2;
    if (side_cover(s, n, ax, ay, dx, dy, len, near) < OUTLINED_SIDE) return false;
  }
  return true;
}

/* The hypotheses of every perpendicular pair of LSD segments raw[0..n-1]
 * of which the second is raw[from] or later (from 0: every pair). The
 * pairs' corner rectangles are listed first, in the order of the pairs;
 * with more than one worker their object tests run on the workers (27 M
 * instructions of a 960x540 flight frame, in the calling thread before),
 * and the list is then taken in order as one pair at a time would: a
 * rectangle is kept when it is no duplicate of one kept before it and it
 * passed its test. The tests of rectangles found duplicates are wasted
 * (with one worker none is made: each is tested when it is no duplicate,
 * as before), and the hypotheses are the same. */
static void edge_hypotheses(const vis__table *t, const double (*sizes)[2], int n_sizes,
                            const float *raw, int n, int from, rect_list *out) {
  seg *s = malloc(sizeof *s * (size_t)(n + 1));
  if (!s) return;
  for (int i = 0; i < n; i++) {
    const float *r = raw + 4 * i;
    s[i] = (seg){r[0], r[1], r[2], r[3], hypot(r[2] - r[0], r[3] - r[1]),
                 atan2(r[3] - r[1], r[2] - r[0])};
  }
  const double gap = 3 * t->px_per_mm; /* corners are rounded: ends stop short */
  rect_list cand = {0};
  for (int i = 0; i < n; i++)
    for (int j = i + 1 > from ? i + 1 : from; j < n; j++) {
      if (end_gap_above(&s[i], &s[j], 2 * gap)) continue;
      if (fabs(cos(s[i].angle - s[j].angle)) > 0.12) continue;
      for (int k = 0; k < n_sizes; k++) {
        vis_rect r[2];
        int n_r = corner_rects(&s[i], &s[j], sizes[k][0], sizes[k][1], r);
        for (int c = 0; c < n_r; c++) push_rect(&cand, &r[c]);
      }
    }
  bool *passes = t->threads > 1 ? malloc(sizeof *passes * ((size_t)cand.n + 1)) : NULL;
  if (passes) {
    edge_test_job job = {t, cand.v, passes};
    vis__parallel_for(t->threads, cand.n, edge_test_item, &job);
  }
  for (int c = 0; c < cand.n; c++)
    if (!is_duplicate(out, &cand.v[c]) &&
        ((passes ? passes[c] : vis__object_fraction_above(t, &cand.v[c], EDGE_MIN_OBJECT)) ||
         outlined(t, s, n, &cand.v[c])))
      push_rect(out, &cand.v[c]);
  free(s);
  free(passes);
  free(cand.v);
}

/* The box (x0, y0, x1, y1 table px) around the outlines of at least
 * `share` of a card's area and the known places (if any outline is), grown
 * by the longest side; `whole` (the whole table) when there are none. The
 * places (the watch's layout cards) count because a card and the carpet
 * on it can both be missing from the mask where the cloth has their
 * colours: rendered hard game 2:831 at 1920x1080, frame 86, a desert on
 * beige cloth with a blue grid under a blue carpet, and a box around the
 * three cards left elsewhere; LSD never looked there (from scratch, LSD
 * over the whole table finds the carpet). */
static void objects_box(const vis__table *t, const double *pts, const int *counts,
                        int n_poly, const vis_rect *places, int n_places,
                        const double (*sizes)[2], int n_sizes, double share,
                        const int whole[4], int roi[4]) {
  double min_area = sizes[0][0] * sizes[0][1], grow = 0;
  for (int k = 0; k < n_sizes; k++) {
    min_area = fmin(min_area, sizes[k][0] * sizes[k][1]);
    grow = fmax(grow, sizes[k][1]);
  }
  double x0 = 1e9, y0 = 1e9, x1 = -1e9, y1 = -1e9;
  for (int p = 0, off = 0; p < n_poly; off += counts[p++]) {
    double area = 0;
    for (int i = 0; i < counts[p]; i++) {
      const double *a = pts + 2 * (off + i), *b = pts + 2 * (off + (i + 1) % counts[p]);
      area += a[0] * b[1] - b[0] * a[1];
    }
    if (fabs(area) / 2 < share * min_area) continue;
    for (int i = 0; i < counts[p]; i++) {
      const double *a = pts + 2 * (off + i);
      x0 = fmin(x0, a[0]), y0 = fmin(y0, a[1]), x1 = fmax(x1, a[0]), y1 = fmax(y1, a[1]);
    }
  }
  if (x1 < x0) {
    memcpy(roi, whole, 4 * sizeof *roi);
    return;
  }
  for (int i = 0; i < n_places; i++) {
    vis_pt c[4];
    vis_rect_corners(&places[i], c);
    for (int k = 0; k < 4; k++)
      x0 = fmin(x0, c[k].x), y0 = fmin(y0, c[k].y), x1 = fmax(x1, c[k].x), y1 = fmax(y1, c[k].y);
  }
  roi[0] = (int)fmax(0, floor(x0 - grow));
  roi[1] = (int)fmax(0, floor(y0 - grow));
  roi[2] = (int)fmin(t->rgb.width, ceil(x1 + grow));
  roi[3] = (int)fmin(t->rgb.height, ceil(y1 + grow));
}

/* The outlines that make the box: at least a tenth of a card. Smaller
 * pieces, down to BOX_PIECE_SHARE of one, widen only the outer band
 * (lsd_all_prepare): on a patterned cloth whose colours are the cards'
 * own (cream with a red grid) a card's mask breaks into pieces of 2-9 %
 * of its area; the box held only the one solid card, LSD looked nowhere
 * else and 5 of 7 cards in full view were missed (hard DEV game 4:697,
 * frame 48). The mask's noise and a marker's quiet zone stay near 1 %. */
#define BOX_SHARE 0.1
#define BOX_PIECE_SHARE 0.02

/* The band's width: half the longest side. A card cut by the box lies
 * mostly inside it when it lies near the layout at all. */
#define BAND_SHARE 0.5
static int band_px(const double (*sizes)[2], int n_sizes) {
  double longest = 0;
  for (int k = 0; k < n_sizes; k++) longest = fmax(longest, sizes[k][1]);
  return (int)ceil(BAND_SHARE * longest);
}

/* LSD's segments in the band of width `band` px around the box (the
 * table outside it, as four rectangles). A tan card on wood or cloth is
 * hardly in the object mask: where it lies at the edge of the layout, the
 * box around the mask's objects cuts through it (tuning normal 3040: a
 * column of three bazaars, none found). The box's own segments are kept
 * as they are (LSD's validation depends on the image's size: a larger box
 * would change its segments elsewhere). The box and the band's parts are
 * five independent LSD runs, one item each for the workers (parallel.c),
 * joined in that order: the box's segments, then each part's. The outer
 * band (the box of the mask's smaller pieces, BOX_PIECE_SHARE, outside
 * the band; empty where they lie inside it) adds four more parts after
 * them, so that the box's and the band's segments stay as they were. */
enum { LSD_PARTS = 9 };
typedef struct {
  lsd_job part[LSD_PARTS]; /* the box, the band's four rectangles, the outer band's */
  int threads;
  float *raw; /* joined, 4 per segment */
  int n, n_box; /* n_box: where the band's segments begin */
} lsd_all_job;

/* The four rectangles of outer (x0, y0, x1, y1) around inner, which it
 * contains, into parts[0..3]. */
static void ring_parts(const int outer[4], const int inner[4], int (*parts)[4]) {
  const int p[4][4] = {{outer[0], outer[1], outer[2], inner[1]},
                       {outer[0], inner[3], outer[2], outer[3]},
                       {outer[0], inner[1], inner[0], inner[3]},
                       {inner[2], inner[1], outer[2], inner[3]}};
  memcpy(parts, p, sizeof p);
}

static void lsd_all_prepare(const vis__table *t, double min_w, const int box[4],
                            const int pieces[4], int band, int threads, lsd_all_job *j) {
  const int banded[4] = {box[0] - band < 0 ? 0 : box[0] - band,
                         box[1] - band < 0 ? 0 : box[1] - band,
                         box[2] + band > t->rgb.width ? t->rgb.width : box[2] + band,
                         box[3] + band > t->rgb.height ? t->rgb.height : box[3] + band};
  const int outer[4] = {pieces[0] < banded[0] ? pieces[0] : banded[0],
                        pieces[1] < banded[1] ? pieces[1] : banded[1],
                        pieces[2] > banded[2] ? pieces[2] : banded[2],
                        pieces[3] > banded[3] ? pieces[3] : banded[3]};
  int parts[LSD_PARTS][4] = {{box[0], box[1], box[2], box[3]}};
  ring_parts(banded, box, parts + 1);
  ring_parts(outer, banded, parts + 5);
  memset(j, 0, sizeof *j);
  j->threads = threads;
  for (int k = 0; k < LSD_PARTS; k++)
    j->part[k] = (lsd_job){t, min_w, {parts[k][0], parts[k][1], parts[k][2], parts[k][3]}, NULL, 0};
}

static void lsd_part_item(void *ctx, int worker, int item) {
  (void)worker;
  lsd_all_job *j = ctx;
  lsd_segments(&j->part[item]);
}

static void *lsd_all(void *arg) {
  lsd_all_job *j = arg;
  vis__parallel_for(j->threads, LSD_PARTS, lsd_part_item, j);
  j->raw = j->part[0].raw;
  j->n = j->n_box = j->part[0].n;
  for (int k = 1; k < LSD_PARTS; k++) {
    lsd_job *part = &j->part[k];
    float *grown = part->n ? realloc(j->raw, sizeof *j->raw * 4 * (size_t)(j->n + part->n)) : NULL;
    if (grown) {
      memcpy(grown + 4 * j->n, part->raw, sizeof *grown * 4 * (size_t)part->n);
      j->raw = grown;
      j->n += part->n;
    }
    free(part->raw);
  }
  return NULL;
}

/* The workers the outline hook may use while LSD runs beside it: all but
 * the one of LSD's box run (the detection's longest piece, about 0.36 G
 * instructions of a 960x540 flight frame, one OpenCV call); the band's
 * four runs share the others with it for a while (the layout reference's
 * hook, the outline corners' shares and the matcher's first looks, is
 * about twice the box run's work on one worker). With one worker, LSD
 * runs after it, on this thread. */
static int hook_workers(int threads, bool beside) {
  return beside ? threads - 1 : 1;
}

tp_status vis__hypotheses(const vis__table *t, const double (*sizes)[2], int n_sizes,
                          const vis_rect *places, int n_places,
                          const vis__outline_hook *hook, vis_rect **out, int *n_out,
                          tp_error *err) {
  *out = NULL;
  *n_out = 0;
  double *pts = NULL;
  int *counts = NULL, n_poly = 0;
  double min_w = sizes[0][0];
  for (int k = 1; k < n_sizes; k++) min_w = fmin(min_w, sizes[k][0]);
  tp_status st = cvw_mask_outlines(&t->object, 1.5, 0.01 * min_w * min_w,
                                   &pts, &counts, &n_poly, err);
  if (st) return st;
  /* LSD (a third of the detection) on the other workers while this one
   * makes the outlines' corners; the hypotheses are listed in the same
   * order either way (outline corners first), so the result is the same */
  const int whole[4] = {0, 0, t->rgb.width, t->rgb.height};
  int box[4], pieces[4];
  objects_box(t, pts, counts, n_poly, places, n_places, sizes, n_sizes, BOX_SHARE, whole, box);
  objects_box(t, pts, counts, n_poly, places, n_places, sizes, n_sizes, BOX_PIECE_SHARE, box,
              pieces);
  lsd_all_job lsd;
  lsd_all_prepare(t, min_w, box, pieces, band_px(sizes, n_sizes), t->threads - 1, &lsd);
  pthread_t tid;
  bool beside = t->threads > 1 && pthread_create(&tid, NULL, lsd_all, &lsd) == 0;
  rect_list hyps = {.indexed = true};
  for (int p = 0; p < n_poly; p++) {
    int ns;
    seg *s = outline_segments(pts, counts, n_poly, p, &ns, fmax(6, 0.1 * min_w));
    for (int i = 0; s && i < ns; i++)
      for (int j = i + 1; j < ns; j++)
        for (int k = 0; k < n_sizes; k++)
          corner_hypotheses(t, &s[i], &s[j], sizes[k][0], sizes[k][1], 0.15, &hyps);
    free(s);
  }
  free(pts);
  free(counts);
  if (hook) hook->fn(hook->ctx, hyps.v, hyps.n, hook_workers(t->threads, beside));
  if (beside)
    pthread_join(tid, NULL);
  else
    lsd_all(&lsd);
  edge_hypotheses(t, sizes, n_sizes, lsd.raw, lsd.n_box, 0, &hyps);
  edge_hypotheses(t, sizes, n_sizes, lsd.raw, lsd.n, lsd.n_box, &hyps);
  free(lsd.raw);
  free(hyps.by_x);
  *out = hyps.v;
  *n_out = hyps.n;
  return TP_OK;
}
