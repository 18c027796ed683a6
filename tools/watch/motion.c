/* watch motion: which frames are still. Plain C on a shrunken gray
 * frame, normalised by its mean so a lamp switched on is not motion.
 * Also keeps the frames since the last still scene, for when each place
 * came to look as it does (the order layout cards were laid in). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "watch_internal.h"

/* frames kept between still scenes: at most so many, in at most so many
 * bytes (a working width far above the default 160 keeps fewer) */
enum { HISTORY_MAX = 256, HISTORY_BYTES = 64 << 20, HISTORY_MIN = 8 };

struct wch_motion {
  wch_motion_config cfg;
  int w, h;        /* working size */
  float *prev;     /* last frame, normalised */
  float *cur;
  bool have_prev;
  int run;         /* still frames in a row */
  bool decided;    /* this still run was already reported as settled */
  int gray_w, gray_h; /* size of the frames fed */
  int64_t fed;        /* frames fed so far */
  /* The frames since the last still scene (shrunk, one byte a pixel,
   * not normalised: a dozen white cards laid out change the mean), from
   * the still frame before the motion to the first frames of the next
   * still run: until when each place still showed the table as before,
   * which is the order cards went down when several did between two
   * still scenes. Once full, every other frame is dropped and frames are
   * kept at half the rate. */
  uint8_t *raw_prev, *raw_now; /* the last two frames so */
  uint8_t *history;
  float gain[HISTORY_MAX]; /* per entry: the light change to now */
  int64_t gains_at;        /* the frame gain was measured for */
  int64_t history_frame[HISTORY_MAX]; /* each entry's frame (from 1) */
  int n_history, history_cap;
  int keep_every; /* a frame in so many is kept (1, 2, 4...) */
  int since_kept;
};

void wch_motion_config_default(wch_motion_config *cfg) {
  cfg->width = 160;
  cfg->noise_level = 8;
  cfg->max_changed = 0.002;
  cfg->still_frames = 3;
}

tp_status wch_motion_create(const wch_motion_config *cfg, wch_motion **out,
                            tp_error *err) {
  *out = NULL;
  wch_motion *m = calloc(1, sizeof *m);
  if (!m) return tp_error_set(err, TP_ERR_NOMEM, "motion: out of memory");
  if (cfg)
    m->cfg = *cfg;
  else
    wch_motion_config_default(&m->cfg);
  if (m->cfg.width < 16 || m->cfg.width > 4096 || m->cfg.still_frames < 1) {
    free(m);
    return tp_error_set(err, TP_ERR_INVALID, "motion: width 16..4096 and "
                        "still_frames >= 1");
  }
  *out = m;
  return TP_OK;
}

void wch_motion_destroy(wch_motion *m) {
  if (!m) return;
  free(m->history);
  free(m->raw_prev);
  free(m->raw_now);
  free(m->prev);
  free(m->cur);
  free(m);
}

/* Box-averages the frame down to the working size. */
static void shrink(const tp_image *g, int w, int h, float *out) {
  for (int y = 0; y < h; y++) {
    int y0 = y * g->height / h, y1 = (y + 1) * g->height / h;
    for (int x = 0; x < w; x++) {
      int x0 = x * g->width / w, x1 = (x + 1) * g->width / w;
      unsigned acc = 0, n = 0;
      for (int yy = y0; yy < y1; yy++) {
        const uint8_t *row = tp_image_row(g, yy);
        for (int xx = x0; xx < x1; xx++) acc += row[xx * g->channels], n++;
      }
      out[y * w + x] = n ? (float)acc / (float)n : 0;
    }
  }
}

/* Divides by the mean (times 128), so global brightness changes cancel
 * out. */
static void normalise(float *v, int n) {
  double sum = 0;
  for (int i = 0; i < n; i++) sum += v[i];
  float scale = sum > 0 ? (float)(128.0 * n / sum) : 1.0f;
  for (int i = 0; i < n; i++) v[i] *= scale;
}

static void to_bytes(const float *v, size_t n, uint8_t *out) {
  for (size_t i = 0; i < n; i++) out[i] = (uint8_t)(v[i] < 255 ? v[i] + 0.5f : 255);
}

static void keep_frame(wch_motion *m, const uint8_t *frame, int64_t when) {
  size_t n = (size_t)m->w * (size_t)m->h;
  if (m->n_history == m->history_cap) { /* every other frame goes */
    int kept = 0;
    for (int k = 0; k < m->n_history; k += 2, kept++) {
      memmove(m->history + (size_t)kept * n, m->history + (size_t)k * n, n);
      m->history_frame[kept] = m->history_frame[k];
    }
    m->n_history = kept;
    m->keep_every *= 2;
  }
  memcpy(m->history + (size_t)m->n_history * n, frame, n);
  m->history_frame[m->n_history++] = when;
}

/* Keeps the frame just shrunk (m->raw_now) in the history when it is part
 * of the motion since the last still scene or ends it; motion after a
 * still scene starts the history again from that scene's last frame. A
 * short pause inside the motion (fewer still frames than a scene needs)
 * does not. */
static void remember(wch_motion *m, bool moving) {
  if (moving && (m->run >= m->cfg.still_frames || m->n_history == 0)) {
    m->n_history = 0;
    m->keep_every = 1;
    m->since_kept = 0;
    if (m->have_prev) keep_frame(m, m->raw_prev, m->fed - 1);
  }
  if (!moving && m->run >= m->cfg.still_frames) return; /* the scene is still */
  if (++m->since_kept < m->keep_every) return;
  m->since_kept = 0;
  keep_frame(m, m->raw_now, m->fed);
}

tp_status wch_motion_feed(wch_motion *m, const tp_image *gray,
                          wch_motion_result *out, tp_error *err) {
  memset(out, 0, sizeof *out);
  if (!gray || !gray->data || gray->width < 1 || gray->height < 1)
    return tp_error_set(err, TP_ERR_INVALID, "motion: empty frame");
  int w = m->cfg.width < gray->width ? m->cfg.width : gray->width;
  int h = (int)((long)gray->height * w / gray->width);
  if (h < 1) h = 1;
  if (w != m->w || h != m->h) {
    free(m->prev);
    free(m->cur);
    free(m->history);
    free(m->raw_prev);
    free(m->raw_now);
    m->prev = malloc(sizeof(float) * (size_t)(w * h));
    m->cur = malloc(sizeof(float) * (size_t)(w * h));
    long cap = HISTORY_BYTES / ((long)w * h);
    m->history_cap = cap > HISTORY_MAX ? HISTORY_MAX : cap < HISTORY_MIN ? HISTORY_MIN : (int)cap;
    m->history = malloc((size_t)m->history_cap * (size_t)(w * h));
    m->raw_prev = malloc((size_t)(w * h));
    m->raw_now = malloc((size_t)(w * h));
    m->w = w, m->h = h, m->have_prev = false, m->n_history = 0;
    if (!m->prev || !m->cur || !m->history || !m->raw_prev || !m->raw_now) {
      m->w = m->h = 0; /* allocated again with the next frame */
      return tp_error_set(err, TP_ERR_NOMEM, "motion: out of memory");
    }
  }
  m->gray_w = gray->width, m->gray_h = gray->height;
  m->fed++;
  shrink(gray, w, h, m->cur);
  uint8_t *older = m->raw_prev;
  m->raw_prev = m->raw_now;
  m->raw_now = older;
  to_bytes(m->cur, (size_t)(w * h), m->raw_now);
  normalise(m->cur, w * h);
  int changed = 0;
  if (m->have_prev)
    for (int i = 0; i < w * h; i++)
      changed += fabsf(m->cur[i] - m->prev[i]) > m->cfg.noise_level;
  out->changed = m->have_prev ? (double)changed / (w * h) : 1.0;
  remember(m, out->changed > m->cfg.max_changed);
  float *t = m->prev;
  m->prev = m->cur;
  m->cur = t;
  m->have_prev = true;
  if (out->changed <= m->cfg.max_changed) {
    m->run++;
  } else {
    m->run = 0;
    m->decided = false;
  }
  out->run = m->run;
  /* the first frame of a run is the one after the motion: it may still be
   * blurred, so the run has to be long enough without it */
  out->still = m->run >= m->cfg.still_frames;
  out->settled = out->still && !m->decided;
  if (out->settled) m->decided = true;
  return TP_OK;
}

static bool inside_quad(const double q[4][2], double x, double y) {
  int sign = 0;
  for (int i = 0; i < 4; i++) {
    const double *a = q[i], *b = q[(i + 1) % 4];
    double cross = (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]);
    int s = cross > 0 ? 1 : cross < 0 ? -1 : 0;
    if (s && sign && s != sign) return false;
    if (s) sign = s;
  }
  return true;
}

/* The light change from a kept frame to now: the median ratio of their
 * pixels (most of the table did not change; a camera's exposure or a
 * lamp may have). */
static float gain_to_now(const wch_motion *m, const uint8_t *then) {
  enum { BINS = 400 }; /* ratios 0.5..2.5 in steps of 0.005 */
  int count[BINS] = {0}, n = 0;
  for (size_t i = 0; i < (size_t)m->w * (size_t)m->h; i++) {
    if (then[i] < 16 || m->raw_now[i] < 16) continue; /* too dark to tell */
    int bin = (int)lround(((double)m->raw_now[i] / then[i] - 0.5) * 200);
    count[bin < 0 ? 0 : bin >= BINS ? BINS - 1 : bin]++;
    n++;
  }
  for (int bin = 0, below = 0; bin < BINS; bin++)
    if ((below += count[bin]) * 2 >= n && n > 0) return (float)(0.5 + bin / 200.0);
  return 1.0f;
}

static void measure_gains(wch_motion *m) {
  if (m->gains_at == m->fed) return;
  size_t n = (size_t)m->w * (size_t)m->h;
  for (int k = 0; k < m->n_history; k++)
    m->gain[k] = gain_to_now(m, m->history + (size_t)k * n);
  m->gains_at = m->fed;
}

/* Whether grid pixel i of kept frame k looks as it does now, or as in
 * the first kept frame (the still scene before the motion). */
static bool as_now(const wch_motion *m, int k, size_t i, float tolerance) {
  size_t n = (size_t)m->w * (size_t)m->h;
  return fabsf(m->history[(size_t)k * n + i] * m->gain[k] - m->raw_now[i]) <= tolerance;
}

static bool as_before(const wch_motion *m, int k, size_t i, float tolerance) {
  size_t n = (size_t)m->w * (size_t)m->h;
  return fabsf(m->history[(size_t)k * n + i] * m->gain[k] - m->history[i] * m->gain[0]) <= tolerance;
}

/* The grid pixels inside the quad (frame pixels), drawn in by a fifth
 * towards its centre (its border pixels also show what lies around it),
 * that look otherwise now than before the motion; how many (<= max). */
static int changed_inside(const wch_motion *m, const double corners_px[4][2],
                          float tolerance, uint32_t *out, int max) {
  double q[4][2], cx = 0, cy = 0, sx = (double)m->w / m->gray_w,
                  sy = (double)m->h / m->gray_h;
  for (int k = 0; k < 4; k++) cx += corners_px[k][0] * sx / 4, cy += corners_px[k][1] * sy / 4;
  double x0 = 1e9, y0 = 1e9, x1 = -1e9, y1 = -1e9;
  for (int k = 0; k < 4; k++) {
    q[k][0] = cx + 0.8 * (corners_px[k][0] * sx - cx);
    q[k][1] = cy + 0.8 * (corners_px[k][1] * sy - cy);
    x0 = fmin(x0, q[k][0]), x1 = fmax(x1, q[k][0]);
    y0 = fmin(y0, q[k][1]), y1 = fmax(y1, q[k][1]);
  }
  /* clamped before they become ints: a place far off the frame maps to
   * huge numbers */
  int ya = (int)fmax(0, fmin(m->h, floor(y0))), yb = (int)fmin(m->h - 1, fmax(-1, ceil(y1)));
  int xa = (int)fmax(0, fmin(m->w, floor(x0))), xb = (int)fmin(m->w - 1, fmax(-1, ceil(x1)));
  int n = 0;
  for (int y = ya; y <= yb; y++)
    for (int x = xa; x <= xb; x++) {
      uint32_t i = (uint32_t)y * (uint32_t)m->w + (uint32_t)x;
      if (n < max && inside_quad(q, x + 0.5, y + 0.5) && !as_now(m, 0, i, tolerance))
        out[n++] = i;
    }
  return n;
}

/* How many of the place's pixels look as before the motion (the table),
 * and as now, in each kept frame. */
static void count_looks(const wch_motion *m, const uint32_t *pixels, int n, float tolerance,
                        int *as_table, int *as_card) {
  for (int k = 0; k < m->n_history; k++) {
    as_table[k] = as_card[k] = 0;
    for (int p = 0; p < n; p++) {
      as_table[k] += as_before(m, k, pixels[p], tolerance);
      as_card[k] += as_now(m, k, pixels[p], tolerance);
    }
  }
}

/* The kept frame from which on the place counts as covered: the step
 * that fewest frames contradict (a frame before it showing the card, or
 * one from it on showing the table; "showing": 6 in 10 of its pixels),
 * the earliest of equals. Hand and arm hide both, and go; a sleeve as
 * dark as the cloth may look like the table over a card laid long before
 * (normal game 3:822 round 2). */
static int covered_from(int n_history, const int *as_table, const int *as_card, int n) {
  int cost = 0; /* with the step at 1: every frame showing the table */
  for (int k = 1; k < n_history; k++) cost += as_table[k] * 10 >= 6 * n;
  int best = 1, best_cost = cost;
  for (int step = 2; step <= n_history; step++) {
    cost += (as_card[step - 1] * 10 >= 6 * n) - (as_table[step - 1] * 10 >= 6 * n);
    if (cost < best_cost) best = step, best_cost = cost;
  }
  return best;
}

bool wch_motion_came(wch_motion *m, const double corners_px[4][2], wch_motion_arrival *out) {
  *out = (wch_motion_arrival){-1, -1};
  if (!m || !m->history || m->n_history < 2 || m->gray_w < 1) return false;
  measure_gains(m);
  enum { MAX_PIXELS = 4096, MIN_PIXELS = 6 };
  uint32_t pixels[MAX_PIXELS];
  float tolerance = (float)(2 * m->cfg.noise_level);
  int n = changed_inside(m, corners_px, tolerance, pixels, MAX_PIXELS);
  if (n < MIN_PIXELS) return false;
  int as_table[HISTORY_MAX], as_card[HISTORY_MAX];
  count_looks(m, pixels, n, tolerance, as_table, as_card);
  int k = covered_from(m->n_history, as_table, as_card, n);
  out->covered = k < m->n_history ? m->history_frame[k] : m->fed;
  /* the hand that lays a card hides most of it until it moves on */
  while (k < m->n_history && as_card[k] * 10 < 9 * n) k++;
  out->shown = k < m->n_history ? m->history_frame[k] : m->fed;
  return true;
}
