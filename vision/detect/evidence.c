/* evidence: does a matched face really show a card, and is it the card's
 * own face?
 *
 * The matcher's score (samples explained / visible, on a 2 mm grid, at the
 * hypothesis's unrefined pose) does not tell: right lamps score 0.76 on
 * easy scenes (their fine print misses by a millimetre), a palace seen as
 * a lamp (a deck without the palace) 0.86, a spice bazaar fitted onto
 * patterned cloth 0.6-0.8. After the pose refinement, one sample per mm
 * where the card lies alone, the picture speaks clearly: a right face
 * explains nearly all of it; another type's face explains the frame all
 * cards share but leaves part of the picture unexplained; a face fitted
 * onto cloth or wood fits badly everywhere, frame included. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "vision_internal.h"

enum { FIT_CELLS_X = 3, FIT_CELLS_Y = 4 };
#define FIT_RING_MM 7.0 /* the frame: within this of the outline */
#define FIT_MARGIN_MM 1.5 /* off the outline: pose error */

/* Thresholds from the tuning seeds 3000-3013 of each level, analysed with
 * a deck lacking one type that lies on the table (leave-one-type-out: 37
 * cards of a missing type, 400 others) and the full deck:
 * - with its own face, every well-seen cell of a card is explained 0.95
 *   or more on easy and normal (hard: 3 cards under a lamp's glare
 *   0.55-0.81, rightly uncertain; easy: 2 under a carpet the analysis
 *   missed); the best face of another type leaves one cell 0.33-0.78
 *   explained. Without a well-seen cell the card as a whole decides:
 *   right 0.87-1.0 (0.99 without glare), another type 0.70-0.94.
 * - phantom cards (no card there; 28 on normal and hard, cloth and wood)
 *   explain at most 0.85 of the card and 0.84 of the frame (mostly
 *   0.6-0.75, both); right types at least 0.87 and 0.93, a missing type's
 *   stand-in 0.70-0.94 and 0.78-1.0. */
#define FIT_TAU 35.0
#define POOR_CELL 0.85
#define POOR_SCORE 0.95
#define POOR_MIN_SAMPLES 300 /* mm^2 of the card seen alone, for the score */
#define NO_CARD 0.85
#define NO_CARD_MIN_RING 100
/* Where the visible part shows the table's colours (under 0.15 of its
 * samples look more like the face than like the bare table), tuning
 * seeds 3000-3019 (normal, hard): 10 phantom cards on patterned cloth,
 * half under a carpet, explain 0.72-0.86 of the card and 0.85-0.895 of
 * the frame; the real cards there (tan bazaars on wood, 0.04-0.14) at
 * least 0.87 and 0.965. */
#define TABLE_COLOURED 0.15
#define NO_CARD_ON_TABLE_RING 0.93
#define NO_CARD_ON_TABLE 0.9

/* lround(v) for |v| < 2^31, inlined (296 k libm calls, 8 M instructions
 * per 1080p frame): a - trunc(a) is exact (Sterbenz), so the half is
 * compared as lround compares it, and halves round away from zero. */
static inline int round_half_away(double v) {
  double a = fabs(v);
  int i = (int)a;
  i += a - (double)i >= 0.5;
  return v < 0 ? -i : i;
}

/* Table pixel (x, y) hidden from the card: under another object (others,
 * grown by 1 mm), or claimed by an object accepted before `self`. */
static bool hidden_at(const vis__table *t, const vis__frame *others, int n_others,
                      const int16_t *claim, int16_t self, double x, double y) {
  for (int k = 0; k < n_others; k++)
    if (vis__frame_contains(&others[k], x, y, t->px_per_mm)) return true;
  if (!claim) return false;
  int ix = round_half_away(x), iy = round_half_away(y);
  if (ix < 0 || iy < 0 || ix >= t->lab.width || iy >= t->lab.height) return true;
  int16_t c = claim[iy * t->lab.width + ix];
  return c >= 0 && c < self;
}

/* The whole counts of a face fit over some rows of its samples: whole
 * numbers, so rows counted apart add up to the counts of all of them. */
typedef struct {
  int n, good_all, ring_n, ring_good;
  int seen[FIT_CELLS_X * FIT_CELLS_Y], good[FIT_CELLS_X * FIT_CELLS_Y];
} fit_tally;

/* One face fit's samples (one per mm inside the card, in rows), and one
 * tally per band of rows. */
typedef struct {
  const vis__table *t;
  vis__face_place place;
  vis__frame f, fin, of[64];
  int n_of;
  const int16_t *claim;
  int16_t self;
  const vis__occluder *occ; /* NULL: nothing occludes */
  double x0, x1, y0, y1, ring;
  int n_rows, n_bands;
  fit_tally tally[VIS__MAX_THREADS];
} fit_job;

/* Rows r0..r1-1 of the samples into *ta. The rows' y are stepped as one
 * loop over all of them steps them, so every band samples the same
 * points. */
static void tally_rows(const fit_job *j, int r0, int r1, fit_tally *ta) {
  const vis__table *t = j->t;
  const vis__frame *f = &j->f;
  const double s = t->px_per_mm;
  int r = 0;
  for (double y = floor(j->y0); y <= j->y1 && r < r1; y += s, r++) {
    if (r < r0) continue;
    for (double x = floor(j->x0); x <= j->x1; x += s) {
      if (!vis__frame_contains(&j->fin, x, y, 0)) continue;
      if (hidden_at(t, j->of, j->n_of, j->claim, j->self, x, y)) continue;
      if (j->occ && vis__occluded(j->occ, x, y)) continue;
      double res = vis__place_residual(t, &j->place, x, y);
      if (res < 0) continue;
      double dx = x - f->cx, dy = y - f->cy;
      double u = dx * f->c + dy * f->s, v = -dx * f->s + dy * f->c;
      int cy = (int)((u + f->hh) / (2 * f->hh) * FIT_CELLS_Y);
      int cx = (int)((v + f->hw) / (2 * f->hw) * FIT_CELLS_X);
      cy = cy < 0 ? 0 : cy >= FIT_CELLS_Y ? FIT_CELLS_Y - 1 : cy;
      cx = cx < 0 ? 0 : cx >= FIT_CELLS_X ? FIT_CELLS_X - 1 : cx;
      bool ok = res < FIT_TAU;
      ta->n++;
      ta->seen[cy * FIT_CELLS_X + cx]++;
      ta->good[cy * FIT_CELLS_X + cx] += ok;
      ta->good_all += ok;
      if (fabs(u) > f->hh - j->ring || fabs(v) > f->hw - j->ring) ta->ring_n++, ta->ring_good += ok;
    }
  }
}

/* Of others[0..n), into j->of, those that may hold a sample of the
 * fit's box (x0..x1, y0..y1): a frame holds (x, y) only within its half
 * sides grown by a millimetre (hidden_at) along both its axes, so within
 * their sum of its centre along x and along y; one pixel more covers
 * the rounding of u and v. Hidden or not, every sample is as with all of
 * them (hidden_at asks whether any holds it); the others far from the
 * card cost most of the fit's frame tests (the card-frame checks of
 * shows_card ask with every object accepted). */
static void keep_near_others(fit_job *j, const vis_rect *others, int n) {
  double grow = j->t->px_per_mm;
  j->n_of = 0;
  for (int k = 0; k < n; k++) {
    vis__frame f = vis__frame_of(&others[k]);
    double reach = f.hh + f.hw + 2 * grow + 1;
    if (f.cx < floor(j->x0) - reach || f.cx > j->x1 + reach || f.cy < floor(j->y0) - reach ||
        f.cy > j->y1 + reach)
      continue;
    j->of[j->n_of++] = f;
  }
}

static void tally_band(void *ctx, int worker, int band) {
  (void)worker;
  fit_job *j = ctx;
  tally_rows(j, band * j->n_rows / j->n_bands, (band + 1) * j->n_rows / j->n_bands,
             &j->tally[band]);
}

void vis__face_fit_measure(const vis__table *t, const vis__template *tp, const vis__object *o,
                           const vis_rect *others, int n_others, const int16_t *claim,
                           int16_t self, int threads, vis__face_fit *ff) {
  vis__face_fit_measure_occluded(t, tp, o, others, n_others, claim, self, NULL, threads, ff);
}

/* A face fit's samples of object o: its frame, the frame FIT_MARGIN_MM
 * inside its outline the samples lie in, its box, and what may hide them. */
static void fit_job_init(fit_job *j, const vis__table *t, const vis__template *tp,
                         const vis__object *o, const vis_rect *others, int n_others,
                         const int16_t *claim, int16_t self, const vis__occluder *occ) {
  const double s = t->px_per_mm, margin = FIT_MARGIN_MM * s;
  vis_rect in = o->r_px;
  in.w -= 2 * margin, in.h -= 2 * margin;
  memset(j, 0, sizeof *j);
  j->t = t;
  j->place = vis__face_place_of(t, tp, o);
  j->f = vis__frame_of(&o->r_px);
  j->fin = vis__frame_of(&in);
  j->claim = claim;
  j->self = self;
  j->occ = occ;
  j->ring = FIT_RING_MM * s;
  vis_pt c[4];
  vis_rect_corners(&o->r_px, c);
  j->x0 = c[0].x, j->x1 = c[0].x, j->y0 = c[0].y, j->y1 = c[0].y;
  for (int k = 1; k < 4; k++)
    j->x0 = fmin(j->x0, c[k].x), j->x1 = fmax(j->x1, c[k].x), j->y0 = fmin(j->y0, c[k].y),
    j->y1 = fmax(j->y1, c[k].y);
  keep_near_others(j, others, n_others < 64 ? n_others : 64);
}

void vis__face_fit_measure_occluded(const vis__table *t, const vis__template *tp,
                                    const vis__object *o, const vis_rect *others, int n_others,
                                    const int16_t *claim, int16_t self, const vis__occluder *occ,
                                    int threads, vis__face_fit *ff) {
  *ff = (vis__face_fit){.score = 1, .worst = 1, .ring = 1};
  const double s = t->px_per_mm;
  fit_job job, *j = &job;
  fit_job_init(j, t, tp, o, others, n_others, claim, self, occ);
  for (double y = floor(j->y0); y <= j->y1; y += s) j->n_rows++;
  /* with more workers, bands of rows on them (in the calling thread of a
   * flight frame the card-frame checks' fits cost 40 M instructions) */
  j->n_bands = threads < 1 ? 1 : threads > VIS__MAX_THREADS ? VIS__MAX_THREADS : threads;
  vis__parallel_for(j->n_bands, j->n_bands, tally_band, j);
  fit_tally all = {0};
  for (int b = 0; b < j->n_bands; b++) {
    const fit_tally *ta = &j->tally[b];
    all.n += ta->n, all.good_all += ta->good_all, all.ring_n += ta->ring_n,
        all.ring_good += ta->ring_good;
    for (int k = 0; k < FIT_CELLS_X * FIT_CELLS_Y; k++)
      all.seen[k] += ta->seen[k], all.good[k] += ta->good[k];
  }
  ff->n = all.n;
  ff->good = all.good_all;
  ff->ring_n = all.ring_n;
  if (ff->n) ff->score = (double)all.good_all / ff->n;
  if (ff->ring_n) ff->ring = (double)all.ring_good / ff->ring_n;
  double cell_samples = (o->r_px.w / s / FIT_CELLS_X) * (o->r_px.h / s / FIT_CELLS_Y);
  for (int k = 0; k < FIT_CELLS_X * FIT_CELLS_Y; k++)
    if (all.seen[k] >= cell_samples / 3) {
      ff->cells++;
      ff->worst = fmin(ff->worst, (double)all.good[k] / all.seen[k]);
    }
}

bool vis__face_fit_poor(const vis__face_fit *ff) {
  if (ff->cells >= 1) return ff->worst < POOR_CELL;
  return ff->n >= POOR_MIN_SAMPLES && ff->score < POOR_SCORE;
}

bool vis__face_fit_no_card(const vis__face_fit *ff) {
  return ff->ring_n >= NO_CARD_MIN_RING && ff->ring < NO_CARD && ff->score < NO_CARD;
}

/* What shows has the table's colours and its frame falls short of the
 * on-table card frame: the common half of the two tests below. */
static bool frame_short_on_table(const vis__face_fit *ff, double colour_share) {
  return colour_share < TABLE_COLOURED && ff->ring_n >= NO_CARD_MIN_RING &&
         ff->ring < NO_CARD_ON_TABLE_RING;
}

bool vis__face_fit_no_card_on_table(const vis__face_fit *ff, double colour_share) {
  if (vis__face_fit_no_card(ff)) return true;
  return frame_short_on_table(ff, colour_share) && ff->score < NO_CARD_ON_TABLE;
}

bool vis__face_fit_poor_on_table(const vis__face_fit *ff, double colour_share) {
  return frame_short_on_table(ff, colour_share) && vis__face_fit_poor(ff);
}

/* Pixel (x, y) on a side's either hand hidden from it: claimed by any
 * accepted object, or inside one of `others`. */
static bool side_hidden(const vis__table *t, const vis__frame *others, int n_others,
                        const int16_t *claim, int x, int y) {
  if (claim && claim[y * t->lab.width + x] >= 0) return true;
  for (int k = 0; k < n_others; k++)
    if (vis__frame_contains(&others[k], x, y, 0)) return true;
  return false;
}

static int by_value(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
}

double vis__median(double *v, int k) {
  qsort(v, (size_t)k, sizeof *v, by_value);
  return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

/* A side sample under something no face of the deck explains (a hand,
 * an arm): the card's own face does not explain its inner pixel (residual
 * tau or more, or off the face), and the same thing continues across the
 * outline (no colour change: the inner and outer pixels alike). */
static bool occluded_at(const vis__table *t, const vis__face_place *face, double tau, int xi,
                        int yi, bool edge) {
  if (!face || edge) return false;
  double res = vis__place_residual(t, face, xi, yi);
  return res < 0 || res >= tau;
}

double vis__outline_edges(const vis__table *t, const vis_rect *r, const vis_rect *others,
                          int n_others, const int16_t *claim, int *seen, double *weakest) {
  return vis__outline_edges_unoccluded(t, r, others, n_others, claim, NULL, 0, seen, weakest,
                                       NULL);
}

static double outline_edges(const vis__table *t, const vis_rect *r, const vis_rect *others,
                            int n_others, const int16_t *claim, const vis__face_place *face,
                            double tau, const vis__occluder *occ, bool wide, int *seen,
                            double *weakest, int *occluded);

double vis__outline_edges_unoccluded(const vis__table *t, const vis_rect *r,
                                     const vis_rect *others, int n_others, const int16_t *claim,
                                     const vis__face_place *face, double tau, int *seen,
                                     double *weakest, int *occluded) {
  return outline_edges(t, r, others, n_others, claim, face, tau, NULL, true, seen, weakest,
                       occluded);
}

double vis__carpet_outline_edges(const vis__table *t, const vis_rect *r, const vis_rect *others,
                                 int n_others, const int16_t *claim, int *seen,
                                 double *weakest) {
  return outline_edges(t, r, others, n_others, claim, NULL, 0, NULL, false, seen, weakest, NULL);
}

/* How far either side of a card's side its outline is looked for: 1.5
 * mm, or OUTLINE_PHOTO_PX of the photo's pixels where they are coarser.
 * The photo's own blur (the lens, the camera's shake: a pixel or so)
 * spreads an edge over a few of its pixels, and where they are wide the
 * pixels 1.5 mm either side catch part of the step only (tuning hard
 * 3003 at 960x540, a pixel 0.95-1.8 mm of the table, cards 35-45 pixels
 * wide on a cream cloth: the white borders of eight cards fully in view
 * showed an edge at 0.41-0.59 of their side samples, weakest side
 * 0.20-0.25, and all eight were missed). Two pixels each side found more
 * cards but let look-alikes a few millimetres off pass too (tuning hard
 * 3000-3089 at 960x540: 35 scenes exact with 1.5 mm, 38 with 1.5 pixels,
 * 35 with 1.75). At 1920x1080 a pixel is 0.4-0.9 mm of the table on hard
 * scenes (3003, 3010): 1.5 mm, as before. */
#define OUTLINE_MM 1.5
#define OUTLINE_PHOTO_PX 1.5
static double outline_offset_mm(const vis__table *t, vis_pt a, vis_pt b, bool wide) {
  if (!wide) return OUTLINE_MM;
  double photo_mm = vis__camera_mm(t, 0.5 * (a.x + b.x), 0.5 * (a.y + b.y));
  return fmax(OUTLINE_MM, OUTLINE_PHOTO_PX * photo_mm);
}

/* The side samples' edges; a side sample whose inner pixel an occluder
 * (NULL: none) hides, or that occluded_at finds hidden, is not asked. */
static double outline_edges(const vis__table *t, const vis_rect *r, const vis_rect *others,
                            int n_others, const int16_t *claim, const vis__face_place *face,
                            double tau, const vis__occluder *occ, bool wide, int *seen,
                            double *weakest, int *occluded) {
  vis__frame of[64];
  int n_occluded = 0;
  n_others = n_others < 64 ? n_others : 64;
  for (int k = 0; k < n_others; k++) of[k] = vis__frame_of(&others[k]);
  vis_pt c[4];
  vis_rect_corners(r, c);
  int W = t->lab.width, H = t->lab.height, edge = 0;
  *seen = 0;
  *weakest = 1;
  for (int k = 0; k < 4; k++) {
    vis_pt a = c[k], b = c[(k + 1) % 4];
    const double off = outline_offset_mm(t, a, b, wide) * t->px_per_mm;
    double len = hypot(b.x - a.x, b.y - a.y), tx = (b.x - a.x) / len, ty = (b.y - a.y) / len;
    double nx = -ty, ny = tx; /* toward the centre? */
    if ((r->center.x - a.x) * nx + (r->center.y - a.y) * ny < 0) nx = -nx, ny = -ny;
    int side_seen = 0, side_edge = 0;
    for (double d = 4 * t->px_per_mm; d < len - 4 * t->px_per_mm; d += 2) {
      double px = a.x + d * tx, py = a.y + d * ty;
      int xi = vis__round(px + off * nx), yi = vis__round(py + off * ny);
      int xo = vis__round(px - off * nx), yo = vis__round(py - off * ny);
      if (xi < 0 || yi < 0 || xo < 0 || yo < 0 || xi >= W || xo >= W || yi >= H || yo >= H)
        continue;
      if (side_hidden(t, of, n_others, claim, xi, yi) ||
          side_hidden(t, of, n_others, claim, xo, yo))
        continue;
      const uint8_t *pi = tp_image_row(&t->smooth, yi) + 3 * xi;
      const uint8_t *po = tp_image_row(&t->smooth, yo) + 3 * xo;
      double contrast = 0.5 * abs(pi[0] - po[0]) + abs(pi[1] - po[1]) + abs(pi[2] - po[2]);
      if (occluded_at(t, face, tau, xi, yi, contrast > 12) ||
          (occ && vis__occluded(occ, xi, yi))) {
        n_occluded++;
        continue;
      }
      side_seen++;
      side_edge += contrast > 12;
    }
    *seen += side_seen;
    edge += side_edge;
    if (side_seen >= 8) *weakest = fmin(*weakest, (double)side_edge / side_seen);
  }
  if (occluded) *occluded = n_occluded;
  return *seen ? (double)edge / *seen : 0;
}

bool vis__outlined_all_round(const vis__table *t, const vis_rect *r, const vis_rect *others,
                             int n_others, const int16_t *claim) {
  int seen;
  double weakest;
  double e = vis__outline_edges(t, r, others, n_others, claim, &seen, &weakest);
  return seen >= VIS__OUTLINED_SEEN && e >= VIS__OUTLINED_EDGES;
}

/* ---- a hand over a card: the occluder ---- */

/* The table's colours, by where they lie: per histogram bin, the share
 * of the table's cells (OCC_CELL_PX square, mostly outside the object
 * mask) in which it covers OCC_CELL_SHARE of the table's pixels. A
 * cloth's or wood's colours lie all over the table; a hand's or an arm's
 * lie in the few cells it covers, however much of the picture it fills
 * (tuning hard 3009: in the pixels' histogram the hand's own colours held
 * 1-2 % each, as much as the cloth's print). */
#define OCC_CELL_PX 64
#define OCC_CELL_SHARE 0.01
#define OCC_HIST_STEP 4
enum { COLOURS_OK = 1, COLOURS_NONE = 0, COLOURS_NOMEM = -1 }; /* NONE: no table cell */
static int table_colours(const vis__table *t, float *hist) {
  memset(hist, 0, sizeof(float) * VIS__NBINS);
  enum { CELL_SAMPLES = (OCC_CELL_PX / OCC_HIST_STEP) * (OCC_CELL_PX / OCC_HIST_STEP) };
  uint16_t *cnt = calloc(VIS__NBINS, sizeof *cnt);
  if (!cnt) return COLOURS_NOMEM;
  int cells = 0, bins[CELL_SAMPLES];
  for (int cy = 0; cy + OCC_CELL_PX <= t->lab.height; cy += OCC_CELL_PX)
    for (int cx = 0; cx + OCC_CELL_PX <= t->lab.width; cx += OCC_CELL_PX) {
      int n = 0, total = 0, n_bins = 0;
      for (int y = cy; y < cy + OCC_CELL_PX; y += OCC_HIST_STEP) {
        const uint8_t *p = tp_image_row(&t->smooth, y), *q = tp_image_row(&t->rgb, y);
        const uint8_t *m = tp_image_row(&t->object, y);
        for (int x = cx; x < cx + OCC_CELL_PX; x += OCC_HIST_STEP) {
          total++;
          if (!(q[3 * x] | q[3 * x + 1] | q[3 * x + 2]) || m[x]) continue;
          int b = vis__bin(p + 3 * x);
          if (!cnt[b]++) bins[n_bins++] = b;
          n++;
        }
      }
      bool table = 2 * n >= total; /* else mostly objects or unseen */
      cells += table;
      for (int k = 0; k < n_bins; k++) {
        if (table && cnt[bins[k]] >= OCC_CELL_SHARE * n) hist[bins[k]] += 1;
        cnt[bins[k]] = 0;
      }
    }
  free(cnt);
  if (!cells) return COLOURS_NONE;
  for (int k = 0; k < VIS__NBINS; k++) hist[k] /= (float)cells;
  return COLOURS_OK;
}

/* The memo's table colours: the scan above depends on the frame alone
 * (rgb, smooth and the final object mask), but vis__occluder_find is
 * asked for every hypothesis the matcher would refuse and again when a
 * card under a hand settles (callgrind-bench's 1080p frame: 8 asks, 4.1 M
 * instructions a scan; 5073 -> 5050 M with one scan). */
struct vis__table_memo {
  pthread_mutex_t lock;
  enum { MEMO_UNASKED, MEMO_COLOURS, MEMO_NO_CELL } colours;
  float tab[VIS__NBINS];
};

vis__table_memo *vis__table_memo_new(void) {
  vis__table_memo *m = calloc(1, sizeof *m);
  if (m && pthread_mutex_init(&m->lock, NULL)) {
    free(m);
    return NULL;
  }
  return m;
}

void vis__table_memo_free(vis__table_memo *m) {
  if (!m) return;
  pthread_mutex_destroy(&m->lock);
  free(m);
}

/* The table's colours (NULL: none): from t's memo, made by the first
 * caller while the others wait (workers settle cards under a hand);
 * without a memo into *own, which the caller frees. Out of memory is
 * not kept: the next caller tries again. */
static const float *table_colours_of(const vis__table *t, float **own) {
  *own = NULL;
  vis__table_memo *m = t->memo;
  if (!m) {
    *own = malloc(sizeof(float) * VIS__NBINS);
    return *own && table_colours(t, *own) == COLOURS_OK ? *own : NULL;
  }
  pthread_mutex_lock(&m->lock);
  if (m->colours == MEMO_UNASKED) {
    int r = table_colours(t, m->tab);
    if (r != COLOURS_NOMEM) m->colours = r == COLOURS_OK ? MEMO_COLOURS : MEMO_NO_CELL;
  }
  bool ok = m->colours == MEMO_COLOURS;
  pthread_mutex_unlock(&m->lock);
  return ok ? m->tab : NULL;
}

bool vis__occluded(const vis__occluder *oc, double x, double y) {
  int i = vis__round((x - oc->gx0) / oc->step), k = vis__round((y - oc->gy0) / oc->step);
  if (i < 0 || k < 0 || i >= oc->nx || k >= oc->ny) return false;
  return oc->hid[k * oc->nx + i] == 2;
}

void vis__occluder_free(vis__occluder *oc) {
  free(oc->hid);
  oc->hid = NULL;
}

/* Cell states while the occluder is found. */
enum { OCC_NONE, OCC_OUT, OCC_OUT_CORE, OCC_IN, OCC_IN_UNEXPLAINED, OCC_REACHED = 0x80 };

/* A lattice cell's state: not the table's colours (VIS__OCC_TABLE_SHARE),
 * nothing accepted there; outside the card also outside the object mask
 * (no deck colours: no card or carpet not yet accepted), inside it
 * whether the card's face explains it. */
static uint8_t occ_state(const vis__table *t, const vis__frame *f, const vis__face_place *face,
                         double tau, const float *tab, const vis__frame *of, int n_of,
                         const int16_t *claim, int16_t self, double x, double y) {
  int ix = vis__round(x), iy = vis__round(y);
  if (ix < 0 || iy < 0 || ix >= t->lab.width || iy >= t->lab.height) return OCC_NONE;
  const uint8_t *q = tp_image_row(&t->rgb, iy) + 3 * ix;
  if (!(q[0] | q[1] | q[2])) return OCC_NONE;
  if (tab[vis__bin(tp_image_row(&t->smooth, iy) + 3 * ix)] >= VIS__OCC_TABLE_SHARE) return OCC_NONE;
  int16_t c = claim ? claim[iy * t->lab.width + ix] : -1;
  if (c >= 0 && c != self) return OCC_NONE;
  for (int k = 0; k < n_of; k++)
    if (vis__frame_contains(&of[k], x, y, 0)) return OCC_NONE;
  if (vis__frame_contains(f, x, y, 0)) {
    double res = vis__place_residual(t, face, x, y);
    return res < 0 || res >= tau ? OCC_IN_UNEXPLAINED : OCC_IN;
  }
  return tp_image_row(&t->object, iy)[ix] ? OCC_NONE : OCC_OUT;
}

/* Outside the card, thin things (a cloth's print lines, where its colours
 * blend) are no arm: only cells whose VIS__OCC_THIN_MM neighbourhood is
 * all passable carry the flood there. */
static bool occ_core(const vis__occluder *oc, int i, int k, int r) {
  for (int dk = -r; dk <= r; dk++)
    for (int di = -r; di <= r; di++) {
      int a = i + di, b = k + dk;
      if (a < 0 || b < 0 || a >= oc->nx || b >= oc->ny) return false;
      if (oc->hid[b * oc->nx + a] == OCC_NONE) return false;
    }
  return true;
}

/* How many of the n values v[0], v[step], ... within r of each are
 * non-zero, into out[0], out[step], ...: a window sliding along a row or
 * a column (clipped at its ends), each value added and dropped once. */
static void window_counts(const int *v, int n, int step, int r, int *out) {
  int cnt = 0;
  for (int i = 0; i < n && i <= r; i++) cnt += v[i * step] != 0;
  for (int i = 0; i < n; i++) {
    out[i * step] = cnt;
    if (i + r + 1 < n) cnt += v[(i + r + 1) * step] != 0;
    if (i - r >= 0) cnt -= v[(i - r) * step] != 0;
  }
}

/* The occluder's body (cells whose whole 3 x 3 neighbourhood it holds:
 * scattered cells the face leaves unexplained are print, not a hand),
 * grown by VIS__OCC_SHADOW_MM: the hand's shadow lies along it, darker
 * than the face's one gain and offset can follow. 2: hidden, else 0.
 * The growth is the body dilated by a (2r + 1)^2 square, in a row pass
 * and a column pass over scratch (2 nx ny ints): a body cell within r
 * along the row, then such a cell within r along the column. The cell
 * by cell look at all (2r + 1)^2 neighbours it replaces (the same cells
 * hidden) cost 185 M instructions of callgrind-bench's 1080p frame
 * (8 occluders; 81 looks at each cell near no body). */
static void occ_grow(vis__occluder *oc, int *scratch) {
  const int r = (int)VIS__OCC_SHADOW_MM, nx = oc->nx, ny = oc->ny;
  for (int k = 1; k < ny - 1; k++)
    for (int i = 1; i < nx - 1; i++) {
      bool body = oc->hid[k * nx + i] != 0;
      for (int dk = -1; dk <= 1 && body; dk++)
        for (int di = -1; di <= 1 && body; di++) body = oc->hid[(k + dk) * nx + i + di] != 0;
      if (body) oc->hid[k * nx + i] = 3;
    }
  int *is_body = scratch, *in_row = scratch + (size_t)nx * ny;
  for (int q = 0; q < nx * ny; q++) is_body[q] = oc->hid[q] == 3;
  for (int k = 0; k < ny; k++) window_counts(is_body + (size_t)k * nx, nx, 1, r, in_row + (size_t)k * nx);
  for (int i = 0; i < nx; i++) window_counts(in_row + i, ny, nx, r, is_body + i);
  for (int q = 0; q < nx * ny; q++) oc->hid[q] = is_body[q] ? 2 : 0;
}

/* Cell (i, k) lies within d of the box's border. */
static bool occ_near_border(const vis__occluder *oc, int i, int k, int d) {
  return i <= d || k <= d || i >= oc->nx - 1 - d || k >= oc->ny - 1 - d;
}

/* Whether the flood of occ_open_flood has anywhere to start: an outside
 * core cell (occ_core) within VIS__OCC_THIN_MM of the box's border. It
 * reads only the cells within twice that of the border (a core's
 * neighbourhood), so these alone need their state first. */
static bool occ_any_seed(const vis__occluder *oc) {
  const int r = (int)VIS__OCC_THIN_MM;
  for (int k = 0; k < oc->ny; k++)
    for (int i = 0; i < oc->nx; i++)
      if (occ_near_border(oc, i, k, r) && oc->hid[k * oc->nx + i] == OCC_OUT &&
          occ_core(oc, i, k, r))
        return true;
  return false;
}

/* Flooded (8-connected) from the box's border over the outside cores and
 * every passable cell inside the card: what the arm reaching in from
 * beyond covers. The card's unexplained cells it reaches are the
 * occluder (2); everything else 0. */
static void occ_open_flood(vis__occluder *oc, int *queue) {
  const int r = (int)VIS__OCC_THIN_MM, nx = oc->nx, ny = oc->ny;
  int head = 0, tail = 0;
  for (int k = 0; k < ny; k++)
    for (int i = 0; i < nx; i++)
      if (oc->hid[k * nx + i] == OCC_OUT && occ_core(oc, i, k, r)) oc->hid[k * nx + i] = OCC_OUT_CORE;
  for (int k = 0; k < ny; k++)
    for (int i = 0; i < nx; i++)
      if (oc->hid[k * nx + i] == OCC_OUT_CORE && occ_near_border(oc, i, k, r))
        oc->hid[k * nx + i] |= OCC_REACHED, queue[tail++] = k * nx + i;
  while (head < tail) {
    int q = queue[head++], qi = q % nx, qk = q / nx;
    for (int dk = -1; dk <= 1; dk++)
      for (int di = -1; di <= 1; di++) {
        int i = qi + di, k = qk + dk;
        if (i < 0 || k < 0 || i >= nx || k >= ny) continue;
        uint8_t *v = &oc->hid[k * nx + i];
        if (*v != OCC_OUT_CORE && *v != OCC_IN && *v != OCC_IN_UNEXPLAINED) continue;
        *v |= OCC_REACHED;
        queue[tail++] = k * nx + i;
      }
  }
  for (int q = 0; q < nx * ny; q++)
    oc->hid[q] = oc->hid[q] == (OCC_IN_UNEXPLAINED | OCC_REACHED) ? 2 : 0;
  occ_grow(oc, queue);
}

/* The hand's shadow on the card: a hand held above the table casts it
 * offset from the hand (by 19-47 mm in the rendered scenes, a hand 50-125
 * mm high), far past VIS__OCC_SHADOW_MM, and darkens what lies in it as
 * a whole. From the occluder found (2), the flood goes on over the
 * card's cells that the face leaves unexplained and that are darker than
 * it predicts by OCC_SHADOW_DARK or more (vis__place_residual_excess): a
 * shadow joined to the hand (HUNT hard 3952: a spice bazaar 60 % visible
 * under a hand, refused without it). */
#define OCC_SHADOW_DARK 4.0
static bool occ_shadowed(const vis__table *t, const vis__frame *f, const vis__face_place *face,
                         double tau, double x, double y) {
  if (!vis__frame_contains(f, x, y, 0)) return false;
  double excess;
  return vis__place_residual_excess(t, face, x, y, &excess) >= tau &&
         excess <= -OCC_SHADOW_DARK;
}

static void occ_shadow_flood(const vis__table *t, const vis__frame *f,
                             const vis__face_place *face, double tau, vis__occluder *oc,
                             int *queue) {
  const int nx = oc->nx, ny = oc->ny;
  int head = 0, tail = 0;
  for (int q = 0; q < nx * ny; q++)
    if (oc->hid[q] == 2) queue[tail++] = q;
  while (head < tail) {
    int q = queue[head++], qi = q % nx, qk = q / nx;
    for (int dk = -1; dk <= 1; dk++)
      for (int di = -1; di <= 1; di++) {
        int i = qi + di, k = qk + dk;
        if (i < 0 || k < 0 || i >= nx || k >= ny || oc->hid[k * nx + i]) continue;
        oc->hid[k * nx + i] = 1; /* looked at */
        if (!occ_shadowed(t, f, face, tau, oc->gx0 + i * oc->step, oc->gy0 + k * oc->step))
          continue;
        oc->hid[k * nx + i] = 2;
        queue[tail++] = k * nx + i;
      }
  }
  for (int q = 0; q < nx * ny; q++)
    if (oc->hid[q] != 2) oc->hid[q] = 0;
}

int vis__occluder_find(const vis__table *t, const vis__template *tp, const vis__object *o,
                       const vis_rect *others, int n_others, const int16_t *claim, int16_t self,
                       double tau, vis__occluder *oc) {
  memset(oc, 0, sizeof *oc);
  float *own;
  const float *tab = table_colours_of(t, &own);
  if (!tab) {
    free(own);
    return 0;
  }
  const double s = t->px_per_mm, reach = VIS__OCC_REACH_MM * s;
  vis_pt c[4];
  vis_rect_corners(&o->r_px, c);
  double x0 = c[0].x, x1 = c[0].x, y0 = c[0].y, y1 = c[0].y;
  for (int k = 1; k < 4; k++)
    x0 = fmin(x0, c[k].x), x1 = fmax(x1, c[k].x), y0 = fmin(y0, c[k].y), y1 = fmax(y1, c[k].y);
  oc->step = s;
  oc->gx0 = floor(x0) - ceil(reach / s) * s;
  oc->gy0 = floor(y0) - ceil(reach / s) * s;
  oc->nx = (int)((x1 + reach - oc->gx0) / s) + 1;
  oc->ny = (int)((y1 + reach - oc->gy0) / s) + 1;
  size_t n = (size_t)oc->nx * (size_t)oc->ny;
  oc->hid = calloc(n, 1);
  int *queue = malloc(sizeof(int) * 2 * n); /* the flood's queue, then occ_grow's scratch */
  if (!oc->hid || !queue) {
    free(own), free(queue), vis__occluder_free(oc);
    return 0;
  }
  vis__frame f = vis__frame_of(&o->r_px), of[64];
  int n_of = n_others < 64 ? n_others : 64;
  for (int k = 0; k < n_of; k++) of[k] = vis__frame_of(&others[k]);
  vis__face_place face = vis__face_place_of(t, tp, o);
  /* the border band first: with no flood to start (most hypotheses the
   * matcher asks about: phantoms in the open, nothing reaching in from
   * beyond) nothing is hidden, and the cells inside need no state
   * (callgrind-bench's 1080p frame: 8 asks, none hidden: 33.5 -> 14.5 M) */
  const int band = 2 * (int)VIS__OCC_THIN_MM;
  for (int pass = 0; pass < 2; pass++) {
    for (int k = 0; k < oc->ny; k++)
      for (int i = 0; i < oc->nx; i++)
        if (occ_near_border(oc, i, k, band) == (pass == 0))
          oc->hid[k * oc->nx + i] = occ_state(t, &f, &face, tau, tab, of, n_of, claim, self,
                                              oc->gx0 + i * s, oc->gy0 + k * s);
    if (pass == 0 && !occ_any_seed(oc)) {
      free(own), free(queue), vis__occluder_free(oc);
      return 0;
    }
  }
  occ_open_flood(oc, queue);
  occ_shadow_flood(t, &f, &face, tau, oc, queue);
  int inside = 0;
  for (int k = 0; k < oc->ny; k++)
    for (int i = 0; i < oc->nx; i++)
      if (oc->hid[k * oc->nx + i] == 2 && vis__frame_contains(&f, oc->gx0 + i * s, oc->gy0 + k * s, 0))
        inside++;
  free(own), free(queue);
  if (!inside) vis__occluder_free(oc); /* nothing hidden: nothing to free for the caller */
  return inside;
}

/* Thresholds of vis__occluded_card, tuning DEV hard 3009 (a lamp, a hand
 * over its upper half: the occluder and its shadow hide 0.47 of it, the
 * rest 0.950 explained, worst cell 0.956, frame 0.941, outline 0.85 of
 * 199 side samples) against the camel bazaar faces fitted onto that hand
 * (0.94-0.97 explained once the lamp's face under them is hidden, but
 * their outline 0.19-0.27: a face fitted onto a hand has no card edge). */
#define OCC_MIN_SHARE 0.1  /* less is no hand: the plain tests stand */
#define OCC_MAX_SHARE 0.6  /* most of the card hidden: too little to judge */
#define OCC_SCORE 0.9      /* the rest explained as clearly as the matcher's clear score */
#define OCC_RING 0.93      /* its frame, as a card in the open (match.c CLEAR_RING) */
#define OCC_EDGES 0.75     /* its outline where the occluder does not hide it */
#define OCC_EDGE_SEEN 100

/* The face's light fitted again where the occluder leaves the card
 * (per channel photo = gain face + offset, least squares over the
 * samples the last fit explains, OCC_REFITS times, from all of them,
 * kept when it explains more of them than o's light):
 * the object's own fit took the hand in, and a light skin over a card
 * pulled it to L's bounds (held-out 1500034: an adventure a under a
 * hand fitted at gain 0.50 and offset 60 where the other cards of the
 * scene fit at 0.74-0.86 and about 0; the rest then left a cell at 0.81
 * explained). Within the matcher's bounds (vis__light_fit, L's offset
 * +-60 or the washed fit's if o has one). A lifted face (the glare
 * field) keeps its fit. */
#define OCC_REFITS 3
typedef struct {
  double n, s[4][3]; /* vis__light_fit's sums: photo, face, face^2, photo face */
} light_sums;

static void occ_light_sums(const vis__table *t, const fit_job *j, const vis__object *fit,
                           bool all, light_sums *ls) {
  memset(ls, 0, sizeof *ls);
  vis__face_place fp = vis__face_place_of(t, j->place.tp, fit);
  const double s = t->px_per_mm;
  for (double y = floor(j->y0); y <= j->y1; y += s)
    for (double x = floor(j->x0); x <= j->x1; x += s) {
      float f[3], p[3];
      if (!vis__frame_contains(&j->fin, x, y, 0) ||
          hidden_at(t, j->of, j->n_of, j->claim, j->self, x, y) ||
          vis__occluded(j->occ, x, y) || !vis__place_pair(t, &fp, x, y, f, p))
        continue;
      if (!all && vis__place_residual(t, &fp, x, y) >= FIT_TAU) continue;
      ls->n++;
      for (int c = 0; c < 3; c++)
        ls->s[0][c] += p[c], ls->s[1][c] += f[c], ls->s[2][c] += (double)f[c] * f[c],
            ls->s[3][c] += (double)f[c] * p[c];
    }
}

static void occ_refit_light(const vis__table *t, const vis__template *tp, const vis__object *o,
                            const vis_rect *others, int n_others, const int16_t *claim,
                            int16_t self, const vis__occluder *oc, vis__object *fit) {
  *fit = *o;
  if (o->lifted) return;
  fit_job job, *j = &job;
  fit_job_init(j, t, tp, o, others, n_others, claim, self, oc);
  double l_offset_max = fmax(VIS__L_OFFSET_MAX, fabs(o->offset[0]));
  light_sums ls;
  for (int pass = 0; pass < OCC_REFITS; pass++) {
    occ_light_sums(t, j, fit, pass == 0, &ls);
    if (ls.n >= 2)
      vis__light_fit((const double(*)[3])ls.s, ls.n, false, l_offset_max, fit->gain, fit->offset);
  }
}

bool vis__occluded_card(const vis__table *t, const vis__template *tp, const vis__object *o,
                        const vis_rect *others, int n_others, const int16_t *claim, int16_t self,
                        int threads, vis__occluded_fit *of) {
  memset(of, 0, sizeof *of);
  vis__occluder oc;
  of->hidden = vis__occluder_find(t, tp, o, others, n_others, claim, self, FIT_TAU, &oc);
  if (!of->hidden) return false;
  vis__object lit;
  occ_refit_light(t, tp, o, others, n_others, claim, self, &oc, &lit);
  vis__face_fit_measure_occluded(t, tp, &lit, others, n_others, claim, self, &oc, threads,
                                 &of->fit);
  if (!o->lifted) {
    /* least squares is not the matcher's count: the refit must explain
     * more of the rest than o's own light does */
    vis__face_fit own;
    vis__face_fit_measure_occluded(t, tp, o, others, n_others, claim, self, &oc, threads, &own);
    if (of->fit.good <= own.good) lit = *o, of->fit = own;
  }
  vis__face_fit all;
  vis__face_fit_measure_occluded(t, tp, &lit, others, n_others, claim, self, NULL, threads, &all);
  of->share = all.n ? 1 - (double)of->fit.n / all.n : 0;
  of->edges = outline_edges(t, &o->r_px, others, n_others, claim, NULL, 0, &oc, true,
                            &of->seen, &of->weakest, &of->occluded);
  vis__occluder_free(&oc);
  const vis__face_fit *ff = &of->fit;
  return of->share >= OCC_MIN_SHARE && of->share <= OCC_MAX_SHARE && !vis__face_fit_no_card(ff) &&
         !vis__face_fit_poor(ff) && ff->score >= OCC_SCORE && ff->ring >= OCC_RING &&
         of->seen >= OCC_EDGE_SEEN && of->edges >= OCC_EDGES;
}
