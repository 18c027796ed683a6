/* reference: a flight frame analysed against the layout reference
 * (issue 8).
 *
 * During a game the layout cards are seen once, unoccluded, before any
 * carpet flies. What each card looked like then (its "patch": the
 * rectified, smoothed Lab pixels at 1 sample per mm along its axes) is the
 * best possible face model of it: same print, same light, same camera. A
 * flight frame is then a much easier problem than analyze's: the cards,
 * their types and poses are known; only the carpets and who lies on top
 * must be found.
 *
 * Stages (vis_profile):
 *   mapping   the rectified table, as vis_analyze makes it
 *   detect    object mask and corner hypotheses, plus every reference
 *             card's own rectangle as a hypothesis
 *   identify  the matcher (match.c) with the carpet faces and the cards'
 *             own patches as templates: a carpet hypothesis that is just
 *             a reference card is explained by that card's patch better
 *             than by any carpet face, so it never becomes a carpet
 *   stacking  matched cards -> reference slots (same type, nearest, within
 *             a bump's reach); a card not matched (covered, or bumped and
 *             half hidden) is looked for near its reference pose with its
 *             patch; then every carpet overlap is decided from its pixels:
 *             the card's patch or the carpet's face, whichever explains
 *             them; visible fractions from the decided stacking. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cvw.h"
#include "vision_internal.h"


/* Template index of reference slot s (kept apart from carpet indices, so
 * that the matcher never takes a card for a carpet of the same index). */
enum { REF_INDEX_BASE = 1000 };

/* How far a carpet can push a card and it is still the same card (mm). */
#define REF_BUMP_MM 150.0
/* Residual below which a sample is explained (as the matcher's). */
#define REF_TAU 35.0
/* A bare-table cell differs (0.5 |dL| + |da| + |db| of its means after
 * the global light change): above sensor noise and JPEG, below any carpet
 * print's contrast with a table. */
#define REF_CHANGED 10.0

typedef struct {
  bool present; /* false once taken away */
  int type;
  bool upside_down;    /* of the reference vis_card, passed through */
  vis_rect rect;       /* table mm, the pose at layout */
  vis__template patch; /* what it looked like, along rect's axes */
} ref_card;

/* The table with no carpet on it (vis_reference_set_table): mean Lab of
 * cells of REF_CELL_MM on a grid in table mm. */
#define REF_CELL_MM 5.0
typedef struct {
  double x0_mm, y0_mm; /* corner of cell (0, 0) */
  int nx, ny;
  float *lab;     /* nx * ny * 3 */
  uint8_t *seen;  /* per cell: the camera saw it */
} bare_table;

/* The last decided frame (vis_reference_set_decided): its cells, and
 * its carpets, card poses and overlaps as decided. */
typedef struct {
  bare_table cells; /* lab NULL when none is set */
  vis_carpet *carpets;
  int n_carpets;
  vis_rect *card_rect; /* per slot: its pose then */
  bool *card_live;     /* per slot: present and not gone then */
  int n_cards;
  vis_overlap *overlaps;
  int n_overlaps;
} decided_frame;

struct vis_reference {
  ref_card *cards;
  int n, cap;
  bare_table bare; /* lab NULL until set */
  decided_frame last;
};

static void bare_free(bare_table *g) {
  free(g->lab);
  free(g->seen);
  memset(g, 0, sizeof *g);
}

static void decided_free(decided_frame *d) {
  bare_free(&d->cells);
  free(d->carpets);
  free(d->card_rect);
  free(d->card_live);
  free(d->overlaps);
  memset(d, 0, sizeof *d);
}

void vis_reference_forget_decided(vis_reference *ref) {
  if (ref) decided_free(&ref->last);
}

/* ------------------------------------------------------ the handle */

tp_status vis_reference_create(vis_reference **out, tp_error *err) {
  if (!out)
    return tp_error_set(err, TP_ERR_INVALID,
                        "vis_reference_create: out is NULL");
  *out = calloc(1, sizeof **out);
  if (!*out)
    return tp_error_set(err, TP_ERR_NOMEM,
                        "out of memory for the layout reference");
  return TP_OK;
}

void vis_reference_destroy(vis_reference *ref) {
  if (!ref) return;
  for (int i = 0; i < ref->n; i++)
    vis__template_free(&ref->cards[i].patch);
  free(ref->cards);
  bare_free(&ref->bare);
  decided_free(&ref->last);
  free(ref);
}

int vis_reference_card_count(const vis_reference *ref) {
  return ref ? ref->n : 0;
}

void vis_reference_remove_card(vis_reference *ref, int i) {
  if (!ref || i < 0 || i >= ref->n) return;
  ref->cards[i].present = false;
  vis__template_free(&ref->cards[i].patch); /* its pixels are no use now */
}

/* ------------------------------------------------ sampling helpers */

/* Table pixel of template sample (i, j) of tp lying at r (pixels). */
static vis_pt sample_point(const vis__template *tp, const vis_rect *r,
                           double ax, double ay, double lx, double ly, int i,
                           int j) {
  double dx = (i + 0.5) * tp->w_mm / tp->w - tp->w_mm / 2;
  double dy = (j + 0.5) * tp->h_mm / tp->h - tp->h_mm / 2;
  vis_pt p = {r->center.x + dx * ax + dy * lx, r->center.y + dx * ay + dy * ly};
  return p;
}

/* The samples of a rectangle (table pixels) along its own axes: every
 * step px, rows and columns from margin px inside its outline to margin
 * px inside the opposite side. table_share, card_evidence and
 * own_evidence walk their rectangles with it. */
typedef struct {
  double cx, cy, ux, uy, vx, vy; /* centre; unit axes along h and along w */
  double p, p_end, q, q_start, q_end, step;
} rect_samples;

static rect_samples samples_of(const vis_rect *r, double margin, double step) {
  double a = r->angle_deg * VIS_PI / 180.0;
  rect_samples g;
  g.cx = r->center.x, g.cy = r->center.y;
  g.ux = cos(a), g.uy = sin(a), g.vx = -g.uy, g.vy = g.ux;
  g.p = -r->h / 2 + margin, g.p_end = r->h / 2 - margin;
  g.q = g.q_start = -r->w / 2 + margin, g.q_end = r->w / 2 - margin;
  g.step = step;
  if (g.q_start > g.q_end) g.p = g.p_end + 1; /* no column: no sample */
  return g;
}

/* The next sample's table pixel; false after the last. */
static bool next_sample(rect_samples *g, double *x, double *y) {
  if (g->q > g->q_end) {
    g->q = g->q_start;
    g->p += g->step;
  }
  if (g->p > g->p_end) return false;
  *x = g->cx + g->p * g->ux + g->q * g->vx;
  *y = g->cy + g->p * g->uy + g->q * g->vy;
  g->q += g->step;
  return true;
}

/* Fills the patch (allocated here) from the table at r (pixels). Samples
 * the camera did not see get the mean of those it saw. Returns the share
 * of samples seen. */
static double sample_patch(const vis__table *t, const vis_rect *r,
                           vis__template *p) {
  double ax, ay, lx, ly, sum[3] = {0, 0, 0};
  vis__face_axes(r, t->px_per_mm, false, &ax, &ay, &lx, &ly);
  int seen = 0, n = p->w * p->h;
  uint8_t *ok = calloc((size_t)n, 1);
  if (!ok) return 0;
  for (int j = 0; j < p->h; j++)
    for (int i = 0; i < p->w; i++) {
      vis_pt q = sample_point(p, r, ax, ay, lx, ly, i, j);
      float *f = p->lab + 3 * ((size_t)j * p->w + i);
      if (!vis__table_lab(t, q.x, q.y, f)) continue;
      ok[j * p->w + i] = 1;
      seen++;
      for (int k = 0; k < 3; k++)
        sum[k] += f[k];
    }
  for (int s = 0; seen && s < n; s++)
    if (!ok[s])
      for (int k = 0; k < 3; k++)
        p->lab[3 * s + k] = (float)(sum[k] / seen);
  free(ok);
  return (double)seen / n;
}

/* ------------------------------------------------------ add cards */

static tp_status check_frame(const tp_image *rgb, const vis_table_map *map,
                             tp_error *err) {
  if (!rgb || !rgb->data || rgb->channels != 3 || rgb->width < 16 ||
      rgb->height < 16)
    return tp_error_set(err, TP_ERR_INVALID,
                        "the reference analysis needs an RGB image");
  if (!map || !map->table_to_image)
    return tp_error_set(err, TP_ERR_INVALID,
                        "the reference analysis needs the table mapping");
  return TP_OK;
}

static bool rect_sane(const vis_rect *r) {
  return isfinite(r->center.x) && isfinite(r->center.y) &&
         isfinite(r->angle_deg) && fabs(r->center.x) < 1e5 &&
         fabs(r->center.y) < 1e5;
}

static tp_status check_cards(const vis_card *cards, int n, tp_error *err) {
  for (int i = 0; i < n; i++) {
    if (cards[i].type < 0 || cards[i].type >= VIS_TYPE_COUNT)
      return tp_error_set(
          err, TP_ERR_INVALID,
          "reference card %d has no type (%d): add only identified cards", i,
          cards[i].type);
    if (!rect_sane(&cards[i].rect))
      return tp_error_set(err, TP_ERR_INVALID,
                          "reference card %d has no valid pose", i);
  }
  return TP_OK;
}

static tp_status grow(vis_reference *ref, int more, tp_error *err) {
  if (ref->n + more <= ref->cap) return TP_OK;
  int cap = ref->cap ? ref->cap : 16;
  while (cap < ref->n + more)
    cap *= 2;
  ref_card *c = realloc(ref->cards, sizeof *c * (size_t)cap);
  if (!c)
    return tp_error_set(err, TP_ERR_NOMEM,
                        "out of memory for the layout reference");
  ref->cards = c;
  ref->cap = cap;
  return TP_OK;
}

/* One card's patch at its pose in the table t. */
static tp_status make_patch(const vis__table *t, const vis_deck *deck,
                            const vis_card *c, int i, ref_card *out,
                            tp_error *err) {
  memset(out, 0, sizeof *out);
  out->present = true;
  out->type = c->type;
  out->upside_down = c->upside_down;
  out->rect = c->rect;
  vis__template *p = &out->patch;
  /* the deck's card size: the matcher's hypotheses are of that size */
  p->kind = VIS__FACE_TYPE;
  p->w_mm = deck->card_mm[0];
  p->h_mm = deck->card_mm[1];
  p->w = (int)lround(p->w_mm);
  p->h = (int)lround(p->h_mm);
  out->rect.w = p->w_mm;
  out->rect.h = p->h_mm;
  p->lab = malloc(sizeof(float) * 3 * (size_t)p->w * (size_t)p->h);
  if (!p->lab)
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory for a card's patch");
  vis_rect r = vis__rect_mm_to_px(t, &out->rect);
  if (sample_patch(t, &r, p) < 0.5) {
    vis__template_free(p);
    return tp_error_set(
        err, TP_ERR_INVALID,
        "reference card %d at (%.0f, %.0f) mm lies mostly outside the picture",
        i, c->rect.center.x, c->rect.center.y);
  }
  return TP_OK;
}

tp_status vis_reference_add_cards(vis_reference *ref, vis_analyzer *an,
                                  const tp_image *rgb, const vis_table_map *map,
                                  const vis_card *cards, int n, tp_error *err) {
  if (!ref || !an)
    return tp_error_set(err, TP_ERR_INVALID,
                        "vis_reference_add_cards: no reference or analyzer");
  if (n < 0 || (n > 0 && !cards))
    return tp_error_set(err, TP_ERR_INVALID,
                        "vis_reference_add_cards: no cards (n = %d)", n);
  if (n == 0) return TP_OK;
  tp_status st = check_frame(rgb, map, err);
  if (!st) st = check_cards(cards, n, err);
  if (!st) st = grow(ref, n, err);
  if (st) return st;
  vis__table t = {0};
  st = vis__analyzer_rectify(an, rgb, map, &t, err);
  ref_card *fresh = calloc((size_t)n, sizeof *fresh);
  if (!st && !fresh)
    st = tp_error_set(err, TP_ERR_NOMEM,
                      "out of memory for the layout reference");
  int made = 0;
  for (; !st && made < n; made++)
    st = make_patch(&t, vis__analyzer_deck(an), &cards[made], made,
                    &fresh[made], err);
  if (!st) { /* all or nothing: indices must not shift by a failed card */
    for (int i = 0; i < n; i++) {
      fresh[i].patch.index = REF_INDEX_BASE + ref->n;
      ref->cards[ref->n++] = fresh[i];
    }
  } else {
    for (int i = 0; fresh && i < made; i++)
      vis__template_free(&fresh[i].patch);
  }
  free(fresh);
  vis__table_free(&t);
  return st;
}

/* ------------------------------------------------ the bare table */

/* Mean smoothed Lab of cell (cx, cy) of the grid: one table pixel per
 * mm (the smoothing already averages over about a mm; every pixel cost
 * 0.3 G instructions per 720p frame); false if the camera saw none. */
static bool cell_mean(const vis__table *t, const bare_table *g, int cx,
                      int cy, float out[3]) {
  vis_pt a = {g->x0_mm + cx * REF_CELL_MM, g->y0_mm + cy * REF_CELL_MM};
  vis_pt p0 = vis__mm_to_px(t, a);
  const double s = t->px_per_mm;
  const int step = s > 1 ? (int)s : 1, W = t->lab.width, H = t->lab.height;
  const int x0 = vis__round(p0.x + s / 2), y0 = vis__round(p0.y + s / 2);
  const int x1 = (int)fmin(W, p0.x + REF_CELL_MM * s),
            y1 = (int)fmin(H, p0.y + REF_CELL_MM * s);
  unsigned sum[3] = {0, 0, 0}, n = 0;
  for (int y = y0 < 0 ? 0 : y0; y < y1; y += step) {
    const uint8_t *lab = tp_image_row(&t->smooth, y),
                  *rgb = tp_image_row(&t->rgb, y);
    for (int x = x0 < 0 ? 0 : x0; x < x1; x += step) {
      const uint8_t *c = rgb + 3 * x, *l = lab + 3 * x;
      if (!(c[0] | c[1] | c[2])) continue; /* the camera saw nothing */
      sum[0] += l[0], sum[1] += l[1], sum[2] += l[2];
      n++;
    }
  }
  for (int k = 0; k < 3; k++)
    out[k] = n ? (float)sum[k] / (float)n : 0;
  return n > 0;
}

/* A frame's cell means on grid g, one row of cells per item on the
 * workers (each writes only its own cells: the same for any number of
 * workers). */
typedef struct {
  const vis__table *t;
  const bare_table *g;
  const uint8_t *asked; /* the cells to measure, NULL: all */
  float *mean;          /* 3 per cell */
  uint8_t *seen;        /* asked and seen in this frame */
} cells_job;

static void cell_row_item(void *ctx, int worker, int cy) {
  (void)worker;
  const cells_job *j = ctx;
  for (int cx = 0; cx < j->g->nx; cx++) {
    size_t c = (size_t)cy * j->g->nx + cx;
    j->seen[c] = (!j->asked || j->asked[c]) && cell_mean(j->t, j->g, cx, cy, j->mean + 3 * c);
  }
}

/* The cells of a frame (rectified here). */
static tp_status frame_cells(vis_analyzer *an, const tp_image *rgb,
                             const vis_table_map *map, bare_table *out,
                             tp_error *err) {
  tp_status st = check_frame(rgb, map, err);
  if (st) return st;
  vis__table t = {0};
  st = vis__analyzer_rectify(an, rgb, map, &t, err);
  bare_table g = {0};
  if (!st) {
    g.x0_mm = t.x0_mm;
    g.y0_mm = t.y0_mm;
    g.nx = (int)(t.lab.width / t.px_per_mm / REF_CELL_MM);
    g.ny = (int)(t.lab.height / t.px_per_mm / REF_CELL_MM);
    g.lab = malloc(sizeof(float) * 3 * ((size_t)g.nx * g.ny + 1));
    g.seen = calloc((size_t)g.nx * g.ny + 1, 1);
    if (!g.lab || !g.seen)
      st = tp_error_set(err, TP_ERR_NOMEM, "out of memory for the bare table");
  }
  if (!st) {
    cells_job job = {&t, &g, NULL, g.lab, g.seen};
    vis__parallel_for(t.threads, g.ny, cell_row_item, &job);
  }
  vis__table_free(&t);
  if (st) {
    bare_free(&g);
    return st;
  }
  *out = g;
  return TP_OK;
}

tp_status vis_reference_set_table(vis_reference *ref, vis_analyzer *an,
                                  const tp_image *rgb,
                                  const vis_table_map *map, tp_error *err) {
  if (!ref || !an)
    return tp_error_set(err, TP_ERR_INVALID,
                        "vis_reference_set_table: no reference or analyzer");
  bare_table g;
  tp_status st = frame_cells(an, rgb, map, &g, err);
  if (st) return st;
  bare_free(&ref->bare);
  ref->bare = g;
  decided_free(&ref->last); /* a carpet-free table: nothing lies there */
  return TP_OK;
}

/* The decided result must be one of this reference's (its card slots)
 * and its carpets and overlaps must make sense: it is kept. */
static tp_status check_decided(const vis_reference *ref, const vis_result *d,
                               tp_error *err) {
  if (!d || d->n_cards != ref->n || d->n_carpets < 0 || d->n_overlaps < 0 ||
      (d->n_cards && !d->cards) || (d->n_carpets && !d->carpets) ||
      (d->n_overlaps && !d->overlaps))
    return tp_error_set(
        err, TP_ERR_INVALID,
        "vis_reference_set_decided: the result is not an analysis against "
        "this reference (%d cards, the reference has %d)",
        d ? d->n_cards : -1, ref->n);
  for (int i = 0; i < d->n_carpets; i++)
    if (!rect_sane(&d->carpets[i].rect) || d->carpets[i].carpet < 0 ||
        d->carpets[i].carpet >= VIS_MAX_CARPETS)
      return tp_error_set(err, TP_ERR_INVALID,
                          "vis_reference_set_decided: carpet %d has no valid "
                          "pose or colour",
                          i);
  for (int i = 0; i < d->n_overlaps; i++) {
    const vis_overlap *o = &d->overlaps[i];
    int lim = o->other_is_carpet ? d->n_carpets : d->n_cards;
    if (o->carpet < 0 || o->carpet >= d->n_carpets || o->other < 0 ||
        o->other >= lim)
      return tp_error_set(err, TP_ERR_INVALID,
                          "vis_reference_set_decided: overlap %d names no "
                          "carpet or card of the result",
                          i);
  }
  return TP_OK;
}

tp_status vis_reference_set_decided(vis_reference *ref, vis_analyzer *an,
                                    const tp_image *rgb,
                                    const vis_table_map *map,
                                    const vis_result *decided, tp_error *err) {
  if (!ref || !an)
    return tp_error_set(err, TP_ERR_INVALID,
                        "vis_reference_set_decided: no reference or analyzer");
  tp_status st = check_decided(ref, decided, err);
  if (st) return st;
  decided_frame d = {0};
  st = frame_cells(an, rgb, map, &d.cells, err);
  if (st) return st;
  d.n_carpets = decided->n_carpets;
  d.n_cards = decided->n_cards;
  d.n_overlaps = decided->n_overlaps;
  d.carpets = malloc(sizeof *d.carpets * ((size_t)d.n_carpets + 1));
  d.card_rect = malloc(sizeof *d.card_rect * ((size_t)d.n_cards + 1));
  d.card_live = malloc(sizeof *d.card_live * ((size_t)d.n_cards + 1));
  d.overlaps = malloc(sizeof *d.overlaps * ((size_t)d.n_overlaps + 1));
  if (!d.carpets || !d.card_rect || !d.card_live || !d.overlaps) {
    decided_free(&d);
    return tp_error_set(err, TP_ERR_NOMEM,
                        "out of memory for the decided frame");
  }
  if (d.n_carpets)
    memcpy(d.carpets, decided->carpets, sizeof *d.carpets * (size_t)d.n_carpets);
  if (d.n_overlaps)
    memcpy(d.overlaps, decided->overlaps,
           sizeof *d.overlaps * (size_t)d.n_overlaps);
  for (int s = 0; s < d.n_cards; s++) {
    const vis_card *c = &decided->cards[s];
    d.card_rect[s] = c->rect;
    d.card_live[s] = ref->cards[s].present && c->type >= 0 && !c->gone &&
                     rect_sane(&c->rect);
  }
  decided_free(&ref->last);
  ref->last = d;
  return TP_OK;
}

/* ------------------------------------------------ fitting a patch */

/* Per-channel gain/offset of a face to the observed samples, clamped as
 * the matcher's fit (light changes brightness a lot, colour little). */
static void fit_gain(const double so[3], const double sf[3],
                     const double sff[3], const double sof[3], int n,
                     double gain[3], double offset[3]) {
  for (int c = 0; c < 3; c++) {
    double m = n > 0 ? n : 1, mf = sf[c] / m, mo = so[c] / m;
    double var = sff[c] / m - mf * mf, cov = sof[c] / m - mf * mo;
    double g = var > 4 ? cov / var : 1;
    double lo = c == 0 ? 0.5 : 0.8, hi = c == 0 ? 1.8 : 1.25;
    g = fmin(hi, fmax(lo, g));
    double off = mo - g * mf, base = c == 0 ? 0 : 128 * (1 - g),
           lim = c == 0 ? 60 : 14;
    gain[c] = g;
    offset[c] = fmin(base + lim, fmax(base - lim, off));
  }
}

static const double channel_weight[3] = {0.5, 1.0, 1.0};

static double residual(const float *lab, const float *f, const double gain[3],
                       const double offset[3]) {
  double r = 0;
  for (int c = 0; c < 3; c++)
    r += channel_weight[c] * fabs(lab[c] - (gain[c] * f[c] + offset[c]));
  return r;
}

/* Rectangles (table pixels) that hide samples. */
typedef struct {
  vis__frame f[64];
  int n;
} covers;

static bool covered(const covers *cv, double x, double y) {
  for (int k = 0; k < cv->n; k++)
    if (vis__frame_contains(&cv->f[k], x, y, 0)) return true;
  return false;
}

/* Fits o's gain/offset for template tp at o->r_px over the samples (every
 * step-th mm) that no cover hides: least squares, then again on the
 * samples explained (what lies on it or glare are outliers). Returns the
 * share of those samples the fitted patch explains; *n_out how many. */
static double fit_patch(const vis__table *t, const vis__template *tp,
                        vis__object *o, const covers *cv, int step,
                        int *n_out) {
  double ax, ay, lx, ly;
  vis__face_axes(&o->r_px, t->px_per_mm, o->flipped, &ax, &ay, &lx, &ly);
  double gain[3] = {1, 1, 1}, offset[3] = {0, 0, 0};
  int n = 0, good = 0;
  for (int pass = 0; pass < 3; pass++) {
    double so[3] = {0}, sf[3] = {0}, sff[3] = {0}, sof[3] = {0};
    int n_fit = 0;
    n = good = 0;
    for (int j = step / 2; j < tp->h; j += step)
      for (int i = step / 2; i < tp->w; i += step) {
        vis_pt q = sample_point(tp, &o->r_px, ax, ay, lx, ly, i, j);
        float lab[3];
        if (covered(cv, q.x, q.y) || !vis__table_lab(t, q.x, q.y, lab)) continue;
        const float *f = tp->lab + 3 * ((size_t)j * tp->w + i);
        n++;
        bool ok = residual(lab, f, gain, offset) < REF_TAU;
        good += ok;
        if (pass > 0 && !ok) continue; /* refit on the inliers */
        n_fit++;
        for (int c = 0; c < 3; c++)
          so[c] += lab[c], sf[c] += f[c], sff[c] += f[c] * f[c],
              sof[c] += lab[c] * f[c];
      }
    if (pass == 2 || n_fit < 8) break;
    fit_gain(so, sf, sff, sof, n_fit, gain, offset);
  }
  memcpy(o->gain, gain, sizeof gain);
  memcpy(o->offset, offset, sizeof offset);
  *n_out = n;
  return n ? (double)good / n : 0;
}

/* ------------------------------------------------- the frame's objects */

/* Where a present card still shows as at layout (its patch, fitted at
 * its reference pose, explains the pixel), found per table pixel when
 * first asked: the tests ask on a 4 px grid inside hypotheses, so most
 * pixels of the cards are never looked at (the whole mask cost 166 M
 * instructions per 960x540 frame). One memo per worker: the hypotheses
 * are tested on the workers, and a memo only remembers answers, so a
 * pixel looked at by two workers gets the same answer twice. */
typedef struct {
  uint8_t *memo[VIS__MAX_THREADS]; /* per worker, per table pixel: 0 not
                                      looked at, 1 card, 2 not */
  int n_memo;
  vis__object *fit; /* per slot: its patch fitted at the reference pose */
  int (*box)[4];    /* per slot: x0, y0, x1, y1 (table pixels, inclusive);
                       empty for a slot not present */
} unchanged_cards;

/* A card slot or a carpet in the frame being analysed. */
typedef struct {
  vis__object o;            /* pose (table pixels), face, gain/offset */
  const vis__template *tpl; /* the card's patch or the carpet's face */
  bool card;
  bool present;     /* a card slot not taken away (carpets: true) */
  int index;        /* slot, or carpet index in the result */
  double explained; /* share of its unhidden samples its patch explains */
  int seen;         /* samples of it that no carpet hides */
  bool gone;        /* a card slot whose place shows the table: taken */
  int known;        /* a carpet of the decided frame (its index there) at
                       the same pose, or -1 */
} ref_obj;

typedef struct {
  const vis_analyzer *an;
  const vis_reference *ref;
  const vis__table *t;
  const vis_table_map *map; /* the photo's table mapping (its pixel scale) */
  vis__template *tpl; /* carpets, backs and patches (lab shared, not owned) */
  int n_tpl;
  double *scale; /* per object: the table's scale for its contacts (carpets) */
  double *own_scale; /* per object: a carpet's own apparent scale, NaN: not measured */
  ref_obj *obj; /* ref->n slots, then the carpets */
  int n_obj;
  unchanged_cards unchanged; /* where a card as at layout shows */
  uint8_t *changed; /* per cell of the baseline: changed since; or NULL */
  int n_new;        /* carpets of this frame's matcher: obj[ref->n ..
                       ref->n + n_new); the decided frame's kept ones
                       follow */
} frame;

static int n_carpets_of(const frame *fr) {
  return fr->n_obj - fr->ref->n;
}

/* The matcher's templates: the deck's carpet faces and backs, and per
 * card type one face: the patch of the first present reference card of
 * that type, or the deck's face when no reference card has it (those
 * explain cards not in the reference, not reported, which would
 * otherwise be taken for carpets). One patch per type, not one per card,
 * for speed (the matcher's work grows with its templates: 24 card faces
 * cost half as much again as 12): cards of a type are printed alike, and
 * each slot is placed with its own patch afterwards (the matcher's object
 * only says where a card of that type lies). */
static tp_status gather_templates(frame *fr, tp_error *err) {
  int n_an;
  const vis__template *an_tpl = vis__analyzer_templates(fr->an, &n_an);
  fr->tpl = calloc((size_t)(n_an + fr->ref->n + 1), sizeof *fr->tpl);
  if (!fr->tpl)
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory for the templates");
  for (int i = 0; i < n_an; i++) {
    const vis__template *tp = &an_tpl[i];
    int s = 0;
    while (tp->kind == VIS__FACE_TYPE && s < fr->ref->n &&
           !(fr->ref->cards[s].present && fr->ref->cards[s].type == tp->index))
      s++;
    fr->tpl[fr->n_tpl++] = tp->kind == VIS__FACE_TYPE && s < fr->ref->n
                               ? fr->ref->cards[s].patch
                               : *tp;
  }
  return TP_OK;
}

static void unchanged_free(unchanged_cards *u) {
  for (int w = 0; w < u->n_memo; w++) free(u->memo[w]);
  free(u->fit);
  free(u->box);
  memset(u, 0, sizeof *u);
}

typedef struct {
  const frame *fr;
  const vis__table *t;
  unchanged_cards *u;
  const vis_rect *hyps;
  const int *which; /* the hypothesis of each item */
  double *share;    /* per hypothesis */
} unchanged_job;

/* Slot s's patch fitted at its reference pose, and its box (each item
 * writes only its own slot). */
static void unchanged_fit_item(void *ctx, int worker, int s) {
  (void)worker;
  const unchanged_job *j = ctx;
  const vis__table *t = j->t;
  const ref_card *rc = &j->fr->ref->cards[s];
  int W = t->lab.width, H = t->lab.height;
  int *box = j->u->box[s];
  box[0] = box[1] = 0, box[2] = box[3] = -1;
  if (!rc->present) return;
  vis__object *o = &j->u->fit[s];
  o->r_px = vis__rect_mm_to_px(t, &rc->rect);
  int n_fit;
  covers none = {.n = 0};
  fit_patch(t, &rc->patch, o, &none, 2, &n_fit);
  vis_pt c[4];
  vis_rect_corners(&o->r_px, c);
  double x0 = c[0].x, x1 = c[0].x, y0 = c[0].y, y1 = c[0].y;
  for (int k = 1; k < 4; k++)
    x0 = fmin(x0, c[k].x), x1 = fmax(x1, c[k].x), y0 = fmin(y0, c[k].y),
    y1 = fmax(y1, c[k].y);
  box[0] = (int)fmax(0, x0), box[1] = (int)fmax(0, y0);
  box[2] = (int)fmin(W - 1, x1), box[3] = (int)fmin(H - 1, y1);
}

/* Every present card's patch fitted at its reference pose, and its box,
 * on `threads` workers. */
static tp_status unchanged_prepare(const frame *fr, const vis__table *t, int threads,
                                   unchanged_cards *u, tp_error *err) {
  int W = t->lab.width, H = t->lab.height, n = fr->ref->n;
  /* the calling thread's memo here (place_carpets asks it later); the
   * other workers make and zero their own when they first need one
   * (unchanged_share_item): 2.4 MB each at 960x540, off this thread */
  u->n_memo = t->threads < 1 ? 1 : t->threads > VIS__MAX_THREADS ? VIS__MAX_THREADS : t->threads;
  u->memo[0] = calloc((size_t)W * (size_t)H, 1);
  u->fit = calloc((size_t)n + 1, sizeof *u->fit);
  u->box = calloc((size_t)n + 1, sizeof *u->box);
  if (!u->memo[0] || !u->fit || !u->box) {
    unchanged_free(u);
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory for the change mask");
  }
  unchanged_job job = {.fr = fr, .t = t, .u = u};
  vis__parallel_for(threads, n, unchanged_fit_item, &job);
  return TP_OK;
}

/* Does a card as at layout show at table pixel (x, y)? memo: a worker's. */
static bool unchanged_at(const frame *fr, const vis__table *t, uint8_t *memo, int x, int y) {
  const unchanged_cards *u = &fr->unchanged;
  uint8_t *m = &memo[(size_t)y * t->lab.width + x];
  for (int s = 0; !*m && s < fr->ref->n; s++) {
    const int *b = u->box[s];
    if (x < b[0] || y < b[1] || x > b[2] || y > b[3]) continue;
    double r =
        vis__object_residual(t, &fr->ref->cards[s].patch, &u->fit[s], x, y);
    if (r >= 0 && r < REF_TAU) *m = 1;
  }
  if (!*m) *m = 2;
  return *m == 1;
}

/* Share of the rectangle's area (4 px grid) that is unchanged card. */
static double unchanged_share(const frame *fr, const vis__table *t, uint8_t *memo,
                              const vis_rect *r) {
  vis__frame f = vis__frame_of(r);
  vis_pt c[4];
  vis_rect_corners(r, c);
  double x0 = c[0].x, x1 = c[0].x, y0 = c[0].y, y1 = c[0].y;
  for (int k = 1; k < 4; k++)
    x0 = fmin(x0, c[k].x), x1 = fmax(x1, c[k].x), y0 = fmin(y0, c[k].y),
    y1 = fmax(y1, c[k].y);
  int n = 0, same = 0, W = t->lab.width, H = t->lab.height;
  for (int y = (int)fmax(0, y0); y <= (int)fmin(H - 1, y1); y += 4)
    for (int x = (int)fmax(0, x0); x <= (int)fmin(W - 1, x1); x += 4)
      if (vis__frame_contains(&f, x, y, 0))
        n++, same += unchanged_at(fr, t, memo, x, y);
  return n ? (double)same / n : 0;
}

/* Speed: a hypothesis that lies on cards unchanged since the layout is
 * one of those cards (or several side by side), never a carpet: the
 * matcher need not score it against every face. (A carpet that slid
 * almost wholly under a card is lost with them: under 10 % of it shows.)
 * Why not also drop what lies on bare table: the object mask, the only
 * table test at hand, misses carpets on tables of a similar colour (a
 * green carpet 24 % "object" on the tests' table). */
static void unchanged_share_item(void *ctx, int worker, int item) {
  const unchanged_job *j = ctx;
  uint8_t **memo = &j->u->memo[worker]; /* only this worker's thread touches it */
  if (!*memo) *memo = calloc((size_t)j->t->lab.width * (size_t)j->t->lab.height, 1);
  int i = j->which[item];
  j->share[i] = *memo ? unchanged_share(j->fr, j->t, *memo, &j->hyps[i]) : -1;
}

/* The unchanged shares of the hypotheses which[0..n) into share[which[k]],
 * on `threads` workers (unchanged_prepare first). */
static tp_status unchanged_shares(frame *fr, const vis__table *t, const vis_rect *hyps,
                                  const int *which, int n, int threads, double *share,
                                  tp_error *err) {
  unchanged_job job = {fr, t, &fr->unchanged, hyps, which, share};
  vis__parallel_for(threads, n, unchanged_share_item, &job);
  for (int k = 0; k < n; k++)
    if (share[which[k]] < 0) /* a worker had no memory for its memo */
      return tp_error_set(err, TP_ERR_NOMEM, "out of memory for the change mask");
  return TP_OK;
}

/* ------------------------------------------ where the frame changed */

/* The k-th smallest of v[0..n) (k < n, from 0): the value a sort would
 * put at v[k] (v is reordered). Hoare's selection: partition around the
 * middle element and go on in the part holding k, about 3n comparisons
 * where the change mask's full sorts of ~10^4 cells cost ~15n. */
float vis__kth_smallest(float *v, size_t n, size_t k) {
  ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, want = (ptrdiff_t)k;
  while (lo < hi) {
    float pivot = v[lo + (hi - lo) / 2];
    ptrdiff_t i = lo, j = hi;
    while (i <= j) { /* after it: v[lo..j] <= pivot <= v[i..hi], between = pivot */
      while (v[i] < pivot) i++;
      while (v[j] > pivot) j--;
      if (i <= j) {
        float swap = v[i];
        v[i++] = v[j];
        v[j--] = swap;
      }
    }
    if (want <= j)
      hi = j;
    else if (want >= i)
      lo = i;
    else
      break;
  }
  return v[want];
}

/* Per bare-table cell: 1 where this frame differs from the bare table
 * (a carpet, a hand, a card moved or taken), after the frame's global
 * light change (median L ratio, median a/b shift over all cells) is
 * taken out; 0 where it is the same or was not seen. NULL without a bare
 * table. A lamp's local glare shows as changed: that costs only time. */
/* What a frame is compared with: the last decided frame if one is set,
 * else the bare table (lab NULL: neither). */
static const bare_table *baseline(const vis_reference *ref) {
  return ref->last.cells.lab ? &ref->last.cells : &ref->bare;
}

static tp_status change_mask(const vis_reference *ref, const vis__table *t, int threads,
                             uint8_t **out, tp_error *err) {
  *out = NULL;
  const bare_table *g = baseline(ref);
  if (!g->lab) return TP_OK;
  size_t n = (size_t)g->nx * g->ny;
  float *now = malloc(sizeof(float) * 3 * (n + 1));
  float *d[3] = {malloc(sizeof(float) * (n + 1)), malloc(sizeof(float) * (n + 1)),
                 malloc(sizeof(float) * (n + 1))};
  uint8_t *m = calloc(n + 1, 1), *ok = calloc(n + 1, 1);
  tp_status st = TP_OK;
  if (!now || !d[0] || !d[1] || !d[2] || !m || !ok) {
    st = tp_error_set(err, TP_ERR_NOMEM, "out of memory for the change mask");
    goto done;
  }
  cells_job job = {t, g, g->seen, now, ok};
  vis__parallel_for(threads, g->ny, cell_row_item, &job);
  size_t k = 0;
  for (size_t c = 0; c < n; c++) {
    if (!ok[c]) continue;
    const float *b = g->lab + 3 * c, *f = now + 3 * c;
    d[0][k] = (f[0] + 1) / (b[0] + 1);
    d[1][k] = f[1] - b[1];
    d[2][k] = f[2] - b[2];
    k++;
  }
  float med[3] = {1, 0, 0};
  for (int ch = 0; ch < 3 && k; ch++) {
    med[ch] = vis__kth_smallest(d[ch], k, k / 2);
  }
  for (size_t c = 0; c < n; c++) {
    if (!ok[c]) continue;
    const float *b = g->lab + 3 * c, *f = now + 3 * c;
    double diff = 0.5 * fabs(f[0] + 1 - med[0] * (b[0] + 1)) +
                  fabs(f[1] - b[1] - med[1]) + fabs(f[2] - b[2] - med[2]);
    m[c] = diff > REF_CHANGED;
  }
  *out = m;
  m = NULL;
done:
  free(now);
  for (int ch = 0; ch < 3; ch++)
    free(d[ch]);
  free(m);
  free(ok);
  return st;
}

/* Share of the rectangle (table pixels, every 2 mm) lying on changed
 * cells, not counting what lies within a cell's diagonal of the covers
 * (if any): a cell across a cover's outline changed with it. */
static double changed_share(const vis_reference *ref, const vis__table *t,
                            const uint8_t *cm, const vis_rect *r,
                            const covers *cv) {
  const double near = REF_CELL_MM * 1.5 * t->px_per_mm;
  const bare_table *g = baseline(ref);
  const double s = t->px_per_mm, step = 2 * s;
  double a = r->angle_deg * VIS_PI / 180.0;
  double ux = cos(a), uy = sin(a), vx = -uy, vy = ux;
  int n = 0, changed = 0;
  for (double p = -r->h / 2 + step / 2; p < r->h / 2; p += step)
    for (double q = -r->w / 2 + step / 2; q < r->w / 2; q += step) {
      vis_pt px = {r->center.x + p * ux + q * vx, r->center.y + p * uy + q * vy};
      vis_pt mm = vis__px_to_mm(t, px);
      int cx = (int)floor((mm.x - g->x0_mm) / REF_CELL_MM),
          cy = (int)floor((mm.y - g->y0_mm) / REF_CELL_MM);
      bool hidden = false;
      for (int k = 0; cv && k < cv->n && !hidden; k++)
        hidden = vis__frame_contains(&cv->f[k], px.x, px.y, near);
      if (hidden) continue;
      n++;
      if (cx >= 0 && cy >= 0 && cx < g->nx && cy < g->ny)
        changed += cm[(size_t)cy * g->nx + cx];
    }
  return n ? (double)changed / n : 0;
}

/* Speed: with a bare table, a carpet shows where the frame changed, so a
 * hypothesis lying mostly on unchanged cells (cards as at layout, bare
 * table) is no carpet and the matcher need not score it. (A carpet of
 * which under 20 % shows, the rest under cards, is lost.) The shares are
 * measured on the workers (140 M instructions of a 960x540 flight frame
 * in one thread before). */
typedef struct {
  const frame *fr;
  const vis__table *t;
  const vis_rect *hyps;
  int from;      /* the first item's hypothesis */
  double *share; /* per hypothesis */
} share_job;

/* One hypothesis's changed share (each item writes only its own). */
static void changed_share_item(void *ctx, int worker, int item) {
  (void)worker;
  const share_job *j = ctx;
  int i = j->from + item;
  j->share[i] = changed_share(j->fr->ref, j->t, j->fr->changed, &j->hyps[i], NULL);
}

/* The changed shares of hyps[from..to) into share[from..to), on
 * `threads` workers (with a change mask). */
static void changed_shares(const frame *fr, const vis__table *t, const vis_rect *hyps,
                           int from, int to, int threads, double *share) {
  share_job job = {fr, t, hyps, from, share};
  vis__parallel_for(threads, to - from, changed_share_item, &job);
}

/* The unchanged test asks only what the changed test keeps (the cheap
 * test first: the cells' means are there, the card pixels are looked at
 * only for what is left). */
#define REF_KEEP_CHANGED 0.2   /* changed share at least this */
#define REF_DROP_UNCHANGED 0.9 /* unchanged share at least this: dropped */

/* Speed: both tests read only the frame and their hypothesis, so those
 * of the outline corners are measured while LSD finds its segments
 * (vis__hypotheses' hook; about 200 M instructions of a 960x540 flight
 * frame that waited for LSD's box run), and LSD's corners once they are
 * listed. Each share is its own hypothesis's, so the same are kept. The
 * matcher's first look at the outline corners kept is taken there too
 * (vis__match_ahead_make: it depends on the hypothesis alone). */
typedef struct {
  frame *fr;
  const vis__table *t;
  const vis__match_params *mp;
  tp_error *err;
  tp_status st;
  bool done;         /* the outline corners' shares are measured */
  int n;             /* outline corners (the list's first n) */
  double *changed;   /* per outline corner, with a change mask */
  double *unchanged; /* per outline corner the changed test keeps */
  vis__match_ahead *ahead; /* the matcher's looks at those kept, or NULL */
} early_shares;

static bool kept_by_changes(const frame *fr, const double *changed, int i) {
  return !fr->changed || changed[i] >= REF_KEEP_CHANGED;
}

/* The matcher's first looks at the outline corners hyps[which[0..n)]
 * that the unchanged test keeps (in the list's order). */
static void look_ahead(early_shares *es, const vis_rect *hyps, const int *which, int n,
                       int threads) {
  vis_rect *kept = malloc(sizeof *kept * ((size_t)n + 1));
  if (!kept) return; /* the matcher looks at them itself */
  int n_kept = 0;
  for (int k = 0; k < n; k++)
    if (es->unchanged[which[k]] < REF_DROP_UNCHANGED) kept[n_kept++] = hyps[which[k]];
  vis__match_ahead_make(es->t, es->fr->tpl, es->fr->n_tpl, kept, n_kept, es->mp, threads,
                        &es->ahead);
  free(kept);
}

/* The change mask, the cards' fits at layout, the outline corners'
 * shares and the matcher's looks at those kept (vis__outline_hook). */
static void measure_outline_shares(void *ctx, const vis_rect *hyps, int n, int threads) {
  early_shares *es = ctx;
  frame *fr = es->fr;
  const vis__table *t = es->t;
  es->done = true;
  es->n = n;
  es->changed = malloc(sizeof(double) * ((size_t)n + 1));
  es->unchanged = malloc(sizeof(double) * ((size_t)n + 1));
  int *which = malloc(sizeof(int) * ((size_t)n + 1));
  if (!es->changed || !es->unchanged || !which) {
    es->st = tp_error_set(es->err, TP_ERR_NOMEM, "out of memory for the change mask");
  } else {
    es->st = change_mask(fr->ref, t, threads, &fr->changed, es->err);
  }
  if (!es->st && fr->changed) changed_shares(fr, t, hyps, 0, n, threads, es->changed);
  if (!es->st) es->st = unchanged_prepare(fr, t, threads, &fr->unchanged, es->err);
  int n_which = 0;
  for (int i = 0; !es->st && i < n; i++)
    if (kept_by_changes(fr, es->changed, i)) which[n_which++] = i;
  if (!es->st)
    es->st = unchanged_shares(fr, t, hyps, which, n_which, threads, es->unchanged, es->err);
  if (!es->st) look_ahead(es, hyps, which, n_which, threads);
  free(which);
}

/* Drops the hypotheses the two tests drop (the outline corners' shares
 * measured ahead, LSD's corners' now), keeping the list's order. */
static tp_status drop_by_shares(frame *fr, const vis__table *t, const early_shares *es,
                                vis_rect *hyps, int *n_hyps, tp_error *err) {
  int n = *n_hyps, n0 = es->n;
  double *changed = malloc(sizeof(double) * ((size_t)n + 1));
  double *unchanged = malloc(sizeof(double) * ((size_t)n + 1));
  int *which = malloc(sizeof(int) * ((size_t)n + 1));
  tp_status st = TP_OK;
  if (!changed || !unchanged || !which) {
    st = tp_error_set(err, TP_ERR_NOMEM, "out of memory for the change mask");
    goto done;
  }
  if (fr->changed) {
    memcpy(changed, es->changed, sizeof(double) * (size_t)n0);
    changed_shares(fr, t, hyps, n0, n, t->threads, changed);
  }
  int n_which = 0;
  for (int i = n0; i < n; i++)
    if (kept_by_changes(fr, changed, i)) which[n_which++] = i;
  memcpy(unchanged, es->unchanged, sizeof(double) * (size_t)n0);
  st = unchanged_shares(fr, t, hyps, which, n_which, t->threads, unchanged, err);
  if (st) goto done;
  int kept = 0;
  for (int i = 0; i < n; i++)
    if (kept_by_changes(fr, changed, i) && unchanged[i] < REF_DROP_UNCHANGED)
      hyps[kept++] = hyps[i];
  *n_hyps = kept;
done:
  free(changed);
  free(unchanged);
  free(which);
  return st;
}

/* Object mask and corner hypotheses as vis_analyze makes them, plus every
 * present reference card's rectangle (exact where it did not move);
 * *ahead: the matcher's looks at some of them (mp: its parameters). */
static tp_status hypotheses(frame *fr, vis__table *t, const vis__match_params *mp,
                            vis_rect **hyps, int *n_hyps, vis__match_ahead **ahead,
                            tp_error *err) {
  const vis_deck *d = vis__analyzer_deck(fr->an);
  double s = t->px_per_mm;
  const double sizes[2][2] = {{d->card_mm[0] * s, d->card_mm[1] * s},
                              {d->carpet_mm[0] * s, d->carpet_mm[1] * s}};
  bool same = fabs(sizes[0][0] - sizes[1][0]) < 0.5 &&
              fabs(sizes[0][1] - sizes[1][1]) < 0.5;
  tp_status st = vis__object_mask(t, vis__analyzer_object_hist(fr->an), err);
  if (!st)
    st = cvw_mask_fill_holes(&t->object, 0.5 * sizes[0][0] * sizes[0][1], err);
  vis_rect *places = malloc(sizeof *places * (size_t)(fr->ref->n + 1));
  int n_places = 0;
  if (!places && !st) st = tp_error_set(err, TP_ERR_NOMEM, "out of memory for the hypotheses");
  for (int i = 0; places && i < fr->ref->n; i++)
    if (fr->ref->cards[i].present)
      places[n_places++] = vis__rect_mm_to_px(t, &fr->ref->cards[i].rect);
  early_shares es = {.fr = fr, .t = t, .mp = mp, .err = err};
  const vis__outline_hook hook = {measure_outline_shares, &es};
  if (!st)
    st = vis__hypotheses(t, sizes, same ? 1 : 2, places, n_places, &hook, hyps, n_hyps, err);
  if (!st && !es.done) measure_outline_shares(&es, *hyps, 0, t->threads);
  if (!st) st = es.st;
  if (!st) st = drop_by_shares(fr, t, &es, *hyps, n_hyps, err);
  free(es.changed);
  free(es.unchanged);
  *ahead = es.ahead;
  vis_rect *more = st ? NULL : realloc(*hyps, sizeof **hyps * (size_t)(*n_hyps + n_places + 1));
  if (!more && !st) st = tp_error_set(err, TP_ERR_NOMEM, "out of memory for the hypotheses");
  if (more) {
    *hyps = more;
    memcpy(more + *n_hyps, places, sizeof *places * (size_t)n_places);
    *n_hyps += n_places;
  }
  free(places);
  return st;
}

/* The reference slot of a card's patch, -1 for a deck face. */
static int slot_of_template(const vis__template *tp) {
  return tp->kind == VIS__FACE_TYPE && tp->index >= REF_INDEX_BASE
             ? tp->index - REF_INDEX_BASE
             : -1;
}

/* The card type a template shows, -1 for a carpet. */
static int type_of_template(const vis_reference *ref, const vis__template *tp) {
  if (tp->kind != VIS__FACE_TYPE) return -1;
  int s = slot_of_template(tp);
  return s >= 0 ? ref->cards[s].type : tp->index;
}

static const vis__template *patch_of(const frame *fr, int slot) {
  return &fr->ref->cards[slot].patch;
}

typedef struct {
  int obj, slot;
  double d;
} pairing;

static int by_distance(const void *pa, const void *pb) {
  const pairing *a = pa, *b = pb;
  if (a->d != b->d) return a->d < b->d ? -1 : 1;
  return a->obj != b->obj ? a->obj - b->obj : a->slot - b->slot;
}

/* Matched cards -> reference slots: of the same type (two palaces look
 * alike, so the patch that won need not be this very card's), nearest
 * first, within a bump's reach. slot_obj[s] gets the matcher's object or
 * -1. */
static tp_status assign_cards(const frame *fr, const vis__object *acc,
                              int n_acc, int *slot_obj, tp_error *err) {
  const vis_reference *ref = fr->ref;
  for (int s = 0; s < ref->n; s++)
    slot_obj[s] = -1;
  pairing *p = malloc(sizeof *p * ((size_t)n_acc * (size_t)ref->n + 1));
  bool *taken = calloc((size_t)n_acc + 1, 1);
  if (!p || !taken) {
    free(p);
    free(taken);
    return tp_error_set(err, TP_ERR_NOMEM,
                        "out of memory while tracking cards");
  }
  int n = 0;
  for (int i = 0; i < n_acc; i++) {
    int type = type_of_template(ref, &fr->tpl[acc[i].face]);
    if (type < 0) continue;
    vis_pt c = vis__px_to_mm(fr->t, acc[i].r_px.center);
    for (int s = 0; s < ref->n; s++) {
      if (!ref->cards[s].present || ref->cards[s].type != type) continue;
      double d = hypot(c.x - ref->cards[s].rect.center.x,
                       c.y - ref->cards[s].rect.center.y);
      if (d <= REF_BUMP_MM) p[n++] = (pairing){i, s, d};
    }
  }
  qsort(p, (size_t)n, sizeof *p, by_distance);
  for (int k = 0; k < n; k++)
    if (slot_obj[p[k].slot] < 0 && !taken[p[k].obj]) {
      slot_obj[p[k].slot] = p[k].obj;
      taken[p[k].obj] = true;
    }
  free(p);
  free(taken);
  return TP_OK;
}

/* The carpets' rectangles as covers of the cards' samples. */
static void carpet_covers(const frame *fr, covers *cv) {
  cv->n = 0;
  for (int i = fr->ref->n; i < fr->n_obj && cv->n < 64; i++)
    cv->f[cv->n++] = vis__frame_of(&fr->obj[i].o.r_px);
}

/* Slot s's patch at the pose of the matcher's object (which may have won
 * with a look-alike's patch): the turn that explains more, refitted. */
static void place_found(frame *fr, ref_obj *ro, const vis__object *m,
                        const covers *cv) {
  ro->o = *m;
  double best = -1;
  vis__object keep = ro->o;
  for (int fl = 0; fl < 2; fl++) {
    vis__object o = *m;
    o.flipped = fl ? !m->flipped : m->flipped;
    int n;
    double e = fit_patch(fr->t, ro->tpl, &o, cv, 2, &n);
    if (e > best) best = e, keep = o, ro->seen = n;
  }
  ro->o = keep;
  ro->explained = best;
}

/* Explained samples of slot's patch at o's pose (fitted there). */
static int patch_support(const frame *fr, const vis__template *tp,
                         vis__object *o, const covers *cv, int step,
                         double *share) {
  int n;
  *share = fit_patch(fr->t, tp, o, cv, step, &n);
  return (int)lround(*share * n);
}

/* The card where it was at layout: fitted there, nothing else. */
static void place_at_reference(frame *fr, ref_obj *ro, const vis_rect *ref_px,
                               const covers *cv) {
  memset(&ro->o, 0, sizeof ro->o);
  ro->o.r_px = *ref_px;
  ro->o.face = -1;
  ro->explained = fit_patch(fr->t, ro->tpl, &ro->o, cv, 2, &ro->seen);
}

enum { REF_MIN_SEEN = 60 }; /* samples at step 2: about 2.4 cm^2 */

/* Does the card still show where it was? (A card mostly covered cannot
 * tell: it stays.) */
static bool still_there(const ref_obj *ro) {
  return ro->seen < REF_MIN_SEEN || ro->explained >= 0.6;
}

/* Share of the rectangle's samples (every 2 mm, 3 mm inside its outline)
 * that no carpet hides and the object mask calls table; *n how many
 * samples no carpet hides. */
static double table_share(const vis__table *t, const vis_rect *r_px,
                          const covers *cv, int *n) {
  const double s = t->px_per_mm;
  rect_samples g = samples_of(r_px, 3 * s, 2 * s);
  int table = 0;
  double x, y;
  *n = 0;
  while (next_sample(&g, &x, &y)) {
    int ix = vis__round(x), iy = vis__round(y);
    if (ix < 0 || iy < 0 || ix >= t->object.width || iy >= t->object.height ||
        covered(cv, x, y))
      continue;
    (*n)++;
    table += tp_image_row(&t->object, iy)[ix] == 0;
  }
  return *n ? (double)table / *n : 0;
}

/* A card that does not show where it was, and that the matcher did not
 * find elsewhere: bumped and mostly hidden now. Its patch is looked for
 * in a window around the reference pose (a carpet pushes a card some cm
 * and turns it some degrees, never far). */
static void search_bumped(frame *fr, ref_obj *ro, const vis_rect *ref_px,
                          const covers *cv) {
  double s = fr->t->px_per_mm, share, best_share = 0;
  vis__object best = ro->o, o = ro->o;
  int best_count = -1;
  for (double da = -15; da <= 15; da += 5)
    for (double dy = -40; dy <= 40; dy += 5)
      for (double dx = -40; dx <= 40; dx += 5) {
        o.r_px = *ref_px;
        o.r_px.center.x += dx * s, o.r_px.center.y += dy * s,
            o.r_px.angle_deg += da;
        int c = patch_support(fr, ro->tpl, &o, cv, 4, &share);
        if (c > best_count) best_count = c, best = o, best_share = share;
      }
  /* the last millimetres and degrees: coordinate descent */
  double step = 2 * s, astep = 2;
  int cur = patch_support(fr, ro->tpl, &best, cv, 2, &best_share);
  for (int round = 0; round < 3; round++, step /= 2, astep /= 2) {
    bool moved = true;
    for (int it = 0; moved && it < 8; it++) {
      moved = false;
      const double d[6][3] = {{step, 0, 0},  {-step, 0, 0}, {0, step, 0},
                              {0, -step, 0}, {0, 0, astep}, {0, 0, -astep}};
      for (int k = 0; k < 6; k++) {
        o = best;
        o.r_px.center.x += d[k][0], o.r_px.center.y += d[k][1],
            o.r_px.angle_deg += d[k][2];
        int c = patch_support(fr, ro->tpl, &o, cv, 2, &share);
        if (c > cur) cur = c, best = o, best_share = share, moved = true;
      }
    }
  }
  int n;
  if (best_share < 0.7 || cur < REF_MIN_SEEN ||
      table_share(fr->t, &best.r_px, cv, &n) >= 0.5)
    return; /* nowhere near, or plain table it explains: stays */
  ro->explained = fit_patch(fr->t, ro->tpl, &best, cv, 2, &ro->seen);
  ro->o = best;
}

static bool near_pose(const vis_rect *a, const vis_rect *b, double px,
                      double deg) {
  double da = fmod(fabs(a->angle_deg - b->angle_deg), 180);
  return hypot(a->center.x - b->center.x, a->center.y - b->center.y) <= px &&
         fmin(da, 180 - da) <= deg;
}

/* Slot s: where it was, unless the pixels say it moved. Cards rarely move
 * (a bump is the exception), and a look-alike phantom near a covered
 * card must not pull it away: the matcher's object counts only when it
 * is at the reference pose, or when the card no longer shows there and
 * the object explains it well. */
static void place_slot(frame *fr, ref_obj *ro, const vis_rect *ref_px,
                       const vis__object *m, const covers *cv) {
  place_at_reference(fr, ro, ref_px, cv);
  double s = fr->t->px_per_mm;
  if (m) {
    ref_obj cand = *ro;
    place_found(fr, &cand, m, cv);
    bool same_place = near_pose(&m->r_px, ref_px, 5 * s, 4);
    if (same_place || (!still_there(ro) && m->score >= 0.8 &&
                       cand.explained >= 0.8 && cand.seen >= REF_MIN_SEEN)) {
      *ro = cand;
      return;
    }
  }
  if (!still_there(ro)) search_bumped(fr, ro, ref_px, cv);
}

/* The table around a card as a few colours (k-means of a ring 4 to 12 mm
 * outside its rectangle, where no card slot and no carpet lies): a
 * cloth's print or a wood's grain has two or three, and one plain mean
 * lies between them and explains neither; on a beige cloth with blue
 * lines a card's print beat that mean where the card had been taken
 * (tuning seeds 3008, 3019 hard). */
#define REF_PALETTE 3
typedef struct {
  double lab[REF_PALETTE][3];
} table_palette;

static double colour_distance(const float lab[3], const double c[3]) {
  double d = 0;
  for (int k = 0; k < 3; k++)
    d += channel_weight[k] * fabs(lab[k] - c[k]);
  return d;
}

/* The palette colour nearest to lab: its distance. */
static double palette_residual(const table_palette *tp, const float lab[3]) {
  double best = 1e9;
  for (int k = 0; k < REF_PALETTE; k++)
    best = fmin(best, colour_distance(lab, tp->lab[k]));
  return best;
}

/* A few rounds of k-means over the n samples (3 floats each), started
 * from samples spread over the ring. */
static void cluster_colours(const float *lab, int n, table_palette *tp) {
  for (int k = 0; k < REF_PALETTE; k++)
    for (int ch = 0; ch < 3; ch++)
      tp->lab[k][ch] = lab[3 * (size_t)(k * n / REF_PALETTE) + ch];
  for (int round = 0; round < 8; round++) {
    double sum[REF_PALETTE][3] = {{0}};
    int count[REF_PALETTE] = {0};
    for (int i = 0; i < n; i++) {
      int near = 0;
      double near_d = colour_distance(lab + 3 * (size_t)i, tp->lab[0]);
      for (int k = 1; k < REF_PALETTE; k++) {
        double d = colour_distance(lab + 3 * (size_t)i, tp->lab[k]);
        if (d < near_d) near = k, near_d = d;
      }
      count[near]++;
      for (int ch = 0; ch < 3; ch++)
        sum[near][ch] += lab[3 * (size_t)i + ch];
    }
    for (int k = 0; k < REF_PALETTE; k++)
      for (int ch = 0; count[k] && ch < 3; ch++)
        tp->lab[k][ch] = sum[k][ch] / count[k];
  }
}

/* The ring around a card: 4 to 12 mm outside its rectangle (fin), off
 * the other present card slots; x0..y1 bound its outer rectangle. */
typedef struct {
  vis__frame fin, fout;
  double x0, y0, x1, y1;
  vis__frame others[64];
  int n_others;
} card_ring;

static card_ring ring_of(const frame *fr, const vis_rect *r_px, int self) {
  const double s = fr->t->px_per_mm;
  card_ring g;
  vis_rect out = *r_px;
  out.w += 24 * s, out.h += 24 * s;
  g.fin = vis__frame_of(r_px), g.fout = vis__frame_of(&out);
  vis_pt c[4];
  vis_rect_corners(&out, c);
  g.x0 = g.x1 = c[0].x, g.y0 = g.y1 = c[0].y;
  for (int k = 1; k < 4; k++)
    g.x0 = fmin(g.x0, c[k].x), g.x1 = fmax(g.x1, c[k].x),
    g.y0 = fmin(g.y0, c[k].y), g.y1 = fmax(g.y1, c[k].y);
  g.n_others = 0;
  for (int k = 0; k < fr->ref->n && g.n_others < 64; k++)
    if (k != self && fr->ref->cards[k].present) {
      vis_rect rk = vis__rect_mm_to_px(fr->t, &fr->ref->cards[k].rect);
      g.others[g.n_others++] = vis__frame_of(&rk);
    }
  return g;
}

static bool in_ring(const card_ring *g, double s, double x, double y) {
  if (!vis__frame_contains(&g->fout, x, y, 0) ||
      vis__frame_contains(&g->fin, x, y, 4 * s))
    return false;
  for (int k = 0; k < g->n_others; k++)
    if (vis__frame_contains(&g->others[k], x, y, 2 * s)) return false;
  return true;
}

/* The ring's palette (every 2 mm); false when too little of it shows. */
static bool ring_palette(const frame *fr, const vis_rect *r_px, int self,
                         const covers *cv, table_palette *tp) {
  const vis__table *t = fr->t;
  const double s = t->px_per_mm;
  card_ring ring = ring_of(fr, r_px, self);
  size_t cap = (size_t)((ring.x1 - ring.x0) / (2 * s) + 2) *
               (size_t)((ring.y1 - ring.y0) / (2 * s) + 2);
  float *lab = malloc(sizeof(float) * 3 * cap);
  int n = 0;
  for (double y = ring.y0; lab && y <= ring.y1; y += 2 * s)
    for (double x = ring.x0; x <= ring.x1 && (size_t)n < cap; x += 2 * s)
      if (in_ring(&ring, s, x, y) && !covered(cv, x, y) &&
          vis__table_lab(t, x, y, lab + 3 * (size_t)n))
        n++;
  if (n >= 20) cluster_colours(lab, n, tp);
  free(lab);
  return n >= 20;
}

/* Of the card's samples no carpet hides (every 2 mm, 2 mm inside): how
 * many its fitted patch explains clearly better than the table's
 * palette (card), and how many the palette explains clearly better than
 * the patch (table). A card lying there shows its print, which the patch
 * explains to the noise; where it was taken, the table shows, and the
 * patch (fitted with a gain and offset that let plain card areas explain
 * a plain table) cannot explain the table's print where its own print
 * differs. */
typedef struct {
  int n, card, table;
} place_votes;

static place_votes card_evidence(const frame *fr, const ref_obj *ro,
                                 const table_palette *tp, const covers *cv) {
  const vis__table *t = fr->t;
  const double s = t->px_per_mm;
  rect_samples g = samples_of(&ro->o.r_px, 2 * s, 2 * s);
  place_votes v = {0, 0, 0};
  double x, y;
  while (next_sample(&g, &x, &y)) {
    float lab[3];
    if (covered(cv, x, y) || !vis__table_lab(t, x, y, lab)) continue;
    double rp = vis__object_residual(t, ro->tpl, &ro->o, x, y);
    if (rp < 0) continue;
    double rt = palette_residual(tp, lab);
    v.n++;
    v.card += rp + 8 < rt;
    v.table += rt + 8 < rp;
  }
  return v;
}

/* Taken away: where the card lay (or where the bump search left it) the
 * pixels show the table: the card's patch explains clearly better than
 * the table's palette on under a tenth of the samples no carpet hides,
 * and the palette clearly better than the patch on 40 % or more. On a
 * plain table a card with large plain areas leaves less for the palette
 * to win (0.30 on tuning seeds 3011, 3012 hard, the patch winning
 * nowhere): there the object mask, reliable on plain tables, seeing table
 * on half of it, the patch winning on under 1 % and the palette on a
 * fifth will do. The mask alone cannot tell on cloth (96 % "table" on a
 * card still lying; 96 % "object" on the cloth where one was taken, seed
 * 3081). Tuning seeds easy 3100..3139 and hard 3100..3123 (the cards
 * past the mask test), hard 3140..3164 (all cards): 1176 cards lying,
 * 169 taken; the patch won on 0.035 or more of a card lying (the lowest,
 * mostly hidden, with the palette winning on 0.30: kept by the 1 %) and
 * on 0.06 or less of a card taken, the palette on 0.38 or more of those.
 * A card mostly under carpets cannot tell: it stays. */
static bool taken_away(const frame *fr, const ref_obj *ro, const covers *cv) {
  int n;
  table_palette tp;
  double share = table_share(fr->t, &ro->o.r_px, cv, &n);
  if (n < REF_MIN_SEEN / 2 ||
      !ring_palette(fr, &ro->o.r_px, ro->index, cv, &tp))
    return false;
  place_votes v = card_evidence(fr, ro, &tp, cv);
  if (v.n < REF_MIN_SEEN / 2) return false;
  double card = (double)v.card / v.n, table = (double)v.table / v.n;
  return (card < 0.1 && table >= 0.4) ||
         (share >= 0.5 && card < 0.01 && table >= 0.2);
}

/* The slots placed at once, one item each (parallel.c): a slot's
 * placement writes only its own fr->obj[s] and reads the table, the
 * reference, the matcher's objects and the carpets' covers, never
 * another slot's placement. */
typedef struct {
  frame *fr;
  const vis__object *acc;
  const int *slot_obj; /* per slot: the matcher's object or -1 */
  const covers *cv;
} slot_job;

static void place_slot_item(void *ctx, int worker, int s) {
  (void)worker;
  const slot_job *j = ctx;
  frame *fr = j->fr;
  const vis_reference *ref = fr->ref;
  ref_obj *ro = &fr->obj[s];
  memset(ro, 0, sizeof *ro);
  ro->card = true;
  ro->index = s;
  ro->present = ref->cards[s].present;
  if (!ro->present) return;
  ro->tpl = patch_of(fr, s);
  vis_rect ref_px = vis__rect_mm_to_px(fr->t, &ref->cards[s].rect);
  place_slot(fr, ro, &ref_px, j->slot_obj[s] >= 0 ? &j->acc[j->slot_obj[s]] : NULL, j->cv);
  ro->gone = taken_away(fr, ro, j->cv);
}

/* Every present slot's object: the matcher's, or placed from the
 * reference. Carpets must be in fr->obj already (they hide samples). */
static tp_status place_cards(frame *fr, const vis__object *acc, int n_acc,
                             tp_error *err) {
  const vis_reference *ref = fr->ref;
  int *slot_obj = malloc(sizeof(int) * ((size_t)ref->n + 1));
  if (!slot_obj)
    return tp_error_set(err, TP_ERR_NOMEM,
                        "out of memory while tracking cards");
  tp_status st = assign_cards(fr, acc, n_acc, slot_obj, err);
  covers cv;
  carpet_covers(fr, &cv);
  slot_job job = {fr, acc, slot_obj, &cv};
  if (!st) vis__parallel_for(fr->t->threads, ref->n, place_slot_item, &job);
  free(slot_obj);
  return st;
}

/* Two carpets never lie exactly on each other: a second one at the pose
 * of one accepted before (its other face or a look-alike colour, all of
 * it hidden under the first) is the same carpet. */
static bool duplicate_carpet(const frame *fr, int n, const vis_rect *r_px) {
  double s = fr->t->px_per_mm;
  for (int k = fr->ref->n; k < n; k++) {
    const vis_rect *o = &fr->obj[k].o.r_px;
    double da = fmod(fabs(o->angle_deg - r_px->angle_deg), 180);
    if (hypot(o->center.x - r_px->center.x, o->center.y - r_px->center.y) <=
            3 * s &&
        fmin(da, 180 - da) <= 4)
      return true;
  }
  return false;
}

static double resid_at(const frame *fr, const ref_obj *ro, double x, double y) {
  double r = vis__object_residual(fr->t, ro->tpl, &ro->o, x, y);
  return r < 0 ? 1e9 : r;
}

static bool live(const ref_obj *ro) {
  return ro->present && !ro->gone && ro->tpl;
}

/* In the overlap of carpet a and object b (1 mm grid, 1.5 mm off both
 * outlines), whose face do the pixels show? Each sample goes to the object
 * explaining it clearly best among all lying there: a third carpet on the
 * overlap takes its samples instead of voting at random. */
static vis__evidence evidence_within(const frame *fr, int a, int b, double margin_mm,
                                     double step_mm) {
  vis__evidence e = {0, 0, 0, 0};
  const vis__table *t = fr->t;
  const double margin = margin_mm * t->px_per_mm,
               step = fmax(1, step_mm * t->px_per_mm);
  vis_rect ai = fr->obj[a].o.r_px, bi = fr->obj[b].o.r_px;
  ai.w -= 2 * margin, ai.h -= 2 * margin, bi.w -= 2 * margin,
      bi.h -= 2 * margin;
  vis__frame fa = vis__frame_of(&ai), fb = vis__frame_of(&bi);
  /* the outlines' rounded corners, shrunk with them */
  const double round_px =
      vis__shrunk_corner_px(vis__analyzer_deck(fr->an)->corner_mm, t->px_per_mm, margin);
  vis_pt c[4];
  vis_rect_corners(&ai, c);
  double x0 = c[0].x, x1 = c[0].x, y0 = c[0].y, y1 = c[0].y;
  for (int i = 1; i < 4; i++)
    x0 = fmin(x0, c[i].x), x1 = fmax(x1, c[i].x), y0 = fmin(y0, c[i].y),
    y1 = fmax(y1, c[i].y);
  for (double y = floor(y0); y <= y1; y += step)
    for (double x = floor(x0); x <= x1; x += step) {
      if (!vis__frame_contains_rounded(&fa, x, y, round_px) ||
          !vis__frame_contains_rounded(&fb, x, y, round_px))
        continue;
      double ra = resid_at(fr, &fr->obj[a], x, y),
             rb = resid_at(fr, &fr->obj[b], x, y);
      if (ra >= 1e9 || rb >= 1e9) continue;
      double rest = 1e9;
      for (int k = 0; k < fr->n_obj; k++) {
        if (k == a || k == b || !live(&fr->obj[k])) continue;
        vis__frame fk = vis__frame_of(&fr->obj[k].o.r_px);
        if (vis__frame_contains(&fk, x, y, 0))
          rest = fmin(rest, resid_at(fr, &fr->obj[k], x, y));
      }
      e.n++;
      double best = fmin(ra, fmin(rb, rest));
      if (best > REF_TAU) continue; /* nobody's face: glare, shadow, blur */
      if (rest <= best && rest + 4 < fmin(ra, rb))
        e.hidden++;
      else if (ra <= best && ra + 4 < fmin(rb, rest))
        e.on_top++;
      else if (rb <= best && rb + 4 < fmin(ra, rest))
        e.under++;
    }
  return e;
}

/* How far (mm, degrees) a carpet found beside one placed before may lie
 * and still be that one seen again: the phantoms seen on the rendered
 * games lay 6 and 20 mm off the real carpet, turned a few degrees. */
#define REF_TWIN_MM 25.0
#define REF_TWIN_DEG 10.0

/* What candidate c's own face shows, away from the carpets placed
 * before it: of its samples (1 mm grid, 1.5 mm inside; *total of them)
 * that lie in none of them, how many there are (*n) and the share c's
 * face explains. */
static double own_evidence(const frame *fr, int n_placed, const ref_obj *c,
                           bool with_cards, int *n, int *total) {
  const vis__table *t = fr->t;
  const double s = t->px_per_mm, m = 1.5 * s, step = fmax(1, s);
  vis__frame placed[64];
  int np = 0, explained = 0;
  for (int k = fr->ref->n; k < n_placed && np < 64; k++)
    if (&fr->obj[k] != c) placed[np++] = vis__frame_of(&fr->obj[k].o.r_px);
  for (int k = 0; with_cards && k < fr->ref->n && np < 64; k++)
    if (fr->ref->cards[k].present) {
      vis_rect r = vis__rect_mm_to_px(t, &fr->ref->cards[k].rect);
      placed[np++] = vis__frame_of(&r);
    }
  rect_samples g = samples_of(&c->o.r_px, m, step);
  double x, y;
  *n = *total = 0;
  while (next_sample(&g, &x, &y)) {
    bool under = false;
    (*total)++;
    for (int k = 0; k < np && !under; k++)
      under = vis__frame_contains(&placed[k], x, y, m);
    double res = vis__object_residual(t, c->tpl, &c->o, x, y);
    if (under || res < 0) continue;
    (*n)++;
    explained += res < REF_TAU;
  }
  return *n ? (double)explained / *n : 0;
}

/* The phantom twin: the carpet faces are one pattern in four colours, so
 * a face with its fitted gain and offset explains much of a carpet of
 * another colour, and the matcher can accept a second carpet lying
 * almost where an accepted one lies (most of its area shared) before
 * that colour was ever thrown. A real carpet lying like that (thrown on
 * another and landing almost on it, or the one beneath it) shows its own
 * face in the part the other does not cover; a twin shows there only
 * what lies there (table, cards): it is the carpet placed before, seen
 * again. Too little of it outside the others to tell: a twin too (two
 * carpets never lie exactly on each other; as duplicate_carpet). Beside a
 * carpet kept from the decided frame (kept) and of the same colour, at
 * any angle and whatever shows: the same carpet, its pose
 * found badly (a player has one carpet of a colour in a flight; tuning
 * seed 2004: 26 degrees off the one kept from a decided frame, its face
 * showing along the other's edge). */
static bool twin_carpet(const frame *fr, int lo, int hi, int n_placed,
                        const ref_obj *c, bool kept) {
  const double s = fr->t->px_per_mm;
  const vis_rect cm = vis__rect_px_to_mm(fr->t, &c->o.r_px);
  bool near = false, same = false;
  for (int k = lo; k < hi && !near; k++) {
    const vis_rect *o = &fr->obj[k].o.r_px;
    vis_rect om = vis__rect_px_to_mm(fr->t, o);
    bool same_colour = kept && fr->obj[k].tpl->index == c->tpl->index;
    near = near_pose(o, &c->o.r_px, REF_TWIN_MM * s,
                     same_colour ? 90 : REF_TWIN_DEG) &&
           vis_rect_overlap_area(&om, &cm) >= 0.6 * cm.w * cm.h;
    same = near && same_colour;
  }
  if (!near || same) return near;
  int n, total;
  double own = own_evidence(fr, n_placed, c, false, &n, &total);
  return n < REF_MIN_SEEN || own < 0.5;
}

static double overlap_mm2(const frame *fr, int a, int b) {
  vis_rect ra = vis__rect_px_to_mm(fr->t, &fr->obj[a].o.r_px),
           rb = vis__rect_px_to_mm(fr->t, &fr->obj[b].o.r_px);
  return vis_rect_overlap_area(&ra, &rb);
}

/* How deep object a reaches into object b (mm; negative: a gap), at the
 * table's scale where carpet a lies (frame_scales; 1 before). */
static double contact_depth(const frame *fr, int a, int b) {
  vis_rect ra = vis__rect_px_to_mm(fr->t, &fr->obj[a].o.r_px),
           rb = vis__rect_px_to_mm(fr->t, &fr->obj[b].o.r_px);
  double scale = fr->scale ? fr->scale[a] : 1;
  return vis_rect_contact_depth_at(&ra, &rb, vis__analyzer_deck(fr->an)->corner_mm, scale);
}

/* The table's scale for each carpet's contacts (vis__local_scale of the
 * apparent scales of the live carpets vis__scale_measurable picks: a
 * carpet placed before another may cover it, a card of the layout lies
 * under); cards keep 1. fr->scale is set only when all are known, so
 * contact_depth sees scale 1 until then. Out of memory: none (1). */
static void frame_scales(frame *fr) {
  vis__outline *o = malloc(sizeof *o * ((size_t)fr->n_obj + 1));
  double *own = malloc(sizeof *own * ((size_t)fr->n_obj + 1));
  double *scale = malloc(sizeof *scale * ((size_t)fr->n_obj + 1));
  if (!o || !own || !scale) {
    free(o);
    free(own);
    free(scale);
    return;
  }
  for (int i = 0; i < fr->n_obj; i++) {
    bool alive = live(&fr->obj[i]);
    o[i] = (vis__outline){vis__rect_px_to_mm(fr->t, &fr->obj[i].o.r_px),
                          alive && fr->obj[i].card, alive && !fr->obj[i].card};
  }
  double corner_mm = vis__analyzer_deck(fr->an)->corner_mm;
  for (int i = 0; i < fr->n_obj; i++)
    own[i] = o[i].may_cover && vis__scale_measurable(o, fr->n_obj, i, corner_mm)
                 ? vis__apparent_scale(fr->t, fr->obj[i].tpl, &fr->obj[i].o)
                 : NAN;
  for (int i = 0; i < fr->n_obj; i++)
    scale[i] = fr->obj[i].card ? 1 : vis__local_scale(own, fr->n_obj, i);
  free(o);
  fr->own_scale = own;
  fr->scale = scale;
}

/* A carpet lies on the carpets placed before it that it overlaps
 * (thrown after them) or, slid under them, shows its face outside them.
 * One that does neither is the matcher explaining other carpets' pixels
 * with another colour's face (the faces are one pattern; seen on tuning
 * seed 2005 when only the changed cells were searched, with a decided
 * frame, at 90 degrees to the carpet it lay on, 2 % of it outside
 * them). Under 5 % of it outside them and the cards: too little to tell,
 * no carpet. Only with a decided frame (kept carpets, and the matcher
 * then sees only the changed cells): the full analysis does without. */
static bool hidden_phantom(const frame *fr, int i, int lo, int hi) {
  const vis_deck *d = vis__analyzer_deck(fr->an);
  const double min_area = 0.2 * d->carpet_mm[0] * d->carpet_mm[1];
  bool overlaps = false;
  for (int k = lo; k < hi; k++) {
    if (k == i || overlap_mm2(fr, i, k) <= min_area) continue;
    overlaps = true;
    vis__evidence e = evidence_within(fr, i, k, 1.5, 1);
    if (vis__evidence_clear(e.on_top, e.under) && e.on_top > e.under) return false;
  }
  if (!overlaps) return false;
  int n, total;
  double own = own_evidence(fr, hi, &fr->obj[i], true, &n, &total);
  return n < REF_MIN_SEEN || n < 0.05 * total || own < 0.5;
}

/* The matcher's carpets, in its acceptance order (what lies on top is
 * accepted first: the order used when the pixels cannot tell). A carpet
 * whose area the reference cards, as they were at layout, explain is a
 * card that looks like a carpet (the striped spice bazaar taken for a
 * yellow or blue carpet, drawn exactly on it): it is no carpet. Nor is a
 * twin of one placed before (twin_carpet). */
static void place_carpets(frame *fr, const vis__object *acc, int n_acc) {
  int n = fr->ref->n;
  for (int i = 0; i < n_acc; i++) {
    const vis__template *tp = &fr->tpl[acc[i].face];
    if (tp->kind == VIS__FACE_TYPE) continue;
    if (fr->unchanged.n_memo &&
        unchanged_share(fr, fr->t, fr->unchanged.memo[0], &acc[i].r_px) >= 0.8)
      continue;
    if (duplicate_carpet(fr, n, &acc[i].r_px)) continue;
    ref_obj *ro = &fr->obj[n];
    memset(ro, 0, sizeof *ro);
    ro->o = acc[i];
    ro->tpl = tp;
    ro->present = true;
    ro->index = n - fr->ref->n;
    if (twin_carpet(fr, fr->ref->n, n, n, ro, false) ||
        (fr->ref->last.cells.lab && hidden_phantom(fr, n, fr->ref->n, n)))
      continue;
    n++;
  }
  fr->n_obj = n;
  fr->n_new = n - fr->ref->n;
}


/* ------------------------------------------------------- stacking */


/* The photo's pixels per table mm about table pixel px (the coarser of
 * its two axes); the table image's where the mapping does not tell. */
static double photo_px_per_mm(const frame *fr, vis_pt px) {
  vis_pt mm = vis__px_to_mm(fr->t, px);
  const vis_table_map *m = fr->map;
  double p0[2], p1[2], p2[2];
  if (!m || !m->table_to_image(m->user, (const double[2]){mm.x, mm.y}, p0) ||
      !m->table_to_image(m->user, (const double[2]){mm.x + 1, mm.y}, p1) ||
      !m->table_to_image(m->user, (const double[2]){mm.x, mm.y + 1}, p2))
    return fr->t->px_per_mm;
  return fmin(hypot(p1[0] - p0[0], p1[1] - p0[1]),
              hypot(p2[0] - p0[0], p2[1] - p0[1]));
}

/* 1.5 mm off both outlines (the 1 mm smoothing mixes what lies on either
 * side); a sliver of an overlap (a corner that grazes a card) has no such
 * samples: then closer to the outlines and every pixel, as the poses are
 * good to a few tenths of a millimetre, but never within 1.5 of the
 * photo's pixels of an outline: the photo's own blur mixes there what
 * lies beside, and the card's patch holds what lay beside it at layout.
 * At the watch's 960x540 (1.0 px/mm along the coarser axis there) the
 * samples 0.5 mm off gave held-out game 4:503 round 2 flight 3 (yellow
 * slid 3.6 mm under the camel bazaar's edge) 28 : 6 for "on": 15 : 0 of
 * them within 1 mm of the card's outline, its patch there lighter beside
 * the white carpet than beside the dark wood it was photographed on;
 * 1.5 px off (1.5 mm) it is 0 : 1, unsure. */
static vis__evidence overlap_evidence(const frame *fr, int a, int b, vis__evidence *mm) {
  vis__evidence e = evidence_within(fr, a, b, 1.5, 1);
  *mm = e;
  if (vis__evidence_clear(e.on_top, e.under) || e.hidden > 8) return e;
  const vis_rect *ra = &fr->obj[a].o.r_px, *rb = &fr->obj[b].o.r_px;
  vis_pt mid = {(ra->center.x + rb->center.x) / 2, (ra->center.y + rb->center.y) / 2};
  double margin_mm = fmax(0.5, 1.5 / photo_px_per_mm(fr, mid));
  vis__evidence near = evidence_within(fr, a, b, margin_mm, 0.5);
  return vis__evidence_clear(near.on_top, near.under) ? near : e;
}

/* The overlap evidence of the pairs the stacking will look at, measured
 * ahead on the workers (overlap_evidence only reads the frame, which
 * stays as it is while the result is built): have[a * n_obj + b] tells
 * that ev[a * n_obj + b] holds overlap_evidence(fr, a, b, &mm[a * n_obj +
 * b]). */
typedef struct {
  vis__evidence *ev, *mm;
  bool *have;
} pair_evidence;

typedef struct {
  bool *above; /* n_obj x n_obj: [i * n + j] object i lies above j */
  vis_result *res;
  const pair_evidence *ahead; /* NULL: measure each pair when asked */
} stacking;

/* overlap_evidence(fr, a, b, mm), measured ahead when it was. */
static vis__evidence stacked_evidence(const frame *fr, const stacking *sk, int a, int b,
                                      vis__evidence *mm) {
  size_t k = (size_t)a * (size_t)fr->n_obj + (size_t)b;
  if (!sk->ahead || !sk->ahead->have[k]) return overlap_evidence(fr, a, b, mm);
  *mm = sk->ahead->mm[k];
  return sk->ahead->ev[k];
}

static vis_overlap *add_overlap(stacking *sk, const frame *fr, int a, int b,
                                double area) {
  vis_overlap *ov = &sk->res->overlaps[sk->res->n_overlaps++];
  ov->carpet = fr->obj[a].index;
  ov->other = fr->obj[b].index;
  ov->other_is_carpet = !fr->obj[b].card;
  ov->area_mm2 = area;
  ov->votes_on = ov->votes_under = ov->votes_hidden = 0;
  return ov;
}

static void set_above(stacking *sk, int n, int a, int b, bool a_on_top) {
  sk->above[a * n + b] = a_on_top;
  sk->above[b * n + a] = !a_on_top;
}


/* The decided frame's overlap of its carpet ka with its carpet kb (as
 * seen from ka), or of ka with card slot kb: copied into ov. */
static bool decided_overlap(const decided_frame *d, int ka, int kb,
                            bool with_carpet, vis_overlap *ov) {
  for (int i = 0; i < d->n_overlaps; i++) {
    const vis_overlap *o = &d->overlaps[i];
    if (o->other_is_carpet != with_carpet) continue;
    bool same = o->carpet == ka && o->other == kb,
         turned = with_carpet && o->carpet == kb && o->other == ka;
    if (!same && !turned) continue;
    ov->carpet_on_top = same ? o->carpet_on_top : !o->carpet_on_top;
    ov->confidence = o->confidence;
    ov->uncertain = o->uncertain;
    return true;
  }
  return false;
}

/* Card slot s lies where it lay in the decided frame (and lay there). */
static bool card_as_decided(const frame *fr, int s) {
  const decided_frame *d = &fr->ref->last;
  if (!d->cells.lab || s >= d->n_cards || !d->card_live[s] ||
      !live(&fr->obj[s]))
    return false;
  vis_rect now = vis__rect_px_to_mm(fr->t, &fr->obj[s].o.r_px);
  return near_pose(&now, &d->card_rect[s], 2, 2);
}

/* Speed: an overlap of two things that lay as they lie now in the
 * decided frame was decided there (a carpet thrown since cannot change
 * which of them lies on top): that decision, not the pixels again. */
static bool reuse_overlap(const frame *fr, int a, int b, vis_overlap *ov) {
  const ref_obj *oa = &fr->obj[a], *ob = &fr->obj[b];
  if (oa->card || oa->known < 0) return false;
  if (ob->card)
    return card_as_decided(fr, b) &&
           decided_overlap(&fr->ref->last, oa->known, b, false, ov);
  return ob->known >= 0 &&
         decided_overlap(&fr->ref->last, oa->known, ob->known, true, ov);
}

/* Carpet a is one of the decided frame's, kept at its decided pose (not
 * searched again: nothing changed where it lies). */
static bool kept_as_decided(const frame *fr, int a) {
  return fr->obj[a].known >= 0 && a >= fr->ref->n + fr->n_new;
}

/* What the decided frame said of kept carpet a and card j lying where
 * it lay: 1 they overlapped (the overlap copied into ov), 0 they did not,
 * -1 it cannot say (a carpet found again, a card that moved). Whether a
 * carpet touches a card at all is decided there too: a corner grazing a
 * card overlaps it by a fraction of a mm^2, and the same pose taken to the
 * frame's pixels and back can fall on either side of min_overlap_mm2
 * (tuning game 2:631 round 2 flight 3: red's corner on a card by a
 * fraction of a mm^2 in the decided frame, under the minimum in the next
 * at the same pose, so red lost the card; the truth has it on). */
static int card_overlap_as_decided(const frame *fr, int a, int j,
                                   vis_overlap *ov) {
  if (!kept_as_decided(fr, a) || !card_as_decided(fr, j)) return -1;
  return decided_overlap(&fr->ref->last, fr->obj[a].known, j, false, ov);
}

/* Carpet a against the carpets after it (each pair once): the pixels, or
 * else the matcher's order (what lies on top is accepted first). */
static void stack_carpets(const frame *fr, int a, double min_area,
                          stacking *sk) {
  for (int b = a + 1; b < fr->n_obj; b++) {
    double area = overlap_mm2(fr, a, b);
    if (area <= min_area) continue;
    vis_overlap *ov = add_overlap(sk, fr, a, b, area);
    ov->depth_mm = contact_depth(fr, a, b);
    if (reuse_overlap(fr, a, b, ov)) {
      set_above(sk, fr->n_obj, a, b, ov->carpet_on_top);
      continue;
    }
    vis__evidence mm, e = stacked_evidence(fr, sk, a, b, &mm);
    bool clear = vis__evidence_clear(e.on_top, e.under);
    ov->carpet_on_top = clear ? e.on_top > e.under : true;
    ov->confidence =
        clear ? (double)abs(e.on_top - e.under) / (e.on_top + e.under) : 0.5;
    ov->uncertain = !clear;
    set_above(sk, fr->n_obj, a, b, ov->carpet_on_top);
  }
}

/* Carpet a's overlap ov with card j as decided: the stacking, the
 * carpet's card lists and, when not sure, its reason. */
static void note_card_overlap(const frame *fr, int a, int j,
                              const vis_overlap *ov, vis_carpet *cp,
                              stacking *sk, bool mostly_hidden) {
  set_above(sk, fr->n_obj, a, j, ov->carpet_on_top);
  if (ov->carpet_on_top) {
    if (cp->n_on_cards < 64) cp->on_cards[cp->n_on_cards++] = j;
  } else if (cp->n_under_cards < 64) {
    cp->under_cards[cp->n_under_cards++] = j;
  }
  if (ov->uncertain && !cp->uncertain) {
    cp->uncertain = true;
    snprintf(cp->reason, VIS_REASON_MAX,
             mostly_hidden
                 ? "another carpet hides where it meets card %d: taken as "
                   "lying on it"
                 : "cannot see whether it lies on or under card %d: taken as "
                   "lying on it",
             j);
  }
}

/* Carpet a against the cards it reaches into deeper than the rules'
 * contact depth (less only touches). A thrown carpet lies on them or,
 * when it slid under one, under it: a card whose own overlap shows
 * clearly decides for itself (vis__decides_alone: unless few samples
 * say so against the carpet's other cards, as in analyze.c), the others
 * take the pooled evidence of all (their millimetre samples); when nothing
 * shows (a third carpet covers every overlap) it lies on top, as thrown
 * carpets do, and says it is not sure. Rendered hard game 3:832 at
 * 1920x1080, round 2, flight 3: green's corner 4 mm into the adventure A,
 * both white borders, 0 : 10 on the half-millimetre grid (0 : 2 on the
 * millimetre one) against about 850 : 10 "on" at the adventure C, was
 * taken as under the card, and green lost it; from scratch the pool
 * decided, as the truth has it. */
static void stack_on_cards(const frame *fr, int a, const vis_settings *s,
                           stacking *sk) {
  vis_carpet *cp = &sk->res->carpets[fr->obj[a].index];
  int cards[64], n_cards = 0, sum_on = 0, sum_under = 0, sum_hidden = 0;
  vis__evidence ev[64], ev_mm[64];
  double areas[64], depths[64];
  bool reused[64];
  vis_overlap as_decided[64];
  for (int j = 0; j < fr->ref->n && n_cards < 64; j++) {
    if (!live(&fr->obj[j])) continue;
    double area = overlap_mm2(fr, a, j), depth = contact_depth(fr, a, j);
    int decided = card_overlap_as_decided(fr, a, j, &as_decided[n_cards]);
    if (decided == 0 ||
        (decided < 0 && !tp_contact_lies_on(depth, s->contact_depth_mm))) {
      vis__note_contact_doubt(s, depth, j, fr->ref->cards[j].type, cp);
      continue;
    }
    depths[n_cards] = depth;
    reused[n_cards] =
        decided > 0 || reuse_overlap(fr, a, j, &as_decided[n_cards]);
    if (reused[n_cards]) {
      areas[n_cards] = area;
      ev[n_cards] = ev_mm[n_cards] = (vis__evidence){0, 0, 0, 0};
      cards[n_cards++] = j;
      continue;
    }
    ev[n_cards] = stacked_evidence(fr, sk, a, j, &ev_mm[n_cards]);
    areas[n_cards] = area;
    sum_on += ev_mm[n_cards].on_top, sum_under += ev_mm[n_cards].under;
    sum_hidden += ev_mm[n_cards].hidden;
    cards[n_cards++] = j;
  }
  for (int k = 0; k < n_cards; k++) {
    int j = cards[k];
    vis_overlap *ov = add_overlap(sk, fr, a, j, areas[k]);
    ov->depth_mm = depths[k];
    if (reused[k]) {
      ov->carpet_on_top = as_decided[k].carpet_on_top;
      ov->confidence = as_decided[k].confidence;
      ov->uncertain = as_decided[k].uncertain;
      note_card_overlap(fr, a, j, ov, cp, sk, sum_hidden > sum_on + sum_under);
      if (ov->carpet_on_top) vis__note_contact_doubt(s, depths[k], j, fr->ref->cards[j].type, cp);
      continue;
    }
    ov->votes_on = ev[k].on_top, ov->votes_under = ev[k].under, ov->votes_hidden = ev[k].hidden;
    vis__overlap_votes v = vis__overlap_decision(&ev[k], &ev_mm[k], sum_on, sum_under);
    ov->carpet_on_top = v.decided ? v.on > v.under : true;
    ov->confidence = v.decided ? (double)abs(v.on - v.under) / (v.on + v.under) : 0.5;
    ov->uncertain = !v.decided;
    note_card_overlap(fr, a, j, ov, cp, sk, sum_hidden > sum_on + sum_under);
    if (ov->carpet_on_top) vis__note_contact_doubt(s, depths[k], j, fr->ref->cards[j].type, cp);
  }
}

/* Share of object i's area that nothing lying above it hides. */
static double visible_share(const frame *fr, const bool *above, int i) {
  const ref_obj *ro = &fr->obj[i];
  vis__frame fi = vis__frame_of(&ro->o.r_px), fk[64];
  int n_on = 0;
  for (int k = 0; k < fr->n_obj && n_on < 64; k++)
    if (k != i && live(&fr->obj[k]) && above[k * fr->n_obj + i])
      fk[n_on++] = vis__frame_of(&fr->obj[k].o.r_px);
  if (!n_on) return 1;
  vis_pt c[4];
  vis_rect_corners(&ro->o.r_px, c);
  double x0 = c[0].x, x1 = c[0].x, y0 = c[0].y, y1 = c[0].y;
  for (int k = 1; k < 4; k++)
    x0 = fmin(x0, c[k].x), x1 = fmax(x1, c[k].x), y0 = fmin(y0, c[k].y),
    y1 = fmax(y1, c[k].y);
  int total = 0, shown = 0;
  const double step = fmax(1, fr->t->px_per_mm);
  for (double y = floor(y0); y <= y1; y += step)
    for (double x = floor(x0); x <= x1; x += step) {
      if (!vis__frame_contains(&fi, x, y, 0)) continue;
      total++;
      bool hid = false;
      for (int k = 0; k < n_on && !hid; k++)
        hid = vis__frame_contains(&fk[k], x, y, 0);
      shown += !hid;
    }
  return total ? (double)shown / total : 0;
}

/* ------------------------------------------ the decided frame's carpets */

/* Template of a decided carpet (its face, or its back) among the frame's. */
static const vis__template *carpet_template(const frame *fr,
                                            const vis_carpet *c) {
  int kind = c->face_down ? VIS__FACE_BACK : VIS__FACE_CARPET;
  for (int i = 0; i < fr->n_tpl; i++)
    if (fr->tpl[i].kind == kind && fr->tpl[i].index == c->carpet)
      return &fr->tpl[i];
  return NULL;
}

/* The new carpets' rectangles as covers. */
static void new_covers(const frame *fr, covers *cv) {
  cv->n = 0;
  for (int i = 0; i < fr->n_new && cv->n < 64; i++)
    cv->f[cv->n++] = vis__frame_of(&fr->obj[fr->ref->n + i].o.r_px);
}

/* The new carpet of decided carpet d's colour found at (about) its pose:
 * d itself, re-found because a new carpet changed cells of it; -1. */
static int refound(const frame *fr, const vis_carpet *d, const vis_rect *px) {
  const double s = fr->t->px_per_mm;
  for (int i = fr->ref->n; i < fr->ref->n + fr->n_new; i++) {
    const ref_obj *ro = &fr->obj[i];
    if (ro->tpl->index == d->carpet && ro->known < 0 &&
        near_pose(&ro->o.r_px, px, 10 * s, 6))
      return i;
  }
  return -1;
}

/* Speed, with a decided frame (vis_reference_set_decided): its carpets
 * were not searched again where nothing changed. Each one still lies
 * where it lay when its place changed only under the new carpets: it is
 * kept at its decided pose (gain and offset fitted to this frame). One
 * whose place changed otherwise (bumped, taken away) was searched for
 * like a new one. */
static void keep_decided_carpets(frame *fr) {
  const decided_frame *d = &fr->ref->last;
  for (int i = 0; i < fr->n_obj; i++)
    fr->obj[i].known = -1;
  if (!d->cells.lab || !fr->changed) return;
  covers cv;
  new_covers(fr, &cv);
  for (int k = 0; k < d->n_carpets; k++) {
    vis_rect px = vis__rect_mm_to_px(fr->t, &d->carpets[k].rect);
    int again = refound(fr, &d->carpets[k], &px);
    if (again >= 0) {
      fr->obj[again].known = k;
      continue;
    }
    const vis__template *tp = carpet_template(fr, &d->carpets[k]);
    if (!tp || changed_share(fr->ref, fr->t, fr->changed, &px, &cv) >= 0.2)
      continue;
    ref_obj *ro = &fr->obj[fr->n_obj];
    memset(ro, 0, sizeof *ro);
    ro->tpl = tp;
    ro->present = true;
    ro->known = k;
    ro->o.r_px = px;
    ro->o.face = (int)(tp - fr->tpl);
    covers none = {.n = 0};
    vis__object turned = ro->o;
    turned.flipped = true;
    int n;
    double e0 = fit_patch(fr->t, tp, &ro->o, &none, 2, &n),
           e1 = fit_patch(fr->t, tp, &turned, &none, 2, &n);
    if (e1 > e0) ro->o = turned;
    ro->o.score = fmax(e0, e1);
    fr->n_obj++;
  }
}


/* A new carpet that is a twin of a kept decided one (twin_carpet), or a
 * phantom hidden under kept ones (hidden_phantom), is no new carpet:
 * dropped. Result indices follow the object order. */
static void drop_twins_of_kept(frame *fr) {
  int first_kept = fr->ref->n + fr->n_new, n = fr->ref->n, n_new = 0;
  bool *drop = calloc((size_t)fr->n_obj + 1, sizeof *drop);
  for (int i = fr->ref->n; drop && i < first_kept; i++)
    drop[i] = fr->obj[i].known < 0 &&
              (twin_carpet(fr, first_kept, fr->n_obj, fr->n_obj, &fr->obj[i],
                           true) ||
               hidden_phantom(fr, i, first_kept, fr->n_obj));
  for (int i = fr->ref->n; i < fr->n_obj; i++) {
    if (drop && drop[i]) continue;
    n_new += i < first_kept;
    fr->obj[n] = fr->obj[i];
    fr->obj[n].index = n - fr->ref->n;
    n++;
  }
  free(drop);
  fr->n_obj = n;
  fr->n_new = n_new;
}

/* ---------------------------------------------------------- result */

static void card_result(const frame *fr, const bool *above, int s,
                        vis_card *c) {
  const ref_card *rc = &fr->ref->cards[s];
  const ref_obj *ro = &fr->obj[s];
  memset(c, 0, sizeof *c);
  c->rect = rc->rect;
  if (!ro->present) {
    c->type = -1;
    snprintf(c->reason, VIS_REASON_MAX, "removed");
    return;
  }
  c->type = rc->type;
  c->rect = vis__rect_px_to_mm(fr->t, &ro->o.r_px);
  if (ro->gone) {
    c->gone = true;
    snprintf(c->reason, VIS_REASON_MAX,
             "taken away: the table shows where it lay");
    return;
  }
  c->visible_fraction = visible_share(fr, above, s);
  c->type_score = ro->seen ? ro->explained : 1;
  c->type_margin = 1; /* known from the layout, not identified here */
  /* the patch was sampled along the reference rect's axes */
  c->upside_down = rc->upside_down != ro->o.flipped;
  if (c->visible_fraction > 0.3 && ro->seen >= 60 && ro->explained < 0.5) {
    c->uncertain = true;
    snprintf(c->reason, VIS_REASON_MAX,
             "it does not look as at layout where it should show (moved or "
             "taken away?)");
  }
}

static void carpet_result(const frame *fr, int i, vis_carpet *c) {
  const ref_obj *ro = &fr->obj[i];
  const vis_deck *d = vis__analyzer_deck(fr->an);
  memset(c, 0, sizeof *c);
  c->carpet = ro->tpl->index;
  snprintf(c->colour, sizeof c->colour, "%s",
           vis_deck_carpet_colour(d, ro->tpl->index));
  c->face_down = ro->tpl->kind == VIS__FACE_BACK;
  c->rect = vis__rect_px_to_mm(fr->t, &ro->o.r_px);
}

/* Whether the stacking will ask for overlap_evidence(fr, a, b), carpet a
 * against carpet b > a (stack_carpets) or card b (stack_on_cards): the
 * pixels decide only where the decided frame does not. */
static bool evidence_wanted(const frame *fr, int a, int b,
                            const vis_settings *s) {
  vis_overlap unused;
  if (b < fr->ref->n &&
      (!live(&fr->obj[b]) || card_overlap_as_decided(fr, a, b, &unused) >= 0))
    return false;
  bool meets = b < fr->ref->n ? tp_contact_lies_on(contact_depth(fr, a, b),
                                                   s->contact_depth_mm)
                              : overlap_mm2(fr, a, b) > s->min_overlap_mm2;
  return meets && !reuse_overlap(fr, a, b, &unused);
}

typedef struct {
  const frame *fr;
  const size_t *pairs; /* a * n_obj + b */
  pair_evidence *pe;
} evidence_job;

static void evidence_item(void *ctx, int worker, int item) {
  (void)worker;
  evidence_job *j = ctx;
  size_t k = j->pairs[item], n = (size_t)j->fr->n_obj;
  j->pe->ev[k] = overlap_evidence(j->fr, (int)(k / n), (int)(k % n), &j->pe->mm[k]);
  j->pe->have[k] = true;
}

/* The overlap evidence the stacking will ask for, measured on the
 * workers (54 M instructions of a 960x540 flight frame, in the calling
 * thread before). With one worker, or out of memory, nothing is measured
 * ahead (pe->have NULL): the stacking measures each pair when it asks. */
static void evidence_ahead(const frame *fr, const vis_settings *s,
                           pair_evidence *pe) {
  int n = fr->n_obj, n_pairs = 0;
  size_t nn = (size_t)n * (size_t)n;
  *pe = (pair_evidence){NULL, NULL, NULL};
  if (fr->t->threads <= 1) return;
  size_t *pairs = malloc(sizeof *pairs * (nn + 1));
  pe->ev = malloc(sizeof *pe->ev * (nn + 1));
  pe->mm = malloc(sizeof *pe->mm * (nn + 1));
  pe->have = calloc(nn + 1, sizeof *pe->have);
  if (pairs && pe->ev && pe->mm && pe->have)
    for (int a = fr->ref->n; a < n; a++)
      for (int b = 0; b < n; b++)
        if ((b < fr->ref->n || b > a) && evidence_wanted(fr, a, b, s))
          pairs[n_pairs++] = (size_t)a * (size_t)n + (size_t)b;
  evidence_job job = {fr, pairs, pe};
  vis__parallel_for(fr->t->threads, n_pairs, evidence_item, &job);
  free(pairs);
  if (!pe->ev || !pe->mm || !pe->have) {
    free(pe->ev);
    free(pe->mm);
    free(pe->have);
    *pe = (pair_evidence){NULL, NULL, NULL};
  }
}

static tp_status build_result(const frame *fr, vis_result *res, tp_error *err) {
  int n = fr->n_obj, n_cp = n_carpets_of(fr);
  res->cards = calloc((size_t)fr->ref->n + 1, sizeof *res->cards);
  res->carpets = calloc((size_t)n_cp + 1, sizeof *res->carpets);
  res->overlaps = calloc((size_t)n_cp * (size_t)n + 1, sizeof *res->overlaps);
  stacking sk = {calloc((size_t)n * (size_t)n + 1, sizeof(bool)), res, NULL};
  if (!res->cards || !res->carpets || !res->overlaps || !sk.above) {
    free(sk.above);
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory for the result");
  }
  res->n_carpets = n_cp;
  for (int i = fr->ref->n; i < n; i++) {
    vis_carpet *cp = &res->carpets[i - fr->ref->n];
    carpet_result(fr, i, cp);
    cp->contact_scale = fr->scale ? fr->scale[i] : 1;
    cp->contact_scale_own = fr->own_scale && isfinite(fr->own_scale[i]);
  }
  const vis_settings *vs = vis__analyzer_settings(fr->an);
  pair_evidence ahead;
  evidence_ahead(fr, vs, &ahead);
  sk.ahead = ahead.have ? &ahead : NULL;
  for (int i = fr->ref->n; i < n; i++) {
    stack_carpets(fr, i, vs->min_overlap_mm2, &sk);
    stack_on_cards(fr, i, vs, &sk);
  }
  free(ahead.ev);
  free(ahead.mm);
  free(ahead.have);
  res->n_cards = fr->ref->n;
  for (int s = 0; s < fr->ref->n; s++)
    card_result(fr, sk.above, s, &res->cards[s]);
  for (int i = fr->ref->n; i < n; i++)
    res->carpets[i - fr->ref->n].visible_fraction =
        visible_share(fr, sk.above, i);
  free(sk.above);
  return TP_OK;
}

/* ------------------------------------------------------ the analysis */

static tp_status check_analysis(const vis_analyzer *an,
                                const vis_reference *ref, const tp_image *rgb,
                                const vis_table_map *map, tp_error *err) {
  if (!an || !ref)
    return tp_error_set(
        err, TP_ERR_INVALID,
        "the reference analysis needs an analyzer and a reference");
  return check_frame(rgb, map, err);
}

/* With vis_settings.debug_dir: the rectified table (ref-table.png) and
 * the matcher's log (ref-match.txt: the faces, the hypotheses and every
 * hypothesis's fate), of the last frame analysed against the reference;
 * NULL without. */
static FILE *debug_log(const frame *fr, const vis__table *t, const vis_rect *hyps, int n_hyps) {
  const char *dir = vis__analyzer_settings(fr->an)->debug_dir;
  if (!dir) return NULL;
  char path[1024];
  snprintf(path, sizeof path, "%s/ref-table.png", dir);
  cvw_image_write(path, &t->rgb, 0, NULL);
  snprintf(path, sizeof path, "%s/ref-match.txt", dir);
  FILE *log = fopen(path, "w");
  for (int i = 0; log && i < fr->n_tpl; i++)
    fprintf(log, "face %d: kind %d index %d\n", i, fr->tpl[i].kind, fr->tpl[i].index);
  for (int i = 0; log && i < n_hyps; i++)
    fprintf(log, "hyp %d: %.1f %.1f %.1f %.1f %.1f\n", i, hyps[i].center.x, hyps[i].center.y,
            hyps[i].w, hyps[i].h, hyps[i].angle_deg);
  return log;
}

/* The matcher's poor_card_allowed: a card's patch stands for the layout's
 * cards of its type, so a poor card of a type the reference has lies
 * within a bump's reach of a present card of that type that no card
 * accepted before lies nearer to (deck faces: types not in the reference,
 * always). A spice bazaar's patch fitted onto a red-grid cloth under a
 * red carpet was accepted as a poor card there, 117 mm from its own card,
 * already found in place, and the carpet was lost (hard game 4:697 round
 * 1 flight 4). A card that shows cleanly is not asked: a desert's patch
 * fitted cleanly onto bare table beside two carpets, not reported, became
 * a phantom yellow carpet when it was (vt_ref_eval hard 3022). */
static bool card_has_slot(void *ctx, int face, const vis_rect *r_px, const vis__object *acc,
                          int n) {
  const frame *fr = ctx;
  const vis_reference *ref = fr->ref;
  if (slot_of_template(&fr->tpl[face]) < 0) return true;
  int type = type_of_template(ref, &fr->tpl[face]);
  vis_pt c = vis__px_to_mm(fr->t, r_px->center);
  for (int s = 0; s < ref->n; s++) {
    const ref_card *rc = &ref->cards[s];
    if (!rc->present || rc->type != type) continue;
    double d = hypot(c.x - rc->rect.center.x, c.y - rc->rect.center.y);
    bool taken = d > REF_BUMP_MM;
    for (int k = 0; k < n && !taken; k++) {
      if (type_of_template(ref, &fr->tpl[acc[k].face]) != type) continue;
      vis_pt a = vis__px_to_mm(fr->t, acc[k].r_px.center);
      taken = hypot(a.x - rc->rect.center.x, a.y - rc->rect.center.y) <= d;
    }
    if (!taken) return true;
  }
  return false;
}

/* Detection and the matcher: the carpets, and the cards that show. */
static tp_status find_objects(frame *fr, vis__table *t, vis_result *res,
                              vis__object **acc, int *n_acc, tp_error *err) {
  double t1 = vis__now_ms();
  vis_rect *hyps = NULL;
  int n_hyps = 0;
  vis__match_ahead *ahead = NULL;
  vis__match_params mp = vis__analyzer_match_params(fr->an, REF_TAU);
  mp.carpet_if_no_card = true;
  mp.poor_card_allowed = card_has_slot;
  mp.poor_card_ctx = fr;
  tp_status st = gather_templates(fr, err);
  if (!st) st = hypotheses(fr, t, &mp, &hyps, &n_hyps, &ahead, err);
  res->profile.detect_ms = vis__now_ms() - t1;
  t1 = vis__now_ms();
  if (!st) mp.log = debug_log(fr, t, hyps, n_hyps);
  if (!st)
    st = vis__match(t, fr->tpl, fr->n_tpl, hyps, n_hyps, &mp, ahead, acc, n_acc, err);
  if (mp.log) fclose(mp.log);
  res->profile.identify_ms = vis__now_ms() - t1;
  vis__match_ahead_free(ahead);
  free(hyps);
  return st;
}

tp_status vis_analyze_with_reference(vis_analyzer *an, const vis_reference *ref,
                                     const tp_image *rgb,
                                     const vis_table_map *map, vis_result *out,
                                     tp_error *err) {
  if (!out)
    return tp_error_set(err, TP_ERR_INVALID,
                        "vis_analyze_with_reference: out is NULL");
  memset(out, 0, sizeof *out);
  tp_status st = check_analysis(an, ref, rgb, map, err);
  if (st) return st;
  double t0 = vis__now_ms();
  vis__table t = {0};
  frame fr = {.an = an, .ref = ref, .t = &t, .map = map};
  vis__object *acc = NULL;
  int n_acc = 0;
  st = vis__analyzer_rectify(an, rgb, map, &t, err);
  out->profile.mapping_ms = vis__now_ms() - t0;
  if (!st) st = find_objects(&fr, &t, out, &acc, &n_acc, err);
  double t1 = vis__now_ms();
  if (!st) {
    fr.obj = calloc((size_t)(ref->n + n_acc + ref->last.n_carpets + 1),
                    sizeof *fr.obj);
    if (!fr.obj)
      st = tp_error_set(err, TP_ERR_NOMEM, "out of memory for the objects");
  }
  if (!st) {
    place_carpets(&fr, acc, n_acc);
    keep_decided_carpets(&fr);
    drop_twins_of_kept(&fr);
    st = place_cards(&fr, acc, n_acc, err);
  }
  if (!st) frame_scales(&fr);
  if (!st) st = build_result(&fr, out, err);
  out->profile.stacking_ms = vis__now_ms() - t1;
  free(acc);
  free(fr.obj);
  free(fr.scale);
  free(fr.own_scale);
  free(fr.tpl);
  unchanged_free(&fr.unchanged);
  free(fr.changed);
  vis__table_free(&t);
  return vis__finish_result(out, t0, st);
}
