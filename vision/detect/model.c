/* model: which pixels of the rectified table are cards or carpets.
 *
 * The deck says what every card face looks like, so the colours of the
 * objects are known; the table (plain, wood, a patterned cloth) is not.
 * Its colour distribution is what remains of the whole table's histogram
 * once the objects' expected share is taken out (a few EM steps on the
 * histogram, not the pixels). Per pixel, the log odds object/table are
 * summed over a small window (naive Bayes over the neighbourhood), which
 * removes speckle without moving edges. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "cvw.h"
#include "vision_internal.h"

static void add_histogram(const tp_image *lab, float *hist, double weight) {
  double n = (double)lab->width * lab->height;
  for (int y = 0; y < lab->height; y++) {
    const uint8_t *p = tp_image_row(lab, y);
    for (int x = 0; x < lab->width; x++, p += 3)
      hist[vis__bin(p)] += (float)(weight / n);
  }
}

/* Spreads each bin to its neighbours (lighting and print tolerance). */
void vis__smooth_histogram(float *h) {
  static const int lb = VIS__LBINS, ab = VIS__ABINS;
  float *tmp = malloc(sizeof(float) * VIS__NBINS);
  if (!tmp) return;
  for (int pass = 0; pass < 3; pass++) {
    memcpy(tmp, h, sizeof(float) * VIS__NBINS);
    for (int l = 0; l < lb; l++)
      for (int a = 0; a < ab; a++)
        for (int b = 0; b < ab; b++) {
          float s = 0, w = 0;
          for (int d = -1; d <= 1; d++) {
            int idx[3][3] = {{l + d, a, b}, {l, a + d, b}, {l, a, b + d}};
            for (int k = 0; k < 3; k++) {
              int L = idx[k][0], A = idx[k][1], B = idx[k][2];
              if (L < 0 || L >= lb || A < 0 || A >= ab || B < 0 || B >= ab)
                continue;
              float wt = d == 0 ? 1.0f : 0.5f;
              s += wt * tmp[L * ab * ab + A * ab + B];
              w += wt;
            }
          }
          h[l * ab * ab + a * ab + b] = s / w;
        }
  }
  free(tmp);
}

tp_status vis__object_model_build(const vis_deck *deck, float *hist,
                                  tp_error *err) {
  memset(hist, 0, sizeof(float) * VIS__NBINS);
  const tp_image *faces[VIS_TYPE_COUNT + 2 * VIS_MAX_CARPETS];
  int n = 0;
  for (int i = 0; i < VIS_TYPE_COUNT; i++)
    if (vis_deck_has_type(deck, i)) faces[n++] = vis_deck_type_face(deck, i);
  for (int i = 0; i < vis_deck_carpet_count(deck); i++) {
    faces[n++] = vis_deck_carpet_face(deck, i);
    if (vis_deck_carpet_back(deck, i)) faces[n++] = vis_deck_carpet_back(deck, i);
  }
  for (int i = 0; i < n; i++) {
    tp_image lab = {0};
    if (tp_image_alloc(&lab, faces[i]->width, faces[i]->height, 3))
      return tp_error_set(err, TP_ERR_NOMEM, "out of memory for the deck model");
    tp_status st = cvw_rgb_to_lab(faces[i], &lab, err);
    if (!st) add_histogram(&lab, hist, 1.0 / n);
    tp_image_free(&lab);
    if (st) return st;
  }
  vis__smooth_histogram(hist);
  return TP_OK;
}

/* Table histogram of the pixels that the camera saw (warp fills 0), on
 * every 2nd row and column: counted in bands of rows on the workers, each
 * into its own whole-number tally (sums of whole numbers are the same in
 * any order). The counts were floats incremented one at a time, which
 * stop at 2^24: kept so. False when out of memory. */
enum { HIST_BAND = 32 }; /* rows per item, even: every 2nd row of the whole */
#define FLOAT_COUNT_MAX 16777216.0 /* 2^24: a float count + 1 stays there */
typedef struct {
  const vis__table *t;
  uint32_t *tally; /* VIS__NBINS per worker */
  double seen[VIS__MAX_THREADS];
} hist_job;

static void tally_rows(void *ctx, int worker, int item) {
  hist_job *j = ctx;
  const vis__table *t = j->t;
  uint32_t *tally = j->tally + (size_t)worker * VIS__NBINS;
  int y1 = (item + 1) * HIST_BAND < t->lab.height ? (item + 1) * HIST_BAND : t->lab.height;
  for (int y = item * HIST_BAND; y < y1; y += 2) {
    const uint8_t *p = tp_image_row(&t->lab, y);
    const uint8_t *q = tp_image_row(&t->rgb, y);
    for (int x = 0; x < t->lab.width; x += 2)
      if (q[3 * x] | q[3 * x + 1] | q[3 * x + 2]) {
        tally[vis__bin(p + 3 * x)]++;
        j->seen[worker] += 1;
      }
  }
}

static bool table_histogram(const vis__table *t, float *hist) {
  int workers = t->threads < 1 ? 1 : t->threads > VIS__MAX_THREADS ? VIS__MAX_THREADS : t->threads;
  hist_job j = {t, calloc((size_t)workers * VIS__NBINS, sizeof(uint32_t)), {0}};
  if (!j.tally) return false;
  vis__parallel_for(workers, (t->lab.height + HIST_BAND - 1) / HIST_BAND, tally_rows, &j);
  double n = 0;
  for (int w = 0; w < workers; w++) n += j.seen[w];
  for (int k = 0; k < VIS__NBINS; k++) {
    double count = 0;
    for (int w = 0; w < workers; w++) count += j.tally[(size_t)w * VIS__NBINS + k];
    hist[k] = (float)(fmin(count, FLOAT_COUNT_MAX) / fmax(n, 1));
  }
  free(j.tally);
  return true;
}

/* log p(colour | object) - log p(colour | table) per histogram bin. */
static void log_odds_per_bin(const float *obj, const float *tab, float *lo) {
  float *bg = malloc(sizeof(float) * VIS__NBINS);
  if (!bg) {
    for (int k = 0; k < VIS__NBINS; k++) lo[k] = obj[k] > tab[k] ? 1.f : -1.f;
    return;
  }
  double prior = 0.3;
  for (int it = 0; it < 1; it++) {
    double sum = 0;
    for (int k = 0; k < VIS__NBINS; k++) {
      double v = tab[k] - prior * obj[k];
      bg[k] = (float)(v > 0.05 * tab[k] ? v : 0.05 * tab[k]);
      sum += bg[k];
    }
    double p_obj = 0;
    for (int k = 0; k < VIS__NBINS; k++) {
      double b = (1 - prior) * bg[k] / fmax(sum, 1e-9), o = prior * obj[k];
      p_obj += tab[k] * (o / fmax(o + b, 1e-12));
      lo[k] = (float)(log(o + 1e-7) - log(b + 1e-7));
    }
    prior = fmin(0.8, fmax(0.02, p_obj));



  }
  free(bg);
}

/* Rows of the table image handed to the workers in bands (each item
 * writes only its own rows: the same image for any number of workers). */
enum { MASK_BAND = 32 };
typedef struct {
  vis__table *t;
  const float *lo_bin; /* per histogram bin */
  float *lo;           /* per pixel */
  const float *blurred; /* lo blurred: lo itself, or */
  float *own_blurred;   /* a plane of its own (freed by the caller) */
} mask_job;

static void log_odds_rows(void *ctx, int worker, int item) {
  const mask_job *j = ctx;
  int w = j->t->lab.width, y1 = (item + 1) * MASK_BAND;
  if (y1 > j->t->lab.height) y1 = j->t->lab.height;
  for (int y = item * MASK_BAND; y < y1; y++) {
    const uint8_t *p = tp_image_row(&j->t->lab, y);
    float *o = j->lo + (size_t)y * w;
    for (int x = 0; x < w; x++) o[x] = j->lo_bin[vis__bin(p + 3 * x)];
  }
}

/* The blurred log odds' sign (blurred: the plane blur_log_odds made). */
static void mask_rows(void *ctx, int worker, int item) {
  const mask_job *j = ctx;
  int w = j->t->lab.width, y1 = (item + 1) * MASK_BAND;
  if (y1 > j->t->lab.height) y1 = j->t->lab.height;
  for (int y = item * MASK_BAND; y < y1; y++) {
    uint8_t *m = tp_image_row(&j->t->object, y);
    const float *o = j->blurred + (size_t)y * w;
    for (int x = 0; x < w; x++) m[x] = o[x] > 0 ? 255 : 0;
  }
}

/* The log odds blurred over a (2r+1)^2 window into j->blurred: for radius
 * 1 and 2 in bands of columns on the workers into a plane of its own (the
 * whole plane's blur bit for bit, cvw_box_blur_f32_cols; 45 M
 * instructions of a 960x540 flight frame on the calling thread in one
 * piece), wider windows (or when a band fails) in one piece in place. */
enum { BLUR_BAND_COLS = 128, BLUR_MAX_BANDS = 64 };
typedef struct {
  const float *lo;
  float *out;
  int w, h, radius, band_cols;
  tp_status st[BLUR_MAX_BANDS];
} blur_job;

static void blur_cols(void *ctx, int worker, int item) {
  (void)worker;
  blur_job *j = ctx;
  int x0 = item * j->band_cols, x1 = x0 + j->band_cols < j->w ? x0 + j->band_cols : j->w;
  j->st[item] = cvw_box_blur_f32_cols(j->lo, j->out, j->w, j->h, j->w, j->radius, x0, x1, NULL);
}

static tp_status blur_log_odds(mask_job *m, int radius, tp_error *err) {
  int w = m->t->lab.width, h = m->t->lab.height;
  m->blurred = m->lo;
  float *out = radius <= 2 ? malloc(sizeof(float) * (size_t)w * (size_t)h) : NULL;
  blur_job *j = out ? malloc(sizeof *j) : NULL;
  bool banded = j != NULL;
  if (j) {
    int bands = m->t->threads <= 1 ? 1 : (w + BLUR_BAND_COLS - 1) / BLUR_BAND_COLS;
    if (bands > BLUR_MAX_BANDS) bands = BLUR_MAX_BANDS;
    *j = (blur_job){m->lo, out, w, h, radius, (w + bands - 1) / bands, {TP_OK}};
    bands = (w + j->band_cols - 1) / j->band_cols;
    vis__parallel_for(m->t->threads, bands, blur_cols, j);
    for (int b = 0; b < bands; b++) banded = banded && j->st[b] == TP_OK;
  }
  free(j);
  if (banded) {
    m->blurred = out;
    m->own_blurred = out;
    return TP_OK;
  }
  free(out);
  return cvw_box_blur_f32(m->lo, w, h, w, radius, err);
}

tp_status vis__object_mask(vis__table *t, const float *obj_hist,
                           tp_error *err) {
  float *tab = malloc(sizeof(float) * VIS__NBINS);
  float *lo_bin = malloc(sizeof(float) * VIS__NBINS);
  int w = t->lab.width, h = t->lab.height;
  float *lo = malloc(sizeof(float) * (size_t)w * (size_t)h);
  tp_status st = TP_OK;
  if (!tab || !lo_bin || !lo) {
    st = tp_error_set(err, TP_ERR_NOMEM, "out of memory for the object mask");
    goto done;
  }
  if (!table_histogram(t, tab)) {
    st = tp_error_set(err, TP_ERR_NOMEM, "out of memory for the object mask");
    goto done;
  }
  log_odds_per_bin(obj_hist, tab, lo_bin);
  mask_job job = {t, lo_bin, lo, lo, NULL};
  int bands = (h + MASK_BAND - 1) / MASK_BAND;
  vis__parallel_for(t->threads, bands, log_odds_rows, &job);
  st = blur_log_odds(&job, (int)lround(fmax(1, t->px_per_mm)), err);
  if (!st) vis__parallel_for(t->threads, bands, mask_rows, &job);
  free(job.own_blurred);
done:
  free(tab);
  free(lo_bin);
  free(lo);
  return st;
}

/* ---- colour evidence for one accepted object ---- */

tp_status vis__face_histogram(const tp_image *face, float *hist, tp_error *err) {
  memset(hist, 0, sizeof(float) * VIS__NBINS);
  tp_image lab = {0};
  if (tp_image_alloc(&lab, face->width, face->height, 3))
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory for a face histogram");
  tp_status st = cvw_rgb_to_lab(face, &lab, err);
  if (!st) add_histogram(&lab, hist, 1.0);
  tp_image_free(&lab);
  if (!st) vis__smooth_histogram(hist);
  return st;
}

/* The axis-aligned box around frame f grown by `grow`, padded by a pixel:
 * a point outside it is outside the grown frame (vis__frame_contains). */
static void frame_box(const vis__frame *f, double grow, double box[4]) {
  double ex = fabs(f->c) * (f->hh + grow) + fabs(f->s) * (f->hw + grow) + 1;
  double ey = fabs(f->s) * (f->hh + grow) + fabs(f->c) * (f->hw + grow) + 1;
  box[0] = f->cx - ex, box[1] = f->cy - ey, box[2] = f->cx + ex, box[3] = f->cy + ey;
}

void vis__background_histogram(const vis__table *t, const vis_rect *objs, int n,
                               float *hist) {
  memset(hist, 0, sizeof(float) * VIS__NBINS);
  double total = 0, margin = 3 * t->px_per_mm;
  vis__frame fr[64];
  double box[64][4];
  if (n > 64) n = 64;
  for (int k = 0; k < n; k++) {
    fr[k] = vis__frame_of(&objs[k]);
    frame_box(&fr[k], margin, box[k]);
  }
  for (int y = 0; y < t->lab.height; y += 3) {
    /* only the objects whose box reaches this row are asked */
    int row[64], n_row = 0;
    for (int k = 0; k < n; k++)
      if (y >= box[k][1] && y <= box[k][3]) row[n_row++] = k;
    const uint8_t *p = tp_image_row(&t->lab, y), *q = tp_image_row(&t->rgb, y);
    for (int x = 0; x < t->lab.width; x += 3) {
      if (!(q[3 * x] | q[3 * x + 1] | q[3 * x + 2])) continue; /* not seen */
      bool inside = false;
      for (int i = 0; i < n_row && !inside; i++) {
        int k = row[i];
        inside = x >= box[k][0] && x <= box[k][2] && vis__frame_contains(&fr[k], x, y, margin);
      }
      if (inside) continue;
      hist[vis__bin(p + 3 * x)] += 1;
      total += 1;
    }
  }
  for (int k = 0; k < VIS__NBINS; k++) hist[k] = (float)(hist[k] / fmax(total, 1));
  vis__smooth_histogram(hist);
}
