/* analyze: one photo of the table -> cards, carpets, who lies on top.
 *
 * Stages (each timed in vis_profile):
 *   markers   find the table markers (vision/cvw)
 *   mapping   image -> table mm, then a top-down "rectified" table image at
 *             px_per_mm, in Lab
 *   detect    object mask (deck colours versus the table's own), corner
 *             hypotheses of known card size
 *   identify  deck faces matched to hypotheses, top of the pile first
 *   stacking  overlaps, who is on top, on_cards, visible fractions */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cvw.h"
#include "vision_internal.h"

struct vis_analyzer {
  const vis_deck *deck;
  vis_settings s;
  float obj_hist[VIS__NBINS];
  vis__template *tpl;
  int n_tpl;
  float *face_hist; /* VIS__NBINS per template: its face's colours */
};

double vis__now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void vis_settings_default(vis_settings *s) {
  memset(s, 0, sizeof *s);
  s->px_per_mm = 2.0;
  s->type_min_score = 0.55;
  s->type_min_margin = 0.25;
  s->card_min_visible = 0.03;
  s->min_overlap_mm2 = 0.05;
  s->contact_depth_mm = 1e-6; /* the rules' default: any overlap (ft_rules_contact_mm) */
  s->contact_doubt_mm = 0.5;
  s->threads = 1;
}

void vis_result_free(vis_result *res) {
  if (!res) return;
  free(res->cards);
  free(res->carpets);
  free(res->overlaps);
  memset(res, 0, sizeof *res);
}

void vis_analyzer_destroy(vis_analyzer *an) {
  if (!an) return;
  for (int i = 0; i < an->n_tpl; i++) vis__template_free(&an->tpl[i]);
  free(an->tpl);
  free(an->face_hist);
  free(an);
}

static tp_status build_templates(vis_analyzer *an, tp_error *err) {
  const vis_deck *d = an->deck;
  an->tpl = calloc(VIS_TYPE_COUNT + 2 * VIS_MAX_CARPETS, sizeof *an->tpl);
  if (!an->tpl) return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
  tp_status st = TP_OK;
  for (int i = 0; !st && i < VIS_TYPE_COUNT; i++)
    if (vis_deck_has_type(d, i))
      st = vis__template_build(vis_deck_type_face(d, i), d->card_mm[0],
                               d->card_mm[1], VIS__FACE_TYPE, i,
                               &an->tpl[an->n_tpl++], err);
  for (int i = 0; !st && i < d->n_carpets; i++) {
    st = vis__template_build(vis_deck_carpet_face(d, i), d->carpet_mm[0],
                             d->carpet_mm[1], VIS__FACE_CARPET, i,
                             &an->tpl[an->n_tpl++], err);
    if (!st && vis_deck_carpet_back(d, i))
      st = vis__template_build(vis_deck_carpet_back(d, i), d->carpet_mm[0],
                               d->carpet_mm[1], VIS__FACE_BACK, i,
                               &an->tpl[an->n_tpl++], err);
  }
  return st;
}

static const tp_image *template_face(const vis_deck *d, const vis__template *tp) {
  if (tp->kind == VIS__FACE_TYPE) return vis_deck_type_face(d, tp->index);
  if (tp->kind == VIS__FACE_CARPET) return vis_deck_carpet_face(d, tp->index);
  return vis_deck_carpet_back(d, tp->index);
}

static tp_status build_face_histograms(vis_analyzer *an, tp_error *err) {
  an->face_hist = malloc(sizeof(float) * VIS__NBINS * (size_t)(an->n_tpl + 1));
  if (!an->face_hist) return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
  tp_status st = TP_OK;
  for (int i = 0; !st && i < an->n_tpl; i++)
    st = vis__face_histogram(template_face(an->deck, &an->tpl[i]),
                             an->face_hist + (size_t)i * VIS__NBINS, err);
  return st;
}

tp_status vis_analyzer_create(const vis_deck *deck, const vis_settings *s,
                              vis_analyzer **out, tp_error *err) {
  *out = NULL;
  vis_analyzer *an = calloc(1, sizeof *an);
  if (!an) return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
  an->deck = deck;
  if (s)
    an->s = *s;
  else
    vis_settings_default(&an->s);
  if (an->s.px_per_mm < 0.5 || an->s.px_per_mm > 8) {
    vis_analyzer_destroy(an);
    return tp_error_set(err, TP_ERR_INVALID, "px_per_mm must be 0.5..8");
  }
  if (an->s.threads < 1 || an->s.threads > 16) {
    vis_analyzer_destroy(an);
    return tp_error_set(err, TP_ERR_INVALID, "threads must be 1..16");
  }
  tp_status st = vis__deck_check(deck, "deck", err);
  if (!st) st = vis__object_model_build(deck, an->obj_hist, err);
  if (!st) st = build_templates(an, err);
  if (!st) st = build_face_histograms(an, err);
  if (st) {
    vis_analyzer_destroy(an);
    return st;
  }
  *out = an;
  return TP_OK;
}

/* ---------------------------------------------------------- mapping */

static void table_free(vis__table *t) {
  tp_image_free(&t->rgb);
  tp_image_free(&t->lab);
  tp_image_free(&t->object);
  tp_image_free(&t->smooth);
  vis__table_memo_free(t->memo);
  t->memo = NULL;
  free(t->camera_mm);
  t->camera_mm = NULL;
}

/* The smooth image (lab blurred to about a millimetre) in bands of rows
 * on the workers: each band reads lab around it and writes only its rows
 * of smooth (vis__box_blur_rows), the whole image's blur byte for byte. */
enum { SMOOTH_BAND = 64 };
typedef struct {
  vis__table *t;
  int radius;
  tp_status *st; /* per band */
} smooth_job;

static void smooth_band(void *ctx, int worker, int item) {
  const smooth_job *j = ctx;
  int y0 = item * SMOOTH_BAND, y1 = y0 + SMOOTH_BAND;
  if (y1 > j->t->lab.height) y1 = j->t->lab.height;
  j->st[item] = vis__box_blur_rows(&j->t->lab, &j->t->smooth, j->radius, y0, y1, NULL);
}

static tp_status smooth_table(vis__table *t, int radius, tp_error *err) {
  int bands = (t->lab.height + SMOOTH_BAND - 1) / SMOOTH_BAND;
  tp_status *st = calloc((size_t)bands, sizeof *st);
  if (!st) return tp_error_set(err, TP_ERR_NOMEM, "out of memory for the table image");
  smooth_job job = {t, radius, st};
  vis__parallel_for(t->threads, bands, smooth_band, &job);
  tp_status first = TP_OK;
  for (int i = 0; i < bands && !first; i++) first = st[i];
  free(st);
  return first ? tp_error_set(err, first, "could not smooth the table image") : TP_OK;
}

/* An image of the object mask's size (which tp_image_alloc has checked)
 * whose pixels are left unset: the table's RGB and Lab images (every
 * strip's remap and conversion) and its smoothing (every band) write
 * every pixel before anything reads one, so tp_image_alloc's zeroing
 * (16 M instructions of a 960x540 frame, in the calling thread) would
 * only be overwritten. Freed with tp_image_free, as tp_image_alloc's. */
static tp_status alloc_written(tp_image *img, const tp_image *like, int channels) {
  memset(img, 0, sizeof *img);
  size_t stride = (size_t)like->width * (size_t)channels;
  img->data = malloc(stride * (size_t)like->height);
  if (!img->data) return TP_ERR_NOMEM;
  img->width = like->width;
  img->height = like->height;
  img->stride = (int)stride;
  img->channels = channels;
  return TP_OK;
}

/* The rectified table: the map's area at px_per_mm, in RGB and Lab. */
static tp_status rectify(const vis_analyzer *an, const tp_image *rgb,
                         const vis_table_map *map, vis__table *t, tp_error *err) {
  double x0 = fmax(map->area_mm[0], -2000), y0 = fmax(map->area_mm[1], -2000);
  double x1 = fmin(map->area_mm[2], x0 + 2500), y1 = fmin(map->area_mm[3], y0 + 2500);
  double s = an->s.px_per_mm;
  int w = (int)ceil((x1 - x0) * s), h = (int)ceil((y1 - y0) * s);
  if (!(w >= 50 && h >= 50))
    return tp_error_set(err, TP_ERR_NOTFOUND, "the table area is too small");
  t->px_per_mm = s;
  t->x0_mm = x0;
  t->y0_mm = y0;
  t->threads = an->s.threads;
  if (tp_image_alloc(&t->object, w, h, 1) || alloc_written(&t->rgb, &t->object, 3) ||
      alloc_written(&t->lab, &t->object, 3) || alloc_written(&t->smooth, &t->object, 3) ||
      !(t->memo = vis__table_memo_new()))
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory for the table image");
  tp_status st = vis__rectify(rgb, map, an->s.threads, t, err);
  if (!st) st = smooth_table(t, (int)lround(s), err);
  return st;
}

/* ------------------------------------------------- colour evidence */

/* Object i's samples (every second pixel each way) inside rectangle in
 * that no object accepted before it covers: how many, and (fh not NULL)
 * in *good how many of them its face's colour histogram fh explains
 * better than the bare table's bg does. */
static int visible_samples(const vis__table *t, const vis__object *obj, int i,
                           const vis_rect *in, const float *fh, const float *bg, int *good) {
  vis_pt c[4];
  vis_rect_corners(in, c);
  double x0 = c[0].x, x1 = c[0].x, y0 = c[0].y, y1 = c[0].y;
  for (int k = 1; k < 4; k++)
    x0 = fmin(x0, c[k].x), x1 = fmax(x1, c[k].x), y0 = fmin(y0, c[k].y), y1 = fmax(y1, c[k].y);
  int n = 0, g = 0;
  vis__frame fin = vis__frame_of(in), above[64];
  int n_above = i < 64 ? i : 64;
  for (int j = 0; j < n_above; j++) above[j] = vis__frame_of(&obj[j].r_px);
  for (int y = (int)fmax(0, y0); y <= (int)fmin(t->lab.height - 1, y1); y += 2)
    for (int x = (int)fmax(0, x0); x <= (int)fmin(t->lab.width - 1, x1); x += 2) {
      if (!vis__frame_contains(&fin, x, y, 0)) continue;
      bool hidden = false;
      for (int j = 0; j < n_above && !hidden; j++) hidden = vis__frame_contains(&above[j], x, y, 0);
      if (hidden) continue;
      n++;
      if (!fh) continue;
      int b = vis__bin(tp_image_row(&t->lab, y) + 3 * x);
      g += fh[b] > bg[b];
    }
  if (good) *good = g;
  return n;
}

/* Share of object i's visible samples (not under an object accepted
 * before it) whose colour its face explains better than the bare table
 * does. A face fitted onto bare table (a yellow carpet's gain/offset fit
 * on tan cloth, slid "under" a card) shows table colours where it claims
 * to show. *n gets the visible samples looked at. */
static double colour_share(const vis__table *t, const vis__object *obj, int i, const float *fh,
                           const float *bg, int *n) {
  vis_rect in = obj[i].r_px;
  double m = 2 * t->px_per_mm;
  in.w -= 2 * m, in.h -= 2 * m;
  int good;
  *n = visible_samples(t, obj, i, &in, fh, bg, &good);
  return *n ? (double)good / *n : 1;
}

/* colour_share with the face's colours as the deck has them. */
static double colour_support(const vis_analyzer *an, const vis__table *t, const vis__object *obj,
                             int i, const float *bg, int *n) {
  return colour_share(t, obj, i, an->face_hist + (size_t)obj[i].face * VIS__NBINS, bg, n);
}

/* How many of carpet i's samples (visible_samples) show its rug, the
 * printed part inside its face's plain ground (its face has a rug
 * measured: rug_end_mm > 0). */
static int rug_samples_shown(const vis_analyzer *an, const vis__table *t, const vis__object *obj,
                             int i) {
  const vis__template *tp = &an->tpl[obj[i].face];
  vis_rect rug = obj[i].r_px;
  rug.h -= 2 * tp->rug_end_mm * t->px_per_mm;
  rug.w -= 2 * tp->rug_side_mm * t->px_per_mm;
  return visible_samples(t, obj, i, &rug, NULL, NULL, NULL);
}

/* ---------------------------------------------------------- results */

/* Residual of a placed face at table pixel (x, y); a big number outside it. */
static double residual_at(const vis__table *t, const vis__face_place *p, double x, double y) {
  double r = vis__place_residual(t, p, x, y);
  return r < 0 ? 1e9 : r;
}

/* In the overlap of objects a and b, whose face do the pixels show? Each
 * sample goes to the object whose face explains it clearly best among all
 * objects lying there: a third carpet on top of the overlap takes its
 * samples away instead of voting at random. */
static vis__evidence overlap_evidence(const vis_analyzer *an, const vis__table *t,
                                      const vis__object *obj, int n_obj, int a, int b,
                                      double tau, double step) {
  vis__evidence e = {0, 0, 0, 0};
  vis_pt c[4];
  vis_rect_corners(&obj[a].r_px, c);
  double x0 = c[0].x, x1 = c[0].x, y0 = c[0].y, y1 = c[0].y;
  for (int i = 1; i < 4; i++)
    x0 = fmin(x0, c[i].x), x1 = fmax(x1, c[i].x), y0 = fmin(y0, c[i].y), y1 = fmax(y1, c[i].y);
  const double margin = 1.5 * t->px_per_mm; /* stay off both outlines */
  vis_rect ai = obj[a].r_px, bi = obj[b].r_px;
  ai.w -= 2 * margin, ai.h -= 2 * margin, bi.w -= 2 * margin, bi.h -= 2 * margin;
  vis__frame fa = vis__frame_of(&ai), fb = vis__frame_of(&bi), fr[64];
  /* the outlines' rounded corners, shrunk with them */
  const double round_px = vis__shrunk_corner_px(an->deck->corner_mm, t->px_per_mm, margin);
  int n_fr = n_obj < 64 ? n_obj : 64;
  vis__face_place pa = vis__face_place_of(t, &an->tpl[obj[a].face], &obj[a]),
                  pb = vis__face_place_of(t, &an->tpl[obj[b].face], &obj[b]), pr[64];
  for (int k = 0; k < n_fr; k++) {
    fr[k] = vis__frame_of(&obj[k].r_px);
    pr[k] = vis__face_place_of(t, &an->tpl[obj[k].face], &obj[k]);
  }
  for (double y = floor(y0); y <= y1; y += step)
    for (double x = floor(x0); x <= x1; x += step) {
      if (!vis__frame_contains_rounded(&fa, x, y, round_px) ||
          !vis__frame_contains_rounded(&fb, x, y, round_px))
        continue;
      double ra = residual_at(t, &pa, x, y), rb = residual_at(t, &pb, x, y);
      if (ra >= 1e9 || rb >= 1e9) continue;
      double rest = 1e9; /* the best of every other object lying here */
      for (int k = 0; k < n_fr; k++)
        if (k != a && k != b && vis__frame_contains(&fr[k], x, y, 0))
          rest = fmin(rest, residual_at(t, &pr[k], x, y));
      e.n++;
      double best = fmin(ra, fmin(rb, rest));
      if (best > tau) continue; /* nobody's face: glare, shadow, blur */
      if (rest <= best && rest + 4 < fmin(ra, rb)) e.hidden++;
      else if (ra <= best && ra + 4 < fmin(rb, rest)) e.on_top++;
      else if (rb <= best && rb + 4 < fmin(ra, rest)) e.under++;
    }
  return e;
}

/* The penumbra at carpet object `carpet`'s contact with card object `card`
 * (penumbra.c), every other object's frame kept out. */
static vis__penumbra contact_penumbra(const vis_analyzer *an, const vis__table *t,
                                      const vis__object *obj, int n_obj, int carpet, int card) {
  vis__frame others[64];
  int n_others = 0;
  for (int k = 0; k < n_obj && n_others < 64; k++)
    if (k != carpet && k != card) others[n_others++] = vis__frame_of(&obj[k].r_px);
  vis__face_place pa = vis__face_place_of(t, &an->tpl[obj[carpet].face], &obj[carpet]),
                  pb = vis__face_place_of(t, &an->tpl[obj[card].face], &obj[card]);
  return vis__penumbra_reading(t, an->deck->corner_mm, &pa, &pb, others, n_others);
}

/* The evidence of one overlap, sampled about every millimetre (*mm), and
 * the one that decides it (returned): where the millimetre grid holds too
 * few decided samples, every pixel of the rectified table, which is
 * sampled near the photo's own resolution (2 px/mm against about 2 camera
 * px/mm), so its pixels are nearly independent. A carpet's corner 5 mm
 * under a lamp's corner left 7 samples a millimetre apart off both
 * outlines, 6 : 0 under, and was taken as lying on it; its 29 pixels say
 * 24 : 0 (tuning easy 3024). Only the decision of that overlap takes the
 * pixels: pooling over a carpet's cards and the few-samples guard of
 * vis__decides_alone count millimetres. */
static vis__evidence deciding_evidence(const vis_analyzer *an, const vis__table *t,
                                       const vis__object *obj, int n_obj, int a, int b,
                                       double tau, vis__evidence *mm) {
  const double mm_step_px = fmax(1, t->px_per_mm); /* one millimetre in pixels */
  *mm = overlap_evidence(an, t, obj, n_obj, a, b, tau, mm_step_px);
  if (mm->on_top + mm->under >= VIS__EVIDENCE_MIN_DECIDED || mm_step_px <= 1) return *mm;
  return overlap_evidence(an, t, obj, n_obj, a, b, tau, 1);
}

static void set_reason(char *dst, const char *text) {
  snprintf(dst, VIS_REASON_MAX, "%s", text);
}

/* One overlap of carpet object i with object j, from the pixels. */
static vis_overlap *add_overlap(vis_result *res, const int *index, int i, int j,
                                bool other_carpet, double area) {
  vis_overlap *ov = &res->overlaps[res->n_overlaps++];
  ov->carpet = index[i];
  ov->other = index[j];
  ov->other_is_carpet = other_carpet;
  ov->area_mm2 = area;
  ov->votes_on = ov->votes_under = ov->votes_hidden = 0;
  return ov;
}

/* Whether carpet cp reaches deep enough into card (result index `card`)
 * to lie on it, by the rules' contact depth (*depth: how deep). A carpet
 * that stays short of it by less than the pose error only touches, and
 * says it is not sure. */
/* scale: the table's where they meet (vis__local_scale). */
static bool reaches_into(const vis_settings *s, double corner_mm, double scale, vis_carpet *cp,
                         const vis_rect *card, int card_index, int type, double *depth) {
  *depth = vis_rect_contact_depth_at(&cp->rect, card, corner_mm, scale);
  if (tp_contact_lies_on(*depth, s->contact_depth_mm)) return true;
  vis__note_contact_doubt(s, *depth, card_index, type, cp);
  return false;
}

/* Neither the overlap nor the carpet's pooled card overlaps hold enough
 * decided samples to tell anything (vis__evidence_clear's minimum). */
static bool nothing_decided(const vis__evidence *own, int sum_on, int sum_under) {
  return own->on_top + own->under < VIS__EVIDENCE_MIN_DECIDED &&
         sum_on + sum_under < VIS__EVIDENCE_MIN_DECIDED;
}

/* TEPPICH_DEBUG_DIR: the path of the debug file name, into path. */
static void debug_path(const vis_analyzer *an, const char *name, char path[1024]) {
  snprintf(path, 1024, "%s/%s", an->s.debug_dir, name);
}

/* TEPPICH_DEBUG_DIR: the debug file name opened with mode, or NULL: a
 * debug file that cannot be written is skipped, never an error. */
static FILE *debug_open(const vis_analyzer *an, const char *name, const char *mode) {
  char path[1024];
  debug_path(an, name, path);
  return fopen(path, mode);
}

/* TEPPICH_DEBUG_DIR: stack.txt, one line per overlap of carpet object i
 * with object j (card: its result index, -1 for a carpet): its votes
 * (deciding, millimetres), the carpet's pooled card sums and the decision,
 * to see why a carpet was taken as on or under what it meets; pn (cards):
 * the penumbra reading at the contact. */
static void debug_stack(const vis_analyzer *an, const vis__object *obj, int i, int j, int card,
                        const vis__evidence *e, const vis__evidence *e_mm, double depth,
                        int sum_on, int sum_under, bool own, bool on_top,
                        const vis__penumbra *pn) {
  FILE *f = debug_open(an, "stack.txt", "a");
  if (!f) return;
  const vis__template *ti = &an->tpl[obj[i].face], *tj = &an->tpl[obj[j].face];
  fprintf(f, "%s carpet (obj %d) %s %d (obj %d, %s) depth %.2f: votes %d:%d hidden %d of %d,"
             " mm %d:%d hidden %d of %d, pooled %d:%d, own %d -> %s\n",
          vis_deck_carpet_colour(an->deck, ti->index), i, card < 0 ? "carpet" : "card", card, j,
          card < 0 ? vis_deck_carpet_colour(an->deck, tj->index) : vis_type_name(tj->index),
          depth, e->on_top, e->under, e->hidden, e->n, e_mm->on_top, e_mm->under, e_mm->hidden,
          e_mm->n, sum_on, sum_under, own, on_top ? "on" : "under");
  if (pn)
    fprintf(f, "  penumbra on card %.2f (%d) far %.2f (%d), on carpet %.2f (%d) far %.2f (%d)\n",
            pn->on_card, pn->n_card, pn->on_card_far, pn->n_card_far, pn->on_carpet,
            pn->n_carpet, pn->on_carpet_far, pn->n_carpet_far);
  fclose(f);
}

/* Who lies on top where carpet object i meets the others. A thrown carpet
 * lies on the whole layout or, when it slid under it, under all of it:
 * the evidence of all its card overlaps is pooled, and a card whose own
 * overlap shows clearly decides for itself. When nothing shows (a third
 * carpet covers every overlap, or a corner only grazes a card's edge), it
 * lies on top, as thrown carpets do, unless the card's shadow falls on it
 * there (penumbra.c: a carpet slid under the card), and says it is not
 * sure. */
static void stack_carpet(const vis_analyzer *an, const vis__table *t, const vis__object *obj,
                         int n_obj, int i, const int *index, double scale, vis_result *res) {
  const double tau = 35;
  vis_carpet *cp = &res->carpets[index[i]];
  int cards[64], n_cards = 0, sum_on = 0, sum_under = 0, sum_hidden = 0;
  vis__evidence ev[64], ev_mm[64];
  double areas[64], depths[64], depth = 0;
  for (int j = 0; j < n_obj; j++) {
    if (j == i) continue;
    bool other_carpet = an->tpl[obj[j].face].kind != VIS__FACE_TYPE;
    if (other_carpet && j < i) continue; /* each carpet pair once */
    vis_rect rj = vis__rect_px_to_mm(t, &obj[j].r_px);
    double area = vis_rect_overlap_area(&cp->rect, &rj);
    if (other_carpet ? area <= an->s.min_overlap_mm2
                     : !reaches_into(&an->s, an->deck->corner_mm, scale, cp, &rj, index[j],
                                     an->tpl[obj[j].face].index, &depth))
      continue;
    vis__evidence e_mm, e = deciding_evidence(an, t, obj, n_obj, i, j, tau, &e_mm);
    if (other_carpet) {
      vis_overlap *ov = add_overlap(res, index, i, j, true, area);
      ov->depth_mm = vis_rect_contact_depth(&cp->rect, &rj, an->deck->corner_mm);
      bool clear = vis__evidence_clear(e.on_top, e.under);
      ov->carpet_on_top = clear ? e.on_top > e.under : i < j; /* else: matcher's order */
      ov->confidence = clear ? (double)abs(e.on_top - e.under) / (e.on_top + e.under) : 0.5;
      ov->uncertain = !clear;
      if (an->s.debug_dir)
        debug_stack(an, obj, i, j, -1, &e, &e_mm, ov->depth_mm, 0, 0, clear, ov->carpet_on_top,
                    NULL);
      continue;
    }
    if (n_cards == 64) continue;
    ev[n_cards] = e;
    ev_mm[n_cards] = e_mm;
    areas[n_cards] = area;
    depths[n_cards] = depth;
    cards[n_cards++] = j;
    sum_on += e_mm.on_top, sum_under += e_mm.under, sum_hidden += e_mm.hidden;
  }
  bool pooled_clear = vis__evidence_clear(sum_on, sum_under);
  bool above = pooled_clear ? sum_on > sum_under : true;
  for (int k = 0; k < n_cards; k++) {
    int j = cards[k];
    vis_overlap *ov = add_overlap(res, index, i, j, false, areas[k]);
    ov->depth_mm = depths[k];
    ov->votes_on = ev[k].on_top, ov->votes_under = ev[k].under, ov->votes_hidden = ev[k].hidden;
    vis__overlap_votes v = vis__overlap_decision(&ev[k], &ev_mm[k], sum_on, sum_under);
    bool own = v.own, unseen = !v.decided;
    int on = v.on, under = v.under;
    /* no face shows at any of its contacts (not a mixed vote: DEV hard
     * 3075's red, 606 : 1601 on a spice bazaar 13 % visible, lies on it) */
    bool blind = unseen && nothing_decided(&ev[k], sum_on, sum_under);
    vis__penumbra pn = {0, 0, 0, 0, 0, 0, 0, 0};
    if (blind || an->s.debug_dir) pn = contact_penumbra(an, t, obj, n_obj, i, j);
    /* the card's shadow on the carpet may show who lies on top */
    bool shadowed = blind && vis__card_shadow_on_carpet(&pn);
    ov->carpet_on_top = own || v.overruled ? on > under : above && !shadowed;
    ov->confidence = v.decided ? (double)abs(on - under) / (on + under) : 0.5;
    ov->uncertain = unseen;
    if (ov->carpet_on_top) {
      if (cp->n_on_cards < 64) cp->on_cards[cp->n_on_cards++] = index[j];
    } else if (cp->n_under_cards < 64) {
      cp->under_cards[cp->n_under_cards++] = index[j];
    }
    if (ov->uncertain && !cp->uncertain) {
      cp->uncertain = true;
      snprintf(cp->reason, VIS_REASON_MAX,
               shadowed ? "cannot see whether it lies on or under card %d: the card's shadow on "
                          "it says under"
               : sum_hidden > sum_on + sum_under
                   ? "another carpet hides where it meets card %d: taken as lying on it"
                   : "cannot see whether it lies on or under card %d: taken as lying on it",
               index[j]);
    }
    if (ov->carpet_on_top)
      vis__note_contact_doubt(&an->s, depths[k], index[j], an->tpl[obj[j].face].index, cp);
    if (an->s.debug_dir)
      debug_stack(an, obj, i, j, index[j], &ev[k], &ev_mm[k], depths[k], sum_on, sum_under, own,
                  ov->carpet_on_top, &pn);
  }
}

/* An apparent scale further than this from 1 is the face's misfit, not
 * the table's: the mapping's scale is off by 0.8 % at most seen, and the
 * carpets near cards on DEV 3000-3199, CHECK and HUNT 3600-3999 read
 * -0.70..+0.56 % (322 of 323); HUNT hard 3995's blue read -1.38 % where
 * the map was 0.2 % large, so its 0.3 mm into a card read 0.7 mm short of
 * it, unmarked. Such a carpet is taken as not measured. */
#define APPARENT_SCALE_MAX_OFF 0.01

/* The table's scale for each carpet's contacts (vis__local_scale of the
 * apparent scales of the carpets vis__scale_measurable picks: any object
 * accepted before a carpet, on top or a card all but a sliver of which
 * showed, may cover it) in scale[]; own[]: its own apparent scale (NaN:
 * not measured); NaN for cards. false: out of memory. */
static bool carpet_scales(const vis_analyzer *an, const vis__table *t, const vis__object *obj,
                          int n_obj, double *own, double *scale) {
  vis__outline *o = malloc(sizeof *o * ((size_t)n_obj + 1));
  if (!o) return false;
  for (int i = 0; i < n_obj; i++)
    o[i] = (vis__outline){vis__rect_px_to_mm(t, &obj[i].r_px),
                          an->tpl[obj[i].face].kind == VIS__FACE_TYPE, true};
  for (int i = 0; i < n_obj; i++) {
    own[i] = !o[i].card && vis__scale_measurable(o, n_obj, i, an->deck->corner_mm)
                 ? vis__apparent_scale(t, &an->tpl[obj[i].face], &obj[i])
                 : NAN;
    if (fabs(own[i] - 1) > APPARENT_SCALE_MAX_OFF) own[i] = NAN; /* NaN stays NaN */
  }
  for (int i = 0; i < n_obj; i++)
    scale[i] = o[i].card ? NAN : vis__local_scale(own, n_obj, i);
  free(o);
  return true;
}

/* Object i's face fit where it lies alone (against every other object). */
static void fit_alone(const vis_analyzer *an, const vis__table *t, const vis__object *obj,
                      int n_obj, int i, vis__face_fit *ff) {
  vis_rect others[64];
  int n = 0;
  for (int j = 0; j < n_obj && n < 64; j++)
    if (j != i) others[n++] = obj[j].r_px;
  vis__face_fit_measure(t, &an->tpl[obj[i].face], &obj[i], n ? others : NULL, n, NULL, 0, 1, ff);
}

/* A type told from under a fifth of the card is a guess the player must
 * be told about: the cards 5-17 % visible that retract_phantoms let be
 * found were found right and typed wrong (held-out, three scenes), and
 * their look-alikes' margins did not say so. */
#define FEW_VISIBLE 0.2

/* Why card i (a card's face) is uncertain, into c (c->uncertain and
 * c->reason), or nothing when its type is sure: the first of the doubts
 * in the order a player can act on them. */
static void card_doubt(const vis_analyzer *an, const vis__table *t, const vis__object *obj,
                       int n_obj, int i, vis_card *c) {
  const vis__object *o = &obj[i];
  vis__face_fit ff;
  fit_alone(an, t, obj, n_obj, i, &ff);
  if (o->score < an->s.type_min_score) {
    c->uncertain = true;
    set_reason(c->reason, "the visible part matches no card face well");
  } else if (o->hand_share > 0) { /* its face fit, hand and all, would blame the deck */
    c->uncertain = true;
    snprintf(c->reason, VIS_REASON_MAX,
             "a hand or something not from the deck covers %.0f %% of it; its type is "
             "told from the rest",
             100 * o->hand_share);
  } else if (vis__face_fit_poor(&ff)) {
    /* A carpet missed on it comes first: held-out 200000..200099 (300
     * scenes) missed 11 carpets, 5 of them beside a card flagged so. */
    c->uncertain = true;
    snprintf(c->reason, VIS_REASON_MAX,
             "part of it matches no face of the deck (the %s face explains %.0f %% "
             "there): perhaps a carpet on it not seen, or its type is not in the deck",
             vis_type_name(an->tpl[o->face].index), 100 * (ff.cells ? ff.worst : ff.score));
  } else if (vis__type_tells_too_little(o)) {
    c->uncertain = true;
    snprintf(c->reason, VIS_REASON_MAX, "too little shows to tell it from %s",
             vis_type_name(an->tpl[o->second_face].index));
  } else if (!vis__type_won_clearly(o) &&
             vis__type_in_doubt(o, an->s.type_min_margin)) { /* won narrowly */
    c->uncertain = true;
    snprintf(c->reason, VIS_REASON_MAX, "could also be %s",
             vis_type_name(an->tpl[o->second_face].index));
  } else if (c->visible_fraction < FEW_VISIBLE) {
    c->uncertain = true;
    snprintf(c->reason, VIS_REASON_MAX,
             "only %.0f %% of it shows: too little to be sure of its type",
             100 * c->visible_fraction);
  }
}

static double visible_share(const vis__object *o) {
  return o->total ? (double)o->valid / o->total : 0;
}

/* The result's card for object i, a card's face. */
static void card_of(const vis_analyzer *an, const vis__table *t, const vis__object *obj,
                    int n_obj, int i, vis_card *c) {
  const vis__object *o = &obj[i];
  c->type = an->tpl[o->face].index;
  c->rect = vis__rect_px_to_mm(t, &o->r_px);
  c->visible_fraction = visible_share(o);
  c->type_score = o->score;
  c->type_margin = vis__type_margin(o);
  c->upside_down = o->flipped; /* relative to the long axis angle */
  c->has_second_type = o->second_face >= 0;
  c->second_type = o->second_face >= 0 ? an->tpl[o->second_face].index : -1;
  c->second_type_score = o->valid ? (double)o->second_explained / o->valid : 0;
  card_doubt(an, t, obj, n_obj, i, c);
}

/* The result's carpet for object o, a carpet's face or back; its
 * contact scale and stacking are added later (build_result). */
static void carpet_of(const vis_analyzer *an, const vis__table *t, const vis__object *o,
                      vis_carpet *c) {
  const vis__template *tp = &an->tpl[o->face];
  c->carpet = tp->index;
  snprintf(c->colour, sizeof c->colour, "%s", vis_deck_carpet_colour(an->deck, tp->index));
  c->face_down = tp->kind == VIS__FACE_BACK;
  c->rect = vis__rect_px_to_mm(t, &o->r_px);
  c->visible_fraction = visible_share(o);
  if (o->hand_share > 0) { /* what lies under the hand is not seen (match.c carpet_under_hand) */
    c->uncertain = true;
    snprintf(c->reason, VIS_REASON_MAX,
             "a hand or something not from the deck covers %.0f %% of it: a card under that "
             "part would not be seen",
             100 * o->hand_share);
  }
}

/* TEPPICH_DEBUG_DIR: stack.txt starts empty for each photo. */
static void debug_stack_reset(const vis_analyzer *an) {
  FILE *f = debug_open(an, "stack.txt", "w");
  if (f) fclose(f);
}

/* The result's cards and carpets from the n_obj objects matched, and
 * for each carpet what it lies on and under (stack_carpet). */
static tp_status build_result(const vis_analyzer *an, const vis__table *t,
                              const vis__object *obj, int n_obj,
                              vis_result *res, tp_error *err) {
  res->cards = calloc((size_t)n_obj + 1, sizeof *res->cards);
  res->carpets = calloc((size_t)n_obj + 1, sizeof *res->carpets);
  res->overlaps = calloc((size_t)n_obj * (size_t)n_obj + 1, sizeof *res->overlaps);
  int *index = calloc((size_t)n_obj + 1, sizeof *index); /* object -> card/carpet */
  if (!res->cards || !res->carpets || !res->overlaps || !index) {
    free(index);
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory for the result");
  }
  for (int i = 0; i < n_obj; i++) {
    if (an->tpl[obj[i].face].kind == VIS__FACE_TYPE) {
      index[i] = res->n_cards;
      card_of(an, t, obj, n_obj, i, &res->cards[res->n_cards++]);
    } else {
      index[i] = res->n_carpets;
      carpet_of(an, t, &obj[i], &res->carpets[res->n_carpets++]);
    }
  }
  double *scale = malloc(sizeof *scale * (2 * (size_t)n_obj + 1));
  double *own = scale ? scale + n_obj : NULL;
  if (!scale || !carpet_scales(an, t, obj, n_obj, own, scale)) {
    free(scale);
    free(index);
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory for the result");
  }
  if (an->s.debug_dir) debug_stack_reset(an);
  for (int i = 0; i < n_obj; i++)
    if (an->tpl[obj[i].face].kind != VIS__FACE_TYPE) {
      res->carpets[index[i]].contact_scale = scale[i];
      res->carpets[index[i]].contact_scale_own = isfinite(own[i]);
      stack_carpet(an, t, obj, n_obj, i, index, scale[i], res);
    }
  free(scale);
  free(index);
  return TP_OK;
}

/* A card mostly hidden whose visible part shows the table's colours and
 * whose face had to be faded to fit it: the gain of L at its lower bound
 * (vis__match's fit: 0.5). A face fitted onto plain wood between two
 * carpets explains all of it so (a uniform surface fits a faded face;
 * tuning normal 3020: colour share 0.02, gain 0.50); real cards partly
 * hidden show their face's colours (0.62-0.91) at gains 0.61-0.88. */
#define FADED_SHARE 0.15
#define FADED_GAIN 0.55
static bool faded_onto_table(const vis__object *o, double colour_share) {
  return colour_share < FADED_SHARE && 2 * o->valid < o->total && o->gain[0] < FADED_GAIN;
}

/* Share of rectangle r (table pixels) the camera saw: every 2 mm, where
 * the rectified table has a picture (vis__table_lab). */
static double seen_share(const vis__table *t, const vis_rect *r) {
  double a = r->angle_deg * VIS_PI / 180.0, step = 2 * t->px_per_mm;
  double ux = cos(a), uy = sin(a), vx = -uy, vy = ux;
  int seen = 0, all = 0;
  for (double p = -r->h / 2 + step / 2; p < r->h / 2; p += step)
    for (double q = -r->w / 2 + step / 2; q < r->w / 2; q += step) {
      float lab[3];
      all++;
      seen += vis__table_lab(t, r->center.x + p * ux + q * vx, r->center.y + p * uy + q * vy, lab);
    }
  return all ? (double)seen / all : 1;
}

/* A card whose face had to be faded to the fit's bound (gain of L under
 * FADED_GAIN) to explain what shows, where that cannot be a card seen in
 * poor light:
 * - what shows has the table's colours (under FADED_SHARE) and the face
 *   explains under FADED_FIT of it: a faded camel bazaar or adventure
 *   fitted onto patterned cloth beside and under carpets (tuning hard
 *   3000-3099: 3019 3052 3060 3077 3095, colour share 0.00-0.01, 0.83-0.89
 *   explained, frame 0.93-0.96, so the card frame test let them through);
 *   the real cards of those scenes in table colours explained 0.948 or
 *   more, the faded ones (colour share 0.05-0.13, two lamps under glare
 *   and an adventure) 0.948-0.998 (and see faded_unoutlined);
 * - or what shows has the table's colours, its frame falls short of the
 *   on-table card frame (0.93) and part of it matches no face
 *   (vis__face_fit_poor_on_table: the type check's cell): a faded camel
 *   bazaar on wood across the gap beside a real card explained 0.906 of
 *   it (frame 0.866), but one cell only 0.56 (DEV normal 3086; accepted,
 *   it pushed out the adventure 30 % visible under two carpets beside it;
 *   hard 3105 3187: cells 0.67 and 0.73, frames 0.90 and 0.92). The real
 *   faded cards in table colours of DEV 3000-3099 (hard 3041 3049 3072,
 *   lamps and a bazaar under glare, colour share 0.05-0.13) left no cell
 *   under 0.948; a palace under glare fitted as a lamp (hard 3120, colour
 *   share 0.05) left one at 0.61, but its frame shows a card (0.999);
 * - or part of it lies outside the picture (under IN_PICTURE seen): a
 *   faded face fitted to the cloth where the camera's view ends (hard
 *   3009 3015 3017 3069 3097: 14-83 % of the card in the picture, 86-250
 *   mm from the nearest card, some explaining 0.93 of the card and 0.98
 *   of its frame), whose frame cannot be checked all round; no real card
 *   of those scenes reached out of the picture. */
#define FADED_FIT 0.9
#define IN_PICTURE 0.9
static bool faded_phantom(const vis__table *t, const vis__object *o, const vis__face_fit *ff,
                          double colour_share) {
  if (o->gain[0] >= FADED_GAIN) return false;
  return (colour_share < FADED_SHARE && ff->score < FADED_FIT) ||
         vis__face_fit_poor_on_table(ff, colour_share) || seen_share(t, &o->r_px) < IN_PICTURE;
}

/* Card k's outline shows all round where nothing of the n others lies
 * on it (vis__outline_edges): an edge at VIS__OUTLINED_EDGES of at least
 * VIS__OUTLINED_SEEN side samples. Real cards a fifth to a third visible
 * between carpets under a lamp's glare were faded to the fit's bound and
 * showed the table's colours (gain of L 0.50-0.55, colour share
 * 0.03-0.13), so faded_onto_table dropped them, while their outline
 * showed at 0.96-1.00 of 121-154 (tuning hard 3012 3019 3171 3197). The
 * faces faded onto plain table that the same check dropped on DEV
 * 3000-3199 had none of their own: 0.00-0.84 of 53-172 side samples
 * (normal 3008 3020, hard 3093 3108 3116 3140 3174), and 0.98 of 63 on
 * a strip between carpets (hard 3098). */
/* The outlines of the objects other than k, into others[64]; returns
 * how many (the first 64). */
static int outlines_of_others(const vis__object *obj, int n, int k, vis_rect others[64]) {
  int n_others = 0;
  for (int j = 0; j < n && n_others < 64; j++)
    if (j != k) others[n_others++] = obj[j].r_px;
  return n_others;
}

static bool outlined_all_round(const vis__table *t, const vis__object *obj, int n, int k) {
  vis_rect others[64];
  int n_others = outlines_of_others(obj, n, k, others);
  return vis__outlined_all_round(t, &obj[k].r_px, others, n_others, NULL);
}

/* Card k's outline shows where none of the n others lies on it: an edge
 * at min_edges of at least min_seen side samples (vis__outline_edges).
 * The bars are the caller's: a sliver has few side samples, a card under
 * carpets on two or three sides has short ones. */
static bool outline_shows_on(const vis__table *t, const vis__object *obj, int n, int k,
                             int min_seen, double min_edges) {
  vis_rect others[64];
  int n_others = outlines_of_others(obj, n, k, others), seen;
  double weakest;
  double e = vis__outline_edges(t, &obj[k].r_px, others, n_others, NULL, &seen, &weakest);
  return seen >= min_seen && e >= min_edges;
}

/* A card faded to the fit's bound whose visible part shows the table's
 * colours, whose face explains under FADED_UNOUTLINED_FIT of it, and whose
 * outline does not show all round (outlined_all_round): a faded camel
 * bazaar turned by 90 degrees on tan cloth, across the corner of a carpet
 * bazaar 33 % visible under the red carpet, explained 0.929 of what
 * showed (colour share 0.003, frame 0.87; FADED_FIT's bar is 0.9) and,
 * accepted, pushed the real card out (HUNT hard 3711, session 31). The
 * real cards in table colours explain 0.948 or more (faded_phantom), but
 * for the cards a fifth visible between carpets under a glare, whose
 * outline shows all round (hard 3197: a palace 22 % visible, 0.933,
 * colour share 0.12). */
#define FADED_UNOUTLINED_FIT 0.94
static bool faded_unoutlined(const vis__table *t, const vis__object *kept, int n_kept, int k,
                             const vis__face_fit *ff, double colour_share) {
  const vis__object *o = &kept[k];
  return o->gain[0] < FADED_GAIN && colour_share < FADED_SHARE &&
         ff->score < FADED_UNOUTLINED_FIT && !outlined_all_round(t, kept, n_kept, k);
}

/* Card k is a sliver whose face explains wholly what shows of it, and
 * the edge of that strip shows: at most VIS__SLIVER_SHOWS of it shows,
 * its face explains SLIVER_FIT of that and of its frame, and its outline
 * shows at VIS__OUTLINED_EDGES of at least VIS__SLIVER_EDGE_SEEN side
 * samples where no other object lies. Such a strip has only the frame's
 * cream: its face fits at the fit's bound and shows none of the face's
 * colours, so faded_onto_table took it back, and a strip 4 % of the card
 * has too few side samples for outlined_all_round (tuning hard 3022: an
 * adventure c, fit 1.000 of 100, frame 1.000, outline 1.000 of 32). The
 * faded face on a strip of cloth between carpets that the same check
 * drops (hard 3098, 11 % of the card) fitted 0.963, frame 0.977, outline
 * 0.98 of 63. */
#define SLIVER_FIT 0.99
static bool outlined_sliver(const vis__table *t, const vis__object *obj, int n, int k,
                            const vis__face_fit *ff) {
  if (obj[k].valid > VIS__SLIVER_SHOWS * obj[k].total || ff->score < SLIVER_FIT ||
      ff->ring < SLIVER_FIT)
    return false;
  return outline_shows_on(t, obj, n, k, VIS__SLIVER_EDGE_SEEN, VIS__OUTLINED_EDGES);
}

/* Card k, under half of it showing, whose face explains all but a trace
 * of what shows and of its frame (CLEAN_FIT), and whose outline shows at
 * CLEAN_EDGES of at least CLEAN_EDGE_SEEN side samples where nothing else
 * lies: short of outlined_all_round's bars (0.95 of 100), as carpets on
 * two or three sides leave short sides, but a clean face has the outline
 * of a card. Taken back as faded before (gain of L 0.50, colour share
 * 0.09-0.14), real cards under carpets: HUNT hard 3748's carpet bazaar
 * 21 % visible (face 0.996, frame 1.000, outline 1.000 of 97), 3973's
 * spice bazaar 16 % (0.990, 0.982, 1.000 of 91), DEV hard 3112's palace
 * 9 % (0.991, 0.991, 0.919 of 74). The faded faces on plain table the
 * outline test drops fit as clean (DEV hard 3093: 0.992, frame 0.996;
 * normal 3008: 0.999, 0.998; normal 3020: 0.998, 1.000) but show no
 * outline of their own: 0.68 of 53, 0.00 of 142, 0.71 of 65. The one
 * that did, on a strip of cloth between carpets (hard 3098: 0.98 of 63),
 * fitted 0.963, frame 0.977. */
#define CLEAN_FIT 0.98
#define CLEAN_EDGES 0.9
#define CLEAN_EDGE_SEEN 60
static bool outlined_clean(const vis__table *t, const vis__object *obj, int n, int k,
                           const vis__face_fit *ff) {
  if (ff->score < CLEAN_FIT || ff->ring < CLEAN_FIT) return false;
  return outline_shows_on(t, obj, n, k, CLEAN_EDGE_SEEN, CLEAN_EDGES);
}

/* A card the matcher accepted that shows no card (kept[k] among the
 * objects kept): no card frame where it lies alone
 * (vis__face_fit_no_card: the matcher checks this before it accepts a
 * card; here again against the objects found below it), more strictly
 * where what shows of it has the table's colours; or only a faded face
 * (faded_onto_table, faded_phantom). ff: its fit alone. */
static bool shows_no_card(const vis_analyzer *an, const vis__table *t, const vis__object *kept,
                          int n_kept, int k, double colour_share, const vis__face_fit *alone) {
  vis__face_fit ff = *alone;
  if (vis__face_fit_no_card_on_table(&ff, colour_share)) { /* a hand on it? */
    vis_rect others[64];
    int n_others = outlines_of_others(kept, n_kept, k, others);
    vis__occluded_fit of;
    if (!vis__occluded_card(t, &an->tpl[kept[k].face], &kept[k], others, n_others, NULL, 0, 1,
                            &of))
      return true;
    ff = of.fit;
  }
  return vis__face_fit_no_card_on_table(&ff, colour_share) ||
         (faded_onto_table(&kept[k], colour_share) && !outlined_all_round(t, kept, n_kept, k) &&
          !outlined_sliver(t, kept, n_kept, k, &ff) && !outlined_clean(t, kept, n_kept, k, &ff)) ||
         faded_phantom(t, &kept[k], &ff, colour_share) ||
         faded_unoutlined(t, kept, n_kept, k, &ff, colour_share);
}

/* A card mostly hidden (under half of it shows) beside the carpets on
 * it, whose outline shows all round (outlined_all_round) and whose frame,
 * alone, explains SHADOWED_RING or more: the matcher accepts such a card
 * although its frame falls short of a card's in the open (match.c
 * shadowed_frame, the same bar), and the fade tests of shows_no_card
 * must not take it back. HUNT hard 3869 (session 33): a carpet bazaar
 * 31 % visible under the red carpet, lifted by a glare (gain of L 0.50,
 * colour share 0.019), its face 0.88 of what shows, a cell at 0.76, frame
 * 0.912 of 702, outline 0.986 of 144 side samples, was accepted twice and
 * taken back twice (frame short on a table-coloured card, a poor cell, a
 * faded face under FADED_FIT). The faded faces those tests were made for
 * show no outline of their own: 0.00-0.84 on plain table
 * (outlined_all_round's note), 0.49-0.84 across a real card
 * (shadowed_frame's). Two faded camel and carpet bazaar faces on cloth
 * did (DEV hard 3077: 960 and 660 of 1305 samples showing, colour share
 * 0.000, face 0.835 and 0.822, frame 0.932 and 0.961, edge 0.967 of 181
 * and 0.986 of 145), but half or more of them showed: a card mostly in
 * view has no carpets on it to shadow its frame, and those stay
 * phantoms. So does a faded face reaching out of the picture
 * (faded_phantom): its outline cannot show all round. */
#define SHADOWED_RING 0.85
static bool card_phantom_verdict(const vis_analyzer *an, const vis__table *t,
                                 const vis__object *kept, int n_kept, int k, double colour_share,
                                 const vis__face_fit *alone) {
  vis__face_fit ff = *alone;
  if (!shows_no_card(an, t, kept, n_kept, k, colour_share, &ff)) return false;
  if (2 * kept[k].valid >= kept[k].total || ff.ring < SHADOWED_RING ||
      !outlined_all_round(t, kept, n_kept, k))
    return true;
  return kept[k].gain[0] < FADED_GAIN && seen_share(t, &kept[k].r_px) < IN_PICTURE;
}

/* TEPPICH_DEBUG_DIR: phantoms.txt, one line per card the phantom check
 * asks: its fit alone, colour share, gain and outline, and the verdict. */
static void debug_card_phantom(const vis_analyzer *an, const vis__table *t,
                               const vis__object *kept, int n_kept, int k, double colour_share,
                               const vis__face_fit *ff, bool phantom) {
  FILE *f = an->s.debug_dir ? debug_open(an, "phantoms.txt", "a") : NULL;
  if (!f) return;
  vis_rect others[64];
  int n_others = outlines_of_others(kept, n_kept, k, others), seen;
  double weakest;
  double e = vis__outline_edges(t, &kept[k].r_px, others, n_others, NULL, &seen, &weakest);
  const vis__object *o = &kept[k];
  fprintf(f, "card %d type %d at %.0f %.0f %.1f valid %d/%d gain %.2f share %.3f: fit %.3f of %d"
             " worst %.3f (%d cells) ring %.3f of %d edge %.2f of %d -> %s\n",
          k, an->tpl[o->face].index, o->r_px.center.x, o->r_px.center.y, o->r_px.angle_deg,
          o->valid, o->total, o->gain[0], colour_share, ff->score, ff->n, ff->worst, ff->cells,
          ff->ring, ff->ring_n, e, seen, phantom ? "phantom" : "card");
  fclose(f);
}

static bool card_phantom(const vis_analyzer *an, const vis__table *t, const vis__object *kept,
                         int n_kept, int k, double colour_share) {
  vis__face_fit ff;
  fit_alone(an, t, kept, n_kept, k, &ff);
  bool phantom = card_phantom_verdict(an, t, kept, n_kept, k, colour_share, &ff);
  debug_card_phantom(an, t, kept, n_kept, k, colour_share, &ff, phantom);
  return phantom;
}

/* a and b of the same size, their centres under reach_px apart and
 * their angles under max_deg (either way round). */
static bool twin_pose(const vis_rect *a, const vis_rect *b, double reach_px, double max_deg) {
  double da = fmod(fabs(a->angle_deg - b->angle_deg), 180);
  if (da > 90) da = 180 - da;
  return fabs(a->w - b->w) < 1 && fabs(a->h - b->h) < 1 && da < max_deg &&
         hypot(a->center.x - b->center.x, a->center.y - b->center.y) < reach_px;
}

/* A carpet or card found right under an object accepted before it, of
 * the same size and pose within TWIN_MM and TWIN_DEG, of which less than
 * TWIN_SHOWS shows: what "shows" is the slivers of the object on top that
 * its pose leaves (a few samples fit any face), not an object. A real one
 * lying exactly under another could not be seen either. Cards too: a
 * lone carpet's white border passed for a palace under it (tuning easy
 * 3101, 3125, 3147: 46-73 samples, 4-6 % of the card, 1-2 mm and under
 * a degree from the carpet's pose). */
#define TWIN_MM 3.0
#define TWIN_DEG 3.0
#define TWIN_SHOWS 0.2
static bool hidden_twin(const vis__table *t, const vis__object *obj, int i) {
  if (obj[i].valid >= TWIN_SHOWS * obj[i].total) return false;
  for (int j = 0; j < i; j++)
    if (twin_pose(&obj[i].r_px, &obj[j].r_px, TWIN_MM * t->px_per_mm, TWIN_DEG)) return true;
  return false;
}

/* A carpet found at the rug's offsets from a carpet accepted before it
 * (its pose within the rug's insets, hypot(end, side), and RUG_TWIN_SLACK_MM
 * of that carpet's, within TWIN_DEG) of which under RUG_SEEN_MIN_MM2 of
 * its rug shows: only a strip of its plain ground shows beside the
 * carpet on it. Every carpet face explains such a strip alike (the
 * ground is the same cream on every carpet card), so it tells neither a
 * colour nor that a carpet lies there, and the first carpet face tried,
 * the blue, took the strip of table or card beside a real carpet: HUNT
 * easy 3762 and 3802, HUNT hard 3845, 3912 and 3983, 4.0-7.4 mm and
 * under a degree off a carpet accepted before, 70-128 of 1305 samples
 * showing, 0-15 mm^2 of rug. The real carpets of DEV hard 3000-3199
 * showed 95 mm^2 of rug or more (3001's blue under three others, 127
 * samples showing). Not every carpet whose rug does not show: DEV normal
 * 3009's green under three others (43 samples, 2 mm^2 of rug) is real,
 * its pose 25 degrees from the yellow's on it. */
#define RUG_SEEN_MIN_MM2 40.0
#define RUG_TWIN_SLACK_MM 1.0
static bool rug_twin(const vis_analyzer *an, const vis__table *t, const vis__object *obj, int i) {
  const vis__template *tp = &an->tpl[obj[i].face];
  if (tp->kind != VIS__FACE_CARPET || tp->rug_end_mm <= 0) return false;
  double reach = (hypot(tp->rug_end_mm, tp->rug_side_mm) + RUG_TWIN_SLACK_MM) * t->px_per_mm;
  bool near = false;
  for (int j = 0; j < i && !near; j++)
    near = an->tpl[obj[j].face].kind == VIS__FACE_CARPET &&
           twin_pose(&obj[i].r_px, &obj[j].r_px, reach, TWIN_DEG);
  if (!near) return false;
  double mm2_per_sample = 4 / (t->px_per_mm * t->px_per_mm); /* every 2nd pixel each way */
  return rug_samples_shown(an, t, obj, i) * mm2_per_sample < RUG_SEEN_MIN_MM2;
}

/* A carpet of which under CARPET_SLIVER_SHOWS shows, fitted with its face faded
 * to the fit's bound (gain of L under FADED_GAIN): a few dozen samples of
 * other objects' borders and the table between them fit a faded face
 * (tuning easy 3010, 3050, 3075: 50-70 samples, 4-5 % of the carpet,
 * gain 0.50, each a phantom beside or under a carpet); the other carpets
 * kept that showed under a tenth on tuning 3000..3099 (all levels) were
 * fitted at gains 0.67-1.23. Fully visible carpets do fit at 0.50 (a dark
 * scene): the fade alone tells nothing. The fade is not measured against
 * the photo's light here (faded_in_photo): a phantom sliver of DEV hard
 * 3114 (46 samples, gain 0.50) lay in a dark photo whose other objects
 * fit at 0.54. */
#define CARPET_SLIVER_SHOWS 0.1
static bool faded_sliver(const vis__object *o) {
  return o->valid < CARPET_SLIVER_SHOWS * o->total && o->gain[0] < FADED_GAIN;
}

/* The face's colours as the photo shows them: its texels through the
 * object's fitted gain and offset, smoothed as the deck's histograms are
 * (VIS__NBINS floats, sum 1). */
static void photo_face_histogram(const vis__template *tp, const vis__object *o, float *h) {
  memset(h, 0, sizeof(float) * VIS__NBINS);
  int n = tp->w * tp->h;
  for (int k = 0; k < n; k++) {
    uint8_t lab[3];
    for (int c = 0; c < 3; c++) {
      double v = o->gain[c] * tp->lab[3 * k + c] + o->offset[c];
      lab[c] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v + 0.5);
    }
    h[vis__bin(lab)] += 1.0f / (float)n;
  }
  vis__smooth_histogram(h);
}

/* The median gain of L of the n objects but i of which half or more
 * shows: the photo's light. 1 if there are none. */
static double others_gain(const vis__object *obj, int n, int i) {
  double g[64];
  int k = 0;
  for (int j = 0; j < n && j < 64; j++)
    if (j != i && 2 * obj[j].valid >= obj[j].total) g[k++] = obj[j].gain[0];
  return k ? vis__median(g, k) : 1;
}

/* Object i's face faded to the fit's bound (gain of L under FADED_GAIN)
 * where the photo's light does not explain it: FADED_BELOW_PHOTO or more
 * under the gain of the photo's other objects (others_gain). In a dark
 * photo every face fits near the bound: hard watch game 4:697 frame 136
 * (round 1 flight 4), a real red carpet fully visible at 0.50 while the
 * photo's other objects fit at 0.56-0.58, and it lost its colour check.
 * The faded carpet phantoms of DEV hard 3000-3199 that the colour check
 * drops (gain 0.50, 100 samples or more, colour support under 0.25: 14 in
 * 13 scenes, 7 of them no faded sliver) lay in photos whose other
 * objects fit at 0.69-0.84. */
#define FADED_BELOW_PHOTO 0.1
/* A carpet's face refitted in dim light (a or b under VIS__CHROMA_MIN)
 * is no face faded onto plain table: the photo's a and b follow the
 * face's over half the carpet or more (match.c dim_carpet; faces fitted
 * onto plain table or dim cards fail that, 0.02-0.11). Under a lamp's
 * glare a real carpet is lifted toward white and fits at L's bounds:
 * tuning hard 3112's red carpet, fully visible 63 mm from the glare's
 * centre, refitted at gain of L 0.50, offset 60, a and b 0.43 and 0.39,
 * beside the photo's other objects at 0.60: taken for faded, it failed
 * the colour check on its cream cloth (support 0.21) and was lost. */
static bool dim_refit(const vis__object *o) {
  return fmin(o->gain[1], o->gain[2]) < VIS__CHROMA_MIN;
}

static bool faded_in_photo(const vis__object *obj, int n, int i) {
  return !dim_refit(&obj[i]) && obj[i].gain[0] < FADED_GAIN &&
         obj[i].gain[0] < others_gain(obj, n, i) - FADED_BELOW_PHOTO;
}

/* A carpet mostly hidden (under FADED_STRIP_SHOWS of it shows) whose face
 * is faded where the photo's light does not explain it (faded_in_photo)
 * and still explains under FADED_POOR_SCORE of that strip: the fit of L
 * pinned at its bounds (gain 0.50, offset 60) to force the face onto
 * the border and shadow of the carpet on it, and even so it does not fit.
 * Real carpet strips under other carpets explain 0.88-1.00 (session 25,
 * DEV hard 3064 3178); the matcher's ON_TOP_MIN_SCORE says the same (a
 * real carpet 0.94, a phantom 0.78). Tuning hard 3130: a yellow face 121
 * of 176 (0.69, 13 % shows) under the red carpet, 8 mm and 7 degrees off
 * its pose (outside hidden_twin's), colour support 0.29, in a photo whose
 * other objects fit at 0.55-0.87 (median 0.78). Not asked of carpets that show more: a
 * real yellow carpet 60 % visible on a plain table fits so too (easy
 * 3036: 547 of 777, 0.70, gain 0.55, offset 60, colour support 0.99). */
#define FADED_STRIP_SHOWS 0.2
#define FADED_POOR_SCORE 0.85
static bool faded_poor_strip(const vis__object *obj, int n, int i) {
  return obj[i].valid < FADED_STRIP_SHOWS * obj[i].total &&
         obj[i].explained < FADED_POOR_SCORE * obj[i].valid && faded_in_photo(obj, n, i);
}

/* A carpet whose colour support (the deck's colours) falls short may
 * still show its colours as the photo shows them. On a cloth printed in
 * the carpets' own hues the light moves a carpet's colours into the
 * print's bins, where the deck's face has next to nothing: real carpets,
 * 10-100 % visible, had colour support 0.005-0.22 on cream cloths with a
 * red, blue or green grid (tuning hard 3000-3199: 3001 3013 3022 3053
 * 3071 3089 3100 3112 3122 3163 3171 3179 3189 3196, 14 of the 24
 * carpets missed), their faces through their fitted gain and offset
 * 0.50-0.97 (gains of L 0.57-0.90, 127 samples or more). A face fitted
 * onto bare table takes the table's colours through its fit only when
 * faded to the fit's bound (faded_in_photo: 3081 and 3196, 0.56 and
 * 0.61) or on a few samples (a green face on 65, 3010, 0.94); the
 * phantom carpets of those scenes fitted unfaded on 100 samples or more
 * showed 0.00-0.17. */
#define PHOTO_COLOUR_SHARE 0.4
#define PHOTO_COLOUR_MIN 100 /* samples that show (4 cm^2) */
/* A strip of a carpet under other carpets (at most VIS__SLIVER_SHOWS of
 * it shows) whose cut edge shows along it, as the matcher's
 * carpet_strip_shows asks: an edge at VIS__OUTLINED_EDGES of at least
 * VIS__SLIVER_EDGE_SEEN side samples where no object on it lies. Its
 * white border cuts sharply across the table, which a face fitted onto
 * cloth or wood does not; so its photo colours are asked down to
 * STRIP_COLOUR_MIN samples (tuning hard 3064: a green strip on green
 * cloth, 89 samples, colour support 0.15, photo colours 0.93; HUNT hard
 * 3636: a red strip on wood, 45 samples, 0.14 and 1.00). The green
 * phantom on a strip of cloth between carpets that PHOTO_COLOUR_MIN
 * stops (hard 3010, 65 samples, photo colours 0.94) shows no such edge:
 * 0.67 of 113. */
#define STRIP_COLOUR_MIN 40
static bool outlined_carpet_strip(const vis__table *t, const vis__object *obj, int k) {
  if (obj[k].valid > VIS__SLIVER_SHOWS * obj[k].total || obj[k].valid < STRIP_COLOUR_MIN)
    return false;
  /* the objects accepted before it lie on it (colour_share's order); those
   * under it do not hide its edge, which cuts across them */
  vis_rect above[64];
  int n_above = k < 64 ? k : 64, seen;
  for (int j = 0; j < n_above; j++) above[j] = obj[j].r_px;
  double weakest;
  double e = vis__carpet_outline_edges(t, &obj[k].r_px, above, n_above, NULL, &seen, &weakest);
  return seen >= VIS__SLIVER_EDGE_SEEN && e >= VIS__OUTLINED_EDGES;
}

static bool shows_photo_colours(const vis_analyzer *an, const vis__table *t,
                                const vis__object *obj, int n, int i, const float *bg) {
  if (faded_in_photo(obj, n, i) ||
      (obj[i].valid < PHOTO_COLOUR_MIN && !outlined_carpet_strip(t, obj, i)))
    return false;
  float *fh = malloc(sizeof(float) * VIS__NBINS);
  if (!fh) return false;
  photo_face_histogram(&an->tpl[obj[i].face], &obj[i], fh);
  int seen;
  double share = colour_share(t, obj, i, fh, bg, &seen);
  free(fh);
  return share >= PHOTO_COLOUR_SHARE;
}

/* A card with a carpet found nearly at its pose (within CARPET_TWIN_MM
 * and TWIN_DEG), that shows beside the objects found only a trace
 * (CARPET_TWIN_SHOWS_MM2 or less of its face alone; from
 * CARPET_TWIN_MIN_MM2, as colour_support's 20 samples: fewer tell
 * nothing) that its face does not explain (under CARPET_TWIN_FIT): what the
 * matcher took for the card was that carpet, its face fitted to the
 * carpet's border and its middle passed for a hand or a rival's
 * (HUNT hard 3847: a spice bazaar's face at the red carpet's pose, 3.8 mm
 * and 0.6 degrees off, accepted "under a hand" 0.47 hidden; looked-at
 * hard 1300069: 9.2 mm and 0.3 degrees off, let in as lying on a poor
 * card's rival). Alone they fit 0.33 of 73 and 0.19 of 36 mm^2, too few
 * for the frame tests (NO_CARD_MIN_RING, 100), and kept they had pushed
 * out the real cards they overlap (an adventure b 71 % and a lamp 62 %
 * visible, explained 0.81 and 0.94), which come back once they are
 * taken back (match.c retract_phantoms). */
#define CARPET_TWIN_MM 12.0
#define CARPET_TWIN_SHOWS_MM2 100
#define CARPET_TWIN_MIN_MM2 20
#define CARPET_TWIN_FIT 0.5
static bool carpet_twin_card(const vis_analyzer *an, const vis__table *t,
                             const vis__object *kept, int n_kept, int k) {
  bool twin = false;
  for (int j = 0; j < n_kept && !twin; j++)
    twin = j != k && an->tpl[kept[j].face].kind != VIS__FACE_TYPE &&
           twin_pose(&kept[k].r_px, &kept[j].r_px, CARPET_TWIN_MM * t->px_per_mm, TWIN_DEG);
  if (!twin) return false;
  vis__face_fit ff;
  fit_alone(an, t, kept, n_kept, k, &ff);
  return ff.n >= CARPET_TWIN_MIN_MM2 && ff.n <= CARPET_TWIN_SHOWS_MM2 &&
         ff.score < CARPET_TWIN_FIT;
}

/* Marks the phantoms among the n (<= 64) objects: the carpets whose
 * visible part shows the table's colours rather than their face's (see
 * colour_support), the hidden twins of objects on top (cards too), and
 * the cards that then show no card frame or only a faded face on plain
 * table, or only a trace at a carpet's pose (carpet_twin_card). sup[]
 * and cnt[] get every object's colour
 * support and samples looked at. */
static tp_status phantom_flags(const vis_analyzer *an, const vis__table *t, const vis__object *obj,
                               int n, bool *drop, double *sup, int *cnt, tp_error *err) {
  float *bg = malloc(sizeof(float) * VIS__NBINS);
  vis_rect *rects = calloc((size_t)n + 1, sizeof(vis_rect));
  vis__object *kept = malloc(sizeof(vis__object) * (size_t)(n + 1));
  int where[64], n_kept = 0;
  if (!bg || !rects || !kept) {
    free(bg);
    free(rects);
    free(kept);
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
  }
  for (int i = 0; i < n; i++) rects[i] = obj[i].r_px;
  vis__background_histogram(t, rects, n, bg);
  for (int i = 0; i < n; i++) sup[i] = colour_support(an, t, obj, i, bg, &cnt[i]);
  for (int i = 0; i < n; i++) {
    bool carpet = an->tpl[obj[i].face].kind != VIS__FACE_TYPE;
    /* real carpets show 0.55-0.85 of their face's colours even on cloth of
     * their own colour; a face fitted onto bare table about none */
    drop[i] = (carpet && ((cnt[i] >= 20 && sup[i] < 0.25 &&
                           !shows_photo_colours(an, t, obj, n, i, bg)) ||
                          faded_sliver(&obj[i]) || faded_poor_strip(obj, n, i) ||
                          rug_twin(an, t, obj, i))) ||
              hidden_twin(t, obj, i);
    if (!drop[i]) where[n_kept] = i, kept[n_kept++] = obj[i];
  }
  for (int k = 0; k < n_kept; k++) { /* against the carpets kept, not the phantoms */
    int i = where[k];
    drop[i] = an->tpl[obj[i].face].kind == VIS__FACE_TYPE &&
              (card_phantom(an, t, kept, n_kept, k, cnt[i] >= 20 ? sup[i] : 1) ||
               carpet_twin_card(an, t, kept, n_kept, k));
  }
  free(bg);
  free(rects);
  free(kept);
  return TP_OK;
}

/* The matcher's last phantom check (phantom_cards): the objects it
 * looked at and what phantom_flags said of them. When it took nothing
 * back, the matcher returns exactly these objects, and drop_phantoms
 * takes the flags from here instead of measuring them again (the same
 * function of the same objects on the same table: 85 M instructions of a
 * 1280x720 photo). n < 0: no check made (or it ran out of memory). */
typedef struct {
  const vis_analyzer *an;
  int n;
  vis__object obj[64];
  bool drop[64];
  double sup[64];
  int cnt[64];
} phantom_check;

/* vis__match_params.phantom_cards: the same checks while matching, so
 * that a phantom card gives back the place it took from real cards, and
 * a phantom carpet its place and its colour.
 * ctx: a phantom_check, which keeps the objects and flags. */
static bool phantom_cards(void *ctx, const vis__table *t, const vis__object *obj, int n,
                          bool *phantom) {
  phantom_check *pc = ctx;
  const vis_analyzer *an = pc->an;
  n = n > 64 ? 64 : n;
  pc->n = -1;
  if (phantom_flags(an, t, obj, n, pc->drop, pc->sup, pc->cnt, NULL)) return false;
  memcpy(pc->obj, obj, sizeof *obj * (size_t)n);
  pc->n = n;
  bool any = false;
  for (int i = 0; i < n; i++) {
    phantom[i] = pc->drop[i];
    any = any || phantom[i];
  }
  return any;
}

/* TEPPICH_DEBUG_DIR: dropped.txt lists the objects drop_phantoms drops,
 * with what the checks looked at (colour support, faded sliver, hidden
 * twin), to see why a carpet found by the matcher is not reported. */
static void debug_dropped(const vis_analyzer *an, const vis__table *t, const vis__object *obj,
                          int n, const bool *drop, const double *sup, const int *cnt) {
  FILE *f = debug_open(an, "dropped.txt", "w");
  if (!f) return;
  for (int i = 0; i < n; i++) {
    if (!drop[i]) continue;
    const vis__template *tp = &an->tpl[obj[i].face];
    fprintf(f, "%d kind %d idx %d valid %d total %d at %.1f %.1f %.1f: colour support %.2f of %d,"
               " gain %.2f, faded sliver %d, hidden twin %d\n",
            i, tp->kind, tp->index, obj[i].valid, obj[i].total, obj[i].r_px.center.x,
            obj[i].r_px.center.y, obj[i].r_px.angle_deg, sup[i], cnt[i], obj[i].gain[0],
            faded_sliver(&obj[i]), hidden_twin(t, obj, i));
  }
  fclose(f);
}

/* A carpet whose visible part shows no colour of its own: the face of
 * another carpet colour explains as many of its samples (the runner-up,
 * vis__object second_face), so all that shows of it is what every carpet
 * face shares, its white border. Such a "carpet" is a border fitted to
 * something pale beside a card, and were it a real strip its colour would
 * be the first of the tied faces, a guess. Held-out hard 700017: a strip
 * of glare-lit cloth 6.5 mm beyond a desert's end, aligned with it,
 * 123 of 129 samples for each of the four carpet faces (colour support
 * 0.00 of 206), reported as a blue carpet. On HUNT hard 3600-3999 no
 * carpet kept at the end tied so (BIG, session 34). Only the final
 * objects are asked (drop_phantoms). */
static bool colourless_carpet(const vis_analyzer *an, const vis__object *o) {
  return an->tpl[o->face].kind != VIS__FACE_TYPE && o->second_face >= 0 &&
         an->tpl[o->second_face].kind != VIS__FACE_TYPE &&
         an->tpl[o->second_face].index != an->tpl[o->face].index &&
         o->second_explained >= o->explained;
}

/* Drops the phantoms (phantom_flags, or the matcher's last check when it
 * was made on these very objects); support[] and support_n[] get every
 * kept object's figures (n_obj <= 64, as the matcher returns). */
static tp_status drop_phantoms(const vis_analyzer *an, const vis__table *t,
                               const phantom_check *last, vis__object *obj, int *n_obj,
                               double *support, int *support_n, tp_error *err) {
  int n = *n_obj > 64 ? 64 : *n_obj, kept = 0;
  double sup[64];
  int cnt[64];
  bool drop[64];
  if (last->n == n && !memcmp(last->obj, obj, sizeof *obj * (size_t)n)) {
    memcpy(sup, last->sup, sizeof sup);
    memcpy(cnt, last->cnt, sizeof cnt);
    memcpy(drop, last->drop, sizeof drop);
  } else {
    tp_status st = phantom_flags(an, t, obj, n, drop, sup, cnt, err);
    if (st) return st;
  }
  for (int i = 0; i < n; i++) drop[i] = drop[i] || colourless_carpet(an, &obj[i]);
  if (an->s.debug_dir) debug_dropped(an, t, obj, n, drop, sup, cnt);
  for (int i = 0; i < n; i++) {
    if (drop[i]) continue;
    support[kept] = sup[i];
    support_n[kept] = cnt[i];
    obj[kept++] = obj[i];
  }
  *n_obj = kept;
  return TP_OK;
}

static void debug_dump(const vis_analyzer *an, const vis__table *t,
                       const vis_rect *hyps, int n_hyps) {
  char path[1024];
  debug_path(an, "table.png", path);
  cvw_image_write(path, &t->rgb, 0, NULL);
  debug_path(an, "object.png", path);
  cvw_image_write(path, &t->object, 0, NULL);
  tp_image img = {0};
  if (!tp_image_alloc(&img, t->rgb.width, t->rgb.height, 3)) {
    for (int y = 0; y < img.height; y++)
      memcpy(tp_image_row(&img, y), tp_image_row(&t->rgb, y), (size_t)img.width * 3);
    for (int i = 0; i < n_hyps; i++) {
      vis_pt c[4];
      vis_rect_corners(&hyps[i], c);
      for (int k = 0; k < 4; k++)
        for (double u = 0; u <= 1; u += 0.002) {
          int x = (int)(c[k].x + u * (c[(k + 1) % 4].x - c[k].x));
          int y = (int)(c[k].y + u * (c[(k + 1) % 4].y - c[k].y));
          if (x >= 0 && y >= 0 && x < img.width && y < img.height) {
            uint8_t *p = tp_image_row(&img, y) + 3 * x;
            p[0] = 255, p[1] = (uint8_t)(37 * i), p[2] = 0;
          }
        }
    }
    debug_path(an, "hyps.png", path);
    cvw_image_write(path, &img, 0, NULL);
    tp_image_free(&img);
  }
  FILE *f = debug_open(an, "hyps.txt", "w");
  if (!f) return;
  for (int i = 0; i < n_hyps; i++)
    fprintf(f, "%.1f %.1f %.1f %.1f %.1f\n", hyps[i].center.x, hyps[i].center.y,
            hyps[i].w, hyps[i].h, hyps[i].angle_deg);
  fclose(f);
}

static void debug_objects(const vis_analyzer *an, const vis__table *t, const vis__object *o,
                          int n, const double *support, const int *support_n) {
  FILE *f = debug_open(an, "objects.txt", "w");
  if (!f) return;
  for (int i = 0; i < n; i++) {
    const vis__template *tp = &an->tpl[o[i].face];
    fprintf(f, "%d kind %d idx %d flip %d expl %d valid %d total %d score %.3f second %d(%d) disc %d %.2f at %.1f %.1f %.1f\n",
            i, tp->kind, tp->index, o[i].flipped, o[i].explained, o[i].valid, o[i].total,
            o[i].score, o[i].second_face, o[i].second_explained, o[i].disc_samples,
            o[i].disc_margin, o[i].r_px.center.x,
            o[i].r_px.center.y, o[i].r_px.angle_deg);
    if (support) fprintf(f, "   colour support %.2f of %d\n", support[i], support_n[i]);
    fprintf(f, "   gain %.2f %.2f %.2f offset %.1f %.1f %.1f\n", o[i].gain[0], o[i].gain[1],
            o[i].gain[2], o[i].offset[0], o[i].offset[1], o[i].offset[2]);
    if (tp->kind == VIS__FACE_TYPE) {
      vis__face_fit ff;
      fit_alone(an, t, o, n, i, &ff);
      fprintf(f, "   face fit %.3f of %d, worst cell %.3f of %d cells, ring %.3f of %d\n",
              ff.score, ff.n, ff.worst, ff.cells, ff.ring, ff.ring_n);
    }
  }
  fclose(f);
}


/* Speed: the matcher's first looks at the outline corners' hypotheses
 * are taken while LSD finds its segments (vis__hypotheses' hook): a first
 * look depends on the hypothesis alone, and vis__match takes them over. */
typedef struct {
  const vis_analyzer *an;
  const vis__table *t;
  const vis__match_params *mp;
  vis__match_ahead *ahead;
} photo_looks;

static void look_ahead(void *ctx, const vis_rect *hyps, int n, int threads) {
  photo_looks *pl = ctx;
  vis__match_ahead_make(pl->t, pl->an->tpl, pl->an->n_tpl, hyps, n, pl->mp, threads, &pl->ahead);
}

tp_status vis_analyze(vis_analyzer *an, const tp_image *rgb,
                      const vis_table_map *map, vis_result *res,
                      tp_error *err) {
  memset(res, 0, sizeof *res);
  if (!rgb || !rgb->data || rgb->channels != 3 || rgb->width < 16 || rgb->height < 16)
    return tp_error_set(err, TP_ERR_INVALID, "analyze needs an RGB image");
  double t0 = vis__now_ms(), t1;
  vis__table t = {0};
  vis_rect *hyps = NULL;
  vis__object *obj = NULL;
  int n_hyps = 0, n_obj = 0;
  tp_status st = TP_OK;
  if (!map || !map->table_to_image)
    return tp_error_set(err, TP_ERR_INVALID, "analyze needs the table mapping");
  t1 = vis__now_ms();
  st = rectify(an, rgb, map, &t, err);
  res->profile.mapping_ms = vis__now_ms() - t1; /* rectification */
  t1 = vis__now_ms();
  if (!st) st = vis__object_mask(&t, an->obj_hist, err);
  double s = an->s.px_per_mm;
  const double sizes[2][2] = {{an->deck->card_mm[0] * s, an->deck->card_mm[1] * s},
                              {an->deck->carpet_mm[0] * s, an->deck->carpet_mm[1] * s}};
  bool same = fabs(sizes[0][0] - sizes[1][0]) < 0.5 && fabs(sizes[0][1] - sizes[1][1]) < 0.5;
  if (!st) /* dark print inside a card can look like the table */
    st = cvw_mask_fill_holes(&t.object, 0.5 * sizes[0][0] * sizes[0][1], err);
  vis__match_params mp = vis__analyzer_match_params(an, 35);
  photo_looks looks = {an, &t, &mp, NULL};
  const vis__outline_hook hook = {look_ahead, &looks};
  if (!st) st = vis__hypotheses(&t, sizes, same ? 1 : 2, NULL, 0, &hook, &hyps, &n_hyps, err);
  if (!st && an->s.debug_dir) debug_dump(an, &t, hyps, n_hyps);
  res->profile.detect_ms = vis__now_ms() - t1;
  t1 = vis__now_ms();
  phantom_check *last = calloc(1, sizeof *last); /* 15 kB: off the stack */
  if (!last && !st) st = tp_error_set(err, TP_ERR_NOMEM, "out of memory while matching faces");
  if (last) last->an = an, last->n = -1;
  mp.phantom_cards = phantom_cards;
  mp.phantom_ctx = last;
  if (an->s.debug_dir) mp.log = debug_open(an, "match.txt", "w");
  if (!st) st = vis__match(&t, an->tpl, an->n_tpl, hyps, n_hyps, &mp, looks.ahead, &obj, &n_obj, err);
  vis__match_ahead_free(looks.ahead);
  if (mp.log) fclose(mp.log);
  res->profile.identify_ms = vis__now_ms() - t1;
  t1 = vis__now_ms();
  double support[64];
  int support_n[64];
  if (!st) st = drop_phantoms(an, &t, last, obj, &n_obj, support, support_n, err);
  if (!st && an->s.debug_dir) debug_objects(an, &t, obj, n_obj, support, support_n);
  if (!st) st = build_result(an, &t, obj, n_obj, res, err);
  res->profile.stacking_ms = vis__now_ms() - t1;
  free(last);
  free(hyps);
  free(obj);
  table_free(&t);
  return vis__finish_result(res, t0, st);
}

tp_status vis__finish_result(vis_result *res, double t0, tp_status st) {
  res->profile.total_ms = vis__now_ms() - t0;
  if (st) {
    vis_profile keep = res->profile;
    vis_result_free(res);
    res->profile = keep;
  }
  return st;
}

vis__match_params vis__analyzer_match_params(const vis_analyzer *an,
                                             double tau) {
  vis__match_params mp = {.tau = tau, .min_ratio = 0.6, .step = 2,
                          .threads = an->s.threads, /* same result for any number */
                          .type_min_margin = an->s.type_min_margin};
  double card_samples =
      an->deck->card_mm[0] * an->deck->card_mm[1] / (mp.step * mp.step);
  mp.min_explained = (int)(an->s.card_min_visible * card_samples);
  return mp;
}

/* ------------------------------------------- hooks for reference.c */

const vis_settings *vis__analyzer_settings(const vis_analyzer *an) { return &an->s; }
const vis_deck *vis__analyzer_deck(const vis_analyzer *an) { return an->deck; }
const float *vis__analyzer_object_hist(const vis_analyzer *an) { return an->obj_hist; }

const vis__template *vis__analyzer_templates(const vis_analyzer *an, int *n) {
  *n = an->n_tpl;
  return an->tpl;
}

tp_status vis__analyzer_rectify(const vis_analyzer *an, const tp_image *rgb,
                                const vis_table_map *map, vis__table *t, tp_error *err) {
  return rectify(an, rgb, map, t, err);
}

void vis__table_free(vis__table *t) { table_free(t); }
