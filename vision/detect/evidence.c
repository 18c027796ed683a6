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
#include <math.h>
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

/* Table pixel (x, y) hidden from the card: under another object (others,
 * grown by 1 mm), or claimed by an object accepted before `self`. */
static bool hidden_at(const vis__table *t, const vis__frame *others, int n_others,
                      const int16_t *claim, int16_t self, double x, double y) {
  for (int k = 0; k < n_others; k++)
    if (vis__frame_contains(&others[k], x, y, t->px_per_mm)) return true;
  if (!claim) return false;
  int ix = (int)lround(x), iy = (int)lround(y);
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

static void tally_band(void *ctx, int worker, int band) {
  (void)worker;
  fit_job *j = ctx;
  tally_rows(j, band * j->n_rows / j->n_bands, (band + 1) * j->n_rows / j->n_bands,
             &j->tally[band]);
}

void vis__face_fit_measure(const vis__table *t, const vis__template *tp, const vis__object *o,
                           const vis_rect *others, int n_others, const int16_t *claim,
                           int16_t self, int threads, vis__face_fit *ff) {
  *ff = (vis__face_fit){0, 1, 1, 0, 0, 1};
  const double s = t->px_per_mm, margin = FIT_MARGIN_MM * s;
  vis_rect in = o->r_px;
  in.w -= 2 * margin, in.h -= 2 * margin;
  fit_job job, *j = &job;
  memset(j, 0, sizeof *j);
  j->t = t;
  j->place = vis__face_place_of(t, tp, o);
  j->f = vis__frame_of(&o->r_px);
  j->fin = vis__frame_of(&in);
  j->n_of = n_others < 64 ? n_others : 64;
  for (int k = 0; k < j->n_of; k++) j->of[k] = vis__frame_of(&others[k]);
  j->claim = claim;
  j->self = self;
  j->ring = FIT_RING_MM * s;
  vis_pt c[4];
  vis_rect_corners(&o->r_px, c);
  j->x0 = c[0].x, j->x1 = c[0].x, j->y0 = c[0].y, j->y1 = c[0].y;
  for (int k = 1; k < 4; k++)
    j->x0 = fmin(j->x0, c[k].x), j->x1 = fmax(j->x1, c[k].x), j->y0 = fmin(j->y0, c[k].y),
    j->y1 = fmax(j->y1, c[k].y);
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

double vis__outline_edges_unoccluded(const vis__table *t, const vis_rect *r,
                                     const vis_rect *others, int n_others, const int16_t *claim,
                                     const vis__face_place *face, double tau, int *seen,
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
  const double off = 1.5 * t->px_per_mm; /* 1.5 mm either side */
  for (int k = 0; k < 4; k++) {
    vis_pt a = c[k], b = c[(k + 1) % 4];
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
      if (occluded_at(t, face, tau, xi, yi, contrast > 12)) {
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
