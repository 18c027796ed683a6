/* teppich enroll: learns a real deck from the camera or from photos.
 * One card (or a grid of cards) lies on the table with the markers in
 * view: it is found against the table surface, cut out square to its
 * edges, checked (sharp, lit, whole) and written into a deck folder of
 * spec section 2, with deck.json sizes measured on the table. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "capture.h"
#include "cli.h"
#include "cvw.h"
#include "watch.h"

static const char usage[] =
    "usage: teppich enroll --deck DIR --type TYPE (--image FILE | --source SRC)\n"
    "                      [--calib FILE] [--force]\n"
    "       teppich enroll --deck DIR --grid TYPE,TYPE,... --image FILE\n"
    "\n"
    "Learns the cards of your own deck. Put one card of a type on the table,\n"
    "upright as you look at the markers 0 and 1 at the top, with the markers\n"
    "in view, and name its type: teppich finds the card, cuts it out square to\n"
    "its edges, checks that it is sharp, well lit and whole, and writes\n"
    "DIR/TYPE.png, with the card's size measured on the table in\n"
    "DIR/deck.json (the deck folder of docs: spec section 2).\n"
    "\n"
    "  --deck DIR       the deck folder to write into (made if missing)\n"
    "  --type TYPE      palace, adventure-a .. adventure-e, spice-bazaar,\n"
    "                   carpet-bazaar, camel-bazaar, treasure, lamp, desert,\n"
    "                   carpet-COLOUR or carpet-COLOUR-back (asked on the\n"
    "                   terminal when not given)\n"
    "  --image FILE     a photo of the table (default: a still frame from\n"
    "  --source SRC     the camera, e.g. libcamera or v4l2:/dev/video0)\n"
    "  --grid LIST      many cards in one photo, laid out in rows: their\n"
    "                   types in reading order (rows top to bottom, each\n"
    "                   left to right)\n"
    "  --calib FILE     calibration file (default: the markers in view)\n"
    "  --force          write the face even if the quality check fails\n"
    "  --debug DIR      write the top view and the card mask there\n"
    "\n"
    "Exit 0 written; 1 no markers, no card found, or the quality check\n"
    "failed (the message says what to fix); 2 bad usage. See docs/watch.md.\n";

enum { MAX_FOUND = 64 };

typedef struct {
  double cx, cy, w, h, angle; /* table mm; h the long side, angle of it */
} card_rect;

typedef struct {
  const char *deck, *type, *image, *source, *calib, *grid, *debug;
  bool force;
  cap_options cap;
} options;

/* ---- small geometry ---- */

static bool invert3(const double m[9], double out[9]) {
  double a = m[0], b = m[1], c = m[2], d = m[3], e = m[4], f = m[5], g = m[6],
         h = m[7], i = m[8];
  double det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
  if (fabs(det) < 1e-12) return false;
  double r[9] = {e * i - f * h, c * h - b * i, b * f - c * e,
                 f * g - d * i, a * i - c * g, c * d - a * f,
                 d * h - e * g, b * g - a * h, a * e - b * d};
  for (int k = 0; k < 9; k++) out[k] = r[k] / det;
  return true;
}

static void mul3(const double a[9], const double b[9], double out[9]) {
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      out[r * 3 + c] = a[r * 3] * b[c] + a[r * 3 + 1] * b[3 + c] +
                       a[r * 3 + 2] * b[6 + c];
}

static void apply(const double H[9], double x, double y, double *ox,
                  double *oy) {
  double w = H[6] * x + H[7] * y + H[8];
  *ox = (H[0] * x + H[1] * y + H[2]) / w;
  *oy = (H[3] * x + H[4] * y + H[5]) / w;
}

typedef struct {
  double x, y;
} pt;

static int by_xy(const void *a, const void *b) {
  const pt *p = a, *q = b;
  return p->x < q->x ? -1 : p->x > q->x ? 1 : p->y < q->y ? -1 : p->y > q->y;
}

static double cross(pt o, pt a, pt b) {
  return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

/* Convex hull (monotone chain) in place; returns its size. */
static int hull(pt *p, int n, pt *h) {
  qsort(p, (size_t)n, sizeof *p, by_xy);
  int k = 0;
  for (int i = 0; i < n; i++) {
    while (k >= 2 && cross(h[k - 2], h[k - 1], p[i]) <= 0) k--;
    h[k++] = p[i];
  }
  for (int i = n - 2, t = k + 1; i >= 0; i--) {
    while (k >= t && cross(h[k - 2], h[k - 1], p[i]) <= 0) k--;
    h[k++] = p[i];
  }
  return k > 1 ? k - 1 : k;
}

/* The smallest rectangle around a polygon (one side on a hull edge). */
static card_rect min_rect(pt *p, int n) {
  pt *h = malloc(sizeof *h * (size_t)(2 * n + 2));
  card_rect best = {0, 0, 0, 0, 0};
  if (!h) return best;
  int m = hull(p, n, h);
  double best_area = INFINITY;
  for (int e = 0; e < m; e++) {
    pt a = h[e], b = h[(e + 1) % m];
    double len = hypot(b.x - a.x, b.y - a.y);
    if (len < 1e-9) continue;
    double ux = (b.x - a.x) / len, uy = (b.y - a.y) / len;
    double lo_u = INFINITY, hi_u = -INFINITY, lo_v = INFINITY, hi_v = -INFINITY;
    for (int i = 0; i < m; i++) {
      double du = (h[i].x - a.x) * ux + (h[i].y - a.y) * uy;
      double dv = -(h[i].x - a.x) * uy + (h[i].y - a.y) * ux;
      lo_u = fmin(lo_u, du), hi_u = fmax(hi_u, du);
      lo_v = fmin(lo_v, dv), hi_v = fmax(hi_v, dv);
    }
    double area = (hi_u - lo_u) * (hi_v - lo_v);
    if (area >= best_area) continue;
    best_area = area;
    double mu = (lo_u + hi_u) / 2, mv = (lo_v + hi_v) / 2;
    best.cx = a.x + mu * ux - mv * uy;
    best.cy = a.y + mu * uy + mv * ux;
    double su = hi_u - lo_u, sv = hi_v - lo_v;
    double ang = atan2(uy, ux) * 180 / 3.14159265358979323846;
    if (su >= sv) {
      best.h = su, best.w = sv, best.angle = ang;
    } else {
      best.h = sv, best.w = su, best.angle = ang + 90;
    }
    best.angle = fmod(fmod(best.angle, 180) + 180, 180);
  }
  free(h);
  return best;
}

/* ---- finding cards on the rectified table ---- */

typedef struct {
  tp_image top;     /* rectified RGB, ppm pixels per mm */
  tp_image mask;    /* inside the photo */
  double x0, y0;    /* table mm of pixel (0, 0) */
  double ppm;
  const char *debug_dir; /* writes top.png and mask.png there */
} topview;

static int cmp_u8(const void *a, const void *b) {
  return *(const uint8_t *)a - *(const uint8_t *)b;
}

/* The table in the shade of a card: darker, the same hue. */
static bool shadow(const uint8_t *p, const int bg[3]) {
  double lo = 9, hi = 0;
  for (int c = 0; c < 3; c++) {
    double r = (p[c] + 1.0) / (bg[c] + 1.0);
    lo = fmin(lo, r), hi = fmax(hi, r);
  }
  return hi < 0.97 && lo > 0.25 && hi - lo < 0.15;
}

/* Foreground: pixels far from the table's typical colour (the median),
 * except shadows (they would make the card look bigger). */
static tp_status foreground(const topview *tv, tp_image *fg, int bg[3],
                            tp_error *err) {
  int w = tv->top.width, h = tv->top.height;
  size_t n = 0;
  uint8_t *ch[3];
  for (int c = 0; c < 3; c++) ch[c] = malloc((size_t)w * (size_t)h);
  if (!ch[0] || !ch[1] || !ch[2]) {
    for (int c = 0; c < 3; c++) free(ch[c]);
    return tp_error_set(err, TP_ERR_NOMEM, "enroll: out of memory");
  }
  for (int y = 0; y < h; y += 2)
    for (int x = 0; x < w; x += 2)
      if (tp_image_row(&tv->mask, y)[x]) {
        const uint8_t *p = tp_image_row(&tv->top, y) + 3 * x;
        for (int c = 0; c < 3; c++) ch[c][n] = p[c];
        n++;
      }
  bg[0] = bg[1] = bg[2] = 0;
  for (int c = 0; c < 3 && n; c++) {
    qsort(ch[c], n, 1, cmp_u8);
    bg[c] = ch[c][n / 2];
  }
  for (int c = 0; c < 3; c++) free(ch[c]);
  tp_status st = tp_image_alloc(fg, w, h, 1);
  if (st != TP_OK) return tp_error_set(err, st, "enroll: out of memory");
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const uint8_t *p = tp_image_row(&tv->top, y) + 3 * x;
      int d = abs(p[0] - bg[0]) + abs(p[1] - bg[1]) + abs(p[2] - bg[2]);
      tp_image_row(fg, y)[x] =
          tp_image_row(&tv->mask, y)[x] && d > 60 && !shadow(p, bg) ? 255 : 0;
    }
  return TP_OK;
}

/* Erodes (min) or dilates (max) a mask by a square of radius r, in place:
 * erode then dilate removes lines thinner than 2r+1 (plank seams, the
 * pattern of a cloth) and keeps cards. */
static tp_status morph(tp_image *m, int r, bool dilate, tp_error *err) {
  int w = m->width, h = m->height;
  uint8_t *tmp = malloc((size_t)w * (size_t)h);
  if (!tmp) return tp_error_set(err, TP_ERR_NOMEM, "enroll: out of memory");
  for (int pass = 0; pass < 2; pass++) /* rows, then columns */
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        uint8_t v = dilate ? 0 : 255;
        for (int d = -r; d <= r; d++) {
          int xx = pass ? x : x + d, yy = pass ? y + d : y;
          if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
          uint8_t s = pass ? tmp[yy * w + xx] : tp_image_row(m, yy)[xx];
          v = dilate ? (s > v ? s : v) : (s < v ? s : v);
        }
        if (pass)
          tp_image_row(m, y)[x] = v;
        else
          tmp[y * w + x] = v;
      }
  free(tmp);
  return TP_OK;
}

static bool card_like(const card_rect *r, const double want[2]) {
  double aspect = r->h / fmax(r->w, 1e-6);
  if (want)
    return fabs(r->w - want[0]) < 0.25 * want[0] &&
           fabs(r->h - want[1]) < 0.25 * want[1];
  return aspect > 1.2 && aspect < 2.0 && r->w * r->h > 1500 &&
         r->w * r->h < 40000;
}

/* Colour distance to the table at table point (x, y) mm, bilinear in the
 * top view; -1 outside the photo. */
static double table_distance(const topview *tv, const int bg[3], double x,
                             double y) {
  double fx = (x - tv->x0) * tv->ppm - 0.5, fy = (y - tv->y0) * tv->ppm - 0.5;
  int ix = (int)floor(fx), iy = (int)floor(fy);
  if (ix < 0 || iy < 0 || ix + 1 >= tv->top.width || iy + 1 >= tv->top.height ||
      !tp_image_row(&tv->mask, iy)[ix] || !tp_image_row(&tv->mask, iy + 1)[ix + 1])
    return -1;
  double ax = fx - ix, ay = fy - iy, d = 0;
  for (int c = 0; c < 3; c++) {
    const uint8_t *r0 = tp_image_row(&tv->top, iy), *r1 = tp_image_row(&tv->top, iy + 1);
    double v = (1 - ay) * ((1 - ax) * r0[3 * ix + c] + ax * r0[3 * ix + 3 + c]) +
               ay * ((1 - ax) * r1[3 * ix + c] + ax * r1[3 * ix + 3 + c]);
    d += fabs(v - bg[c]);
  }
  return d;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Where the side at distance `half` from the centre along `n` really is:
 * the median, over profiles across it, of the point halfway between the
 * card's colour just inside and the table's just outside (mm, + outward). */
static double side_offset(const topview *tv, const int bg[3], const card_rect *r,
                          const double n[2], const double t[2], double half,
                          double along) {
  enum { PROFILES = 13, STEPS = 33 }; /* -4 .. +4 mm in 0.25 mm */
  double found[PROFILES];
  int n_found = 0;
  for (int k = 0; k < PROFILES; k++) {
    double s = (k - (PROFILES - 1) / 2.0) / ((PROFILES - 1) / 2.0) * 0.6 * along;
    double prof[STEPS], inner = 0, outer = 0;
    bool ok = true;
    for (int i = 0; i < STEPS && ok; i++) {
      double o = -4 + 0.25 * i;
      prof[i] = table_distance(tv, bg, r->cx + n[0] * (half + o) + t[0] * s,
                               r->cy + n[1] * (half + o) + t[1] * s);
      ok = prof[i] >= 0;
    }
    if (!ok) continue;
    for (int i = 0; i < 7; i++) inner += prof[i] / 7, outer += prof[STEPS - 1 - i] / 7;
    if (inner - outer < 40) continue; /* no contrast here */
    double mid = (inner + outer) / 2;
    for (int i = 1; i < STEPS; i++)
      if (prof[i - 1] >= mid && prof[i] < mid) {
        double f = (prof[i - 1] - mid) / (prof[i - 1] - prof[i]);
        found[n_found++] = -4 + 0.25 * (i - 1 + f);
        break;
      }
  }
  if (n_found < 3) return 0;
  qsort(found, (size_t)n_found, sizeof found[0], cmp_double);
  return found[n_found / 2];
}

/* The foreground threshold is far below the card/table contrast, so with
 * blur the outline lies outside the card's edge (about 1.5 mm in a 960x540
 * photo): each side is moved to where the colour is halfway between them. */
static void refine_sides(const topview *tv, const int bg[3], card_rect *r) {
  double a = r->angle * 3.14159265358979323846 / 180;
  double u[2] = {cos(a), sin(a)}, v[2] = {-sin(a), cos(a)};
  double mu[2] = {-u[0], -u[1]}, mv[2] = {-v[0], -v[1]};
  double up = side_offset(tv, bg, r, u, v, r->h / 2, r->w / 2);
  double down = side_offset(tv, bg, r, mu, v, r->h / 2, r->w / 2);
  double right = side_offset(tv, bg, r, v, u, r->w / 2, r->h / 2);
  double left = side_offset(tv, bg, r, mv, u, r->w / 2, r->h / 2);
  if (fabs(up) > 3 || fabs(down) > 3 || fabs(left) > 3 || fabs(right) > 3)
    return; /* not a clean edge: keep the outline */
  r->cx += u[0] * (up - down) / 2 + v[0] * (right - left) / 2;
  r->cy += u[1] * (up - down) / 2 + v[1] * (right - left) / 2;
  r->h += up + down;
  r->w += left + right;
}

static tp_status find_cards(const topview *tv, const double *want,
                            card_rect *out, int *n_out, tp_error *err) {
  tp_image fg;
  *n_out = 0;
  int bg[3];
  tp_status st = foreground(tv, &fg, bg, err);
  if (st != TP_OK) return st;
  double area_px = 1000 * tv->ppm * tv->ppm;
  int radius = (int)(1.5 * tv->ppm + 0.5);
  st = morph(&fg, radius, false, err);
  if (st == TP_OK) st = morph(&fg, radius, true, err);
  if (st == TP_OK) st = cvw_mask_fill_holes(&fg, 5 * area_px, err);
  double *pts = NULL;
  int *counts = NULL, n_poly = 0;
  if (st == TP_OK)
    st = cvw_mask_outlines(&fg, 1.0, area_px, &pts, &counts, &n_poly, err);
  if (tv->debug_dir) {
    char path[4200];
    snprintf(path, sizeof path, "%s/top.png", tv->debug_dir);
    cvw_image_write(path, &tv->top, 0, NULL);
    snprintf(path, sizeof path, "%s/mask.png", tv->debug_dir);
    cvw_image_write(path, &fg, 0, NULL);
  }
  tp_image_free(&fg);
  for (int k = 0, at = 0; st == TP_OK && k < n_poly; at += counts[k++]) {
    pt *p = malloc(sizeof *p * (size_t)counts[k]);
    if (!p) break;
    for (int i = 0; i < counts[k]; i++)
      p[i] = (pt){tv->x0 + (pts[2 * (at + i)] + 0.5) / tv->ppm,
                  tv->y0 + (pts[2 * (at + i) + 1] + 0.5) / tv->ppm};
    card_rect r = min_rect(p, counts[k]);
    free(p);
    refine_sides(tv, bg, &r);
    if (card_like(&r, want) && *n_out < MAX_FOUND) out[(*n_out)++] = r;
  }
  free(pts);
  free(counts);
  return st;
}

/* The table as seen from above, over the part of it the photo shows. */
static tp_status make_topview(const tp_image *rgb, const double img_to_mm[9],
                              double ppm, topview *tv, tp_error *err) {
  memset(tv, 0, sizeof *tv);
  double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
  double corners[4][2] = {{0, 0},
                          {rgb->width - 1.0, 0},
                          {rgb->width - 1.0, rgb->height - 1.0},
                          {0, rgb->height - 1.0}};
  for (int k = 0; k < 4; k++) {
    double x, y;
    apply(img_to_mm, corners[k][0], corners[k][1], &x, &y);
    x0 = fmin(x0, x), y0 = fmin(y0, y), x1 = fmax(x1, x), y1 = fmax(y1, y);
  }
  x0 = fmax(x0, -300), y0 = fmax(y0, -300), x1 = fmin(x1, 1200),
  y1 = fmin(y1, 1000);
  if (x1 - x0 < 50 || y1 - y0 < 50)
    return tp_error_set(err, TP_ERR_NOTFOUND, "enroll: the table in view is "
                        "too small: move the camera back");
  tv->x0 = x0, tv->y0 = y0, tv->ppm = ppm;
  int w = (int)((x1 - x0) * ppm), h = (int)((y1 - y0) * ppm);
  double mm_to_img[9], px_to_mm[9] = {1 / ppm, 0, x0 + 0.5 / ppm,
                                      0, 1 / ppm, y0 + 0.5 / ppm, 0, 0, 1},
                                      M[9];
  if (!invert3(img_to_mm, mm_to_img))
    return tp_error_set(err, TP_ERR_NOTFOUND, "enroll: bad table mapping");
  mul3(mm_to_img, px_to_mm, M);
  tp_status st = tp_image_alloc(&tv->top, w, h, 3);
  if (st == TP_OK) st = tp_image_alloc(&tv->mask, w, h, 1);
  if (st != TP_OK) return tp_error_set(err, st, "enroll: out of memory");
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      double u, v;
      apply(M, x, y, &u, &v);
      tp_image_row(&tv->mask, y)[x] = u >= 2 && v >= 2 &&
                                      u < rgb->width - 3 && v < rgb->height - 3;
    }
  return cvw_warp_homography(rgb, M, &tv->top, err);
}

/* ---- cutting out and checking one card ---- */

typedef struct {
  double sharpness; /* variance of the Laplacian of the face */
  double mean;      /* mean brightness 0..255 */
  double clipped;   /* fraction of burnt-out pixels */
  bool whole;       /* all of it inside the photo */
} quality;

static void measure_quality(const tp_image *face, quality *q) {
  int w = face->width, h = face->height;
  double sum = 0, sum2 = 0, bright = 0;
  long n = 0, clip = 0;
  for (int y = 1; y < h - 1; y++)
    for (int x = 1; x < w - 1; x++) {
      const uint8_t *r = tp_image_row(face, y) + 3 * x;
      int g = (r[0] + 2 * r[1] + r[2]) / 4;
      bright += g;
      clip += g >= 250;
      int lap = 4 * g;
      const int off[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
      for (int k = 0; k < 4; k++) {
        const uint8_t *s =
            tp_image_row(face, y + off[k][1]) + 3 * (x + off[k][0]);
        lap -= (s[0] + 2 * s[1] + s[2]) / 4;
      }
      sum += lap, sum2 += (double)lap * lap, n++;
    }
  q->mean = n ? bright / (double)n : 0;
  q->clipped = n ? (double)clip / (double)n : 1;
  q->sharpness = n ? sum2 / (double)n - (sum / (double)n) * (sum / (double)n) : 0;
}

static tp_status cut_face(const tp_image *rgb, const double img_to_mm[9],
                          const card_rect *r, tp_image *face, quality *q,
                          tp_error *err) {
  double mm_to_img[9];
  if (!invert3(img_to_mm, mm_to_img))
    return tp_error_set(err, TP_ERR_NOTFOUND, "enroll: bad table mapping");
  double a = r->angle * 3.14159265358979323846 / 180;
  double ux = cos(a), uy = sin(a);
  if (uy < 0 || (fabs(uy) < 1e-9 && ux < 0)) ux = -ux, uy = -uy; /* top: -y */
  double vx = uy, vy = -ux; /* face x axis */
  if (vx < 0) vx = -vx, vy = -vy;
  /* how many photo pixels a millimetre of the card spans */
  double px, py, qx, qy;
  apply(mm_to_img, r->cx, r->cy, &px, &py);
  apply(mm_to_img, r->cx + 10 * ux, r->cy + 10 * uy, &qx, &qy);
  double ppm = fmin(8, fmax(3, hypot(qx - px, qy - py) / 10));
  int W = (int)(r->w * ppm + 0.5), H = (int)(r->h * ppm + 0.5);
  double A[9] = {r->w / W * vx, r->h / H * ux,
                 r->cx - r->w / 2 * vx - r->h / 2 * ux + 0.5 * (r->w / W * vx + r->h / H * ux),
                 r->w / W * vy, r->h / H * uy,
                 r->cy - r->w / 2 * vy - r->h / 2 * uy + 0.5 * (r->w / W * vy + r->h / H * uy),
                 0, 0, 1};
  double M[9];
  mul3(mm_to_img, A, M);
  tp_status st = tp_image_alloc(face, W, H, 3);
  if (st != TP_OK) return tp_error_set(err, st, "enroll: out of memory");
  st = cvw_warp_homography(rgb, M, face, err);
  q->whole = true;
  const double cs[4][2] = {{0, 0}, {W, 0}, {W, H}, {0, H}};
  for (int k = 0; k < 4; k++) {
    double x, y;
    apply(M, cs[k][0], cs[k][1], &x, &y);
    q->whole &= x >= 2 && y >= 2 && x < rgb->width - 2 && y < rgb->height - 2;
  }
  measure_quality(face, q);
  return st;
}

/* ---- the deck folder ---- */

static bool valid_stem(const char *s) {
  if (ft_card_type_parse(s) >= 0) return true;
  if (strncmp(s, "carpet-", 7) || !s[7]) return false;
  for (const char *p = s + 7; *p; p++)
    if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) &&
        *p != '-' && *p != '_')
      return false;
  return strlen(s) < 48;
}

static tp_status update_deck_json(const char *dir, const char *key,
                                  const card_rect *r, tp_error *err) {
  char path[4200];
  snprintf(path, sizeof path, "%s/deck.json", dir);
  char *text = NULL;
  size_t len = 0;
  cJSON *root = NULL;
  if (access(path, F_OK) == 0) {
    tp_status st = tp_read_file(path, 1 << 20, &text, &len, err);
    if (st != TP_OK) return st;
    root = cJSON_ParseWithLength(text, len);
    free(text);
    if (!cJSON_IsObject(root)) {
      cJSON_Delete(root);
      return tp_error_set(err, TP_ERR_FORMAT, "%s: not a JSON object: fix "
                          "or remove it", path);
    }
  } else {
    root = cJSON_CreateObject();
  }
  double size[2] = {round(r->w * 2) / 2, round(r->h * 2) / 2};
  /* cards and carpets measured within 1 mm of each other are one size (the
   * measurement is good to about half a millimetre): the vision treats two
   * sizes that close as different objects */
  const char *other = strcmp(key, "card_mm") ? "card_mm" : "carpet_mm";
  cJSON *o = cJSON_GetObjectItemCaseSensitive(root, other);
  if (cJSON_GetArraySize(o) == 2 &&
      fabs(cJSON_GetArrayItem(o, 0)->valuedouble - size[0]) < 1 &&
      fabs(cJSON_GetArrayItem(o, 1)->valuedouble - size[1]) < 1) {
    size[0] = cJSON_GetArrayItem(o, 0)->valuedouble;
    size[1] = cJSON_GetArrayItem(o, 1)->valuedouble;
  }
  cJSON_DeleteItemFromObjectCaseSensitive(root, key);
  cJSON_AddItemToObject(root, key, cJSON_CreateDoubleArray(size, 2));
  char *out = cJSON_Print(root);
  cJSON_Delete(root);
  if (!out) return tp_error_set(err, TP_ERR_NOMEM, "enroll: out of memory");
  size_t n = strlen(out);
  out[n] = '\0';
  char *with_nl = realloc(out, n + 2);
  if (!with_nl) {
    free(out);
    return tp_error_set(err, TP_ERR_NOMEM, "enroll: out of memory");
  }
  strcpy(with_nl + n, "\n");
  tp_status st = tp_write_file_atomic(path, with_nl, n + 1, err);
  free(with_nl);
  return st;
}

static int write_card(const options *o, const tp_image *rgb,
                      const double H[9], const card_rect *r,
                      const char *stem) {
  tp_error err;
  tp_image face = {0};
  quality q = {0, 0, 1, false};
  tp_status st = cut_face(rgb, H, r, &face, &q, &err);
  if (st != TP_OK) {
    tp_image_free(&face);
    return cli_fail(tp_status_exit_code(st), "%s", err.text);
  }
  const char *problem = !q.whole          ? "it is not whole in the picture: move it into view"
                        : q.mean < 50     ? "it is too dark: more light"
                        : q.mean > 235 || q.clipped > 0.05
                            ? "it is too bright (glare): less light or turn it"
                        : q.sharpness < 8 ? "it is blurred: focus the camera, hold still"
                                          : NULL;
  printf("%s: %.1f x %.1f mm at (%.0f, %.0f) mm, %.0f deg; sharpness %.0f, "
         "brightness %.0f, %.1f%% burnt out%s\n",
         stem, r->w, r->h, r->cx, r->cy, r->angle, q.sharpness, q.mean,
         100 * q.clipped, q.whole ? "" : ", cut off");
  if (problem && !o->force) {
    tp_image_free(&face);
    return cli_fail(1, "enroll: %s: %s (or --force)", stem, problem);
  }
  char path[4200];
  snprintf(path, sizeof path, "%s/%s.png", o->deck, stem);
  st = cvw_image_write(path, &face, 0, &err);
  tp_image_free(&face);
  if (st == TP_OK)
    st = update_deck_json(o->deck, strncmp(stem, "carpet-", 7) ? "card_mm"
                                                               : "carpet_mm",
                          r, &err);
  if (st != TP_OK) return cli_fail(2, "%s", err.text);
  printf("wrote %s\n", path);
  return 0;
}

/* ---- the photo ---- */

static tp_status still_frame(options *o, tp_image *out, tp_error *err) {
  o->cap.color = true;
  cap_source *src;
  tp_status st = cap_open(&src, o->source, &o->cap, err);
  if (st != TP_OK) return st;
  wch_motion *m;
  st = wch_motion_create(NULL, &m, err);
  cap_frame f;
  bool got = false;
  for (int k = 0; st == TP_OK && k < 600 && !got; k++) {
    int r = cap_next(src, &f, err);
    if (r != CAP_FRAME) {
      st = r == CAP_END ? tp_error_set(err, TP_ERR_NOTFOUND, "enroll: %s "
                                       "ended before a still frame", o->source)
                        : (tp_status)r;
      break;
    }
    wch_motion_result mr;
    st = wch_motion_feed(m, &f.gray, &mr, err);
    if (st == TP_OK && (mr.settled || (k == 0 && !f.color.data))) got = true;
    if (st == TP_OK && got) {
      st = tp_image_alloc(out, f.color.width, f.color.height, 3);
      for (int y = 0; st == TP_OK && y < f.color.height; y++)
        memcpy(tp_image_row(out, y), tp_image_row(&f.color, y),
               (size_t)f.color.width * 3);
    }
  }
  if (st == TP_OK && !got)
    st = tp_error_set(err, TP_ERR_NOTFOUND, "enroll: the picture never "
                      "became still: keep hands out of view");
  wch_motion_destroy(m);
  cap_close(src);
  return st;
}

static int by_reading_order(const void *a, const void *b) {
  const card_rect *p = a, *q = b;
  if (fabs(p->cy - q->cy) > fmin(p->h, q->h) / 2) return p->cy < q->cy ? -1 : 1;
  return p->cx < q->cx ? -1 : p->cx > q->cx;
}

/* A homography table mm -> image px fitted to the calibration's mapping
 * (lens model included) on a grid over [x0, x1] x [y0, y1]: exact enough
 * over a card, and what the warps need. */
static tp_status fit_map(const vis_table_map *map, double x0, double y0,
                         double x1, double y1, double img_to_mm[9],
                         tp_error *err) {
  double from[25][2], to[25][2], H[9];
  int n = 0;
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 5; j++) {
      double mm[2] = {x0 + (x1 - x0) * i / 4, y0 + (y1 - y0) * j / 4}, px[2];
      if (!map->table_to_image(map->user, mm, px)) continue;
      from[n][0] = px[0], from[n][1] = px[1];
      to[n][0] = mm[0], to[n][1] = mm[1];
      n++;
    }
  if (n < 4)
    return tp_error_set(err, TP_ERR_NOTFOUND, "enroll: the table is not in "
                        "view: point the camera at it");
  tp_status st = cvw_homography_fit((const double(*)[2])from,
                                    (const double(*)[2])to, n, H, err);
  if (st == TP_OK) memcpy(img_to_mm, H, sizeof H);
  return st;
}

static int enroll(options *o) {
  tp_error err;
  tp_image rgb = {0};
  tp_status st = o->image ? cvw_image_read(o->image, 3, &rgb, &err)
                          : still_frame(o, &rgb, &err);
  if (st != TP_OK) return cli_fail(tp_status_exit_code(st), "%s", err.text);
  an_options ao = {.image = o->image ? o->image : o->source,
                   .calib_file = o->calib};
  an_session *s = NULL;
  an_report rep;
  memset(&rep, 0, sizeof rep);
  st = an_session_create(&ao, &s, &err);
  if (st == TP_OK) st = an_run_image(s, &rgb, NULL, &rep, &err);
  double H[9];
  const double *a = rep.map.area_mm;
  if (st == TP_OK) st = fit_map(&rep.map, a[0], a[1], a[2], a[3], H, &err);
  topview tv;
  memset(&tv, 0, sizeof tv);
  card_rect found[MAX_FOUND];
  int n = 0;
  if (st == TP_OK) st = make_topview(&rgb, H, 2.0, &tv, &err);
  tv.debug_dir = o->debug;
  if (st == TP_OK) st = find_cards(&tv, NULL, found, &n, &err);
  tp_image_free(&tv.top);
  tp_image_free(&tv.mask);
  int rc = st != TP_OK ? cli_fail(tp_status_exit_code(st), "%s", err.text) : 0;
  if (!rc && mkdir(o->deck, 0755) != 0 && errno != EEXIST)
    rc = cli_fail(2, "%s: cannot make the deck folder: %s", o->deck,
                  strerror(errno));
  char list[2048];
  char *types[MAX_FOUND];
  int nt = 0;
  if (!rc && o->grid) {
    snprintf(list, sizeof list, "%s", o->grid);
    for (char *t = strtok(list, ","); t && nt < MAX_FOUND; t = strtok(NULL, ","))
      types[nt++] = t;
    qsort(found, (size_t)n, sizeof found[0], by_reading_order);
    if (n != nt)
      rc = cli_fail(1, "enroll: %d cards found, but --grid names %d: lay them "
                    "apart on a plain table, all in view", n, nt);
  } else if (!rc) {
    types[nt++] = (char *)o->type;
    if (n != 1)
      rc = cli_fail(1, "enroll: %d cards found: put exactly one card on the "
                    "table, apart from the markers", n);
  }
  for (int k = 0; !rc && k < nt; k++) {
    /* the mapping fitted around this card only: lens distortion is then
     * negligible */
    const card_rect *r = &found[k];
    double local[9];
    st = fit_map(&rep.map, r->cx - r->h, r->cy - r->h, r->cx + r->h,
                 r->cy + r->h, local, &err);
    rc = st != TP_OK ? cli_fail(1, "%s", err.text)
                     : write_card(o, &rgb, local, r, types[k]);
  }
  an_report_free(&rep);
  an_session_destroy(s);
  tp_image_free(&rgb);
  return rc;
}

static int run(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    fputs(usage, stdout);
    return 0;
  }
  options o;
  memset(&o, 0, sizeof o);
  cap_options_init(&o.cap);
  tp_error err;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int used = cap_options_parse_arg(&o.cap, argc, argv, i, &err);
    if (used < 0) return cli_fail(2, "enroll: %s", err.text);
    if (used > 0) {
      i += used - 1;
      continue;
    }
    const char **slot = !strcmp(a, "--deck")     ? &o.deck
                        : !strcmp(a, "--type")   ? &o.type
                        : !strcmp(a, "--image")  ? &o.image
                        : !strcmp(a, "--source") ? &o.source
                        : !strcmp(a, "--calib")  ? &o.calib
                        : !strcmp(a, "--grid")   ? &o.grid
                        : !strcmp(a, "--debug")  ? &o.debug
                                                 : NULL;
    if (slot && i + 1 < argc)
      *slot = argv[++i];
    else if (!strcmp(a, "--force"))
      o.force = true;
    else
      return cli_fail(2, "enroll: unknown or incomplete option '%s' (see "
                      "teppich enroll --help)", a);
  }
  if (!o.deck) return cli_fail(2, "enroll: --deck DIR is needed");
  if (!o.image == !o.source)
    return cli_fail(2, "enroll: give --image FILE or --source SRC");
  static char typed[64];
  if (!o.type && !o.grid && isatty(0)) {
    printf("Which card is it? (palace, adventure-a, ..., carpet-red): ");
    fflush(stdout);
    if (fgets(typed, sizeof typed, stdin)) {
      typed[strcspn(typed, "\r\n ")] = '\0';
      o.type = typed;
    }
  }
  if (!o.type && !o.grid)
    return cli_fail(2, "enroll: which type is the card? --type TYPE");
  if (o.type && !valid_stem(o.type))
    return cli_fail(2, "enroll: --type '%s' is not a card type of spec "
                    "section 2 (palace, adventure-a, ..., carpet-COLOUR)",
                    o.type);
  if (o.grid) {
    char list[2048];
    snprintf(list, sizeof list, "%s", o.grid);
    for (char *t = strtok(list, ","); t; t = strtok(NULL, ","))
      if (!valid_stem(t))
        return cli_fail(2, "enroll: --grid: '%s' is not a card type", t);
  }
  return enroll(&o);
}

const cli_command cli_command_enroll = {
    "enroll", "learn your own deck: cut out cards from the camera or photos",
    run};
